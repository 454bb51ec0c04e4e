//! Ground rules stored flat: heads, body bounds and one array of literals, instead of a heap
//! vector per rule (skirmish has 3 million rules; a vector each cost more than the literals).

use super::AtomId;
use crate::graph::Lists;
use crate::parallel;
use std::ops::Range;

/// A body literal: whether negated, and the atom.
pub type GroundLiteral = (bool, AtomId);

/// Rules `head :- body` with non-empty bodies, flat.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    heads: Vec<AtomId>,
    /// Rule `r`'s body is `literals[bounds[r]..bounds[r + 1]]`.
    bounds: Vec<usize>,
    literals: Vec<GroundLiteral>,
}

/// One rule, borrowed from [`Rules`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rule<'a> {
    /// The head atom.
    pub head: AtomId,
    /// Body literals, sorted, each once.
    pub body: &'a [GroundLiteral],
}

impl Rules {
    /// Adds `head :- body`.
    pub fn push(&mut self, head: AtomId, body: &[GroundLiteral]) {
        if self.bounds.is_empty() {
            self.bounds.push(0);
        }
        self.heads.push(head);
        self.literals.extend_from_slice(body);
        self.bounds.push(self.literals.len());
    }

    /// The rules of `parts`, one part after the other, copied on up to `threads` threads into
    /// arrays allocated once (appended one by one on one thread, alexChess__v1's 7.5 M rules
    /// took 0.1 s twice while the other thread waited).
    pub fn concat(parts: Vec<Rules>, threads: usize) -> Rules {
        if parts.len() <= 1 {
            return parts.into_iter().next().unwrap_or_default();
        }
        let rules = parts.iter().map(Rules::len).sum();
        if rules == 0 {
            return Rules::default();
        }
        let literals = parts.iter().map(|p| p.literals.len()).sum();
        let mut all = Rules {
            heads: vec![0; rules],
            bounds: vec![0; rules + 1],
            literals: vec![(false, 0); literals],
        };
        // Each part's share of the three arrays, and where its literals start.
        let mut shares = Vec::new();
        let (mut heads, mut bounds) = (&mut all.heads[..], &mut all.bounds[1..]);
        let (mut rest, mut offset) = (&mut all.literals[..], 0);
        for part in &parts {
            let (h, more_heads) = std::mem::take(&mut heads).split_at_mut(part.len());
            let (b, more_bounds) = std::mem::take(&mut bounds).split_at_mut(part.len());
            let (l, more) = std::mem::take(&mut rest).split_at_mut(part.literals.len());
            (heads, bounds, rest) = (more_heads, more_bounds, more);
            shares.push((part, h, b, l, offset));
            offset += part.literals.len();
        }
        let mut groups: Vec<Vec<_>> = (0..threads.clamp(1, parts.len()))
            .map(|_| Vec::new())
            .collect();
        let count = groups.len();
        for (i, share) in shares.into_iter().enumerate() {
            groups[i % count].push(share);
        }
        parallel::map_parts(groups, |group| {
            for (part, heads, bounds, literals, offset) in group {
                heads.copy_from_slice(&part.heads);
                literals.copy_from_slice(&part.literals);
                let ends = part.bounds.iter().skip(1);
                bounds
                    .iter_mut()
                    .zip(ends)
                    .for_each(|(b, &end)| *b = end + offset);
            }
        });
        all
    }

    /// How many rules there are.
    pub fn len(&self) -> usize {
        self.heads.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// Rule `r`.
    pub fn get(&self, r: usize) -> Rule<'_> {
        Rule {
            head: self.heads[r],
            body: &self.literals[self.bounds[r]..self.bounds[r + 1]],
        }
    }

