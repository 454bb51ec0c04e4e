//! Work split over threads outside the dataflow: the ground stage and the writers cut their
//! input into parts and run the parts on scoped threads, results kept in part order (or
//! combined so that order does not matter), so that the output never depends on the thread
//! count.

use std::cmp::Ordering;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

/// `f` applied to each of `parts`, each on its own scoped thread (a single part runs on this
/// thread, sparing a thread start and its fresh allocator arena); results in part order.
pub fn map_parts<P: Send, T: Send>(parts: Vec<P>, f: impl Fn(P) -> T + Sync) -> Vec<T> {
    if parts.len() <= 1 {
        return parts.into_iter().map(f).collect();
    }
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (parts.into_iter())
            .map(|part| scope.spawn(move || f(part)))
            .collect();
        (handles.into_iter())
            .map(|h| h.join().expect("a worker thread panicked"))
            .collect()
    })
}

/// Parts `0..count` done on up to `threads` scoped threads, each thread taking the next part
/// no thread has taken and doing it with `work` into an accumulator of its own (made by
/// `init`): parts of uneven cost keep every thread busy to the end, where a fixed share per
/// thread left one waiting for the other (0.3 s of alexChess__v1's rule building). Returns
/// the accumulators, one per thread, in no particular order; which parts an accumulator got
/// depends on timing, so callers must not depend on it. One thread (or one part) runs here.
pub fn share<A: Send>(
    count: usize,
    threads: usize,
    init: impl Fn() -> A + Sync,
    work: impl Fn(&mut A, usize) + Sync,
) -> Vec<A> {
    let threads = threads.clamp(1, count.max(1));
    let next = AtomicUsize::new(0);
    let run = || {
        let mut acc = init();
        loop {
            let i = next.fetch_add(1, AtomicOrdering::Relaxed);
            if i >= count {
                return acc;
            }
            work(&mut acc, i);
        }
    };
    if threads == 1 {
        return vec![run()];
    }
    map_parts(vec![(); threads], |()| run())
}

/// `range` cut into `parts` contiguous ranges of about equal length (at least one range;
/// none empty unless `range` is).
pub fn split(range: Range<usize>, parts: usize) -> Vec<Range<usize>> {
    let len = range.len();
    let parts = parts.clamp(1, len.max(1));
    (0..parts)
        .map(|p| range.start + p * len / parts..range.start + (p + 1) * len / parts)
        .collect()
}

/// Makes parts `0..count` with `make` on `threads` threads (part `i` on thread `i` mod
/// `threads`, each thread at most a part ahead of the one being taken) and hands them to
/// `take` in order on this thread: taking one part (writing it) overlaps making the next
/// ones. `make` fills a buffer that may hold an earlier part, which it clears first: the
/// buffers go back to their thread once taken, so only a few exist and none is freed by
/// another thread than the one that grew it. Stops at the first error of `take`.
pub fn in_order<T: Send + Default, E>(
    count: usize,
    threads: usize,
    make: impl Fn(usize, &mut T) + Sync,
    mut take: impl FnMut(&T) -> Result<(), E>,
) -> Result<(), E> {
    if threads <= 1 {
        let mut buffer = T::default();
        return (0..count).try_for_each(|i| {
            make(i, &mut buffer);
            take(&buffer)
        });
    }
    let make = &make;
    std::thread::scope(|scope| {
        let channels: Vec<_> = (0..threads)
            .map(|t| {
                let (send, made) = std::sync::mpsc::sync_channel::<T>(1);
                let (give_back, back) = std::sync::mpsc::channel::<T>();
                // A failed send means the taker stopped: so does the thread.
                scope.spawn(move || {
                    (t..count).step_by(threads).try_for_each(|i| {
                        let mut buffer = back.try_recv().unwrap_or_default();
                        make(i, &mut buffer);
                        send.send(buffer)
                    })
                });
                (made, give_back)
            })
            .collect();
        (0..count).try_for_each(|i| {
            let (made, give_back) = &channels[i % threads];
            let part = made.recv().expect("a worker thread panicked");
            take(&part)?;
            // The thread may have finished: then the buffer is simply dropped.
            let _ = give_back.send(part);
            Ok(())
        })
    })
}

