//! Work on every core with the output in input order: the reading thread cuts the
//! input into batches, workers process them, and results are handed back in the
//! order the batches were cut (so the output equals a one-by-one run).

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

/// Items per batch: large enough that hand-offs cost nothing next to the work,
/// small enough to keep every core busy and memory flat.
pub const BATCH: usize = 256;

/// Feeds the items `produce` yields, in batches of `batch`, to `work` on `threads`
/// workers, and calls `emit` with each batch's result in order. With one thread
/// everything runs on the caller's thread.
pub fn run<I: Send, R: Send>(
    threads: usize,
    batch_size: usize,
    produce: impl FnOnce(&mut dyn FnMut(I)),
    work: impl Fn(Vec<I>) -> R + Sync,
    mut emit: impl FnMut(R),
) {
    if threads <= 1 {
        let mut batch = Vec::with_capacity(batch_size);
        produce(&mut |item| {
            batch.push(item);
            if batch.len() == batch_size {
                emit(work(std::mem::replace(
                    &mut batch,
                    Vec::with_capacity(batch_size),
                )));
            }
        });
        if !batch.is_empty() {
            emit(work(batch));
        }
        return;
    }
    let (job_tx, job_rx) = mpsc::sync_channel::<(usize, Vec<I>)>(threads * 2);
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (done_tx, done_rx) = mpsc::channel::<(usize, R)>();
    let work = &work;
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let job_rx = Arc::clone(&job_rx);
            let done_tx = done_tx.clone();
            scope.spawn(move || {
                loop {
                    // The lock is held only to take the next job.
                    let job = job_rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok((seq, items)) = job else { break };
                    if done_tx.send((seq, work(items))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let mut pending: BTreeMap<usize, R> = BTreeMap::new();
        let mut next_out = 0;
        let mut flush_ready = |pending: &mut BTreeMap<usize, R>, emit: &mut dyn FnMut(R)| {
            while let Some(r) = pending.remove(&next_out) {
                emit(r);
                next_out += 1;
            }
        };
        let mut sent = 0;
        let mut batch = Vec::with_capacity(batch_size);
        produce(&mut |item| {
            batch.push(item);
            if batch.len() == batch_size {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(batch_size));
                // Workers only stop when the job channel closes, so this send succeeds.
                let _ = job_tx.send((sent, full));
                sent += 1;
                while let Ok((seq, r)) = done_rx.try_recv() {
                    pending.insert(seq, r);
                }
                flush_ready(&mut pending, &mut emit);
            }
        });
        if !batch.is_empty() {
            let _ = job_tx.send((sent, batch));
        }
        drop(job_tx);
        for (seq, r) in done_rx.iter() {
            pending.insert(seq, r);
            flush_ready(&mut pending, &mut emit);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_input_order() {
        for threads in [1, 2, 4] {
            let mut out = Vec::new();
            run(
                threads,
                BATCH,
                |feed| (0..10_000u32).for_each(feed),
                |batch: Vec<u32>| {
                    // Uneven work, so batches finish out of order.
                    if batch[0].is_multiple_of(512) {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                    batch.iter().map(|i| i * 2).collect::<Vec<_>>()
                },
                |r| out.extend(r),
            );
            assert_eq!(out, (0..10_000u32).map(|i| i * 2).collect::<Vec<_>>());
        }
    }
}
