//! The reference reasoner: the original rules evaluated bottom-up, deliberately simply, with
//! no code shared with `engine/` (it is the witness the ground program is checked against).
//!
//! Input: a classic [`Program`] and its [`Encoding`]; per question, a [`State`] and maybe a
//! [`JointMove`]. Output: every atom true in that state (and move), hence the [`Answers`].
//!
//! How: the rules are ordered by the *rule* dependency graph, where a body literal leads to a
//! rule when it unifies with the rule's head. Its strongly connected components are evaluated in
//! dependency order, each to a fixpoint (semi-naive: after the first pass, every variant of a
//! rule reads the atoms new in the last pass at one recursive literal). Ordering rules rather
//! than relations makes the game's rule-level stratification exact: `goal(R,0) :-
//! ~goal(R,100)` is evaluated after every rule that can make `goal(R,100)` true, although both
//! are rules of `goal`. A negative literal inside its own component is an error (the program
//! checks exclude it). Joins are nested loops with backtracking over the rule's literals,
//! positive ones in a greedy order (most bound first), negations and `distinct` as soon as their
//! variables are bound. A literal whose variables are all bound is a hash lookup; one with some
//! bound reads its own hash index, from the values of those variables in the atoms that match
//! the literal to the atoms, built when first needed and extended as atoms are added.
//!
//! Relations that depend on neither `true` nor `does` are static: evaluated once, when the
//! reasoner is built (`init` and `role` among them). Without a joint move, relations that depend
//! on `does` are not evaluated at all: no real situation has a state without a move for them.

use super::rules::{compile, depends, strata, CompiledRule, Lookup, Step, Stratum};
use super::unify::Bindings;
use super::{Answers, FastMap, GameRelations, JointMove, ReasonError, Reasoner, State};
use crate::engine::Row;
use crate::program::encoding::Encoding;
use crate::program::{Program, RelId};
use std::collections::hash_map::Entry;

/// One evaluation stops with [`ReasonError::TooManyAtoms`] past this many atoms.
/// (mummymaze1p's static relations alone have 7.8 million atoms.)
const MAX_ATOMS: usize = 20_000_000;

/// The size join orders assume for a dynamic relation, whose atoms vary from state to state.
const DYNAMIC_SIZE: f64 = 1000.0;

/// The reference reasoner of one program.
#[derive(Debug)]
pub struct Reference {
    rels: GameRelations,
    /// The arity of each functor token.
    arities: Vec<u32>,
    rules: Vec<CompiledRule>,
    /// Strata of rules with dynamic heads, in evaluation order.
    strata: Vec<Stratum>,
    /// Whether each relation is static.
    is_static: Vec<bool>,
    /// Whether each relation depends on `does`.
    needs_does: Vec<bool>,
    /// The static relations' atoms, computed once.
    statics: Vec<Extent>,
    /// The dynamic relations' atoms of the last evaluation.
    dynamic: Vec<Extent>,
    /// The literal indexes, by slot.
    indexes: Vec<LiteralIndex>,
    bindings: Bindings,
    /// The state whose atoms `dynamic` holds, once an evaluation of it has succeeded: asked
    /// again with a joint move, only the relations that depend on `does` are re-derived.
    current: Option<State>,
    /// Whether the last evaluation re-derived only the relations that depend on `does`.
    partial: bool,
}

/// The atoms of one relation: rows in derivation order, and their positions.
#[derive(Clone, Debug, Default)]
struct Extent {
    rows: Vec<Row>,
    index: FastMap<Row, u32>,
}

impl Extent {
    /// Adds `row`; whether it is new.
    fn insert(&mut self, row: Row) -> bool {
        let at = self.rows.len() as u32;
        match self.index.entry(row) {
            Entry::Occupied(_) => false,
            Entry::Vacant(slot) => {
                self.rows.push(slot.key().clone());
                slot.insert(at);
                true
            }
        }
    }

    /// Removes every row (keeping the memory).
    fn clear(&mut self) {
        self.rows.clear();
        self.index.clear();
    }
}

