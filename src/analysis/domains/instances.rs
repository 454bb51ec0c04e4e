//! Values and tuples of finite domains, by index: nothing is materialised.
//!
//! The values of a position are numbered in display order: its constants (integers by value,
//! then names), then the terms of each of its functions (sorted by name and arity), each
//! function's terms in lexicographic order of their arguments. The `n`-th value is found by
//! mixed-radix arithmetic on the domain sizes, so listing the first twenty values of a domain
//! of 10¹² costs twenty lookups, and the tuples of a relation are an iterator, not a vector.

use super::graph::{FnId, PosId};
use super::{Domains, Size, Unbounded};
use crate::program::encoding::{Encoding, Token};
use crate::program::{Program, RelId, Rule, Sym};

/// A ground term of a domain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A constant.
    Const(Sym),
    /// A function applied to values.
    Func(Sym, Vec<Value>),
}

impl Value {
    /// Appends the term's tokens in the engine's encoding of `encoding`'s program (a symbol
    /// the encoding lacks becomes `Token::MAX`, which matches no atom).
    pub fn encode(&self, encoding: &Encoding, out: &mut Vec<Token>) {
        match self {
            Value::Const(s) => out.push(encoding.get(*s, 0).unwrap_or(Token::MAX)),
            Value::Func(s, args) => {
                let token = encoding.get(*s, args.len() as u32);
                out.push(token.unwrap_or(Token::MAX));
                args.iter().for_each(|a| a.encode(encoding, out));
            }
        }
    }
}

/// The argument tuples a list of finite domains allows, in lexicographic order (the last
/// position varies fastest).
#[derive(Clone, Debug)]
pub struct Tuples<'d> {
    domains: &'d Domains,
    positions: Vec<PosId>,
    sizes: Vec<u128>,
    next: u128,
    total: u128,
}

impl Tuples<'_> {
    /// How many tuples there are in all.
    pub fn total(&self) -> u128 {
        self.total
    }
}

impl<'d> Tuples<'d> {
    /// The tuples as rows of the engine's encoding `encoding`: the arguments' tokens one
    /// after the other, as in the engine's atoms (a seed set of the reduction loop).
    pub fn rows(self, encoding: &'d Encoding) -> impl Iterator<Item = Vec<Token>> + 'd {
        self.map(move |tuple| {
            let mut row = Vec::new();
            tuple.iter().for_each(|v| v.encode(encoding, &mut row));
            row
        })
    }
}

impl Iterator for Tuples<'_> {
    type Item = Vec<Value>;

    fn next(&mut self) -> Option<Vec<Value>> {
        if self.next >= self.total {
            return None;
        }
        let digits = mixed_radix(self.next, &self.sizes);
        self.next += 1;
        let domains = self.domains;
        self.positions
            .iter()
            .zip(digits)
            .map(|(&p, d)| domains.value(p, d))
            .collect()
    }
}

/// `n` written in the mixed radix `sizes`, most significant digit first.
fn mixed_radix(mut n: u128, sizes: &[u128]) -> Vec<u128> {
    let mut digits = vec![0; sizes.len()];
    for (digit, &size) in digits.iter_mut().zip(sizes).rev() {
        *digit = n % size.max(1);
        n /= size.max(1);
    }
    digits
}

impl Domains {
    /// The `n`-th value (from 0, in display order) of position `pos`, if its domain is finite
    /// and has more than `n` values.
    pub fn value(&self, pos: PosId, mut n: u128) -> Option<Value> {
        let reach = self.reach(pos);
        if reach.computed {
            return None;
        }
        if n < reach.constants.len() as u128 {
            let c = reach.constants[n as usize];
            return Some(Value::Const(self.graph.constants[c as usize]));
        }
        n -= reach.constants.len() as u128;
        for &f in &reach.functions {
            let size = self.function_size(f).finite()?;
            if n < size {
                return self.function_value(f, n);
            }
            n -= size;
        }
        None
    }

    /// The `n`-th term of function `f`, in lexicographic order of its arguments.
    fn function_value(&self, f: FnId, n: u128) -> Option<Value> {
        let positions: Vec<PosId> = self.graph.function_positions(f).collect();
        let sizes = positions
            .iter()
            .map(|&p| self.size(p).finite())
            .collect::<Option<Vec<u128>>>()?;
        let args = positions
            .iter()
            .zip(mixed_radix(n, &sizes))
            .map(|(&p, d)| self.value(p, d))
            .collect::<Option<Vec<Value>>>()?;
        Some(Value::Func(self.graph.functions[f as usize].name, args))
    }

