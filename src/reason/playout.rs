//! Validation by random playouts: the ground program against the original rules, state by
//! state (GDL.md §3: "the ground program must mean the same game").
//!
//! Input: a program (an operations game lowered), its encoding and ground program, and
//! [`Options`]. Output: a
//! [`Summary`], or the first [`Failure`]: a question the [reference](super::reference) and the
//! [ground](super::ground) reasoners answer differently, or an atom true in a visited state
//! that is not in S* (GDL.md §2: atoms seen in any real playout ⊆ S*).
//!
//! Each step asks both reasoners for the roles' legal moves, the goals and terminal; if the
//! state is not terminal, picks a random joint move from the legal ones (a seeded splitmix64,
//! so a seed replays the same playouts) and asks both for the next state. Every atom the
//! reference reasoner derives, static or in a visited state and move, must be in S*.

use super::machine::Machine;
use super::reference::Reference;
use super::{pair_row, Answers, FastSet, JointMove, ReasonError, Reasoner, State};
use crate::engine::Row;
use crate::ground::GroundProgram;
use crate::program::encoding::Encoding;
use crate::program::{Model, Program, RelId};
use crate::write::ground::AtomText;
use crate::write::Notation;
use std::fmt::Write as _;

/// How many playouts to run, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The number of playouts.
    pub playouts: usize,
    /// The seed of the move choices.
    pub seed: u64,
    /// A playout stops after this many moves even if the game goes on.
    pub max_steps: usize,
}

/// Where a validation is: reported after every state both reasoners agree on, so that a
/// caller can show progress (large games take minutes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The playout, from 1.
    pub playout: usize,
    /// The joint moves made so far in this playout.
    pub step: usize,
    /// Whether this state ended the playout (terminal, stuck, or cut at the step limit).
    pub last: bool,
}

/// What a successful validation did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Playouts run.
    pub playouts: usize,
    /// Joint moves made in all playouts.
    pub steps: usize,
    /// Distinct states visited.
    pub states: usize,
    /// Playouts that stopped because a role had no legal move in a non-terminal state.
    pub stuck: usize,
    /// Playouts stopped by the step limit.
    pub cut: usize,
}

/// The first thing that went wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The playout, from 1; 0 before the first one (roles, initial state, static atoms).
    pub playout: usize,
    /// The number of moves made in the playout so far.
    pub step: usize,
    /// The state, if the failure is about one.
    pub state: Option<State>,
    /// The joint move, if the failure is about one.
    pub joint: Option<JointMove>,
    /// What went wrong.
    pub problem: Problem,
}

/// A question a player asks of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Question {
    /// The roles.
    Roles,
    /// The initial state.
    Initial,
    /// The legal moves.
    Legal,
    /// The goal values.
    Goal,
    /// Whether the state is terminal.
    Terminal,
    /// The next state.
    Next,
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The reasoners answer `question` differently: `atom` holds for one of them only.
    Differs {
        /// The question.
        question: Question,
        /// The atom (`legal(r,m)`, `next(f)`, ...) that makes the difference, if the program
        /// has its relation.
        atom: Option<(RelId, Row)>,
        /// Whether it is the reference reasoner that has the atom.
        reference_has: bool,
    },
    /// An atom true in a visited state is not in S*: the grounding is unsound.
    OutsideSuperset((RelId, Row)),
    /// A reasoner could not answer.
    Reason(ReasonError),
}

/// A small seeded generator (splitmix64): enough to pick moves, and the same on every machine.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (> 0).
    fn below(&mut self, n: usize) -> usize {
        ((self.next() as u128 * n as u128) >> 64) as usize
    }
}

