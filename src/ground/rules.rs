//! Ground rules stored flat: heads, body bounds and one array of literals, instead of a heap
//! vector per rule (skirmish has 3 million rules; a vector each cost more than the literals).

use super::AtomId;

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

    /// The rules sorted by head then body, each once.
    pub fn sorted(self) -> Rules {
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.get(a as usize).cmp(&self.get(b as usize)));
        order.dedup_by(|a, b| self.get(*a as usize) == self.get(*b as usize));
        let mut sorted = Rules::default();
        for r in order {
            let rule = self.get(r as usize);
            sorted.push(rule.head, rule.body);
        }
        sorted
    }
}
