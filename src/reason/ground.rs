//! The ground reasoner: a [`GroundProgram`] evaluated on one state, fast enough for thousands of
//! playout steps.
//!
//! Input: the ground program; per question, a [`State`] and maybe a [`JointMove`], turned into
//! the `true`/`does` atoms of the program's atom table. A fluent or move outside that table
//! (outside S*) cannot be represented: it is taken as false and reported in
//! [`Answers::unknown`], since a reachable atom outside S* means the grounding is unsound.
//!
//! How: the program is stratified on *atoms*, once, when the reasoner is built: the strongly
//! connected components of the ground dependency graph (head → body atom), in dependency order.
//! Ordering atoms rather than relations is what makes rule-level stratification such as
//! `goal(R,0) :- ~goal(R,100)` exact: the ground atom `goal(x,100)` gets its final value before
//! any rule reads its negation, although both atoms are `goal`s. (Iterating a relation component
//! to a fixpoint with negations read "as of now" would not do: a rule for `goal(x,0)` evaluated
//! before `goal(x,100)` is derived fires wrongly, and a monotone fixpoint never retracts it.)
//! Then each evaluation is one pass in that order: an atom outside any cycle is the disjunction
//! of its rules' bodies, all of whose atoms are final; a cyclic component (positive recursion, as
//! in a path relation) is closed by counting: each rule waits for its body atoms inside the
//! component, and fires when the count reaches zero. Each rule is looked at a bounded number of
//! times, so an evaluation is linear in the size of the program. A negative literal inside its
//! own component (recursion through negation, which the program checks exclude) is an error.

use super::{Answers, FastMap, GameRelations, JointMove, ReasonError, Reasoner, State};
use crate::engine::Row;
use crate::graph::Lists;
use crate::ground::{AtomId, GroundProgram};
use crate::program::encoding::Encoding;
use crate::program::{Program, RelId};
use std::ops::Range;
use std::sync::Arc;

/// The counter of a rule that can no longer fire in this evaluation.
const DEAD: u32 = u32::MAX;

/// The ground reasoner of one ground program.
#[derive(Clone, Debug)]
pub struct GroundReasoner {
    rels: GameRelations,
    /// The arity of each functor token.
    arities: Vec<u32>,
    /// The atom table of the ground program.
    atoms: Arc<Vec<(RelId, Row)>>,
    /// The atoms of the input relations (`true`, `does`, an operations game's fluents).
    inputs: FastMap<(RelId, Row), AtomId>,
    facts: Vec<AtomId>,
    /// Rules in evaluation order: head, and body as a range of `literals`.
    rules: Vec<(AtomId, Range<u32>)>,
    literals: Vec<(bool, AtomId)>,
    /// Groups of consecutive rules whose heads share a component; `true` if it is cyclic.
    groups: Vec<(Range<u32>, bool)>,
    /// The component of each atom.
    component: Vec<u32>,
    /// For each atom, the rules of its own cyclic component that have it as a positive body
    /// literal (one entry per occurrence): `watchers[watch_start[a]..watch_start[a + 1]]`.
    watch_start: Vec<u32>,
    watchers: Vec<u32>,
    /// The atoms of `legal`, `goal`, `terminal` and `next`.
    outputs: Vec<AtomId>,
    roles: Vec<Row>,
    initial: State,
    /// Scratch: the value of each atom, the counter of each rule, rules ready to fire.
    values: Vec<bool>,
    waiting: Vec<u32>,
    ready: Vec<u32>,
}

