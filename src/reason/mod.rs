//! The reason stage: playing a game, not grounding it. What a GGP player asks of a game
//! description — roles, the initial state, legal moves, the next state, goals, terminal — answered
//! by two reasoners that share no evaluation code, and playouts that compare them.
//!
//! Input: a classic [`Program`] (and, for the ground reasoner, its [`GroundProgram`]). Output:
//! [`Answers`] for a [`State`] and an optional [`JointMove`]; [`playout::validate`] runs random
//! playouts with both reasoners and reports the first disagreement.
//! - [`machine::Machine`] evaluates the ground program as a network: a player's state machine,
//!   and the thing being checked.
//! - [`reference::Reference`] evaluates the original rules bottom-up with its own unifier, and
//!   shares no code with `engine/`: it is the independent witness.
//!
//! Invariant: both reasoners spell terms as the [`Encoding`]'s token rows, so their answers
//! compare with `==`; both list answers sorted.
//!
//! [`Encoding`]: crate::program::encoding::Encoding
//! [`GroundProgram`]: crate::ground::GroundProgram

mod arith;
pub mod machine;
mod network;
pub mod playout;
pub mod reference;
mod rules;
mod unify;

use crate::engine::Row;
pub(crate) use crate::hash::{FastMap, FastSet};
use crate::program::encoding::Encoding;
use crate::program::encoding::{term_end, Token};
use crate::program::operations::{EffectKind, Lowering};
use crate::program::{Model, Program, RelId};
use std::fmt;

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
    /// One evaluation derived more atoms than the limit: terms that grow without bound, or
    /// static relations larger than the reasoner is meant for.
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
                    "one evaluation derives more than {n} atoms, the reasoner's limit: the game's \
                     terms grow without bound, or its static relations are that large"
                )
            }
            ReasonError::Unstratified(m) => write!(f, "the rules are not stratified: {m}"),
        }
    }
}

/// The relations GDL gives a meaning to, where the program has them. For an operations game
/// (lowered by [`lower_operations`]) `does` is the relation of performed actions, `legal` has
/// one argument, the state's fluents are atoms of the fluent relations, and the next state
/// comes from the operation instances that hold.
///
/// [`lower_operations`]: crate::program::operations::lower_operations
#[derive(Clone, Debug)]
pub(crate) struct GameRelations {
    /// `role/1`.
    pub role: Option<RelId>,
    /// `init/1`.
    pub init: Option<RelId>,
    /// `true/1`.
    pub true_: Option<RelId>,
    /// `does/2` (operations: the performed actions, `does/1`).
    pub does: Option<RelId>,
    /// `next/1`.
    pub next: Option<RelId>,
    /// `legal/2` (operations: `legal/1`).
    pub legal: Option<RelId>,
    /// `goal/2`.
    pub goal: Option<RelId>,
    /// `terminal/0`.
    pub terminal: Option<RelId>,
    /// Operations: the fluent relation of each fluent's top token, and the lowering.
    operations: Option<(FastMap<Token, RelId>, Lowering)>,
}

impl GameRelations {
    /// The keyword relations of `program` (an operations game must be lowered first).
    pub fn new(program: &Program, encoding: &Encoding) -> Result<GameRelations, ReasonError> {
        let r = |name, arity| program.relation(name, arity);
        let mut rels = GameRelations {
            role: r("role", 1),
            init: r("init", 1),
            true_: r("true", 1),
            does: r("does", 2),
            next: r("next", 1),
            legal: r("legal", 2),
            goal: r("goal", 2),
            terminal: r("terminal", 0),
            operations: None,
        };
        if program.model == Model::Operations {
            let Some(lowering) = &program.lowering else {
                return Err(ReasonError::Unsupported(
                    "an operations game is reasoned about once its operations are lowered".into(),
                ));
            };
            let fluents = (0..program.relations.len())
                .filter(|&rel| lowering.fluents[rel])
                .filter_map(|rel| {
                    let relation = program.relations[rel];
                    let token = encoding.get(relation.name, relation.arity as u32)?;
                    Some((token, rel as RelId))
                })
                .collect();
            (rels.true_, rels.next) = (None, None);
            (rels.does, rels.legal) = (Some(lowering.performed), r("legal", 1));
            rels.operations = Some((fluents, lowering.clone()));
        }
        Ok(rels)
    }

    /// The relations whose atoms are inputs (`true`, `does`; operations: the fluents and the
    /// performed actions).
    pub fn inputs(&self) -> Vec<RelId> {
        let mut out: Vec<RelId> = [self.true_, self.does].into_iter().flatten().collect();
        if let Some((fluents, _)) = &self.operations {
            out.extend(fluents.values());
        }
        out
    }

    /// The relations answers are read from.
    pub fn outputs(&self) -> Vec<RelId> {
        let mut out: Vec<RelId> = [self.legal, self.goal, self.terminal, self.next]
            .into_iter()
            .flatten()
            .collect();
        if let Some((_, lowering)) = &self.operations {
            out.extend(lowering.operations.iter().map(|(rel, _)| *rel));
        }
        out
    }

    /// The input atoms of `state` and the performed `moves` (rows of `does`).
    pub fn input_atoms(&self, state: &State, moves: &[Row]) -> Vec<(RelId, Row)> {
        let mut out: Vec<(RelId, Row)> = (state.fluents().iter())
            .filter_map(|f| self.input_of(f))
            .collect();
        if let Some(d) = self.does {
            out.extend(moves.iter().map(|m| (d, m.clone())));
        }
        out
    }

