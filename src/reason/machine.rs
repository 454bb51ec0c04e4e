//! [`Machine`]: a player's state machine over the ground program, compiled once into a
//! [`Network`] and asked with states as bit sets and moves as numbers.
//!
//! Fluents and each player's moves are numbered in the order of their KIF text (byte order),
//! the order ggp-base's traces list them in, so that a state's fluents and a player's legal
//! moves come out sorted as a player prints them. A state's views (legal moves, goals,
//! terminal) are the network's early layer, evaluated once per state and kept until another
//! state is asked about; a joint move evaluates the late layer (the components that read
//! `does`), then the next state is read from `next` (classic) or applied from the operation
//! instances that hold: deletions, then additions, after every chained action is performed.
//!
//! Full evaluation per state, not change propagation: the early layer is one linear pass over
//! flat arrays, and the journal (docs/bench/README.md, "A player's machine") gives the
//! measurements it was chosen by.

use super::network::{Layer, Network};
use super::{pair_row, split_pair, Answers, FastMap, GameRelations, JointMove, ReasonError};
use super::{Reasoner, State};
use crate::engine::Row;
use crate::ground::{AtomId, GroundProgram};
use crate::program::encoding::{int_value, Encoding};
use crate::program::operations::EffectKind;
use crate::program::{Model, Program, RelId, Term};
use crate::write::ground::AtomText;
use crate::write::Notation;

/// No atom: a fluent or move the ground program has no input atom for.
const NONE: AtomId = AtomId::MAX;

/// A state: the fluents that hold, as bits over the machine's fluents.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MachineState {
    words: Box<[u64]>,
}

impl MachineState {
    /// The state of `n` fluents in which none holds.
    fn empty(n: usize) -> MachineState {
        MachineState {
            words: vec![0; n.div_ceil(64)].into_boxed_slice(),
        }
    }

    /// Whether fluent `f` holds.
    pub fn contains(&self, f: usize) -> bool {
        self.words[f / 64] & (1 << (f % 64)) != 0
    }

    fn set(&mut self, f: usize, holds: bool) {
        let bit = 1 << (f % 64);
        match holds {
            true => self.words[f / 64] |= bit,
            false => self.words[f / 64] &= !bit,
        }
    }

    /// The fluents that hold, ascending.
    pub fn fluents(&self) -> impl Iterator<Item = usize> + '_ {
        (self.words.iter().enumerate()).flat_map(|(w, &word)| {
            (0..64)
                .filter(move |b| word & (1 << b) != 0)
                .map(move |b| w * 64 + b)
        })
    }
}

/// One player: a role of a classic game, or an operations game's mover (whose role is empty).
#[derive(Clone, Debug, Default)]
struct Player {
    role: Row,
    /// The moves it may ever make, in the order of their text.
    moves: Vec<Row>,
    texts: Vec<String>,
    ids: FastMap<Row, u32>,
    /// `(legal atom, move)`, by move.
    legal: Vec<(AtomId, u32)>,
    /// The `does` atom of each move.
    does: Vec<AtomId>,
}

/// How the next state is made.
#[derive(Clone, Debug)]
enum Transitions {
    /// `(next atom, fluent)`.
    Next(Vec<(AtomId, u32)>),
    /// Per operation instance: its atom and effects, on fluents (add, delete) or on the
    /// mover's moves (perform).
    Operations(Vec<(AtomId, Vec<(EffectKind, u32)>)>),
}

