//! The reason stage: playing a game, not grounding it. What a GGP player asks of a game
//! description — roles, the initial state, legal moves, the next state, goals, terminal — answered
//! by two reasoners that share no evaluation code, and playouts that compare them.
//!
//! Input: a classic [`Program`] (and, for the ground reasoner, its [`GroundProgram`]). Output:
//! [`Answers`] for a [`State`] and an optional [`JointMove`]; [`playout::validate`] runs random
//! playouts with both reasoners and reports the first disagreement.
//! - [`ground::GroundReasoner`] evaluates the ground program: fast, the thing being checked.
//! - [`reference::Reference`] evaluates the original rules bottom-up with its own unifier, and
//!   shares no code with `engine/`: it is the independent witness.
//!
//! Invariant: both reasoners spell terms as the [`Encoding`]'s token rows, so their answers
//! compare with `==`; both list answers sorted.
//!
//! [`Encoding`]: crate::program::encoding::Encoding
//! [`GroundProgram`]: crate::ground::GroundProgram

pub mod ground;
pub mod playout;
pub mod reference;
mod rules;
mod unify;

use crate::engine::Row;
use crate::program::encoding::{term_end, Token};
use crate::program::{Model, Program, RelId};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

/// A game state: the set of ground fluents that are true, sorted and without duplicates.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State {
    fluents: Vec<Row>,
}

impl State {
    /// The state in which exactly `fluents` hold (in any order, repetitions allowed).
    pub fn new(fluents: impl IntoIterator<Item = Row>) -> State {
        let mut fluents: Vec<Row> = fluents.into_iter().collect();
        fluents.sort_unstable();
        fluents.dedup();
        State { fluents }
    }

    /// The fluents, sorted.
    pub fn fluents(&self) -> &[Row] {
        &self.fluents
    }
}

/// A joint move: one `(role, move)` pair per role, in the order of the roles.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct JointMove {
    /// `(role, move)` pairs, as the arguments of `does(role, move)` split in two.
    pub moves: Vec<(Row, Row)>,
}

/// What a reasoner says about one state, and about one joint move in it when given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answers {
    /// The legal moves: `(role, move)` pairs, sorted.
    pub legal: Vec<(Row, Row)>,
    /// The goal values: `(role, value)` pairs, sorted.
    pub goals: Vec<(Row, Row)>,
    /// Whether the state is terminal.
    pub terminal: bool,
    /// The next state, when a joint move was given.
    pub next: Option<State>,
    /// Input atoms (`true`/`does`) the reasoner cannot represent and took as false: for the
    /// ground reasoner, atoms outside S*, which is a soundness failure of the grounding.
    pub unknown: Vec<(RelId, Row)>,
}

impl Answers {
    /// The legal moves of `role`, sorted.
    pub fn moves_of<'a>(&'a self, role: &'a Row) -> impl Iterator<Item = &'a Row> + 'a {
        self.legal
            .iter()
            .filter(move |(r, _)| r == role)
            .map(|(_, m)| m)
    }
}

/// The questions a player asks of a game description.
pub trait Reasoner {
    /// The roles, sorted.
    fn roles(&self) -> Vec<Row>;
    /// The initial state.
    fn initial_state(&self) -> State;
    /// The legal moves, goals and terminal status of `state`, and with `joint` the next state.
    fn answer(&mut self, state: &State, joint: Option<&JointMove>) -> Result<Answers, ReasonError>;
}

/// Why a reasoner cannot answer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReasonError {
    /// The game uses something the reasoners do not evaluate yet (the operation model).
    Unsupported(String),
    /// One evaluation derived more atoms than the limit: the game's terms grow without bound.
    TooManyAtoms(usize),
    /// The rules depend on themselves through negation in a way the reasoner cannot order.
    Unstratified(String),
}

impl fmt::Display for ReasonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReasonError::Unsupported(m) => write!(f, "{m}"),
            ReasonError::TooManyAtoms(n) => {
                write!(
                    f,
                    "one state derives more than {n} atoms: the game's terms grow without bound"
                )
            }
            ReasonError::Unstratified(m) => write!(f, "the rules are not stratified: {m}"),
        }
    }
}

/// The relations GDL gives a meaning to in the classic model, where the program has them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GameRelations {
    /// `role/1`.
    pub role: Option<RelId>,
    /// `init/1`.
    pub init: Option<RelId>,
    /// `true/1`.
    pub true_: Option<RelId>,
    /// `does/2`.
    pub does: Option<RelId>,
    /// `next/1`.
    pub next: Option<RelId>,
    /// `legal/2`.
    pub legal: Option<RelId>,
    /// `goal/2`.
    pub goal: Option<RelId>,
    /// `terminal/0`.
    pub terminal: Option<RelId>,
}

