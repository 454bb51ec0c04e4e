//! Ground rules stored flat: heads, body bounds and one array of literals, instead of a heap
//! vector per rule (skirmish has 3 million rules; a vector each cost more than the literals).

use super::AtomId;
use crate::graph::Lists;
use crate::parallel;

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

    /// Takes over the rules of `other`, after these.
    pub fn append(&mut self, other: Rules) {
        if self.is_empty() {
            *self = other;
            return;
        }
        let offset = self.literals.len();
        if self.bounds.is_empty() {
            self.bounds.push(0);
        }
        self.heads.extend(other.heads);
        self.literals.extend(other.literals);
        self.bounds
            .extend(other.bounds.into_iter().skip(1).map(|b| b + offset));
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

    /// The rules `keep` accepts, with the literals `keep_literal` accepts.
    pub fn filtered(
        self,
        mut keep: impl FnMut(usize, Rule<'_>) -> bool,
        mut keep_literal: impl FnMut(GroundLiteral) -> bool,
    ) -> Rules {
        let mut kept = Rules::default();
        let mut body = Vec::new();
        for (r, rule) in self.iter().enumerate() {
            if keep(r, rule) {
                body.clear();
                body.extend(rule.body.iter().copied().filter(|&l| keep_literal(l)));
                kept.push(rule.head, &body);
            }
        }
        kept
    }

    /// The rules sorted by head then body, each once, on up to `threads` threads.
    ///
    /// Rules are first grouped by head (a counting sort: heads are atom ids), then each head's
    /// rules are sorted by packed body prefixes (the first four literals in one `u128`,
    /// ordered as bodies are), touching the literal array only for ties. Groups are small, so
    /// this costs far less than one comparison sort of all rules (skirmish: 2.7 M rules over
    /// 25 k heads), and ranges of heads with about equal numbers of rules are sorted on their
    /// own threads. The result does not depend on `threads`.
    pub fn sorted(self, threads: usize) -> Rules {
        self.sorted_then(threads, |rules| (rules, Vec::<()>::new()))
            .0
    }

    /// [`Rules::sorted`], each part (a range of heads, sorted) passed through `then` on its
    /// thread: for work done head by head, such as dropping subsumed rules. The rules and the
    /// lists `then` returns are concatenated in the order of the heads.
    pub fn sorted_then<X: Send>(
        self,
        threads: usize,
        then: impl Fn(Rules) -> (Rules, Vec<X>) + Sync,
    ) -> (Rules, Vec<X>) {
        let (order, starts) = self.by_head();
        let threads = threads.clamp(1, (self.len() / MIN_RULES_PER_THREAD).max(1));
        // Part t ends at the first head whose rules start at or past t/threads of all rules.
        let mut cuts: Vec<usize> = (1..threads)
            .map(|t| starts[starts.partition_point(|&s| s < t * self.len() / threads)])
            .collect();
        cuts.insert(0, 0);
        cuts.push(self.len());
        let (mut sorted, mut found) = (Rules::default(), Vec::new());
        let parts: Vec<&[u32]> = cuts.windows(2).map(|w| &order[w[0]..w[1]]).collect();
        for (part, more) in parallel::map_parts(parts, |part| then(self.sorted_part(part))) {
            sorted.append(part);
            found.extend(more);
        }
        (sorted, found)
    }

    /// Rule ids grouped by ascending head, stable within a head, and where each head's group
    /// starts (`starts[h]..starts[h + 1]`).
    fn by_head(&self) -> (Vec<u32>, Vec<usize>) {
        let heads = self.heads.iter().max().map_or(0, |&h| h as usize + 1);
        let by_head = Lists::new(heads, || {
            (self.heads.iter().enumerate()).map(|(r, &h)| (h as usize, r as u32))
        });
        (by_head.items, by_head.starts)
    }

    /// The rules of `part` (rule ids grouped by ascending head), each head's sorted by body and
    /// each rule once.
    fn sorted_part(&self, part: &[u32]) -> Rules {
        let literals = part
            .iter()
            .map(|&r| self.bounds[r as usize + 1] - self.bounds[r as usize])
            .sum();
        let mut sorted = Rules::with_capacity(part.len(), literals);
        let mut keys: Vec<(u128, u32)> = Vec::new();
        for group in part.chunk_by(|&a, &b| self.heads[a as usize] == self.heads[b as usize]) {
            keys.clear();
            let body = |r: u32| self.get(r as usize).body;
            keys.extend(group.iter().map(|&r| (body_prefix(body(r)), r)));
            keys.sort_unstable_by(|a, b| (a.0.cmp(&b.0)).then_with(|| body(a.1).cmp(body(b.1))));
            keys.dedup_by(|a, b| a.0 == b.0 && body(a.1) == body(b.1));
            for &(_, r) in &keys {
                let rule = self.get(r as usize);
                sorted.push(rule.head, rule.body);
            }
        }
        sorted
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

/// Fewer rules than this per thread are sorted on fewer threads: a thread's start costs more
/// than sorting them.
const MIN_RULES_PER_THREAD: usize = 50_000;

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorting by head and packed body prefixes orders and deduplicates exactly as comparing
    /// rules does, on one thread and on three: bodies of every length up to 6 (so ties past
    /// the prefix), negations, large atom ids, enough rules for three threads.
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
        for _ in 0..3 * MIN_RULES_PER_THREAD {
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
        assert_eq!(rules.sorted(3), sorted);
        let got: Vec<(AtomId, Vec<GroundLiteral>)> =
            sorted.iter().map(|r| (r.head, r.body.to_vec())).collect();
        assert_eq!(got, reference);
    }
}