impl GroundReasoner {
    /// The reasoner of `ground`, the ground program of `program` encoded with `encoding`.
    pub fn new(
        program: &Program,
        encoding: &Encoding,
        ground: &GroundProgram,
    ) -> Result<GroundReasoner, ReasonError> {
        let rels = GameRelations::new(program, encoding)?;
        let n = ground.atoms.len();
        let input_rels = rels.inputs();
        let inputs = (ground.atoms.iter().enumerate())
            .filter(|(_, (rel, _))| input_rels.contains(rel))
            .map(|(id, (rel, row))| ((*rel, row.clone()), id as AtomId))
            .collect();
        let component = atom_components(n, ground);
        let mut order: Vec<usize> = (0..ground.rules.len()).collect();
        order.sort_by_key(|&r| component[ground.rules.get(r).head as usize]);
        let mut rules = Vec::with_capacity(order.len());
        let mut literals = Vec::new();
        let mut groups: Vec<(Range<u32>, bool)> = Vec::new();
        for (i, &r) in order.iter().enumerate() {
            let rule = ground.rules.get(r);
            let c = component[rule.head as usize];
            let start = literals.len() as u32;
            literals.extend_from_slice(rule.body);
            rules.push((rule.head, start..literals.len() as u32));
            let i = i as u32;
            match groups.last_mut() {
                Some((range, _)) if component[rules[range.start as usize].0 as usize] == c => {
                    range.end = i + 1
                }
                _ => groups.push((i..i + 1, false)),
            }
            let cyclic = rule.body.iter().any(|&(_, a)| component[a as usize] == c);
            if cyclic {
                if let Some(&(_, a)) = rule
                    .body
                    .iter()
                    .find(|l| l.0 && component[l.1 as usize] == c)
                {
                    return Err(ReasonError::Unstratified(format!(
                        "ground atom #{a} depends on itself through negation"
                    )));
                }
                if let Some(group) = groups.last_mut() {
                    group.1 = true;
                }
            }
        }
        let (watch_start, watchers) = watch_lists(n, &rules, &literals, &groups, &component);
        let output_rels = rels.outputs();
        let outputs = (0..n as AtomId)
            .filter(|&a| output_rels.contains(&ground.atoms[a as usize].0))
            .collect();
        let mut reasoner = GroundReasoner {
            rels,
            arities: encoding.arities(),
            atoms: ground.atoms.clone(),
            inputs,
            facts: ground.facts.clone(),
            waiting: vec![0; rules.len()],
            rules,
            literals,
            groups,
            component,
            watch_start,
            watchers,
            outputs,
            roles: Vec::new(),
            initial: State::default(),
            values: vec![false; n],
            ready: Vec::new(),
        };
        reasoner.reset();
        reasoner.evaluate();
        let holding = |rel: Option<RelId>| -> Vec<Row> {
            let r = &reasoner;
            (0..n)
                .filter(|&a| r.values[a] && Some(r.atoms[a].0) == rel)
                .map(|a| r.atoms[a].1.clone())
                .collect()
        };
        let mut roles = holding(reasoner.rels.role);
        roles.sort_unstable();
        let initial = State::new(holding(reasoner.rels.init));
        reasoner.roles = roles;
        reasoner.initial = initial;
        Ok(reasoner)
    }

    /// Sets the inputs to false and the facts to true.
    fn reset(&mut self) {
        self.values.iter_mut().for_each(|v| *v = false);
        for &f in &self.facts {
            self.values[f as usize] = true;
        }
    }

    /// Computes every atom's value from the facts and inputs already set.
    fn evaluate(&mut self) {
        for g in 0..self.groups.len() {
            let (range, cyclic) = self.groups[g].clone();
            if cyclic {
                self.close_cycle(range);
                continue;
            }
            for r in range {
                let (head, body) = &self.rules[r as usize];
                if self.values[*head as usize] {
                    continue;
                }
                let literals = &self.literals[body.start as usize..body.end as usize];
                if literals
                    .iter()
                    .all(|&(neg, a)| self.values[a as usize] != neg)
                {
                    self.values[*head as usize] = true;
                }
            }
        }
    }

    /// Evaluates the rules `range` of one cyclic component by counting, as the module says.
    fn close_cycle(&mut self, range: Range<u32>) {
        self.ready.clear();
        let c = self.component[self.rules[range.start as usize].0 as usize];
        for r in range {
            let body = &self.rules[r as usize].1;
            let mut waiting = 0;
            let mut alive = true;
            for &(neg, a) in &self.literals[body.start as usize..body.end as usize] {
                if self.component[a as usize] == c && !neg {
                    waiting += 1;
                } else if self.values[a as usize] == neg {
                    alive = false;
                    break;
                }
            }
            self.waiting[r as usize] = if alive { waiting } else { DEAD };
            if alive && waiting == 0 {
                self.ready.push(r);
            }
        }
        while let Some(r) = self.ready.pop() {
            let head = self.rules[r as usize].0 as usize;
            if self.values[head] {
                continue;
            }
            self.values[head] = true;
            let watchers = self.watch_start[head] as usize..self.watch_start[head + 1] as usize;
            for w in watchers {
                let rule = self.watchers[w] as usize;
                if self.waiting[rule] != DEAD {
                    self.waiting[rule] -= 1;
                    if self.waiting[rule] == 0 {
                        self.ready.push(rule as u32);
                    }
                }
            }
        }
    }
}