    /// The rules in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Rule<'_>> + '_ {
        (0..self.len()).map(|r| self.get(r))
    }

    /// The rules `keep` accepts, with the literals `keep_literal` accepts: compacted in place,
    /// each rule moved down over those dropped before it, so no second copy of the arrays is
    /// made (on racer4's 4.6 M rules, copying into fresh arrays took 0.29 s).
    pub fn filtered(
        mut self,
        mut keep: impl FnMut(usize, Rule<'_>) -> bool,
        mut keep_literal: impl FnMut(GroundLiteral) -> bool,
    ) -> Rules {
        let (mut kept, mut end, mut start) = (0, 0, 0);
        for r in 0..self.len() {
            // Rule r's bounds are read before anything is written at or past them: what is
            // written at step r goes to places at most r and its start.
            let next = self.bounds[r + 1];
            let rule = Rule {
                head: self.heads[r],
                body: &self.literals[start..next],
            };
            if keep(r, rule) {
                for i in start..next {
                    let literal = self.literals[i];
                    if keep_literal(literal) {
                        self.literals[end] = literal;
                        end += 1;
                    }
                }
                self.heads[kept] = self.heads[r];
                kept += 1;
                self.bounds[kept] = end;
            }
            start = next;
        }
        self.heads.truncate(kept);
        self.bounds.truncate(kept + 1);
        self.literals.truncate(end);
        if kept == 0 {
            return Rules::default();
        }
        self
    }

    /// The rules sorted by head then body, each once, on up to `threads` threads
    /// ([`Rules::sort_parts`] of this one part).
    pub fn sorted(self, threads: usize) -> Rules {
        let no_more = |rules| (rules, Vec::<()>::new());
        Rules::sort_parts(&[self], threads, no_more).0
    }

    /// The rules of `parts` sorted by head then body, each once, on up to `threads` threads;
    /// each part of the result (a range of heads, sorted) passed through `then` on its
    /// thread, for work done head by head such as dropping subsumed rules. The rules and the
    /// lists `then` returns are concatenated in the order of the heads. The result does not
    /// depend on `threads`, nor on how the rules are cut into parts, so the parts the threads
    /// made need not be concatenated first (racer4's 4.6 M rules: 0.11 s on two threads).
    ///
    /// Each part's rules are first grouped by head on its own thread (a counting sort: heads
    /// are atom ids), then each head's rules are gathered from every part and sorted by packed
    /// body prefixes (the first four literals in one `u128`, ordered as bodies are), touching
    /// the literals only for ties. Groups are small, so this costs far less than one
    /// comparison sort of all rules (skirmish: 2.7 M rules over 25 k heads). Ranges of heads
    /// with about equal numbers of rules are sorted on their own, a few per thread, taken as
    /// threads come free: what `then` costs varies from head to head.
    pub fn sort_parts<X: Send>(
        parts: &[Rules],
        threads: usize,
        then: impl Fn(Rules) -> (Rules, Vec<X>) + Sync,
    ) -> (Rules, Vec<X>) {
        let all_heads = parts.iter().flat_map(|part| part.heads.iter());
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
            literals: parts.iter().map(|part| part.literals.len()).sum(),
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
        (Rules::concat(sorted, threads), found)
    }

    /// The indices of the rules, grouped by head (`heads` past the largest).
    fn by_head(&self, heads: usize) -> Lists<u32> {
        Lists::new(heads, || {
            (self.heads.iter().enumerate()).map(|(r, &h)| (h as usize, r as u32))
        })
    }

    /// Room for `rules` rules with `literals` body literals in all.
    fn with_capacity(rules: usize, literals: usize) -> Rules {
        Rules {
            heads: Vec::with_capacity(rules),
            bounds: Vec::with_capacity(rules + 1),
            literals: Vec::with_capacity(literals),
        }
    }
}

/// What [`Rules::sort_parts`] sorts: the parts, their rules grouped by head, and how many
/// rules and literals they have in all.
struct Sorting<'a> {
    parts: &'a [Rules],
    grouped: &'a [Lists<u32>],
    rules: usize,
    literals: usize,
}