/// A ground game as a state machine: `initial`, `legal`, `next`, `goals`, `is_terminal`.
/// (The example runs as the unit test `the_common_path_plays_to_the_end`: doctests do not link
/// with the static relocation model of `.cargo/config.toml`.)
///
/// ```ignore
/// use gdlground::{load::load, syntax::{SourceFile, Syntax}, Machine};
/// let text = std::fs::read_to_string("examples/tictactoe.kif").unwrap();
/// let game = load(SourceFile::new("tictactoe.kif", text.as_str()), Syntax::Kif).unwrap();
/// let grounded = gdlground::ground(&game.program, &Default::default()).unwrap();
/// let mut machine = Machine::new(&game.program, &grounded).unwrap();
/// let mut state = machine.initial();
/// let mut moves = Vec::new();
/// while !machine.is_terminal(&state) {
///     let joint: Vec<u32> = (0..machine.players())
///         .map(|p| {
///             machine.legal(&state, p, &mut moves);
///             moves[0]
///         })
///         .collect();
///     state = machine.next(&state, &joint);
/// }
/// assert!(machine.goal(&state, 0).is_some());
/// ```
#[derive(Clone, Debug)]
pub struct Machine {
    rels: GameRelations,
    network: Network,
    values: Vec<bool>,
    fluents: Vec<Row>,
    fluent_texts: Vec<String>,
    fluent_ids: FastMap<Row, u32>,
    /// The input atom of each fluent.
    fluent_atoms: Vec<AtomId>,
    transitions: Transitions,
    /// The roles, in the order the game states them.
    roles: Vec<Row>,
    role_texts: Vec<String>,
    players: Vec<Player>,
    /// `(role, goal atom, value)`: every goal atom, also of terms that are not roles (which
    /// only the reasoners' answers list).
    goals: Vec<(Row, AtomId, Row)>,
    /// `(legal atom, role, move)` of the terms that are not roles, for the reasoners' answers.
    strays: Vec<(AtomId, Row, Row)>,
    terminal: Option<AtomId>,
    initial: MachineState,
    /// The state whose early layer `values` holds.
    evaluated: Option<MachineState>,
    /// Scratch: the `does` atoms set for a joint move.
    performed: Vec<AtomId>,
}

impl Machine {
    /// The machine of `original`'s ground game `grounded`.
    pub fn new(original: &Program, grounded: &crate::Grounded) -> Result<Machine, ReasonError> {
        let program = grounded.program(original);
        Machine::of(program, &grounded.encoding, &grounded.ground)
    }

    /// The machine of `ground`, the ground program of `program` encoded with `encoding`.
    pub fn of(
        program: &Program,
        encoding: &Encoding,
        ground: &GroundProgram,
    ) -> Result<Machine, ReasonError> {
        let rels = GameRelations::new(program, encoding)?;
        let text = AtomText::new(program, encoding, Notation::Kif);
        let spell = |row: &Row| text.arguments(row).join(" ");
        let arities = encoding.arities();
        let mut parts = Parts::default();
        for (id, (rel, row)) in ground.atoms.iter().enumerate() {
            parts.sort(&rels, &arities, id as AtomId, *rel, row);
        }
        let (fluents, fluent_ids) = numbered(parts.fluent_rows(), &spell);
        let mut late = vec![false; ground.atoms.len()];
        for &(atom, _, _) in &parts.does {
            late[atom as usize] = true;
        }
        let mut machine = Machine {
            fluent_texts: fluents.iter().map(spell).collect(),
            fluent_atoms: vec![NONE; fluents.len()],
            transitions: Transitions::Next(Vec::new()),
            network: Network::new(ground, &late)?,
            values: vec![false; ground.atoms.len()],
            fluents,
            fluent_ids,
            roles: Vec::new(),
            role_texts: Vec::new(),
            players: Vec::new(),
            goals: Vec::new(),
            strays: Vec::new(),
            terminal: parts.terminal,
            initial: MachineState::empty(0),
            evaluated: None,
            performed: Vec::new(),
            rels,
        };
        for &(atom, ref fluent) in &parts.inputs {
            machine.fluent_atoms[machine.fluent_ids[fluent] as usize] = atom;
        }
        for &f in &ground.facts {
            machine.values[f as usize] = true;
        }
        machine.network.evaluate(&mut machine.values, Layer::Early);
        machine.network.evaluate(&mut machine.values, Layer::Late);
        let holding = |atoms: &[(AtomId, Row)]| -> Vec<Row> {
            (atoms.iter())
                .filter(|(a, _)| machine.values[*a as usize])
                .map(|(_, row)| row.clone())
                .collect()
        };
        let roles = in_game_order(holding(&parts.roles), program, encoding);
        let initial = holding(&parts.init);
        machine.role_texts = roles.iter().map(spell).collect();
        machine.strays = (parts.legal.iter())
            .filter(|l| program.model == Model::Classic && !roles.contains(&l.1))
            .cloned()
            .collect();
        let movers = match program.model {
            Model::Classic => roles.clone(),
            Model::Operations => vec![Row::new()],
        };
        machine.players = (movers.into_iter())
            .map(|role| parts.player(role, &spell))
            .collect();
        machine.roles = roles;
        machine.transitions = parts.transitions(&machine);
        machine.goals = parts.goals;
        machine.initial = machine.state(initial.iter()).0;
        machine.network.clear(&mut machine.values, Layer::Late);
        Ok(machine)
    }