/// The index of one positive literal ([`Lookup::Index`]): the positions of the atoms that
/// match the literal, by the values the literal's bound variables take in them.
#[derive(Clone, Debug, Default)]
struct LiteralIndex {
    /// The literal's relation.
    rel: RelId,
    /// How many of the relation's rows are indexed.
    upto: usize,
    positions: FastMap<Row, Vec<u32>>,
}

/// For one semi-naive variant: which atoms each literal over a stratum head relation reads.
struct Window<'a> {
    /// The step reading only the last pass's atoms, if any.
    delta_step: Option<usize>,
    /// `(relation, first new atom, end)` for each head relation of the stratum.
    deltas: &'a [(RelId, usize, usize)],
}

impl Window<'_> {
    /// The range of rows step `step` over `rel` (`len` rows) reads.
    fn range(&self, step: usize, rel: RelId, len: usize) -> (usize, usize) {
        let Some(k) = self.delta_step else {
            return (0, len);
        };
        match self.deltas.iter().find(|d| d.0 == rel) {
            Some(&(_, start, _)) if step < k => (0, start),
            Some(&(_, start, end)) if step == k => (start, end),
            Some(&(_, _, end)) => (0, end),
            None => (0, len),
        }
    }
}

impl Reference {
    /// The reasoner of `program`, with its static relations evaluated.
    pub fn new(program: &Program, encoding: &Encoding) -> Result<Reference, ReasonError> {
        let rels = GameRelations::new(program, encoding)?;
        // Join orders need relation sizes: guessed from the facts for the static rules, then
        // measured, once they are evaluated, for the others.
        let mut facts = vec![0.0; program.relations.len()];
        for rule in &program.rules {
            facts[rule.head.rel as usize] += if rule.body.is_empty() { 1.0 } else { 1000.0 };
        }
        let (rules, slots) = compile_all(program, encoding, &|rel| facts[rel as usize])?;
        let n = program.relations.len();
        let seeds = |with_state: bool| {
            let mut s = vec![false; n];
            let inputs = if with_state {
                rels.inputs()
            } else {
                rels.does.into_iter().collect()
            };
            inputs.into_iter().for_each(|rel| s[rel as usize] = true);
            s
        };
        let is_static: Vec<bool> = depends(&rules, seeds(true))
            .into_iter()
            .map(|d| !d)
            .collect();
        let needs_does = depends(&rules, seeds(false));
        let mut reference = Reference {
            rels,
            arities: encoding.arities(),
            strata: Vec::new(),
            is_static,
            needs_does,
            statics: vec![Extent::default(); n],
            dynamic: vec![Extent::default(); n],
            indexes: indexes(&rules, slots),
            bindings: Bindings::default(),
            current: None,
            partial: false,
            rules,
        };
        let mut static_strata = Vec::new();
        for stratum in strata(
            &reference.rules,
            &reference.is_static,
            &reference.needs_does,
        )? {
            match stratum.heads.first() {
                Some(&h) if reference.is_static[h as usize] => static_strata.push(stratum),
                Some(_) => reference.strata.push(stratum),
                None => {}
            }
        }
        let mut count = 0;
        for stratum in &static_strata {
            reference.run(stratum, true, &mut count)?;
        }
        let r = &reference;
        let roles = r.rows(r.rels.role).len() as f64;
        let fluents = r.rows(r.rels.init).len() as f64;
        // A state holds its initial fluents and usually many more (pentago's board starts
        // empty): taken as small, `true` would go first in every rule, and a rule chaining
        // five `true` cells through a static relation would enumerate their cross product.
        let size = |rel: RelId| match rel {
            _ if r.is_static[rel as usize] => r.statics[rel as usize].rows.len() as f64,
            _ if Some(rel) == r.rels.does => roles,
            _ if Some(rel) == r.rels.true_ => fluents.max(DYNAMIC_SIZE),
            _ => DYNAMIC_SIZE,
        };
        let (rules, slots) = compile_all(program, encoding, &size)?;
        reference.indexes = indexes(&rules, slots);
        reference.rules = rules;
        Ok(reference)
    }