/// Sorted lists, each without duplicates, merged into one sorted list without duplicates.
pub fn merge_sorted<T: Ord>(lists: Vec<Vec<T>>) -> Vec<T> {
    lists.into_iter().reduce(merge_two).unwrap_or_default()
}

/// Two sorted lists without duplicates merged, an item in both kept once.
fn merge_two<T: Ord>(a: Vec<T>, b: Vec<T>) -> Vec<T> {
    if a.is_empty() || b.is_empty() {
        return if a.is_empty() { b } else { a };
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        match x.cmp(y) {
            Ordering::Less => out.extend(a.next()),
            Ordering::Greater => out.extend(b.next()),
            Ordering::Equal => {
                out.extend(a.next());
                b.next();
            }
        }
    }
    out.extend(a);
    out.extend(b);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_mapped_in_order_on_any_count_of_threads() {
        for n in [0, 1, 2, 5] {
            let parts: Vec<usize> = (0..n).collect();
            assert_eq!(
                map_parts(parts, |p| p * 10),
                (0..n).map(|p| p * 10).collect::<Vec<_>>()
            );
        }
    }

    /// Every part is done exactly once, by one of at most `threads` accumulators, whatever
    /// the costs of the parts; no part at all leaves one empty accumulator.
    #[test]
    fn shared_parts_are_each_done_once() {
        for (count, threads) in [(0, 2), (1, 3), (7, 1), (100, 2), (100, 3), (3, 8)] {
            let accs = share(count, threads, Vec::new, |acc: &mut Vec<usize>, i| {
                // Uneven costs: every tenth part takes a while.
                if i % 10 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                acc.push(i);
            });
            assert!(
                !accs.is_empty() && accs.len() <= threads.max(1),
                "{count} {threads}"
            );
            let mut done: Vec<usize> = accs.into_iter().flatten().collect();
            done.sort_unstable();
            assert_eq!(done, (0..count).collect::<Vec<_>>(), "{count} {threads}");
        }
    }

    #[test]
    fn parts_are_taken_in_order_and_an_error_stops_the_makers() {
        for threads in [1, 2, 3] {
            let mut taken = Vec::new();
            let done: Result<(), ()> = in_order(
                50,
                threads,
                |i, out: &mut usize| *out = i * i,
                |&x| {
                    taken.push(x);
                    Ok(())
                },
            );
            assert_eq!(done, Ok(()));
            assert_eq!(
                taken,
                (0..50).map(|i| i * i).collect::<Vec<_>>(),
                "{threads}"
            );
            let made = std::sync::atomic::AtomicUsize::new(0);
            let stopped = in_order(
                10_000,
                threads,
                |i, out: &mut usize| {
                    made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    *out = i;
                },
                |&i| if i == 7 { Err(i) } else { Ok(()) },
            );
            assert_eq!(stopped, Err(7));
            assert!(
                made.into_inner() < 100,
                "the makers stop soon after an error"
            );
        }
    }

    #[test]
    fn a_range_is_split_into_contiguous_parts_that_cover_it() {
        assert_eq!(split(3..10, 3), vec![3..5, 5..7, 7..10]);
        assert_eq!(split(0..2, 4), vec![0..1, 1..2]);
        assert_eq!(split(5..5, 2), vec![5..5]);
        assert_eq!(split(0..7, 0), vec![0..7]);
    }

    #[test]
    fn merging_keeps_an_item_of_several_lists_once() {
        let lists = vec![vec![1, 4, 6], vec![], vec![2, 4, 9], vec![4, 6]];
        assert_eq!(merge_sorted(lists), vec![1, 2, 4, 6, 9]);
        assert_eq!(merge_sorted(Vec::<Vec<u8>>::new()), Vec::<u8>::new());
    }
}
