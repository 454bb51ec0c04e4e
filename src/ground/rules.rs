//! Ground rules stored flat: heads, body bounds and one array of literals, instead of a heap
//! vector per rule (skirmish has 3 million rules; a vector each cost more than the literals).
//! A program's rules are a few such lists one after the other, as the threads that sorted
//! them made them: joining them into one was a copy of every rule.

use super::AtomId;
use crate::graph::Lists;
use std::ops::Range;

/// A body literal: whether negated, and the atom.
pub type GroundLiteral = (bool, AtomId);

/// Rules `head :- body` with non-empty bodies, flat: what each thread makes, decides and
/// sorts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flat {
    heads: Vec<AtomId>,
    /// Rule `r`'s body is `literals[bounds[r]..bounds[r + 1]]`.
    bounds: Vec<usize>,
    literals: Vec<GroundLiteral>,
}

/// One rule, borrowed from [`Flat`] or [`Rules`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rule<'a> {
    /// The head atom.
    pub head: AtomId,
    /// Body literals, sorted, each once.
    pub body: &'a [GroundLiteral],
}

impl Flat {
    /// Adds `head :- body`.
    pub fn push(&mut self, head: AtomId, body: &[GroundLiteral]) {
        if self.bounds.is_empty() {
            self.bounds.push(0);
        }
        self.heads.push(head);
        self.literals.extend_from_slice(body);
        self.bounds.push(self.literals.len());
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
    ) -> Flat {
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
            return Flat::default();
        }
        self
    }

    /// Appends rules `range` of `other` as they are: a copy of slices of its arrays.
    pub(super) fn extend_from(&mut self, other: &Flat, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        if self.bounds.is_empty() {
            self.bounds.push(0);
        }
        let (low, high) = (other.bounds[range.start], other.bounds[range.end]);
        let base = self.literals.len();
        self.heads.extend_from_slice(&other.heads[range.clone()]);
        self.literals.extend_from_slice(&other.literals[low..high]);
        let bounds = &other.bounds[range.start + 1..=range.end];
        self.bounds.extend(bounds.iter().map(|&b| b - low + base));
    }

    /// Appends rules `range` of `other` with each atom `a` replaced by `carried[a]`, in one
    /// pass over each array (the caller keeps the order: ids carried in order keep bodies
    /// sorted). `None`, and this list left with part of the rules, if an atom is not carried.
    pub(super) fn extend_carried(
        &mut self,
        other: &Flat,
        range: Range<usize>,
        carried: &[Option<AtomId>],
    ) -> Option<()> {
        if range.is_empty() {
            return Some(());
        }
        if self.bounds.is_empty() {
            self.bounds.push(0);
        }
        let (low, high) = (other.bounds[range.start], other.bounds[range.end]);
        let base = self.literals.len();
        let gone = std::cell::Cell::new(false);
        let carry = |a: AtomId| {
            carried[a as usize].unwrap_or_else(|| {
                gone.set(true);
                0
            })
        };
        self.heads
            .extend(other.heads[range.clone()].iter().map(|&h| carry(h)));
        let literals = other.literals[low..high].iter();
        self.literals
            .extend(literals.map(|&(negated, a)| (negated, carry(a))));
        let bounds = &other.bounds[range.start + 1..=range.end];
        self.bounds.extend(bounds.iter().map(|&b| b - low + base));
        (!gone.get()).then_some(())
    }

    /// Whether an atom of rules `range` (a head or a body literal's) satisfies `test`.
    pub(super) fn any_atom(&self, range: Range<usize>, test: impl Fn(AtomId) -> bool) -> bool {
        if range.is_empty() {
            return false;
        }
        let literals = &self.literals[self.bounds[range.start]..self.bounds[range.end]];
        self.heads[range].iter().any(|&h| test(h)) || literals.iter().any(|&(_, a)| test(a))
    }

    /// Every rule's head, in order.
    pub(super) fn heads(&self) -> &[AtomId] {
        &self.heads
    }

    /// How many body literals there are in all.
    pub(super) fn literal_count(&self) -> usize {
        self.literals.len()
    }

    /// The indices of the rules, grouped by head (`heads` past the largest).
    pub(super) fn by_head(&self, heads: usize) -> Lists<u32> {
        Lists::new(heads, || {
            (self.heads.iter().enumerate()).map(|(r, &h)| (h as usize, r as u32))
        })
    }

    /// Room for `rules` rules with `literals` body literals in all.
    pub(super) fn with_capacity(rules: usize, literals: usize) -> Flat {
        Flat {
            heads: Vec::with_capacity(rules),
            bounds: Vec::with_capacity(rules + 1),
            literals: Vec::with_capacity(literals),
        }
    }
}

/// A program's rules: [`Flat`] lists one after the other (as many as the threads that sorted
/// them made; one, when one thread did). Two lists of the same rules in the same order are
/// equal however they are cut.
#[derive(Clone, Debug, Default)]
pub struct Rules {
    /// The lists, none empty.
    lists: Vec<Flat>,
    /// List `l` holds rules `starts[l]..starts[l + 1]`; empty when there are no lists.
    starts: Vec<usize>,
}

impl PartialEq for Rules {
    fn eq(&self, other: &Rules) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Rules {}

impl<'a> FromIterator<Rule<'a>> for Flat {
    /// The rules, in order.
    fn from_iter<I: IntoIterator<Item = Rule<'a>>>(rules: I) -> Flat {
        let mut list = Flat::default();
        rules
            .into_iter()
            .for_each(|rule| list.push(rule.head, rule.body));
        list
    }
}