    /// The atoms of the static relations.
    pub fn static_atoms(&self) -> impl Iterator<Item = (RelId, &Row)> + '_ {
        atoms_of(&self.statics)
    }

    /// The atoms of the dynamic relations in the last state answered (with its joint move).
    pub fn state_atoms(&self) -> impl Iterator<Item = (RelId, &Row)> + '_ {
        atoms_of(&self.dynamic)
    }

    /// The atoms the last evaluation derived: [`Reference::state_atoms`], less those of the
    /// relations independent of `does` when the evaluation re-used them from the same
    /// state's evaluation before (a caller checking every atom has checked those).
    pub fn fresh_atoms(&self) -> impl Iterator<Item = (RelId, &Row)> + '_ {
        let partial = self.partial;
        atoms_of(&self.dynamic).filter(move |(rel, _)| !partial || self.needs_does[*rel as usize])
    }

    fn extent(&self, rel: RelId) -> &Extent {
        if self.is_static[rel as usize] {
            &self.statics[rel as usize]
        } else {
            &self.dynamic[rel as usize]
        }
    }

    /// The rows of `rel`, if the program has it.
    fn rows(&self, rel: Option<RelId>) -> &[Row] {
        rel.map_or(&[], |r| &self.extent(r).rows)
    }

    /// Evaluates `stratum` to its fixpoint, into the static or the dynamic atoms; `count`
    /// counts the atoms of this evaluation.
    fn run(
        &mut self,
        stratum: &Stratum,
        into_static: bool,
        count: &mut usize,
    ) -> Result<(), ReasonError> {
        let mut bindings = std::mem::take(&mut self.bindings);
        let mut found = Vec::new();
        let full = Window {
            delta_step: None,
            deltas: &[],
        };
        self.prepare(stratum);
        for &r in &stratum.rules {
            self.derive(r, &full, &mut bindings, &mut found);
        }
        let mut deltas = self.insert(stratum, &mut found, into_static, count);
        while stratum.recursive && deltas.iter().any(|d| d.1 < d.2) && *count <= MAX_ATOMS {
            self.prepare(stratum);
            for &r in &stratum.rules {
                for (k, step) in self.rules[r].steps.iter().enumerate() {
                    let Step::Match { rel, .. } = step else {
                        continue;
                    };
                    if deltas.iter().any(|d| d.0 == *rel && d.1 < d.2) {
                        let window = Window {
                            delta_step: Some(k),
                            deltas: &deltas,
                        };
                        self.derive(r, &window, &mut bindings, &mut found);
                    }
                }
            }
            deltas = self.insert(stratum, &mut found, into_static, count);
        }
        self.bindings = bindings;
        if *count > MAX_ATOMS {
            return Err(ReasonError::TooManyAtoms(MAX_ATOMS));
        }
        Ok(())
    }

    /// Brings the indexes the rules of `stratum` look atoms up with up to date.
    fn prepare(&mut self, stratum: &Stratum) {
        let mut scratch = Bindings::default();
        for &r in &stratum.rules {
            let rule = &self.rules[r];
            for step in &rule.steps {
                let Step::Match {
                    rel,
                    args,
                    lookup: Lookup::Index { vars, slot },
                } = step
                else {
                    continue;
                };
                let extent = match self.is_static[*rel as usize] {
                    true => &self.statics[*rel as usize],
                    false => &self.dynamic[*rel as usize],
                };
                let index = &mut self.indexes[*slot];
                for (i, row) in extent.rows.iter().enumerate().skip(index.upto) {
                    scratch.reset(rule.vars);
                    let mut key = Row::new();
                    if scratch.match_row(args, row, &self.arities)
                        && scratch.instantiate_vars(vars, &mut key)
                    {
                        index.positions.entry(key).or_default().push(i as u32);
                    }
                }
                index.upto = extent.rows.len();
            }
        }
    }

    /// Adds the atoms `found` (emptied), returning each head relation's new range.
    fn insert(
        &mut self,
        stratum: &Stratum,
        found: &mut Vec<(RelId, Row)>,
        into_static: bool,
        count: &mut usize,
    ) -> Vec<(RelId, usize, usize)> {
        let extents = if into_static {
            &mut self.statics
        } else {
            &mut self.dynamic
        };
        let starts: Vec<(RelId, usize)> = stratum
            .heads
            .iter()
            .map(|&h| (h, extents[h as usize].rows.len()))
            .collect();
        for (rel, row) in found.drain(..) {
            *count += usize::from(extents[rel as usize].insert(row));
        }
        starts
            .into_iter()
            .map(|(h, start)| (h, start, extents[h as usize].rows.len()))
            .collect()
    }

    /// Appends to `out` the head of every instance of rule `r` whose body holds, each literal
    /// reading the atoms `window` gives it.
    fn derive(&self, r: usize, window: &Window<'_>, b: &mut Bindings, out: &mut Vec<(RelId, Row)>) {
        let rule = &self.rules[r];
        b.reset(rule.vars);
        self.search(rule, 0, window, b, out);
    }

    fn search(
        &self,
        rule: &CompiledRule,
        step: usize,
        window: &Window<'_>,
        b: &mut Bindings,
        out: &mut Vec<(RelId, Row)>,
    ) {
        let Some(literal) = rule.steps.get(step) else {
            let mut head = Row::new();
            if b.instantiate(&rule.head, &mut head) {
                out.push((rule.head_rel, head));
            }
            return;
        };
        match literal {
            Step::Match { rel, args, lookup } => {
                let extent = self.extent(*rel);
                let (lo, hi) = window.range(step, *rel, extent.rows.len());
                let mut tokens = Row::new();
                let mut matches = |b: &mut Bindings, row: &Row| {
                    let mark = b.mark();
                    if b.match_row(args, row, &self.arities) {
                        self.search(rule, step + 1, window, b, out);
                    }
                    b.undo(mark);
                };
                match lookup {
                    Lookup::Scan => extent.rows[lo..hi].iter().for_each(|row| matches(b, row)),
                    Lookup::Index { vars, slot } => {
                        b.instantiate_vars(vars, &mut tokens);
                        let positions = self.indexes[*slot].positions.get(&tokens);
                        let positions = positions.map_or(&[][..], Vec::as_slice);
                        let first = positions.partition_point(|&p| (p as usize) < lo);
                        for &p in positions[first..]
                            .iter()
                            .take_while(|&&p| (p as usize) < hi)
                        {
                            matches(b, &extent.rows[p as usize]);
                        }
                    }
                    Lookup::Whole => {
                        b.instantiate(args, &mut tokens);
                        if let Some(&p) = extent.index.get(&tokens) {
                            if (lo..hi).contains(&(p as usize)) {
                                self.search(rule, step + 1, window, b, out);
                            }
                        }
                    }
                }
            }
            Step::Absent { rel, args } => {
                let mut row = Row::new();
                if b.instantiate(args, &mut row) && !self.extent(*rel).index.contains_key(&row) {
                    self.search(rule, step + 1, window, b, out);
                }
            }
            Step::Distinct { left, right, equal } => {
                let (mut l, mut r) = (Row::new(), Row::new());
                let bound = b.instantiate(std::slice::from_ref(left), &mut l)
                    && b.instantiate(std::slice::from_ref(right), &mut r);
                if bound && (l == r) == *equal {
                    self.search(rule, step + 1, window, b, out);
                }
            }
            Step::Arith { op, args, negated } => {
                let mut values: Vec<Option<Row>> = Vec::with_capacity(args.len());
                for arg in args {
                    let mut row = Row::new();
                    values.push(
                        b.instantiate(std::slice::from_ref(arg), &mut row)
                            .then_some(row),
                    );
                }
                match values.iter().position(Option::is_none) {
                    None => {
                        let values: Vec<Row> = values.into_iter().flatten().collect();
                        if super::arith::holds(*op, &values) != *negated {
                            self.search(rule, step + 1, window, b, out);
                        }
                    }
                    Some(i) => {
                        let Some(value) = super::arith::solve(*op, &values) else {
                            return;
                        };
                        let mark = b.mark();
                        if b.match_row(&args[i..=i], &value, &self.arities) {
                            self.search(rule, step + 1, window, b, out);
                        }
                        b.undo(mark);
                    }
                }
            }
        }
    }
}

