//! The domain graph of a game and the domains of its argument positions (GDL.md §2; the
//! analysis chapter's Definition 14.1, Tables 14.1 and 14.2).
//!
//! Input: a checked [`Program`](crate::program::Program). Output: [`Domains`], for every
//! argument position of every relation and function symbol the set of ground terms the
//! domain graph allows there, as constants plus function symbols (never materialised), with
//! its size; and, lazily, the argument tuples a relation's domains allow: the seed sets of
//! the domain-graph reduction loop (`true`/`does` instances), enumerated in a fixed order
//! and encodable as engine rows.
//!
//! Invariant: every domain contains every value the position takes in the reachable
//! superset S (the domains over-approximate; a rule's instances over them include every
//! instance the engine derives).
//! Invariant: everything here is deterministic: vertices are numbered from sorted names, and
//! no listing depends on hash order.

mod fixpoint;
mod graph;
mod instances;

pub use fixpoint::{Domains, Reach};
pub use graph::{ConstId, DomainGraph, FnId, Function, Owner, PosId, Position};
pub use instances::{Tuples, Value};

/// The number of values of a domain, or of tuples of a product of domains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    /// Finitely many; `u128::MAX` means at least that many.
    Finite(u128),
    /// Infinitely many.
    Unbounded(Unbounded),
}

/// Why a domain is infinite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unbounded {
    /// Terms of this function can nest in themselves without end (`s(s(s(...)))`).
    Nests(FnId),
    /// Built-ins or counts compute values here (integers the program need not mention).
    Computed,
}

impl Size {
    /// The product of `sizes`: 0 if any is 0, else unbounded if any is, saturating.
    pub fn product(sizes: impl IntoIterator<Item = Size>) -> Size {
        let mut product = Size::Finite(1);
        for size in sizes {
            product = match (product, size) {
                (_, Size::Finite(0)) | (Size::Finite(0), _) => return Size::Finite(0),
                (Size::Finite(a), Size::Finite(b)) => Size::Finite(a.saturating_mul(b)),
                (Size::Unbounded(u), _) | (_, Size::Unbounded(u)) => Size::Unbounded(u),
            };
        }
        product
    }

    /// The sum of `sizes`: unbounded if any is, saturating.
    pub fn sum(sizes: impl IntoIterator<Item = Size>) -> Size {
        let mut sum = Size::Finite(0);
        for size in sizes {
            sum = match (sum, size) {
                (Size::Finite(a), Size::Finite(b)) => Size::Finite(a.saturating_add(b)),
                (Size::Unbounded(u), _) | (_, Size::Unbounded(u)) => return Size::Unbounded(u),
            };
        }
        sum
    }

    /// The number, if finite.
    pub fn finite(self) -> Option<u128> {
        match self {
            Size::Finite(n) => Some(n),
            Size::Unbounded(_) => None,
        }
    }
}

#[cfg(test)]
mod tests;