    /// The roles, in the order the game states them.
    pub fn roles(&self) -> &[Row] {
        &self.roles
    }

    /// Each role's text (KIF), in the order of [`Machine::roles`].
    pub fn role_texts(&self) -> &[String] {
        &self.role_texts
    }

    /// How many players choose a move each turn: every role in a classic game, the one
    /// player to move in an operations game.
    pub fn players(&self) -> usize {
        self.players.len()
    }

    /// The fluents a state can hold, in the order of their text.
    pub fn fluents(&self) -> &[Row] {
        &self.fluents
    }

    /// Fluent `f`'s text (KIF).
    pub fn fluent_text(&self, f: usize) -> &str {
        &self.fluent_texts[f]
    }

    /// The moves `player` may ever make, in the order of their text.
    pub fn moves(&self, player: usize) -> &[Row] {
        &self.players[player].moves
    }

    /// Move `m` of `player` as text (KIF).
    pub fn move_text(&self, player: usize, m: u32) -> &str {
        &self.players[player].texts[m as usize]
    }

    /// The number of `player`'s move `term`, if it can ever be legal.
    pub fn move_id(&self, player: usize, term: &Row) -> Option<u32> {
        self.players[player].ids.get(term).copied()
    }

    /// The initial state.
    pub fn initial(&self) -> MachineState {
        self.initial.clone()
    }