/// Runs `options.playouts` random playouts of `source`, comparing the reference reasoner over
/// it with the ground reasoner of `ground` (whose atoms are S* and are atoms of `program`,
/// the program grounded: `source` with auxiliary relations added) at every step.
pub fn validate(
    source: &Program,
    program: &Program,
    encoding: &Encoding,
    ground: &GroundProgram,
    options: &Options,
    progress: &mut dyn FnMut(Progress),
) -> Result<Summary, Box<Failure>> {
    let before = |problem| {
        Box::new(Failure {
            playout: 0,
            step: 0,
            state: None,
            joint: None,
            problem,
        })
    };
    let mut reference = Reference::new(source, encoding).map_err(|e| before(Problem::Reason(e)))?;
    let mut checked =
        Machine::of(program, encoding, ground).map_err(|e| before(Problem::Reason(e)))?;
    let superset = Superset::new(program, ground);
    if let Some(problem) = superset.outside(reference.static_atoms()) {
        return Err(before(problem));
    }
    let rel = |name, arity| program.relation(name, arity);
    let roles = reference.roles();
    if let Some(p) = differs(Question::Roles, &roles, &Reasoner::roles(&checked), |r| {
        (rel("role", 1), r.clone())
    }) {
        return Err(before(p));
    }
    let initial = reference.initial_state();
    let init_fluent = |f: &Row| (rel("init", 1), f.clone());
    if let Some(p) = differs(
        Question::Initial,
        initial.fluents(),
        checked.initial_state().fluents(),
        init_fluent,
    ) {
        return Err(before(p));
    }
    // Who moves: every role, or in an operations game the one player to move, whose legal
    // actions the reasoners list under the empty role.
    let movers = match program.model {
        Model::Classic => roles.clone(),
        Model::Operations => vec![Row::new()],
    };
    let mut rng = SplitMix64(options.seed);
    let mut summary = Summary {
        playouts: options.playouts,
        ..Summary::default()
    };
    let mut seen = FastSet::default();
    for playout in 1..=options.playouts {
        let mut state = initial.clone();
        for step in 0.. {
            let fail = |joint: Option<&JointMove>, state: &State, problem| {
                Box::new(Failure {
                    playout,
                    step,
                    state: Some(state.clone()),
                    joint: joint.cloned(),
                    problem,
                })
            };
            let (a, b) = ask(&mut reference, &mut checked, &state, None)
                .map_err(|p| fail(None, &state, p))?;
            let problem = soundness(&b, &superset, &reference).or_else(|| compare(program, &a, &b));
            if let Some(p) = problem {
                return Err(fail(None, &state, p));
            }
            seen.insert(state.clone());
            let joint = if a.terminal {
                None
            } else if step == options.max_steps {
                summary.cut += 1;
                None
            } else {
                let joint = pick(&movers, &a, &mut rng);
                summary.stuck += usize::from(joint.is_none());
                joint
            };
            progress(Progress {
                playout,
                step,
                last: joint.is_none(),
            });
            let Some(joint) = joint else {
                break;
            };
            let (a, b) = ask(&mut reference, &mut checked, &state, Some(&joint))
                .map_err(|p| fail(Some(&joint), &state, p))?;
            let problem = soundness(&b, &superset, &reference);
            let (next_a, next_b) = (a.next.unwrap_or_default(), b.next.unwrap_or_default());
            let problem = problem.or_else(|| {
                differs(Question::Next, next_a.fluents(), next_b.fluents(), |f| {
                    (rel("next", 1), f.clone())
                })
            });
            if let Some(p) = problem {
                return Err(fail(Some(&joint), &state, p));
            }
            summary.steps += 1;
            state = next_a;
        }
    }
    summary.states = seen.len();
    Ok(summary)
}

/// The first difference between the legal moves, goals or terminal status in `a` (the
/// reference's answers) and `b`.
fn compare(program: &Program, a: &Answers, b: &Answers) -> Option<Problem> {
    let pair = |name| move |(x, y): &(Row, Row)| (program.relation(name, 2), pair_row(x, y));
    differs(Question::Legal, &a.legal, &b.legal, pair("legal"))
        .or_else(|| differs(Question::Goal, &a.goals, &b.goals, pair("goal")))
        .or_else(|| {
            (a.terminal != b.terminal).then(|| Problem::Differs {
                question: Question::Terminal,
                atom: program.relation("terminal", 0).map(|t| (t, Row::new())),
                reference_has: a.terminal,
            })
        })
}

/// A random joint move of the legal moves in `answers`; `None` if a role has none.
fn pick(roles: &[Row], answers: &Answers, rng: &mut SplitMix64) -> Option<JointMove> {
    let mut joint = JointMove::default();
    for role in roles {
        let moves: Vec<&Row> = answers.moves_of(role).collect();
        if moves.is_empty() {
            return None;
        }
        let chosen = moves[rng.below(moves.len())].clone();
        joint.moves.push((role.clone(), chosen));
    }
    Some(joint)
}

/// Both reasoners' answers.
fn ask(
    reference: &mut Reference,
    checked: &mut Machine,
    state: &State,
    joint: Option<&JointMove>,
) -> Result<(Answers, Answers), Problem> {
    let a = reference.answer(state, joint).map_err(Problem::Reason)?;
    let b = checked.answer(state, joint).map_err(Problem::Reason)?;
    Ok((a, b))
}