impl GameRelations {
    /// The keyword relations of `program`; the operation model is not supported yet.
    pub fn new(program: &Program) -> Result<GameRelations, ReasonError> {
        if program.model == Model::Operations {
            return Err(ReasonError::Unsupported(
                "reasoning about operation games (.hrf) is not implemented yet".into(),
            ));
        }
        let r = |name, arity| program.relation(name, arity);
        Ok(GameRelations {
            role: r("role", 1),
            init: r("init", 1),
            true_: r("true", 1),
            does: r("does", 2),
            next: r("next", 1),
            legal: r("legal", 2),
            goal: r("goal", 2),
            terminal: r("terminal", 0),
        })
    }

    /// The answers given by the true atoms `atoms` of the output relations (`legal`, `goal`,
    /// `terminal`, and `next` when `with_next`); other relations are ignored.
    pub fn answers<'a>(
        &self,
        arities: &[u32],
        with_next: bool,
        atoms: impl IntoIterator<Item = (RelId, &'a Row)>,
    ) -> Answers {
        let mut answers = Answers::default();
        let mut next = Vec::new();
        for (rel, row) in atoms {
            let rel = Some(rel);
            if rel == self.legal {
                answers.legal.extend(split_pair(row, arities));
            } else if rel == self.goal {
                answers.goals.extend(split_pair(row, arities));
            } else if rel == self.terminal {
                answers.terminal = true;
            } else if rel == self.next && with_next {
                next.push(row.clone());
            }
        }
        answers.legal.sort_unstable();
        answers.legal.dedup();
        answers.goals.sort_unstable();
        answers.goals.dedup();
        answers.next = with_next.then(|| State::new(next));
        answers
    }
}

/// A fast non-cryptographic hasher (FxHash's rotate-xor-multiply, then a final mix): the
/// reasoners hash token rows millions of times, and their keys come from the game, not from an
/// adversary.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.add(n.into());
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        // A final mix (murmur3's), so that the low bits hash tables index with depend on
        // every input bit: without it, the high half of the last word would only reach the
        // high bits, and rows differing there would all collide.
        let mut z = self.0;
        z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        z = (z ^ (z >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        z ^ (z >> 33)
    }
}

/// A hash map with [`FxHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A hash set with [`FxHasher`].
pub(crate) type FastSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

/// The two terms of a two-argument row (`legal`, `goal`, `does`); `None` if it is not two terms.
pub(crate) fn split_pair(row: &[Token], arities: &[u32]) -> Option<(Row, Row)> {
    let middle = term_end(row, 0, arities)?;
    (term_end(row, middle, arities)? == row.len()).then(|| {
        (
            Row::from_slice(&row[..middle]),
            Row::from_slice(&row[middle..]),
        )
    })
}

/// The row of `does(role, move)`.
pub(crate) fn pair_row(first: &[Token], second: &[Token]) -> Row {
    let mut row = Row::from_slice(first);
    row.extend_from_slice(second);
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    /// Regression: without a final mix, rows differing only in the high half of their last
    /// 8-byte word had the same low hash bits, and hash tables degenerated to lists.
    #[test]
    fn low_hash_bits_depend_on_every_token() {
        let hasher = BuildHasherDefault::<FxHasher>::default();
        let low = |row: &[Token]| hasher.hash_one(Row::from_slice(row)) & 0xffff;
        let distinct: FastSet<u64> = (0..1000).map(|t| low(&[7, t])).collect();
        assert!(
            distinct.len() > 900,
            "{} distinct low halves",
            distinct.len()
        );
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    //! Loading and grounding small games for the unit tests of this module.

    use crate::load::load;
    use crate::syntax::{SourceFile, Syntax};
    use crate::{Game, Grounded};

    /// The game `text` in `syntax`, loaded and grounded; panics (test helper) on errors.
    pub fn grounded(text: &str, syntax: Syntax) -> (Game, Grounded) {
        let game = match load(SourceFile::new("test", text), syntax) {
            Ok(g) => g,
            Err(e) => panic!("test game rejected: {}", e.render()),
        };
        match crate::ground(&game.program, &Default::default()) {
            Ok(g) => (game, g),
            Err(e) => panic!("test game not grounded: {e:?}"),
        }
    }

    /// An example game of the crate, by file name.
    pub fn example(name: &str) -> (Game, Grounded) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let syntax = Syntax::detect(&path, &text);
        grounded(&text, syntax)
    }
}