    /// The state in which `fluents` hold, and those of them the ground program has no input
    /// atom for (outside S\*: kept in the state, but no rule can read them).
    pub fn state<'a>(&self, fluents: impl Iterator<Item = &'a Row>) -> (MachineState, Vec<Row>) {
        let mut state = MachineState::empty(self.fluents.len());
        let mut unknown = Vec::new();
        for fluent in fluents {
            let f = self.fluent_ids.get(fluent).map(|&f| f as usize);
            if let Some(f) = f {
                state.set(f, true);
            }
            if f.is_none_or(|f| self.fluent_atoms[f] == NONE) {
                unknown.push(fluent.clone());
            }
        }
        (state, unknown)
    }

    /// `state` as the reasoners' [`State`].
    pub fn to_state(&self, state: &MachineState) -> State {
        State::new(state.fluents().map(|f| self.fluents[f].clone()))
    }

    /// The legal moves of `player` in `state`, ascending, into `out`.
    pub fn legal(&mut self, state: &MachineState, player: usize, out: &mut Vec<u32>) {
        self.evaluate(state);
        out.clear();
        let legal = &self.players[player].legal;
        out.extend(
            (legal.iter())
                .filter(|(a, _)| self.values[*a as usize])
                .map(|l| l.1),
        );
    }

    /// Whether `state` is terminal.
    pub fn is_terminal(&mut self, state: &MachineState) -> bool {
        self.evaluate(state);
        self.terminal.is_some_and(|t| self.values[t as usize])
    }

    /// The goal values of `role` in `state` (one in a well-formed game), ascending.
    pub fn goals(&mut self, state: &MachineState, role: usize) -> Vec<Row> {
        self.evaluate(state);
        let role = &self.roles[role];
        let mut values: Vec<Row> = (self.goals.iter())
            .filter(|(r, a, _)| r == role && self.values[*a as usize])
            .map(|(_, _, v)| v.clone())
            .collect();
        values.sort_unstable();
        values
    }

    /// The goal value of `role` in `state` as a player reads it: the one value, an integer;
    /// `None` when there is no value, several, or one that is not a number.
    pub fn goal(&mut self, state: &MachineState, role: usize) -> Option<i64> {
        match &self.goals(state, role)[..] {
            [value] if value.len() == 1 => int_value(value[0]),
            _ => None,
        }
    }

    /// The state after `joint` (a move of each player, by number) in `state`.
    pub fn next(&mut self, state: &MachineState, joint: &[u32]) -> MachineState {
        self.evaluate(state);
        self.performed.clear();
        for (player, &m) in self.players.iter().zip(joint) {
            let atom = player.does.get(m as usize).copied().unwrap_or(NONE);
            if atom != NONE {
                self.values[atom as usize] = true;
                self.performed.push(atom);
            }
        }
        loop {
            self.network.clear(&mut self.values, Layer::Late);
            self.network.evaluate(&mut self.values, Layer::Late);
            if !self.perform_chained() {
                break;
            }
        }
        let next = self.successor(state);
        for &atom in &self.performed {
            self.values[atom as usize] = false;
        }
        next
    }

    /// Sets the `does` atoms of the actions that the operation instances holding perform
    /// and that are not performed yet; whether there were any.
    fn perform_chained(&mut self) -> bool {
        let Transitions::Operations(operations) = &self.transitions else {
            return false;
        };
        let mut more = false;
        for (atom, effects) in operations {
            if !self.values[*atom as usize] {
                continue;
            }
            for &(_, target) in effects.iter().filter(|e| e.0 == EffectKind::Perform) {
                let does = self.players[0].does[target as usize];
                if does != NONE && !self.values[does as usize] {
                    self.values[does as usize] = true;
                    self.performed.push(does);
                    more = true;
                }
            }
        }
        more
    }

    /// The next state, once the late layer is evaluated for a joint move in `state`.
    fn successor(&self, state: &MachineState) -> MachineState {
        match &self.transitions {
            Transitions::Next(next) => {
                let mut out = MachineState::empty(self.fluents.len());
                for &(atom, f) in next {
                    if self.values[atom as usize] {
                        out.set(f as usize, true);
                    }
                }
                out
            }
            Transitions::Operations(operations) => {
                let mut out = state.clone();
                let holding = || operations.iter().filter(|(a, _)| self.values[*a as usize]);
                for kind in [EffectKind::Delete, EffectKind::Add] {
                    for (_, effects) in holding() {
                        for &(k, f) in effects.iter().filter(|e| e.0 == kind) {
                            out.set(f as usize, k == EffectKind::Add);
                        }
                    }
                }
                out
            }
        }
    }

    /// Evaluates the early layer for `state`, unless it is the state evaluated last.
    fn evaluate(&mut self, state: &MachineState) {
        if self.evaluated.as_ref() == Some(state) {
            return;
        }
        for (f, &atom) in self.fluent_atoms.iter().enumerate() {
            if atom != NONE {
                self.values[atom as usize] = state.contains(f);
            }
        }
        self.network.clear(&mut self.values, Layer::Early);
        self.network.evaluate(&mut self.values, Layer::Early);
        match &mut self.evaluated {
            Some(evaluated) => evaluated.words.clone_from(&state.words),
            None => self.evaluated = Some(state.clone()),
        }
    }
}

impl Reasoner for Machine {
    fn roles(&self) -> Vec<Row> {
        let mut roles = self.roles.clone();
        roles.sort_unstable();
        roles
    }

    fn initial_state(&self) -> State {
        self.to_state(&self.initial)
    }

    fn answer(&mut self, state: &State, joint: Option<&JointMove>) -> Result<Answers, ReasonError> {
        let (bits, unknown) = self.state(state.fluents().iter());
        let mut answers = Answers {
            unknown: (unknown.iter())
                .filter_map(|f| self.rels.input_of(f))
                .collect(),
            terminal: self.is_terminal(&bits),
            ..Answers::default()
        };
        let mut moves = Vec::new();
        for p in 0..self.players() {
            self.legal(&bits, p, &mut moves);
            let player = &self.players[p];
            (answers.legal).extend(
                moves
                    .iter()
                    .map(|&m| (player.role.clone(), player.moves[m as usize].clone())),
            );
        }
        let holds = |a: &AtomId| self.values[*a as usize];
        let strays = self.strays.iter().filter(|l| holds(&l.0));
        (answers.legal).extend(strays.map(|(_, r, m)| (r.clone(), m.clone())));
        let goals = self.goals.iter().filter(|g| holds(&g.1));
        (answers.goals).extend(goals.map(|(r, _, v)| (r.clone(), v.clone())));
        if let Some(joint) = joint {
            let numbered = self.numbered(joint, &mut answers.unknown);
            let next = self.next(&bits, &numbered);
            answers.next = Some(self.to_state(&next));
        }
        answers.legal.sort_unstable();
        answers.goals.sort_unstable();
        Ok(answers)
    }
}