/// S*, one set of rows per relation: rows stored in the table itself, so that checking the
/// hundreds of thousands of atoms a large game derives per state costs one cache miss each,
/// not a second one to follow a pointer to the row. A relation restricted by demand has no
/// set: the ground program holds only its called atoms (R*), and the reference derives the
/// others too; the answers compared at every step check what its atoms decide.
struct Superset(Vec<Option<FastSet<Row>>>);

impl Superset {
    /// The atoms of `ground` by relation of `program`.
    fn new(program: &Program, ground: &GroundProgram) -> Superset {
        let mut sets: Vec<Option<FastSet<Row>>> = (0..program.relations.len() as RelId)
            .map(|rel| (!program.is_restricted(rel)).then(FastSet::default))
            .collect();
        for (rel, row) in ground.atoms.iter() {
            if let Some(set) = &mut sets[*rel as usize] {
                set.insert(row.clone());
            }
        }
        Superset(sets)
    }

    /// The first of `atoms` that is not in S* (nor in a restricted relation).
    fn outside<'a>(&self, mut atoms: impl Iterator<Item = (RelId, &'a Row)>) -> Option<Problem> {
        let within = |rel: RelId, row: &Row| match self.0.get(rel as usize) {
            Some(Some(set)) => set.contains(row),
            Some(None) => true,
            None => false,
        };
        atoms
            .find(|(rel, row)| !within(*rel, row))
            .map(|(rel, row)| Problem::OutsideSuperset((rel, row.clone())))
    }
}

/// An input the ground reasoner could not represent, or an atom the reference reasoner derived
/// in its last evaluation, that is not in S* (the atoms it kept from the same state's
/// evaluation before were checked then).
fn soundness(checked: &Answers, superset: &Superset, reference: &Reference) -> Option<Problem> {
    match checked.unknown.first() {
        Some(atom) => Some(Problem::OutsideSuperset(atom.clone())),
        None => superset.outside(reference.fresh_atoms()),
    }
}

/// The first element in one of the sorted lists `a` (the reference's) and `b` but not both,
/// as the atom `atom` spells it.
fn differs<T: Ord>(
    question: Question,
    a: &[T],
    b: &[T],
    atom: impl Fn(&T) -> (Option<RelId>, Row),
) -> Option<Problem> {
    let (mut i, mut j) = (0, 0);
    let (item, reference_has) = loop {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => (i, j) = (i + 1, j + 1),
            (Some(x), Some(y)) if x < y => break (x, true),
            (_, Some(y)) => break (y, false),
            (Some(x), None) => break (x, true),
            (None, None) => return None,
        }
    };
    let (rel, row) = atom(item);
    Some(Problem::Differs {
        question,
        atom: rel.map(|r| (r, row)),
        reference_has,
    })
}

impl Question {
    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Question::Roles => "roles",
            Question::Initial => "initial state",
            Question::Legal => "legal",
            Question::Goal => "goal",
            Question::Terminal => "terminal",
            Question::Next => "next state",
        }
    }
}

