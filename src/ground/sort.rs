//! Sorting rules by head then body, each once, on several threads, from the lists the
//! threads made, into a [`Rules`] of sorted lists.

use super::rules::{Flat, GroundLiteral, Rules};
use super::AtomId;
use crate::graph::Lists;
use crate::parallel;
use std::ops::Range;

impl Rules {
    /// The rules sorted by head then body, each once, on up to `threads` threads
    /// ([`Rules::sort_parts`] of its lists). A few rules (what an edit adds) are compared
    /// directly: the counting sort's arrays are as long as the atom ids (connect four's
    /// goal edits spent a fifth of their patch there, for one or two rules).
    pub fn sorted(&self, threads: usize) -> Rules {
        if self.len() <= FEW_RULES {
            let mut rules: Vec<_> = self.iter().collect();
            rules.sort_unstable();
            rules.dedup();
            return rules.into_iter().collect();
        }
        let no_more = |rules| (rules, Vec::<()>::new());
        Rules::sort_parts(self.lists(), threads, no_more).0
    }

    /// The rules of `parts` sorted by head then body, each once, on up to `threads` threads;
    /// each part of the result (a range of heads, sorted) passed through `then` on its
    /// thread, for work done head by head such as dropping subsumed rules. The sorted parts
    /// are the lists of the result, in the order of the heads, not copied again, and the
    /// lists `then` returns are concatenated in that order. The result does not depend on
    /// `threads`, nor on how the rules are cut into parts, so the parts the threads made need
    /// not be concatenated first (racer4's 4.6 M rules: 0.11 s on two threads).
    ///
    /// Each part's rules are first grouped by head on its own thread (a counting sort: heads
    /// are atom ids), then each head's rules are gathered from every part and sorted by packed
    /// body prefixes (the first four literals in one `u128`, ordered as bodies are), touching
    /// the literals only for ties. Groups are small, so this costs far less than one
    /// comparison sort of all rules (skirmish: 2.7 M rules over 25 k heads). Ranges of heads
    /// with about equal numbers of rules are sorted on their own, a few per thread, taken as
    /// threads come free: what `then` costs varies from head to head.
    pub fn sort_parts<X: Send>(
        parts: &[Flat],
        threads: usize,
        then: impl Fn(Flat) -> (Flat, Vec<X>) + Sync,
    ) -> (Rules, Vec<X>) {
        let all_heads = parts.iter().flat_map(|part| part.heads());
        let heads = all_heads.max().map_or(0, |&h| h as usize + 1);
        let grouped = parallel::map_parts(parts.iter().collect(), |part| part.by_head(heads));
        // Where each head's rules start among all parts' rules, grouped by head.
        let mut starts = vec![0usize; heads + 1];
        for lists in &grouped {
            (0..heads).for_each(|h| starts[h + 1] += lists.get(h).len());
        }
        (0..heads).for_each(|h| starts[h + 1] += starts[h]);
        let len = starts[heads];
        // One thread sorts in one part: any more is overhead.
        let per_thread = if threads > 1 { PARTS_PER_THREAD } else { 1 };
        let count = (threads * per_thread).clamp(1, (len / MIN_RULES_PER_PART).max(1));
        // Part p starts at the first head whose rules start at or past p/count of all rules.
        let mut cuts: Vec<usize> = (1..count)
            .map(|p| starts.partition_point(|&s| s < p * len / count))
            .collect();
        cuts.insert(0, 0);
        cuts.push(heads);
        let sorting = Sorting {
            parts,
            grouped: &grouped,
            rules: len,
            literals: parts.iter().map(Flat::literal_count).sum(),
        };
        let done = parallel::share(count, threads, Vec::new, |done, p| {
            let range = cuts[p]..cuts[p + 1];
            let part = sorting.sorted(range.clone(), starts[range.end] - starts[range.start]);
            done.push((p, then(part)));
        });
        let mut done: Vec<_> = done.into_iter().flatten().collect();
        done.sort_unstable_by_key(|&(p, _)| p);
        let (mut sorted, mut found) = (Vec::new(), Vec::new());
        for (_, (part, more)) in done {
            sorted.push(part);
            found.extend(more);
        }
        (Rules::concat(sorted), found)
    }
}

/// What [`Rules::sort_parts`] sorts: the parts, their rules grouped by head, and how many
/// rules and literals they have in all.
struct Sorting<'a> {
    parts: &'a [Flat],
    grouped: &'a [Lists<u32>],
    rules: usize,
    literals: usize,
}