impl Machine {
    /// The moves of `joint` by number, player by player; a move the machine cannot perform
    /// (it has no `does` atom) goes to `unknown` as that atom, and is left out.
    fn numbered(&self, joint: &JointMove, unknown: &mut Vec<(RelId, Row)>) -> Vec<u32> {
        let mut numbered = vec![u32::MAX; self.players.len()];
        for (role, m) in &joint.moves {
            let p = (self.players.iter()).position(|p| p.role == *role || p.role.is_empty());
            let id = p.and_then(|p| Some((p, self.move_id(p, m)?)));
            match id.filter(|&(p, id)| self.players[p].does[id as usize] != NONE) {
                Some((p, id)) => numbered[p] = id,
                None => unknown.extend(self.rels.does.map(
                    |d| match self.players[0].role.is_empty() {
                        true => (d, m.clone()),
                        false => (d, pair_row(role, m)),
                    },
                )),
            }
        }
        numbered
    }
}

/// The atoms of a ground program that the machine reads, sorted by what they say.
#[derive(Default)]
struct Parts {
    /// `(input atom, fluent)`.
    inputs: Vec<(AtomId, Row)>,
    /// `(next atom, fluent)`.
    next: Vec<(AtomId, Row)>,
    /// Operation instances: atom, and effects.
    operations: Vec<(AtomId, Vec<(EffectKind, Row)>)>,
    roles: Vec<(AtomId, Row)>,
    init: Vec<(AtomId, Row)>,
    /// `(atom, role, move)` of `legal` and of `does`.
    legal: Vec<(AtomId, Row, Row)>,
    does: Vec<(AtomId, Row, Row)>,
    /// `(role, atom, value)`.
    goals: Vec<(Row, AtomId, Row)>,
    terminal: Option<AtomId>,
}

impl Parts {
    /// Files atom `id`, `rel(row)`, where it belongs.
    fn sort(&mut self, rels: &GameRelations, arities: &[u32], id: AtomId, rel: RelId, row: &Row) {
        let is = |r: Option<RelId>| r == Some(rel);
        let operations = rels.operations.is_some();
        let pair = || split_pair(row, arities);
        if let Some(fluent) = rels.fluent_of(rel, row) {
            self.inputs.push((id, fluent));
        } else if let Some(effects) = rels.effects_of(arities, rel, row) {
            self.operations.push((id, effects));
        } else if is(rels.next) {
            self.next.push((id, row.clone()));
        } else if is(rels.role) {
            self.roles.push((id, row.clone()));
        } else if is(rels.init) {
            self.init.push((id, row.clone()));
        } else if is(rels.terminal) {
            self.terminal = Some(id);
        } else if is(rels.goal) {
            self.goals.extend(pair().map(|(r, v)| (r, id, v)));
        } else if is(rels.legal) && operations {
            self.legal.push((id, Row::new(), row.clone()));
        } else if is(rels.legal) {
            self.legal.extend(pair().map(|(r, m)| (id, r, m)));
        } else if is(rels.does) && operations {
            self.does.push((id, Row::new(), row.clone()));
        } else if is(rels.does) {
            self.does.extend(pair().map(|(r, m)| (id, r, m)));
        }
    }

    /// Every fluent a state can hold: those with an input atom, those `next` and the
    /// operations make, and the initial ones.
    fn fluent_rows(&self) -> impl Iterator<Item = &Row> {
        let added = (self.operations.iter())
            .flat_map(|(_, effects)| effects.iter())
            .filter(|(kind, _)| *kind != EffectKind::Perform)
            .map(|(_, f)| f);
        (self.inputs.iter().map(|i| &i.1))
            .chain(self.next.iter().map(|n| &n.1))
            .chain(self.init.iter().map(|i| &i.1))
            .chain(added)
    }

