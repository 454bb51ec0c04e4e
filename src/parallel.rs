//! Work split over threads outside the dataflow: the ground stage and the writers cut their
//! input into parts and run each part on its own scoped thread, results kept in part order
//! so that the output never depends on the thread count.

use std::ops::Range;

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

/// `range` cut into `parts` contiguous ranges of about equal length (at least one range;
/// none empty unless `range` is).
pub fn split(range: Range<usize>, parts: usize) -> Vec<Range<usize>> {
    let len = range.len();
    let parts = parts.clamp(1, len.max(1));
    (0..parts)
        .map(|p| range.start + p * len / parts..range.start + (p + 1) * len / parts)
        .collect()
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
        let order = x.cmp(y);
        if order.is_le() {
            out.extend(a.next());
        }
        if order.is_ge() {
            let y = b.next();
            if order.is_gt() {
                out.extend(y);
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