impl Failure {
    /// The failure as the user should see it: where, what, the state and the joint move (KIF).
    pub fn render(&self, program: &Program, encoding: &Encoding) -> String {
        let text = AtomText::new(program, encoding, Notation::Kif);
        let atom = |(rel, row): &(RelId, Row)| {
            let mut s = String::new();
            text.atom(*rel, row, &mut s);
            s
        };
        let mut out = match self.playout {
            0 => String::from("before the first playout: "),
            p => format!("playout {p}, step {}: ", self.step),
        };
        match &self.problem {
            Problem::Differs {
                question,
                atom: a,
                reference_has,
            } => {
                let (yes, no) = match reference_has {
                    true => ("the original rules", "the ground program"),
                    false => ("the ground program", "the original rules"),
                };
                let what = a.as_ref().map_or_else(|| "an atom".into(), atom);
                let _ = writeln!(
                    out,
                    "{} differs: {what} holds by {yes}, not by {no}",
                    question.name()
                );
            }
            Problem::OutsideSuperset(a) => {
                let _ = writeln!(
                    out,
                    "unsound grounding: {} is true in a visited state but not in S*",
                    atom(a)
                );
                let declarations = program.lowering.as_ref().and_then(|l| match a.0 {
                    rel if l.fluents[rel as usize] => Some(("base", "fluent")),
                    rel if rel == l.performed => Some(("action", "action")),
                    _ => None,
                });
                if let Some((set, what)) =
                    declarations.filter(|(s, _)| program.relation(s, 1).is_some())
                {
                    let _ = writeln!(
                        out,
                        "  hint: where arithmetic computes a {what}, S* keeps only those the \
                         game's `{set}` declarations allow: if they leave this one out, they are \
                         incomplete"
                    );
                }
            }
            Problem::Reason(e) => {
                let _ = writeln!(out, "error: {e}");
            }
        }
        let fluent_rel = ["true", "next", "init"]
            .iter()
            .find_map(|n| program.relation(n, 1));
        // An operations game's fluents are written bare, as the terms they are.
        let bare = program.lowering.is_some();
        if let (Some(state), Some(rel)) = (&self.state, fluent_rel) {
            let mut fluents: Vec<String> = state
                .fluents()
                .iter()
                .map(|f| match bare {
                    true => text.arguments(f).concat(),
                    false => atom(&(rel, f.clone())),
                })
                .collect();
            fluents.sort();
            let _ = writeln!(out, "  state ({} fluents):", fluents.len());
            fluents.iter().for_each(|f| {
                let _ = writeln!(out, "    {f}");
            });
        }
        let move_rel = program
            .relation("does", 2)
            .or_else(|| program.relation("legal", 2));
        let performed = program.lowering.as_ref().map(|l| l.performed);
        if let (Some(joint), Some(rel)) = (&self.joint, performed.or(move_rel)) {
            let moves: Vec<String> = joint
                .moves
                .iter()
                .map(|(r, m)| match performed {
                    Some(_) => atom(&(rel, m.clone())),
                    None => atom(&(rel, pair_row(r, m))),
                })
                .collect();
            let _ = writeln!(out, "  joint move: {}", moves.join(" "));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::AtomId;
    use crate::reason::test_support::example;
    use std::sync::Arc;

    const OPTIONS: Options = Options {
        playouts: 20,
        seed: 1,
        max_steps: 200,
    };

    /// [`validate`] of `game`'s rules against `ground`, a ground program of `g`'s atoms.
    fn check(
        game: &crate::Game,
        g: &crate::Grounded,
        ground: &GroundProgram,
    ) -> Result<Summary, Box<Failure>> {
        let (source, program) = (g.source(&game.program), g.program(&game.program));
        validate(source, program, &g.encoding, ground, &OPTIONS, &mut |_| {})
    }

    #[test]
    fn the_examples_agree() {
        for name in ["tictactoe.kif", "tictactoe.pl", "nim.pl", "blocksworld.pl"] {
            let (game, g) = example(name);
            let result = check(&game, &g, &g.ground);
            match result {
                Ok(summary) => assert!(summary.steps > 0, "{name}: {summary:?}"),
                Err(f) => panic!("{name}: {}", f.render(&game.program, &g.encoding)),
            }
        }
    }

    #[test]
    fn progress_is_reported_at_every_state() {
        let (game, g) = example("tictactoe.kif");
        let (source, program) = (g.source(&game.program), g.program(&game.program));
        let mut seen = Vec::new();
        let summary = validate(
            source,
            program,
            &g.encoding,
            &g.ground,
            &OPTIONS,
            &mut |p| seen.push(p),
        );
        let summary = summary.unwrap_or_else(|f| panic!("{}", f.render(program, &g.encoding)));
        // Every playout's states in order, the last one marked; one step between states.
        let mut expected = Vec::new();
        for playout in 1..=OPTIONS.playouts {
            let steps = seen.iter().filter(|p| p.playout == playout).count();
            expected.extend((0..steps).map(|step| Progress {
                playout,
                step,
                last: step + 1 == steps,
            }));
        }
        assert_eq!(seen, expected);
        assert_eq!(seen.len(), summary.steps + OPTIONS.playouts);
    }

    #[test]
    fn a_missing_ground_rule_is_caught() {
        let (game, g) = example("tictactoe.kif");
        let text = AtomText::new(g.program(&game.program), &g.encoding, Notation::Kif);
        let spell = |a: AtomId| {
            let (rel, row) = &g.ground.atoms[a as usize];
            let mut s = String::new();
            text.atom(*rel, row, &mut s);
            s
        };
        // Drop the rule that passes the turn from xplayer to oplayer.
        let mut broken = g.ground.clone();
        let before = broken.rules.len();
        broken.rules = (broken.rules.iter())
            .filter(|r| spell(r.head) != "(next (control oplayer))")
            .collect();
        assert_eq!(broken.rules.len(), before - 1);
        let failure = match check(&game, &g, &broken) {
            Ok(s) => panic!("the broken program passed: {s:?}"),
            Err(f) => f,
        };
        let Problem::Differs {
            question,
            atom: Some(atom),
            reference_has,
        } = &failure.problem
        else {
            panic!("{}", failure.render(&game.program, &g.encoding));
        };
        assert_eq!((*question, *reference_has), (Question::Next, true));
        let mut s = String::new();
        text.atom(atom.0, &atom.1, &mut s);
        assert_eq!(s, "(next (control oplayer))");
        assert_eq!((failure.playout, failure.step), (1, 0));
        let report = failure.render(&game.program, &g.encoding);
        assert!(
            report.contains("joint move: (does xplayer (mark"),
            "{report}"
        );
        assert!(report.contains("(true (control xplayer))"), "{report}");
    }

    #[test]
    fn a_reachable_fluent_outside_the_superset_is_caught() {
        let (game, g) = example("tictactoe.kif");
        // Rename the atom true(control(oplayer)) in the table: the fluent is then outside S*.
        let mut broken = g.ground.clone();
        let t = game.program.relation("true", 1);
        let oplayer = game
            .program
            .symbols
            .get("oplayer")
            .and_then(|s| g.encoding.get(s, 0));
        let control = game
            .program
            .symbols
            .get("control")
            .and_then(|s| g.encoding.get(s, 1));
        let (Some(t), Some(oplayer), Some(control)) = (t, oplayer, control) else {
            panic!("tictactoe without control(oplayer)");
        };
        let target: Row = Row::from_slice(&[control, oplayer]);
        let Some(slot) = Arc::make_mut(&mut broken.atoms)
            .iter_mut()
            .find(|(r, row)| *r == t && *row == target)
        else {
            panic!("true(control(oplayer)) not in S*");
        };
        slot.1 = Row::from_slice(&[control, control, oplayer]);
        let failure = match check(&game, &g, &broken) {
            Ok(s) => panic!("the broken program passed: {s:?}"),
            Err(f) => f,
        };
        assert_eq!(failure.problem, Problem::OutsideSuperset((t, target)));
        assert_eq!((failure.playout, failure.step), (1, 1));
    }

    /// An operations game: the original's operations evaluated by the reference reasoner,
    /// the ground operations applied by the ground reasoner; one ground operation dropped
    /// (the chained `pass` from alice to bob) must be caught as a next-state difference.
    #[test]
    fn operations_agree_and_a_missing_ground_operation_is_caught() {
        let (game, g) = example("takeaway.hrf");
        let program = g.program(&game.program);
        let summary = check(&game, &g, &g.ground)
            .unwrap_or_else(|f| panic!("{}", f.render(program, &g.encoding)));
        assert!(summary.steps > 0, "{summary:?}");
        let Some(lowering) = &program.lowering else {
            panic!("takeaway.hrf is not lowered");
        };
        let pass = lowering.operations[2].0;
        let mut broken = g.ground.clone();
        let before = broken.rules.len();
        broken.rules = (broken.rules.iter())
            .filter(|r| broken.atoms[r.head as usize].0 != pass)
            .collect();
        assert_eq!(broken.rules.len(), before - 1);
        let failure = match check(&game, &g, &broken) {
            Ok(s) => panic!("the broken program passed: {s:?}"),
            Err(f) => f,
        };
        assert!(
            matches!(
                failure.problem,
                Problem::Differs {
                    question: Question::Next,
                    ..
                }
            ),
            "{}",
            failure.render(program, &g.encoding)
        );
        let report = failure.render(program, &g.encoding);
        assert!(report.contains("joint move: (does (take "), "{report}");
        assert!(report.contains("\n    (control alice)\n"), "{report}");
    }

    #[test]
    fn the_generator_is_seeded_and_in_range() {
        let draws = |seed| {
            let mut g = SplitMix64(seed);
            (0..100).map(|_| g.below(7)).collect::<Vec<_>>()
        };
        assert_eq!(draws(3), draws(3));
        assert_ne!(draws(3), draws(4));
        assert!(draws(5).iter().all(|&d| d < 7));
        assert!((0..7).all(|d| draws(5).contains(&d)));
    }
}
