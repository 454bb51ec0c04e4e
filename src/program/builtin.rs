//! Built-in relations: evaluated during grounding, never defined by rules.

use super::Model;

/// A built-in relation. In the classic model only `distinct` exists; the Stanford infix adds
/// arithmetic and comparisons. A relation the game defines itself is never a built-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Builtin {
    /// `distinct(s, t)`: s and t are different terms.
    Distinct,
    /// `same(s, t)`: s and t are the same term.
    Same,
    /// `plus(x, y, z)` (also `add`): z = x + y on integers.
    Plus,
    /// `minus(x, y, z)`: z = x − y.
    Minus,
    /// `times(x, y, z)`: z = x · y.
    Times,
    /// `leq(x, y)`: x ≤ y.
    Leq,
    /// `less(x, y)`: x < y.
    Less,
    /// `true` with no arguments: always holds (the Stanford infix writes facts as
    /// `base(step(1)) :- true`).
    True,
}

impl Builtin {
    /// The built-in called `name` with `arity` arguments in `model`, if there is one.
    pub fn of(model: Model, name: &str, arity: usize) -> Option<Builtin> {
        let b = match (name, arity) {
            ("distinct", 2) => return Some(Builtin::Distinct),
            ("same", 2) => Builtin::Same,
            ("plus" | "add", 3) => Builtin::Plus,
            ("minus", 3) => Builtin::Minus,
            ("times", 3) => Builtin::Times,
            ("leq", 2) => Builtin::Leq,
            ("less", 2) => Builtin::Less,
            ("true", 0) => Builtin::True,
            _ => return None,
        };
        (model == Model::Operations).then_some(b)
    }

    /// The name the built-in is printed with.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Distinct => "distinct",
            Builtin::Same => "same",
            Builtin::Plus => "plus",
            Builtin::Minus => "minus",
            Builtin::Times => "times",
            Builtin::Leq => "leq",
            Builtin::Less => "less",
            Builtin::True => "true",
        }
    }

    /// Which sets of bound argument positions let it compute the rest, as bit masks: a
    /// variable in another position is bound by the built-in once these are (safety).
    pub fn modes(self) -> &'static [u8] {
        match self {
            Builtin::Distinct | Builtin::Leq | Builtin::Less => &[0b11],
            Builtin::Same => &[0b01, 0b10],
            Builtin::Plus | Builtin::Minus => &[0b011, 0b101, 0b110],
            Builtin::Times => &[0b011],
            Builtin::True => &[0],
        }
    }
}