impl Reasoner for GroundReasoner {
    fn roles(&self) -> Vec<Row> {
        self.roles.clone()
    }

    fn initial_state(&self) -> State {
        self.initial.clone()
    }

    fn answer(&mut self, state: &State, joint: Option<&JointMove>) -> Result<Answers, ReasonError> {
        let mut moves = self.rels.moves(joint);
        let unknown = loop {
            let unknown = self.evaluate_inputs(state, &moves);
            let more = self
                .rels
                .performed(&self.arities, &moves, self.output_atoms());
            if more.is_empty() {
                break unknown;
            }
            moves.extend(more);
        };
        let mut answers =
            self.rels
                .answers(&self.arities, state, joint.is_some(), self.output_atoms());
        answers.unknown = unknown;
        Ok(answers)
    }
}

impl GroundReasoner {
    /// Evaluates every atom with the inputs of `state` and the `does` atoms `moves`; returns
    /// the inputs that are not in the atom table (taken as false).
    fn evaluate_inputs(&mut self, state: &State, moves: &[Row]) -> Vec<(RelId, Row)> {
        self.reset();
        let mut unknown = Vec::new();
        for input in self.rels.input_atoms(state, moves) {
            match self.inputs.get(&input) {
                Some(&a) => self.values[a as usize] = true,
                None => unknown.push(input),
            }
        }
        self.evaluate();
        unknown
    }

    /// The output atoms that hold.
    fn output_atoms(&self) -> impl Iterator<Item = (RelId, &Row)> + Clone {
        self.outputs
            .iter()
            .filter(|&&a| self.values[a as usize])
            .map(|&a| {
                let (rel, row) = &self.atoms[a as usize];
                (*rel, row)
            })
    }
}

/// The strongly connected component of each atom in the graph head → body atom, numbered in
/// dependency order (a component's number is larger than those of the components it uses).
fn atom_components(n: usize, ground: &GroundProgram) -> Vec<u32> {
    let uses = Lists::new(n, || {
        (ground.rules.iter())
            .flat_map(|rule| (rule.body.iter()).map(move |&(_, a)| (rule.head as usize, a)))
    });
    crate::graph::components(n, |v, i| uses.get(v).get(i).map(|&a| a as usize))
}

/// For each atom of a cyclic component, the rules of that component that read it positively.
fn watch_lists(
    n: usize,
    rules: &[(AtomId, Range<u32>)],
    literals: &[(bool, AtomId)],
    groups: &[(Range<u32>, bool)],
    component: &[u32],
) -> (Vec<u32>, Vec<u32>) {
    let mut pairs: Vec<(AtomId, u32)> = Vec::new();
    for (range, _) in groups.iter().filter(|g| g.1) {
        for r in range.clone() {
            let (head, body) = &rules[r as usize];
            let c = component[*head as usize];
            for &(neg, a) in &literals[body.start as usize..body.end as usize] {
                if !neg && component[a as usize] == c {
                    pairs.push((a, r));
                }
            }
        }
    }
    pairs.sort_unstable();
    let mut start = vec![0u32; n + 1];
    for &(a, _) in &pairs {
        start[a as usize + 1] += 1;
    }
    for a in 0..n {
        start[a + 1] += start[a];
    }
    (start, pairs.into_iter().map(|p| p.1).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reason::test_support::{example, grounded};
    use crate::syntax::Syntax;

    fn reasoner(kif: &str) -> (crate::Game, crate::Grounded, GroundReasoner) {
        let (game, g) = grounded(kif, Syntax::Kif);
        match GroundReasoner::new(g.program(&game.program), &g.encoding, &g.ground) {
            Ok(r) => (game, g, r),
            Err(e) => panic!("{e}"),
        }
    }

    fn answer(r: &mut GroundReasoner, state: &State, joint: Option<&JointMove>) -> Answers {
        r.answer(state, joint).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn tictactoe_opening() {
        let (game, g) = example("tictactoe.kif");
        let mut r = GroundReasoner::new(g.program(&game.program), &g.encoding, &g.ground)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.roles().len(), 2);
        let state = r.initial_state();
        assert_eq!(state.fluents().len(), 10);
        let answers = answer(&mut r, &state, None);
        assert_eq!(answers.legal.len(), 10); // nine marks for x, noop for o
        assert!(!answers.terminal);
        assert_eq!(answers.next, None);
        let joint = JointMove {
            moves: r
                .roles()
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