impl Reasoner for Reference {
    fn roles(&self) -> Vec<Row> {
        let mut roles = self.rows(self.rels.role).to_vec();
        roles.sort_unstable();
        roles
    }

    fn initial_state(&self) -> State {
        State::new(self.rows(self.rels.init).iter().cloned())
    }

    fn answer(&mut self, state: &State, joint: Option<&JointMove>) -> Result<Answers, ReasonError> {
        let mut moves = self.rels.moves(joint);
        loop {
            self.evaluate(state, &moves, joint.is_some())?;
            let atoms = self.output_atoms();
            let more = self.rels.performed(&self.arities, &moves, atoms);
            if more.is_empty() {
                break;
            }
            moves.extend(more);
        }
        Ok(self
            .rels
            .answers(&self.arities, state, joint.is_some(), self.output_atoms()))
    }
}

impl Reference {
    /// Evaluates the dynamic relations in `state` with the `does` atoms `moves` (the strata
    /// that depend on `does` only when `with_moves`). When the last evaluation was of the
    /// same state, the relations that do not depend on `does` are kept from it: a playout
    /// asks each state twice, for its legal moves and then for the next state.
    fn evaluate(
        &mut self,
        state: &State,
        moves: &[Row],
        with_moves: bool,
    ) -> Result<(), ReasonError> {
        let reuse = with_moves && self.current.as_ref() == Some(state);
        if !reuse {
            self.current = None;
        }
        self.partial = reuse;
        let redo: Vec<bool> = self.needs_does.iter().map(|&d| d || !reuse).collect();
        let mut count = 0;
        for (rel, extent) in self.dynamic.iter_mut().enumerate() {
            match redo[rel] {
                true => extent.clear(),
                false => count += extent.rows.len(),
            }
        }
        for index in &mut self.indexes {
            if !self.is_static[index.rel as usize] && redo[index.rel as usize] {
                index.upto = 0;
                index.positions.clear();
            }
        }
        for (rel, row) in self.rels.input_atoms(state, moves) {
            if redo[rel as usize] {
                count += usize::from(self.dynamic[rel as usize].insert(row));
            }
        }
        let strata = std::mem::take(&mut self.strata);
        let mut result = Ok(());
        for stratum in &strata {
            let needs_does = stratum.heads.iter().any(|&h| self.needs_does[h as usize]);
            let due = if reuse {
                needs_does
            } else {
                with_moves || !needs_does
            };
            if due {
                result = self.run(stratum, false, &mut count);
                if result.is_err() {
                    break;
                }
            }
        }
        self.strata = strata;
        if result.is_ok() && !reuse {
            self.current = Some(state.clone());
        }
        result
    }