    /// The values of position `pos` in display order (none if the domain is unbounded).
    pub fn values(&self, pos: PosId) -> impl Iterator<Item = Value> + '_ {
        let size = self.size(pos).finite().unwrap_or(0);
        (0..size).map_while(move |n| self.value(pos, n))
    }

    /// The argument tuples the domains of `positions` allow, if they are all finite.
    pub fn tuples(&self, positions: Vec<PosId>) -> Option<Tuples<'_>> {
        let sizes = positions
            .iter()
            .map(|&p| self.size(p).finite())
            .collect::<Option<Vec<u128>>>()?;
        let total = match Size::product(sizes.iter().map(|&s| Size::Finite(s))) {
            Size::Finite(t) => t,
            Size::Unbounded(_) => return None,
        };
        Some(Tuples {
            domains: self,
            positions,
            sizes,
            next: 0,
            total,
        })
    }

    /// The positions of relation `rel` of `program`.
    pub fn relation_positions(&self, program: &Program, rel: RelId) -> Vec<PosId> {
        let arity = program.relations[rel as usize].arity;
        (0..arity)
            .map(|i| self.graph.relation_position(rel, i))
            .collect()
    }

    /// The number of argument tuples relation `rel`'s domains allow.
    pub fn relation_size(&self, program: &Program, rel: RelId) -> Size {
        self.product(self.relation_positions(program, rel))
    }

    /// The argument tuples of relation `rel` its domains allow, lazily: the domain graph's
    /// instances (for `true` and `does`, the seed sets of the reduction loop). `None` if a
    /// domain is unbounded.
    pub fn relation_tuples(&self, program: &Program, rel: RelId) -> Option<Tuples<'_>> {
        self.tuples(self.relation_positions(program, rel))
    }

    /// The number of instances of `rule` over the domains: the product, over the variables of
    /// its positive body atoms, of the number of values the domains of all the positions the
    /// variable occurs at have in common. Built-ins (`distinct`) and negative literals are not
    /// evaluated: this is the count before any filtering.
    pub fn rule_instances(&self, rule: &Rule) -> Size {
        let bound = self.graph.body_positions(&rule.body);
        Size::product(bound.values().map(|ps| self.common_size(ps)))
    }

    /// Whether the ground term of `tokens` (in `encoding`, the engine's encoding of `program`)
    /// is in the domain of position `pos`: checked along the term's structure, so it works
    /// for unbounded domains too. Trailing tokens after the term are ignored.
    pub fn contains(
        &self,
        program: &Program,
        encoding: &Encoding,
        pos: PosId,
        tokens: &[Token],
    ) -> bool {
        self.term_end(program, encoding, pos, tokens, 0).is_some()
    }

    /// Whether atom `rel(row)` (a row of the engine's encoding `encoding` of `program`) has
    /// every argument in its position's domain.
    pub fn contains_atom(
        &self,
        program: &Program,
        encoding: &Encoding,
        rel: RelId,
        row: &[Token],
    ) -> bool {
        let mut end = 0;
        for p in self.relation_positions(program, rel) {
            match self.term_end(program, encoding, p, row, end) {
                Some(e) => end = e,
                None => return false,
            }
        }
        end == row.len()
    }

    /// The end of the term starting at `tokens[start]` if it is in `pos`'s domain.
    fn term_end(
        &self,
        program: &Program,
        encoding: &Encoding,
        pos: PosId,
        tokens: &[Token],
        start: usize,
    ) -> Option<usize> {
        let reach = self.reach(pos);
        let token = *tokens.get(start)?;
        let (sym, arity) = match encoding.functor_of(token) {
            Some(functor) => functor,
            None => {
                // An integer: a constant of the program, or computed by a built-in.
                let n = crate::program::encoding::int_value(token)?;
                let known = program
                    .symbols
                    .get(&n.to_string())
                    .and_then(|s| self.graph.constant(s));
                let listed = known.is_some_and(|c| reach.constants.binary_search(&c).is_ok());
                return (listed || reach.computed).then_some(start + 1);
            }
        };
        if arity == 0 {
            let c = self.graph.constant(sym)?;
            return reach
                .constants
                .binary_search(&c)
                .is_ok()
                .then_some(start + 1);
        }
        let f = self.graph.function(sym, arity as usize)?;
        reach.functions.binary_search(&f).ok()?;
        let mut end = start + 1;
        for p in self.graph.function_positions(f) {
            end = self.term_end(program, encoding, p, tokens, end)?;
        }
        Some(end)
    }

    /// The number of values the domains of `positions` all contain.
    pub fn common_size(&self, positions: &[PosId]) -> Size {
        let reaches: Vec<_> = positions.iter().map(|&p| self.reach(p)).collect();
        let Some(first) = reaches.iter().find(|r| !r.computed) else {
            return Size::Unbounded(Unbounded::Computed);
        };
        // A computed domain may hold any integer: counted as holding every constant.
        let constants = first.constants.iter().filter(|c| {
            reaches
                .iter()
                .all(|r| r.computed || r.constants.binary_search(c).is_ok())
        });
        let functions = first
            .functions
            .iter()
            .filter(|f| reaches.iter().all(|r| r.functions.binary_search(f).is_ok()))
            .map(|&f| self.function_size(f));
        Size::sum(std::iter::once(Size::Finite(constants.count() as u128)).chain(functions))
    }
}