    /// The player of `role`: every move that is ever legal or performed (or, in an
    /// operations game, performed by an operation), numbered in text order.
    fn player(&self, role: Row, spell: &impl Fn(&Row) -> String) -> Player {
        let of_role = |list: &'_ [(AtomId, Row, Row)]| -> Vec<(AtomId, Row)> {
            (list.iter())
                .filter(|l| l.1 == role)
                .map(|l| (l.0, l.2.clone()))
                .collect()
        };
        let (legal, does) = (of_role(&self.legal), of_role(&self.does));
        let chained = (self.operations.iter())
            .flat_map(|(_, effects)| effects.iter())
            .filter(|(kind, _)| *kind == EffectKind::Perform && role.is_empty())
            .map(|(_, m)| m);
        let all = (legal.iter().map(|l| &l.1))
            .chain(does.iter().map(|d| &d.1))
            .chain(chained);
        let (moves, ids) = numbered(all, spell);
        let mut player = Player {
            texts: moves.iter().map(spell).collect(),
            legal: legal.iter().map(|(a, m)| (*a, ids[m])).collect(),
            does: vec![NONE; moves.len()],
            role,
            moves,
            ids,
        };
        player.legal.sort_unstable_by_key(|l| l.1);
        for (a, m) in &does {
            player.does[player.ids[m] as usize] = *a;
        }
        player
    }

    /// How `machine` (whose fluents and players are numbered) makes the next state.
    fn transitions(&self, machine: &Machine) -> Transitions {
        if machine.rels.operations.is_none() {
            let next = self.next.iter().map(|(a, f)| (*a, machine.fluent_ids[f]));
            return Transitions::Next(next.collect());
        }
        let mover = &machine.players[0];
        let effect = |(kind, term): &(EffectKind, Row)| {
            let target = match kind {
                EffectKind::Perform => mover.ids.get(term).copied(),
                _ => machine.fluent_ids.get(term).copied(),
            };
            Some((*kind, target?))
        };
        let operations = (self.operations.iter())
            .map(|(atom, effects)| (*atom, effects.iter().filter_map(effect).collect()))
            .collect();
        Transitions::Operations(operations)
    }
}

/// The distinct rows of `rows`, in the order of their text, and the number of each.
fn numbered<'a>(
    rows: impl Iterator<Item = &'a Row>,
    spell: &impl Fn(&Row) -> String,
) -> (Vec<Row>, FastMap<Row, u32>) {
    let mut texts: Vec<(String, Row)> = Vec::new();
    let mut seen = crate::hash::FastSet::default();
    for row in rows {
        if seen.insert(row.clone()) {
            texts.push((spell(row), row.clone()));
        }
    }
    texts.sort_unstable();
    let rows: Vec<Row> = texts.into_iter().map(|(_, row)| row).collect();
    let ids = (rows.iter().enumerate())
        .map(|(i, r)| (r.clone(), i as u32))
        .collect();
    (rows, ids)
}