    /// The atoms of the relations answers are read from.
    fn output_atoms(&self) -> impl Iterator<Item = (RelId, &Row)> + Clone {
        self.rels
            .outputs()
            .into_iter()
            .flat_map(move |rel| self.extent(rel).rows.iter().map(move |row| (rel, row)))
    }
}

/// Every rule of `program` compiled with relation sizes `size`, and the number of literal
/// indexes they use.
fn compile_all(
    program: &Program,
    encoding: &Encoding,
    size: &dyn Fn(RelId) -> f64,
) -> Result<(Vec<CompiledRule>, usize), ReasonError> {
    let mut slots = 0;
    let rules = program
        .rules
        .iter()
        .map(|r| compile(program, encoding, r, &mut slots, size))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((rules, slots))
}

/// Empty literal indexes for `rules`, by slot.
fn indexes(rules: &[CompiledRule], slots: usize) -> Vec<LiteralIndex> {
    let mut indexes = vec![LiteralIndex::default(); slots];
    for step in rules.iter().flat_map(|r| &r.steps) {
        if let Step::Match {
            rel,
            lookup: Lookup::Index { slot, .. },
            ..
        } = step
        {
            indexes[*slot].rel = *rel;
        }
    }
    indexes
}

/// Every atom of `extents`, by relation.
fn atoms_of(extents: &[Extent]) -> impl Iterator<Item = (RelId, &Row)> + '_ {
    extents
        .iter()
        .enumerate()
        .flat_map(|(rel, e)| e.rows.iter().map(move |row| (rel as RelId, row)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reason::test_support::grounded;
    use crate::syntax::Syntax;
    use crate::write::{ground::AtomText, Notation};

    /// The reference reasoner of a KIF game, and a way to spell its answers.
    fn reasoner(kif: &str) -> (crate::Game, Encoding, Reference) {
        let (game, g) = grounded(kif, Syntax::Kif);
        let reference = match Reference::new(&game.program, &g.encoding) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        (game, g.encoding, reference)
    }

    /// The atoms of relation `name` true in the last evaluation (or static), as sorted KIF.
    fn atoms(game: &crate::Game, encoding: &Encoding, r: &Reference, name: &str) -> Vec<String> {
        let text = AtomText::new(&game.program, encoding, Notation::Kif);
        let mut out: Vec<String> = r
            .static_atoms()
            .chain(r.state_atoms())
            .filter(|(rel, _)| game.program.relation_name(*rel) == name)
            .map(|(rel, row)| {
                let mut s = String::new();
                text.atom(rel, row, &mut s);
                s
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn rule_level_stratification_reads_final_values() {
        // goal(x, 0) must wait for goal(x, 100) although both are goals.
        let (game, enc, mut r) = reasoner(
            "(role x) (init p) (<= (legal x a) (true p)) (<= (next p) (does x a))
             (<= (goal ?r 0) (role ?r) (not (goal ?r 100)))
             (<= (goal ?r 100) (role ?r) (true p)) (<= terminal (not (true p)))",
        );
        let state = r.initial_state();
        let answers = r.answer(&state, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(atoms(&game, &enc, &r, "goal"), ["(goal x 100)"]);
        assert!(!answers.terminal);
        let answers = r
            .answer(&State::default(), None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(atoms(&game, &enc, &r, "goal"), ["(goal x 0)"]);
        assert!(answers.terminal);
    }

    #[test]
    fn a_chain_of_state_cells_is_joined_through_the_static_relation() {
        // One initial fluent must not make `true` look small: the second cell is found
        // through `adj` from the first, not enumerated beside it.
        let (_, _, r) = reasoner(
            "(role x) (init (c 1 x)) (adj 1 2) (adj 2 3)
             (<= (pair ?p) (role ?p) (true (c ?a ?p)) (true (c ?b ?p)) (adj ?a ?b))
             (<= (legal x a) (pair x)) (<= (next (c 2 x)) (does x a)) (goal x 0)
             (<= terminal (pair x))",
        );
        let pair = r
            .rules
            .iter()
            .find(|rule| rule.head.len() == 1 && rule.steps.len() == 4);
        let order: Vec<RelId> = (pair.expect("the pair rule").steps.iter())
            .filter_map(|step| match step {
                Step::Match { rel, .. } => Some(*rel),
                _ => None,
            })
            .collect();
        let true_ = r.rels.true_.expect("the game reads true");
        assert_eq!(order[3], true_, "{order:?}: the last `true` is a lookup");
    }

    #[test]
    fn recursion_reaches_its_fixpoint() {
        // A path along edges given by the state, and a static transitive closure.
        let (game, enc, mut r) = reasoner(
            "(role x) (init (edge 1 2)) (init (edge 2 3)) (init (edge 3 4))
             (succ 1 2) (succ 2 3) (succ 3 4)
             (<= (less ?a ?b) (succ ?a ?b)) (<= (less ?a ?c) (succ ?a ?b) (less ?b ?c))
             (<= (path ?a ?b) (true (edge ?a ?b)))
             (<= (path ?a ?c) (path ?a ?b) (path ?b ?c))
             (<= (legal x a) (path 1 4)) (<= (next (edge ?a ?b)) (true (edge ?a ?b)) (does x a))
             (goal x 0) (<= terminal (not (path 1 4)))",
        );
        assert_eq!(atoms(&game, &enc, &r, "less").len(), 6);
        let state = r.initial_state();
        let answers = r.answer(&state, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(atoms(&game, &enc, &r, "path").len(), 6);
        assert_eq!(answers.legal.len(), 1);
    }

    #[test]
    fn distinct_and_its_negation_compare_terms() {
        let (game, enc, mut r) = reasoner(
            "(role x) (init (c a)) (init (c (f a))) (init (c b))
             (<= (same ?u ?v) (true (c ?u)) (true (c ?v)) (not (distinct ?u ?v)))
             (<= (other ?u ?v) (true (c ?u)) (true (c ?v)) (distinct ?u ?v) (distinct ?u b))
             (legal x a) (<= (next (c ?u)) (true (c ?u)) (does x a)) (goal x 0) (<= terminal (true (c z)))",
        );
        let state = r.initial_state();
        r.answer(&state, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            atoms(&game, &enc, &r, "same"),
            ["(same (f a) (f a))", "(same a a)", "(same b b)"]
        );
        assert_eq!(atoms(&game, &enc, &r, "other").len(), 4);
    }

    /// Regression: a fact of a relation that also has rules reading `does` was skipped with the
    /// whole facts stratum when no joint move was given, losing facts of other relations.
    #[test]
    fn facts_of_move_relations_do_not_hide_other_facts() {
        let (game, enc, mut r) = reasoner(
            "(role x) (init p) (legal x a) (goal x 0) (<= terminal (true p) (acc 0))
             (acc 0) (<= (acc 1) (acc 0) (true p))
             (moved 0) (<= (moved 1) (does x a)) (<= (next p) (moved 1))",
        );
        let state = r.initial_state();
        let answers = r.answer(&state, None).unwrap_or_else(|e| panic!("{e}"));
        assert!(answers.terminal);
        assert_eq!(atoms(&game, &enc, &r, "acc"), ["(acc 0)", "(acc 1)"]);
        assert!(atoms(&game, &enc, &r, "moved").is_empty());
        let joint = JointMove {
            moves: vec![(r.roles()[0].clone(), answers.legal[0].1.clone())],
        };
        let answers = r
            .answer(&state, Some(&joint))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(answers.next.map(|s| s.fluents().len()), Some(1));
        assert_eq!(atoms(&game, &enc, &r, "moved"), ["(moved 0)", "(moved 1)"]);
    }

    #[test]
    fn a_state_asked_again_with_moves_keeps_what_does_not_depend_on_them() {
        let game = "(role x) (init (c 1)) (succ 1 2) (succ 2 3)
             (<= (reach ?b) (true (c ?b))) (<= (reach ?b) (reach ?a) (succ ?a ?b))
             (<= (legal x (go ?b)) (reach ?b)) (<= (moved ?b) (does x (go ?b)))
             (<= (next (c ?b)) (moved ?b)) (goal x 0) (<= terminal (true (c 3)))";
        let (g, enc, mut twice) = reasoner(game);
        let (_, _, mut once) = reasoner(game);
        let state = twice.initial_state();
        let answers = twice.answer(&state, None).unwrap_or_else(|e| panic!("{e}"));
        let fresh = |r: &Reference| -> Vec<String> {
            let mut rels: Vec<String> = r
                .fresh_atoms()
                .map(|(rel, _)| g.program.relation_name(rel).to_string())
                .collect();
            rels.sort();
            rels.dedup();
            rels
        };
        assert_eq!(fresh(&twice), ["legal", "reach", "true"]);
        let joint = JointMove {
            moves: vec![(twice.roles()[0].clone(), answers.legal[2].1.clone())],
        };
        let kept = twice.answer(&state, Some(&joint));
        let direct = once.answer(&state, Some(&joint));
        assert_eq!(kept.ok(), direct.ok());
        assert_eq!(fresh(&twice), ["does", "moved", "next"]);
        assert_eq!(
            fresh(&once),
            ["does", "legal", "moved", "next", "reach", "true"]
        );
        for name in ["true", "reach", "legal", "moved", "next"] {
            assert_eq!(atoms(&g, &enc, &twice, name), atoms(&g, &enc, &once, name));
        }
        assert_eq!(atoms(&g, &enc, &twice, "next"), ["(next (c 3))"]);
        // Another state: nothing is kept from the last one.
        let next = State::new(once.rows(once.rels.next).iter().cloned());
        twice
            .answer(&next, Some(&joint))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(atoms(&g, &enc, &twice, "reach"), ["(reach 3)"]);
    }
}
