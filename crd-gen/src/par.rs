//! crd-gen's worker pool: one rayon pool whose threads have stacks big enough for the
//! deepest schemas, an order-preserving parallel map over it, and the ordered
//! pipeline `crd-gen validate` streams its input through.
//!
//! Generating Rust for a directory of CRDs is independent per file and per CRD
//! (YAML parsing, lowering, formatting), and validating objects is independent per
//! object; results are always handed back in input order.

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::sync::mpsc;

use rayon::prelude::*;

/// Stack of each worker: lowering, emission and formatting recurse once per schema
/// level, and the deepest corpus schemas nest eighteen levels of structs.
const WORKER_STACK: usize = 32 * 1024 * 1024;

/// How many workers run: the cores this process may use (`available_parallelism`
/// follows the CPU affinity mask, so `taskset -c 0` gives one).
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The pool, built on first use with [`threads`] workers of [`WORKER_STACK`] bytes.
/// `None` when the threads cannot be started; the callers then run on their own
/// thread.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads())
            .stack_size(WORKER_STACK)
            .thread_name(|i| format!("crd-gen-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// `items.iter().map(f).collect()`, on the pool's workers. Results are in input
/// order. Items are started in the order of `cost` (largest first), so one huge item
/// does not start last and leave the other cores idle.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    cost: impl Fn(&T) -> usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let pool = match pool() {
        Some(pool) if items.len() > 1 && pool.current_num_threads() > 1 => pool,
        _ => return items.iter().map(f).collect(),
    };
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cost(&items[i])));
    // One item per task: the workers take the next largest item when they are free.
    let mut done: Vec<(usize, R)> = pool.install(|| {
        order
            .par_iter()
            .with_max_len(1)
            .map(|&i| (i, f(&items[i])))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Batches handed to the workers but not yet written, per worker: bounds the memory
/// while the output waits for a slow batch.
const IN_FLIGHT_PER_WORKER: usize = 3;

/// Feeds the items `produce` yields, in batches of `batch_size`, to `work` on the
/// pool, and calls `emit` with each batch's result in the order the batches were cut
/// (so the output equals a one-by-one run). `produce` and `emit` run on the caller's
/// thread; at most a few batches per worker are in flight, so the input streams
/// through in bounded memory. With one worker everything runs on the caller's
/// thread.
pub fn ordered<I: Send, R: Send>(
    batch_size: usize,
    produce: impl FnOnce(&mut dyn FnMut(I)),
    work: impl Fn(Vec<I>) -> R + Sync,
    mut emit: impl FnMut(R),
) {
    let pool = match pool() {
        Some(pool) if pool.current_num_threads() > 1 => pool,
        _ => {
            let mut batch = Vec::with_capacity(batch_size);
            produce(&mut |item| {
                batch.push(item);
                if batch.len() == batch_size {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(batch_size));
                    emit(work(full));
                }
            });
            if !batch.is_empty() {
                emit(work(batch));
            }
            return;
        }
    };
    let limit = pool.current_num_threads() * IN_FLIGHT_PER_WORKER;
    // A worker's panic travels with its batch and is resumed on the caller's thread,
    // which would otherwise wait for that batch forever.
    type Done<R> = (usize, std::thread::Result<R>);
    let (done_tx, done_rx) = mpsc::channel::<Done<R>>();
    let work = &work;
    // The caller's thread reads and writes; the pool's workers do `work`.
    pool.in_place_scope(|scope| {
        let mut pending: BTreeMap<usize, R> = BTreeMap::new();
        let (mut sent, mut written) = (0, 0);
        let mut take = |(seq, r): Done<R>, written: &mut usize| {
            match r {
                Ok(r) => pending.insert(seq, r),
                Err(panic) => std::panic::resume_unwind(panic),
            };
            while let Some(r) = pending.remove(written) {
                emit(r);
                *written += 1;
            }
        };
        let wait = |take: &mut dyn FnMut(Done<R>)| {
            // Every batch out holds a sender, so this returns.
            if let Ok(done) = done_rx.recv() {
                take(done);
            }
        };
        let mut send = |items: Vec<I>, sent: &mut usize, written: &mut usize| {
            // Wait for the oldest batches while too many are out.
            while *sent - *written >= limit {
                wait(&mut |done| take(done, written));
            }
            let done_tx = done_tx.clone();
            let seq = *sent;
            scope.spawn(move |_| {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(items)));
                // The receiver lives until every batch is written.
                let _ = done_tx.send((seq, r));
            });
            *sent += 1;
        };
        let mut batch = Vec::with_capacity(batch_size);
        produce(&mut |item| {
            batch.push(item);
            if batch.len() == batch_size {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(batch_size));
                send(full, &mut sent, &mut written);
            }
        });
        if !batch.is_empty() {
            send(batch, &mut sent, &mut written);
        }
        while written < sent {
            wait(&mut |done| take(done, &mut written));
        }
    });
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    #[test]
    fn keeps_input_order() {
        let items: Vec<usize> = (0..1000).collect();
        let out = super::map(&items, |&i| i % 7, |&i| i * 2);
        assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert!(super::map(&[] as &[u8], |_| 0, |&b| b).is_empty());
    }

    #[test]
    fn workers_have_big_stacks() {
        fn depth(n: usize) -> usize {
            // About 1 KB of stack per level: 4,000 levels need more than the 2 MB
            // a thread gets by default.
            let pad = std::hint::black_box([0u8; 1024]);
            if n == 0 {
                usize::from(pad[0])
            } else {
                depth(n - 1) + usize::from(pad[n % 1024] == 1)
            }
        }
        // On a worker of the pool, whatever the number of cores.
        let pool = super::pool().expect("the pool starts");
        assert_eq!(pool.install(|| depth(4_000)), 0);
    }

    #[test]
    fn ordered_results_come_back_in_input_order_with_few_batches_out() {
        let (fed, emitted, most_ahead) = (Cell::new(0), Cell::new(0), Cell::new(0));
        let mut out = Vec::new();
        super::ordered(
            256,
            |feed| {
                for i in 0..10_000u32 {
                    fed.set(fed.get() + 1);
                    most_ahead.set(most_ahead.get().max(fed.get() - emitted.get()));
                    feed(i);
                }
            },
            |batch: Vec<u32>| {
                // Uneven work, so batches finish out of order.
                if batch[0].is_multiple_of(512) {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                batch.iter().map(|i| i * 2).collect::<Vec<_>>()
            },
            |r| {
                emitted.set(emitted.get() + r.len());
                out.extend(r);
            },
        );
        assert_eq!(out, (0..10_000u32).map(|i| i * 2).collect::<Vec<_>>());
        // The items of the batches out, plus the one being filled.
        let bound = (super::threads() * super::IN_FLIGHT_PER_WORKER + 1) * 256;
        assert!(most_ahead.get() <= bound, "{} > {bound}", most_ahead.get());
    }

    #[test]
    fn a_panic_in_ordered_work_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            super::ordered(
                4,
                |feed| (0..100u32).for_each(feed),
                |batch: Vec<u32>| assert!(!batch.contains(&50), "batch with 50"),
                |()| {},
            )
        });
        assert!(caught.is_err());
    }
}