    /// The input atom that says `fluent` holds: `true(fluent)`, or in an operations game the
    /// atom of the fluent's own relation.
    pub fn input_of(&self, fluent: &Row) -> Option<(RelId, Row)> {
        match &self.operations {
            None => Some((self.true_?, fluent.clone())),
            Some((fluents, _)) => Some((
                *fluents.get(fluent.first()?)?,
                Row::from_slice(&fluent[1..]),
            )),
        }
    }

    /// The fluent whose input atom is `rel(row)` (the inverse of [`GameRelations::input_of`]).
    pub fn fluent_of(&self, rel: RelId, row: &Row) -> Option<Row> {
        match &self.operations {
            None => (Some(rel) == self.true_).then(|| row.clone()),
            Some((fluents, _)) => {
                let (&token, _) = fluents.iter().find(|(_, &r)| r == rel)?;
                let mut fluent = Row::from_slice(&[token]);
                fluent.extend_from_slice(row);
                Some(fluent)
            }
        }
    }

    /// The rows of `does` for `joint`: `(role, move)` pairs, or for an operations game the
    /// action alone (its joint move has one pair, whose role is empty).
    pub fn moves(&self, joint: Option<&JointMove>) -> Vec<Row> {
        let moves = joint.map_or(&[][..], |j| &j.moves);
        match self.operations {
            None => moves.iter().map(|(r, m)| pair_row(r, m)).collect(),
            Some(_) => moves.iter().map(|(_, m)| m.clone()).collect(),
        }
    }

    /// The actions the operation instances among `atoms` perform besides `moves` (chained
    /// actions, such as `kerchunk`), each once; none in the classic model.
    pub fn performed<'a>(
        &self,
        arities: &[u32],
        moves: &[Row],
        atoms: impl IntoIterator<Item = (RelId, &'a Row)>,
    ) -> Vec<Row> {
        let mut out: Vec<Row> = Vec::new();
        for (kind, term) in self.effects(arities, atoms) {
            if kind == EffectKind::Perform && !moves.contains(&term) && !out.contains(&term) {
                out.push(term);
            }
        }
        out
    }

    /// The effects of the operation instances among `atoms`.
    fn effects<'a>(
        &self,
        arities: &[u32],
        atoms: impl IntoIterator<Item = (RelId, &'a Row)>,
    ) -> Vec<(EffectKind, Row)> {
        let Some((_, lowering)) = &self.operations else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (rel, row) in atoms {
            if let Some(kinds) = lowering.operation(rel) {
                out.extend(operation_effects(kinds, row, arities));
            }
        }
        out
    }

    /// The effects of the operation instance `rel(row)`, if `rel` is an operation's relation.
    pub fn effects_of(
        &self,
        arities: &[u32],
        rel: RelId,
        row: &Row,
    ) -> Option<Vec<(EffectKind, Row)>> {
        let (_, lowering) = self.operations.as_ref()?;
        Some(operation_effects(lowering.operation(rel)?, row, arities).collect())
    }

    /// The answers given by the true atoms `atoms` of the output relations (`legal`, `goal`,
    /// `terminal`, and `next` or the operation instances when `with_next`, applied to
    /// `state`: deletions, then additions); other relations are ignored.
    pub fn answers<'a>(
        &self,
        arities: &[u32],
        state: &State,
        with_next: bool,
        atoms: impl IntoIterator<Item = (RelId, &'a Row)> + Clone,
    ) -> Answers {
        let mut answers = Answers::default();
        let mut next = Vec::new();
        let operations = self.operations.is_some();
        for (rel, row) in atoms.clone() {
            let rel = Some(rel);
            if rel == self.legal && operations {
                answers.legal.push((Row::new(), row.clone()));
            } else if rel == self.legal {
                answers.legal.extend(split_pair(row, arities));
            } else if rel == self.goal {
                answers.goals.extend(split_pair(row, arities));
            } else if rel == self.terminal {
                answers.terminal = true;
            } else if rel == self.next && with_next {
                next.push(row.clone());
            }
        }
        if operations && with_next {
            let effects = self.effects(arities, atoms);
            let has = |kind: EffectKind, f: &Row| effects.iter().any(|e| e.0 == kind && e.1 == *f);
            next.extend(
                state
                    .fluents()
                    .iter()
                    .filter(|f| !has(EffectKind::Delete, f))
                    .cloned(),
            );
            next.extend(
                effects
                    .iter()
                    .filter(|e| e.0 == EffectKind::Add)
                    .map(|e| e.1.clone()),
            );
        }
        answers.legal.sort_unstable();
        answers.legal.dedup();
        answers.goals.sort_unstable();
        answers.goals.dedup();
        answers.next = with_next.then(|| State::new(next));
        answers
    }
}

/// The effects of one operation instance `row` (the action, then one term per effect) whose
/// effects are of `kinds`.
fn operation_effects<'a>(
    kinds: &'a [EffectKind],
    row: &'a Row,
    arities: &'a [u32],
) -> impl Iterator<Item = (EffectKind, Row)> + 'a {
    let mut start = term_end(row, 0, arities).unwrap_or(row.len());
    kinds.iter().map(move |&kind| {
        let end = term_end(row, start, arities).unwrap_or(row.len());
        let term = Row::from_slice(&row[start..end]);
        start = end;
        (kind, term)
    })
}

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