impl Sorting<'_> {
    /// The rules of the heads in `heads` (`rules` of them), by ascending head, each head's
    /// sorted by body and each rule once.
    fn sorted(&self, heads: Range<usize>, rules: usize) -> Flat {
        let (parts, grouped) = (self.parts, self.grouped);
        // Room for the literals of as many rules of the parts' average length: counting them
        // would read every rule once more, out of order.
        let room = self.literals * rules / self.rules.max(1);
        let mut sorted = Flat::with_capacity(rules, room);
        // A rule as (part, index in it).
        let rule = |(p, r): (u32, u32)| parts[p as usize].get(r as usize);
        let mut keys: Vec<(u128, (u32, u32))> = Vec::new();
        for h in heads {
            keys.clear();
            for (p, lists) in grouped.iter().enumerate() {
                let at = (lists.get(h).iter()).map(|&r| (p as u32, r));
                keys.extend(at.map(|at| (body_prefix(rule(at).body), at)));
            }
            let body = |at| rule(at).body;
            keys.sort_unstable_by(|a, b| (a.0.cmp(&b.0)).then_with(|| body(a.1).cmp(body(b.1))));
            keys.dedup_by(|a, b| a.0 == b.0 && body(a.1) == body(b.1));
            for &(_, at) in &keys {
                sorted.push(h as AtomId, body(at));
            }
        }
        sorted
    }
}

/// A body's first four literals packed so that comparing prefixes orders bodies as comparing
/// the slices does (a literal `(negated, atom)` as `1 + negated·2^31 + atom`, a missing one as
/// 0, which sorts a shorter body first).
fn body_prefix(body: &[GroundLiteral]) -> u128 {
    (0..4).fold(0u128, |key, i| {
        let code = body.get(i).map_or(0, |&(negated, a)| {
            debug_assert!(a < (1 << 31) - 1, "atom ids fit in 31 bits");
            1 + ((negated as u32) << 31 | a)
        });
        key << 32 | code as u128
    })
}

/// At most this many rules are sorted by comparisons, not by [`Rules::sort_parts`].
const FEW_RULES: usize = 64;

/// Fewer rules than this per part are sorted in fewer parts: handing a part to a thread costs
/// more than sorting them.
const MIN_RULES_PER_PART: usize = 50_000;

/// How many parts [`Rules::sort_parts`] makes per thread when there are several, so that a
/// thread that is done early takes another instead of waiting.
const PARTS_PER_THREAD: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorting by head and packed body prefixes orders and deduplicates exactly as comparing
    /// rules does, on one, two and three threads (three parts, so two threads take turns):
    /// bodies of every length up to 6 (so ties past the prefix), negations, large atom ids.
    #[test]
    fn sorting_by_prefixes_is_sorting_by_rules() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut rules = Rules::default();
        let mut reference: Vec<(AtomId, Vec<GroundLiteral>)> = Vec::new();
        for _ in 0..3 * MIN_RULES_PER_PART {
            let head = next(40) as AtomId;
            let len = 1 + next(6) as usize;
            let body: Vec<GroundLiteral> = (0..len)
                .map(|_| {
                    let atom = if next(10) == 0 {
                        (1 << 31) - 2 - next(3)
                    } else {
                        next(3)
                    };
                    (next(2) == 1, atom as AtomId)
                })
                .collect();
            rules.push(head, &body);
            reference.push((head, body));
        }
        reference.sort();
        reference.dedup();
        let sorted = rules.sorted(1);
        // A few of them, sorted by comparisons, as the counting sort orders them.
        let few: Rules = rules.iter().take(FEW_RULES).collect();
        let no_more = |rules| (rules, Vec::<()>::new());
        assert_eq!(few.sorted(1), Rules::sort_parts(few.lists(), 1, no_more).0);
        // Two threads take three parts between them; three take one each.
        assert_eq!(rules.sorted(2), sorted);
        assert_eq!(rules.sorted(3), sorted);
        // The same rules cut into uneven parts (one empty), as the threads make them.
        let cuts = [0, 7, 7, rules.len() / 2, rules.len()];
        let parts: Vec<Flat> = (cuts.windows(2))
            .map(|w| {
                let mut part = Flat::default();
                (w[0]..w[1]).for_each(|r| part.push(rules.get(r).head, rules.get(r).body));
                part
            })
            .collect();
        for threads in 1..=3 {
            assert_eq!(Rules::sort_parts(&parts, threads, no_more).0, sorted);
        }
        let got: Vec<(AtomId, Vec<GroundLiteral>)> =
            sorted.iter().map(|r| (r.head, r.body.to_vec())).collect();
        assert_eq!(got, reference);
    }
}
