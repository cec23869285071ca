//! A small order-preserving parallel map over the machine's cores.
//!
//! Generating Rust for a directory of CRDs is independent per file and per CRD
//! (YAML parsing, lowering, formatting), so the work is spread over
//! `available_parallelism` scoped threads pulling items from a shared counter. No
//! thread-pool dependency: the default build stays lean.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Stack of each worker: lowering, emission and formatting recurse once per schema
/// level, and the deepest corpus schemas nest eighteen levels of structs.
const WORKER_STACK: usize = 32 * 1024 * 1024;

/// `items.iter().map(f).collect()`, on up to `available_parallelism` threads.
/// Results are in input order. Items are taken in the order of `cost` (largest
/// first), so one huge item does not start last and leave the other cores idle.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    cost: impl Fn(&T) -> usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cost(&items[i])));
    let next = AtomicUsize::new(0);
    let (order, next, f) = (&order, &next, &f);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(scope, move || {
                        let mut out = Vec::new();
                        loop {
                            let k = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&i) = order.get(k) else { break };
                            out.push((i, f(&items[i])));
                        }
                        out
                    })
            })
            .collect();
        let mut done = Vec::with_capacity(items.len());
        let mut failed = None;
        for w in workers {
            match w {
                Ok(handle) => match handle.join() {
                    Ok(part) => done.extend(part),
                    Err(panic) => std::panic::resume_unwind(panic),
                },
                Err(e) => failed = Some(e),
            }
        }
        // A thread that could not be spawned left its share to the others; any
        // item nobody took is done here.
        if failed.is_some() {
            let mut seen = vec![false; items.len()];
            done.iter().for_each(|(i, _)| seen[*i] = true);
            for (i, item) in items.iter().enumerate() {
                if !seen[i] {
                    done.push((i, f(item)));
                }
            }
        }
        done
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_input_order() {
        let items: Vec<usize> = (0..1000).collect();
        let out = super::map(&items, |&i| i % 7, |&i| i * 2);
        assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert!(super::map(&[] as &[u8], |_| 0, |&b| b).is_empty());
    }
}
