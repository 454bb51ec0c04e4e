//! Patterns: the terms of a rule in token form, with variables, and the three things the
//! engine does with them: match a ground row, read a binding, instantiate.

use crate::program::encoding::{term_end, token_arity, Encoding, Token};
use crate::program::{Program, Term, VarId};
use smallvec::SmallVec;

/// A ground atom's arguments (or a binding's values) as one token sequence.
pub type Row = SmallVec<[Token; 8]>;

/// One element of a pattern: a token to match exactly, or a variable matching one term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Item {
    /// A functor or integer token.
    Tok(Token),
    /// A variable of the rule.
    Var(VarId),
}

/// A sequence of terms with variables, in prefix token order.
pub type Pattern = Vec<Item>;

/// The pattern of `terms` (an atom's arguments, say).
pub fn pattern(program: &Program, encoding: &Encoding, terms: &[Term]) -> Pattern {
    let mut out = Vec::new();
    each_item(program, encoding, terms, &mut |item| out.push(item));
    out
}

/// Calls `f` with each item of the pattern of `terms`, in order: [`pattern`] without the
/// list (a key made of several patterns is written straight into its own).
pub fn each_item(program: &Program, encoding: &Encoding, terms: &[Term], f: &mut impl FnMut(Item)) {
    for term in terms {
        match term {
            Term::Var(v) => f(Item::Var(*v)),
            Term::Ground(id) => encoding.each_token(program, *id, &mut |t| f(Item::Tok(t))),
            Term::Func(sym, args) => {
                f(Item::Tok(
                    encoding.get(*sym, args.len() as u32).unwrap_or(Token::MAX),
                ));
                each_item(program, encoding, args, f);
            }
        }
    }
}

/// The variables of `pattern` in order of first occurrence.
pub fn variables(pattern: &[Item]) -> Vec<VarId> {
    let mut vars = Vec::new();
    for item in pattern {
        if let Item::Var(v) = item {
            if !vars.contains(v) {
                vars.push(*v);
            }
        }
    }
    vars
}

/// Where each variable's value lies in some token sequence, by `VarId`.
#[derive(Clone, Debug)]
pub struct Ranges(Vec<(u32, u32)>);

/// Marks an unbound variable in [`Ranges`].
const UNBOUND: (u32, u32) = (u32::MAX, u32::MAX);

impl Ranges {
    /// Room for `vars` variables, none bound.
    pub fn new(vars: usize) -> Ranges {
        Ranges(vec![UNBOUND; vars])
    }

    /// Makes room for at least `vars` variables.
    pub fn room(&mut self, vars: usize) {
        if self.0.len() < vars {
            self.0.resize(vars, UNBOUND);
        }
    }

    fn clear(&mut self) {
        self.0.iter_mut().for_each(|r| *r = UNBOUND);
    }

    /// Matches `row` against `pattern`, recording each variable's value; `false` if it does
    /// not match (a token differs, a repeated variable has two values, lengths differ).
    pub fn match_row(&mut self, pattern: &[Item], row: &[Token], arities: &[u32]) -> bool {
        self.clear();
        let mut j = 0;
        for item in pattern {
            match *item {
                Item::Tok(t) => {
                    if row.get(j) != Some(&t) {
                        return false;
                    }
                    j += 1;
                }
                Item::Var(v) => {
                    let Some(end) = term_end(row, j, arities) else {
                        return false;
                    };
                    let (s, e) = self.0[v as usize];
                    if s == u32::MAX {
                        self.0[v as usize] = (j as u32, end as u32);
                    } else if row[s as usize..e as usize] != row[j..end] {
                        return false;
                    }
                    j = end;
                }
            }
        }
        j == row.len()
    }

    /// Reads a binding: `row` holds the values of `vars`, in that order, back to back.
    pub fn read_binding(&mut self, vars: &[VarId], row: &[Token], arities: &[u32]) {
        self.clear();
        let mut j = 0;
        for &v in vars {
            let end = term_end(row, j, arities).unwrap_or(row.len());
            self.0[v as usize] = (j as u32, end as u32);
            j = end;
        }
    }

    /// Appends the value of `v` (taken from `row`) to `out`. Most values are one token (a
    /// constant), pushed as such: copying a slice of one token called `memmove` each time.
    pub fn push_value(&self, v: VarId, row: &[Token], out: &mut impl Tokens) {
        let (s, e) = self.0[v as usize];
        match &row[s as usize..e as usize] {
            &[t] => out.put(t),
            value => out.put_slice(value),
        }
    }

    /// The length of the value of `v`.
    fn value_len(&self, v: VarId) -> usize {
        let (s, e) = self.0[v as usize];
        (e - s) as usize
    }