impl Sorting<'_> {
    /// The rules of the heads in `heads` (`rules` of them), by ascending head, each head's
    /// sorted by body and each rule once.
    fn sorted(&self, heads: Range<usize>, rules: usize) -> Rules {
        let (parts, grouped) = (self.parts, self.grouped);
        // Room for the literals of as many rules of the parts' average length: counting them
        // would read every rule once more, out of order.
        let room = self.literals * rules / self.rules.max(1);
        let mut sorted = Rules::with_capacity(rules, room);
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

/// Fewer rules than this per part are sorted in fewer parts: handing a part to a thread costs
/// more than sorting them.
const MIN_RULES_PER_PART: usize = 50_000;

/// How many parts [`Rules::sorted_then`] makes per thread when there are several, so that a
/// thread that is done early takes another instead of waiting.
const PARTS_PER_THREAD: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts concatenated on any number of threads are the rules pushed one after the other:
    /// bounds shifted by the literals before, empty parts and empty bodies kept in place.
    #[test]
    fn concatenated_parts_are_the_rules_in_order() {
        let list: Vec<(AtomId, Vec<GroundLiteral>)> = (0..40u32)
            .map(|i| {
                (
                    i % 7,
                    (0..i % 4).map(|j| (j % 2 == 0, i * 10 + j)).collect(),
                )
            })
            .collect();
        let mut whole = Rules::default();
        list.iter().for_each(|(h, b)| whole.push(*h, b));
        for cuts in [
            vec![0, 40],
            vec![0, 0, 13, 13, 40],
            vec![0, 5, 6, 30, 40, 40],
        ] {
            for threads in 1..=3 {
                let parts = (cuts.windows(2))
                    .map(|w| {
                        let mut part = Rules::default();
                        (list[w[0]..w[1]].iter()).for_each(|(h, b)| part.push(*h, b));
                        part
                    })
                    .collect();
                assert_eq!(Rules::concat(parts, threads), whole, "{cuts:?} {threads}");
            }
        }
    }

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
        let sorted = rules.clone().sorted(1);
        // Two threads take three parts between them; three take one each.
        assert_eq!(rules.clone().sorted(2), sorted);
        assert_eq!(rules.clone().sorted(3), sorted);
        // The same rules cut into uneven parts (one empty), as the threads make them.
        let cuts = [0, 7, 7, rules.len() / 2, rules.len()];
        let parts: Vec<Rules> = (cuts.windows(2))
            .map(|w| {
                let mut part = Rules::default();
                (w[0]..w[1]).for_each(|r| part.push(rules.get(r).head, rules.get(r).body));
                part
            })
            .collect();
        for threads in 1..=3 {
            let no_more = |rules| (rules, Vec::<()>::new());
            assert_eq!(Rules::sort_parts(&parts, threads, no_more).0, sorted);
        }
        let got: Vec<(AtomId, Vec<GroundLiteral>)> =
            sorted.iter().map(|r| (r.head, r.body.to_vec())).collect();
        assert_eq!(got, reference);
    }

    /// Filtering in place keeps exactly the rules and literals a filtered copy keeps, in
    /// order, whichever rules are dropped: none, the first, runs of them, the last, all.
    #[test]
    fn filtering_in_place_is_filtering_a_copy() {
        let list: Vec<(AtomId, Vec<GroundLiteral>)> = (0..30u32)
            .map(|i| (i % 5, (0..i % 4).map(|j| (j == 1, i * 4 + j)).collect()))
            .collect();
        let rules = || {
            let mut rules = Rules::default();
            list.iter().for_each(|(h, b)| rules.push(*h, b));
            rules
        };
        let drops: [&dyn Fn(usize) -> bool; 5] = [
            &|_| false,
            &|r| r == 0,
            &|r| (5..12).contains(&r) || r % 7 == 3,
            &|r| r == 29,
            &|_| true,
        ];
        for drop in drops {
            let keep_literal = |(negated, a): GroundLiteral| !negated && a % 3 != 0;
            let mut copy = Rules::default();
            for (_, (head, body)) in list.iter().enumerate().filter(|(r, _)| !drop(*r)) {
                let body: Vec<_> = body.iter().copied().filter(|&l| keep_literal(l)).collect();
                copy.push(*head, &body);
            }
            assert_eq!(rules().filtered(|r, _| !drop(r), keep_literal), copy);
        }
    }
}
