//! The system allocator, counting: a bench that installs it (`#[global_allocator]`)
//! reads the bytes live, the allocations made and the bytes they asked for. Exact
//! whatever the machine load; on several threads, counts of the whole process. Counting
//! costs contended atomics on every allocation (a few percent of a server's CPU on
//! two cores): a bench that times something pauses it ([`set_counting`]).
#![allow(dead_code)] // each bench reads some of the counts

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

/// See the module docs.
pub struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(true);
static LIVE: AtomicI64 = AtomicI64::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

/// Counts from now on (`true`, the start) or not. What a pause leaves uncounted (a
/// block it allocates and a later count frees, or the reverse) is a constant offset to
/// [`live`], which a difference of two readings cancels.
pub fn set_counting(on: bool) {
    COUNTING.store(on, Ordering::Relaxed);
}

fn counting() -> bool {
    COUNTING.load(Ordering::Relaxed)
}

/// Bytes allocated and not yet freed.
pub fn live() -> i64 {
    LIVE.load(Ordering::Relaxed)
}

/// Allocations made so far (a `realloc` counts as one).
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

/// Bytes asked for so far (a `realloc` counts its new size).
pub fn bytes() -> u64 {
    BYTES.load(Ordering::Relaxed)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && counting() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
            LIVE.fetch_add(layout.size() as i64, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        if counting() {
            LIVE.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() && counting() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
            LIVE.fetch_add(new_size as i64 - layout.size() as i64, Ordering::Relaxed);
        }
        p
    }
}