    /// The values of `vars` (taken from `row`), back to back, in a row allocated at their
    /// length. A row longer than its inline room is allocated once at its length, where
    /// growing it token by token would reallocate it and leave it with room to spare (a
    /// 20-token row took 32 tokens of heap).
    pub fn values(&self, vars: &[VarId], row: &[Token]) -> Row {
        let len = vars.iter().map(|&v| self.value_len(v)).sum();
        let mut out = Row::with_capacity(len);
        vars.iter().for_each(|&v| self.push_value(v, row, &mut out));
        out
    }

    /// The length of `pattern` instantiated ([`Self::instantiate`]): the room it takes in a
    /// row.
    fn instantiated_len(&self, pattern: &[Item]) -> usize {
        (pattern.iter())
            .map(|item| match *item {
                Item::Tok(_) => 1,
                Item::Var(v) => self.value_len(v),
            })
            .sum()
    }

    /// `pattern` instantiated with the values in `row`, in a row allocated at its length (as
    /// [`Self::values`], for the same reason).
    pub fn instantiated(&self, pattern: &[Item], row: &[Token]) -> Row {
        let mut out = Row::with_capacity(self.instantiated_len(pattern));
        self.instantiate(pattern, row, &mut out);
        out
    }

    /// Appends `pattern` instantiated with the values in `row` to `out`.
    pub fn instantiate(&self, pattern: &[Item], row: &[Token], out: &mut impl Tokens) {
        for item in pattern {
            match *item {
                Item::Tok(t) => out.put(t),
                Item::Var(v) => self.push_value(v, row, out),
            }
        }
    }
}

/// Where instantiated tokens go: a [`Row`], or an arena of packed instances (a vector),
/// written in place rather than through a row that long atoms would spill to the heap.
pub trait Tokens {
    /// Appends `t`.
    fn put(&mut self, t: Token);
    /// Appends `ts`.
    fn put_slice(&mut self, ts: &[Token]);
}

impl Tokens for Row {
    fn put(&mut self, t: Token) {
        self.push(t);
    }
    fn put_slice(&mut self, ts: &[Token]) {
        self.extend_from_slice(ts);
    }
}

impl Tokens for Vec<Token> {
    fn put(&mut self, t: Token) {
        self.push(t);
    }
    fn put_slice(&mut self, ts: &[Token]) {
        self.extend_from_slice(ts);
    }
}

/// The deepest nesting of function terms in `row` (a row of constants has depth 0).
pub fn depth(row: &[Token], arities: &[u32]) -> usize {
    let mut pending: SmallVec<[u32; 16]> = SmallVec::new();
    let mut deepest = 0;
    for &t in row {
        if let Some(top) = pending.last_mut() {
            *top -= 1;
        }
        let arity = token_arity(t, arities);
        if arity > 0 {
            pending.push(arity);
            deepest = deepest.max(pending.len());
        }
        while pending.last() == Some(&0) {
            pending.pop();
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lengths a row is allocated at are those of what is written into it: a binding of
    /// X = f(1, 2) and Y = 3 (token 7 a functor of two arguments) instantiating
    /// `p(Y, X, 9, X)`.
    #[test]
    fn lengths_are_those_of_the_tokens_written() {
        let mut arities = vec![0; 16];
        arities[7] = 2;
        let binding = [7, 1, 2, 3];
        let mut ranges = Ranges::new(2);
        ranges.read_binding(&[0, 1], &binding, &arities);
        let pattern = [Item::Var(1), Item::Var(0), Item::Tok(9), Item::Var(0)];
        let out = ranges.instantiated(&pattern, &binding);
        assert_eq!(&out[..], [3, 7, 1, 2, 9, 7, 1, 2]);
        assert_eq!(ranges.instantiated_len(&pattern), out.len());
        assert_eq!(&ranges.values(&[1, 0], &binding)[..], [3, 7, 1, 2]);
    }

    /// A row past its inline room is allocated at exactly its length.
    #[test]
    fn long_rows_are_allocated_at_their_length() {
        let arities = vec![0; 16];
        let binding: Vec<Token> = (1..=11).collect();
        let vars: Vec<VarId> = (0..11).collect();
        let mut ranges = Ranges::new(11);
        ranges.read_binding(&vars, &binding, &arities);
        let values = ranges.values(&vars, &binding);
        assert_eq!((&values[..], values.capacity()), (&binding[..], 11));
        let pattern: Vec<Item> = (vars.iter().map(|&v| Item::Var(v)))
            .chain([Item::Tok(12), Item::Tok(13)])
            .collect();
        let atom = ranges.instantiated(&pattern, &binding);
        assert_eq!((atom.len(), atom.capacity()), (13, 13));
    }
}