impl<'a> FromIterator<Rule<'a>> for Rules {
    /// The rules, in one list.
    fn from_iter<I: IntoIterator<Item = Rule<'a>>>(rules: I) -> Rules {
        Rules::from(rules.into_iter().collect::<Flat>())
    }
}

impl From<Flat> for Rules {
    fn from(flat: Flat) -> Rules {
        Rules::concat(vec![flat])
    }
}

impl Rules {
    /// Adds `head :- body`.
    pub fn push(&mut self, head: AtomId, body: &[GroundLiteral]) {
        if self.lists.is_empty() {
            self.lists.push(Flat::default());
            self.starts = vec![0, 0];
        }
        if let (Some(list), Some(end)) = (self.lists.last_mut(), self.starts.last_mut()) {
            list.push(head, body);
            *end += 1;
        }
    }

    /// The rules of `lists`, one list after the other, kept as they are: no rule is copied
    /// (copying racer4's 4.6 M sorted rules into one list took 55–66 ms on two threads).
    pub(super) fn concat(lists: Vec<Flat>) -> Rules {
        let mut all = Rules::default();
        for list in lists.into_iter().filter(|list| !list.is_empty()) {
            let end = all.len() + list.len();
            if all.starts.is_empty() {
                all.starts.push(0);
            }
            all.starts.push(end);
            all.lists.push(list);
        }
        all
    }

    /// Each list's part of rules `range`: the list and the range within it.
    pub(super) fn pieces(
        &self,
        range: Range<usize>,
    ) -> impl Iterator<Item = (&Flat, Range<usize>)> {
        (self.lists.iter().enumerate()).filter_map(move |(l, list)| {
            let (start, end) = (self.starts[l], self.starts[l + 1]);
            let (low, high) = (range.start.max(start), range.end.min(end));
            (low < high).then(|| (list, low - start..high - start))
        })
    }

    /// The lists, in order.
    pub(super) fn lists(&self) -> &[Flat] {
        &self.lists
    }

    /// How many rules there are.
    pub fn len(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rule `r`.
    pub fn get(&self, r: usize) -> Rule<'_> {
        let l = self.starts.partition_point(|&s| s <= r) - 1;
        self.lists[l].get(r - self.starts[l])
    }

    /// The rules in order.
    pub fn iter(&self) -> Iter<'_> {
        self.range(0..self.len())
    }

    /// The rules `range`, in order, taken list by list.
    pub fn range(&self, range: Range<usize>) -> Iter<'_> {
        let list = match range.is_empty() {
            true => 0,
            false => self.starts.partition_point(|&s| s <= range.start) - 1,
        };
        Iter {
            rules: self,
            list,
            next: range.start,
            end: range.end,
        }
    }
}

/// Rules of a [`Rules`] in order, from a range of it.
pub struct Iter<'a> {
    rules: &'a Rules,
    /// The list of rule `next`, or one before it.
    list: usize,
    next: usize,
    end: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Rule<'a>;

    fn next(&mut self) -> Option<Rule<'a>> {
        if self.next >= self.end {
            return None;
        }
        let starts = &self.rules.starts;
        while starts[self.list + 1] <= self.next {
            self.list += 1;
        }
        let rule = self.rules.lists[self.list].get(self.next - starts[self.list]);
        self.next += 1;
        Some(rule)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end.saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lists concatenated are the rules pushed one after the other, read by index, by ranges
    /// and in order: empty lists skipped, empty bodies kept in place.
    #[test]
    fn concatenated_lists_are_the_rules_in_order() {
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
            let lists = (cuts.windows(2))
                .map(|w| {
                    let mut part = Flat::default();
                    (list[w[0]..w[1]].iter()).for_each(|(h, b)| part.push(*h, b));
                    part
                })
                .collect();
            let all = Rules::concat(lists);
            assert_eq!(all, whole, "{cuts:?}");
            for (r, (head, body)) in list.iter().enumerate() {
                let rule = Rule { head: *head, body };
                assert_eq!(all.get(r), rule, "{cuts:?} {r}");
                assert_eq!(all.range(r..40).next(), Some(rule), "{cuts:?} {r}");
            }
            let ranged: Vec<_> = all.range(3..31).collect();
            assert_eq!(ranged, whole.iter().skip(3).take(28).collect::<Vec<_>>());
        }
    }

    /// Filtering in place keeps exactly the rules and literals a filtered copy keeps, in
    /// order, whichever rules are dropped: none, the first, runs of them, the last, all.
    #[test]
    fn filtering_in_place_is_filtering_a_copy() {
        let list: Vec<(AtomId, Vec<GroundLiteral>)> = (0..30u32)
            .map(|i| (i % 5, (0..i % 4).map(|j| (j == 1, i * 4 + j)).collect()))
            .collect();
        let rules = || {
            let mut rules = Flat::default();
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
            let mut copy = Flat::default();
            for (_, (head, body)) in list.iter().enumerate().filter(|(r, _)| !drop(*r)) {
                let body: Vec<_> = body.iter().copied().filter(|&l| keep_literal(l)).collect();
                copy.push(*head, &body);
            }
            assert_eq!(rules().filtered(|r, _| !drop(r), keep_literal), copy);
        }
    }
}