/// `roles` in the order of the game's `role` facts (then the others, as given): the order
/// players list roles in.
fn in_game_order(mut roles: Vec<Row>, program: &Program, encoding: &Encoding) -> Vec<Row> {
    let role = program.relation("role", 1);
    let stated: Vec<Row> = (program.rules.iter())
        .filter(|rule| Some(rule.head.rel) == role && rule.body.is_empty())
        .filter_map(|rule| match rule.head.args.first() {
            Some(Term::Ground(id)) => {
                let mut tokens = Vec::new();
                encoding.encode(program, *id, &mut tokens);
                Some(Row::from_slice(&tokens))
            }
            _ => None,
        })
        .collect();
    roles.sort_by_key(|r| stated.iter().position(|s| s == r).unwrap_or(usize::MAX));
    roles
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reason::test_support::{example, grounded};
    use crate::syntax::Syntax;

    fn reasoner(kif: &str) -> (crate::Game, crate::Grounded, Machine) {
        let (game, g) = grounded(kif, Syntax::Kif);
        match Machine::of(g.program(&game.program), &g.encoding, &g.ground) {
            Ok(r) => (game, g, r),
            Err(e) => panic!("{e}"),
        }
    }

    fn answer(r: &mut Machine, state: &State, joint: Option<&JointMove>) -> Answers {
        r.answer(state, joint).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_common_path_plays_to_the_end() {
        let (game, grounded) = example("tictactoe.kif");
        let mut machine = Machine::new(&game.program, &grounded).unwrap_or_else(|e| panic!("{e}"));
        let mut state = machine.initial();
        let mut moves = Vec::new();
        let mut steps = 0;
        while !machine.is_terminal(&state) {
            let joint: Vec<u32> = (0..machine.players())
                .map(|p| {
                    machine.legal(&state, p, &mut moves);
                    moves[0]
                })
                .collect();
            state = machine.next(&state, &joint);
            steps += 1;
        }
        assert!((5..=9).contains(&steps), "{steps}");
        assert!(machine.goal(&state, 0).is_some());
        assert_eq!(machine.role_texts(), ["xplayer", "oplayer"]);
    }

    #[test]
    fn tictactoe_opening() {
        let (game, g) = example("tictactoe.kif");
        let mut r = Machine::of(g.program(&game.program), &g.encoding, &g.ground)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(Reasoner::roles(&r).len(), 2);
        let state = r.initial_state();
        assert_eq!(state.fluents().len(), 10);
        let answers = answer(&mut r, &state, None);
        assert_eq!(answers.legal.len(), 10); // nine marks for x, noop for o
        assert!(!answers.terminal);
        assert_eq!(answers.next, None);
        let joint = JointMove {
            moves: r
                .roles()
                .to_vec()
                .into_iter()
                .map(|role| {
                    let m = answers.moves_of(&role).next().cloned().unwrap_or_default();
                    (role, m)
                })
                .collect(),
        };
        let next = answer(&mut r, &state, Some(&joint))
            .next
            .unwrap_or_default();
        assert_eq!(next.fluents().len(), 10);
        assert_ne!(next, state);
    }

    #[test]
    fn atom_level_stratification_and_positive_cycles() {
        // goal(x,0) reads not goal(x,100), a relation of its own component; reach is cyclic.
        let (_, _, mut r) = reasoner(
            "(role x) (init (e 1 2)) (init (e 2 1)) (init (e 2 3))
             (<= (reach ?a ?b) (true (e ?a ?b)))
             (<= (reach ?a ?c) (reach ?a ?b) (true (e ?b ?c)))
             (<= (goal ?r 0) (role ?r) (not (goal ?r 100)))
             (<= (goal ?r 100) (role ?r) (reach 1 3))
             (<= (legal x go) (reach 3 ?a)) (<= (legal x stay) (reach 1 1))
             (<= (next (e ?a ?b)) (true (e ?a ?b)) (does x stay))
             (<= terminal (not (reach 1 3)))",
        );
        let state = r.initial_state();
        let answers = answer(&mut r, &state, None);
        assert_eq!(answers.goals.len(), 1);
        assert_eq!(answers.goals[0].1.len(), 1);
        assert_eq!(answers.legal.len(), 1); // stay: 1 reaches itself through 2
        assert!(!answers.terminal);
        let answers = answer(&mut r, &State::default(), None);
        assert!(answers.terminal && answers.legal.is_empty());
    }

    #[test]
    fn inputs_outside_the_atom_table_are_reported() {
        let (game, g, mut r) = reasoner(
            "(role x) (init p) (legal x a) (<= (next p) (true p) (does x a)) (goal x 0) (<= terminal (true q))",
        );
        let init = r.initial_state();
        let mut fluents = init.fluents().to_vec();
        // The fluent q never becomes true: true(q) is not in S*.
        let q = game
            .program
            .symbols
            .get("q")
            .and_then(|s| g.encoding.get(s, 0));
        fluents.push(Row::from_slice(&[q.unwrap_or(u32::MAX)]));
        let answers = answer(&mut r, &State::new(fluents), None);
        assert_eq!(answers.unknown.len(), 1);
        assert!(!answers.terminal);
    }
}
