//! The live dataflow's operators: every rule evaluated by one fixpoint over partial
//! bindings (see the module doc of [`super`]).

use super::symmetric::{self, Spread::ByKey};
use super::worker::Registry;
use super::{LiveRule, Op, RuleId, ShapeId};
use crate::engine::dataflow::Guard;
use crate::engine::pattern::{depth, Ranges, Row};
use crate::engine::plan::Step;
use crate::engine::Limits;
use crate::program::RelId;
use differential_dataflow::collection::concatenate;
use differential_dataflow::lattice::Lattice;
use differential_dataflow::operators::iterate::Variable;
use differential_dataflow::VecCollection;
use smallvec::SmallVec;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use timely::dataflow::Scope;
use timely::order::Product;
use timely::progress::Timestamp;

/// Atoms of any relation.
pub type Atoms<'s, T> = VecCollection<'s, T, (RelId, Row), isize>;
/// Partial bindings: rule, the op they wait at, the values bound so far.
type Partials<'s, T> = VecCollection<'s, T, (RuleId, u32, Row), isize>;
/// Partial bindings keyed by what they wait for.
type Keyed<'s, T, K> = VecCollection<'s, T, (K, (RuleId, u32, Row)), isize>;
/// Complete bindings of rules with instances.
pub type Bindings<'s, T> = VecCollection<'s, T, (RuleId, Row), isize>;
/// The shapes in use, with their relations.
type ShapeUses<'s, T> = VecCollection<'s, T, (RelId, ShapeId), isize>;
/// The registry, shared by a worker's operators.
type Shared = Rc<RefCell<Registry>>;

/// Builds the live computation in `scope` over the enabled `rules` and the `given` atoms (the
/// exact relations' and the certain ones); returns every atom, given ones included, and the
/// bindings of rules with instances.
pub fn build<'s>(
    scope: Scope<'s, u32>,
    rules: VecCollection<'s, u32, RuleId, isize>,
    given: Atoms<'s, u32>,
    registry: &Shared,
    limits: &Arc<Limits>,
) -> (Atoms<'s, u32>, Bindings<'s, u32>) {
    let reg = registry.clone();
    let shapes: ShapeUses<'s, u32> = rules
        .clone()
        .flat_map(move |r| {
            let reg = reg.borrow();
            let shapes: Vec<(RelId, ShapeId)> = (reg.rule(r).ops.iter())
                .filter_map(|op| match op {
                    Op::Join { shape, .. } => Some((reg.shape(*shape).rel, *shape)),
                    _ => None,
                })
                .collect();
            shapes
        })
        .distinct();
    let given_entries = super::index::entries(given.clone(), shapes.clone(), registry);
    let reg = registry.clone();
    let mut ranges = Ranges::new(0);
    let starts =
        rules.flat_map(move |r| advance_rule(&reg.borrow(), &mut ranges, r, 0, Row::new()));
    let (atoms, bindings) = scope.iterative::<u64, _, _>(|inner| {
        let step = Product::new(Default::default(), 1);
        let (atoms_var, atoms) = Variable::new(inner, step);
        // A rule's start is a partial binding from the iteration its rule came in, not one
        // later: every binding reaches its head an iteration sooner, and an edit's epoch
        // takes an iteration less of every operator.
        let (partials_var, extended): (_, Partials<'_, _>) = Variable::new(inner, step);
        let starts_inner = starts.enter(inner);
        let partials = extended.concat(starts_inner.clone());
        // The joins and the antijoins are symmetric: no arrangement on the cycle but the
        // heads' `distinct`, so an iteration takes two worker steps.
        let own = super::index::entries(atoms, shapes.enter(inner), registry);
        let entries = given_entries.enter(inner).concat(own);
        let waiting = join_keys(partials.clone(), registry);
        let joined = symmetric::join(waiting, entries, ByKey, "Join", extend(registry, limits));
        // Negation reads the given atoms only: a binding goes on, less the bindings that
        // meet a given atom.
        let waiting = antijoin_keys(partials.clone(), registry);
        let given_atoms = given.clone().enter(inner).map(|atom| (atom, ()));
        let blocked = symmetric::join(
            waiting.clone(),
            given_atoms,
            ByKey,
            "Negation",
            |_, b, _| Some(b.clone()),
        );
        let reg = registry.clone();
        let mut ranges = Ranges::new(0);
        let unnegated = (waiting.map(|(_, binding)| binding))
            .concat(blocked.negate())
            .flat_map(move |(r, s, row)| {
                advance_rule(&reg.borrow(), &mut ranges, r, s as usize + 1, row)
            });
        let next = [joined, unnegated];
        let next = concatenate(inner, next);
        partials_var.set(next.clone());
        // Heads are read off the bindings a join or antijoin just completed, in the iteration
        // that completed them, not the next one's partials: a rule applied takes one
        // iteration less to reach the atoms its readers join with. Skirmish's step counter
        // (a chain of a hundred steps) had its start take 1002 worker steps, now 804.
        let heads = heads(next.concat(starts_inner), registry, limits).distinct();
        atoms_var.set(heads.clone());
        let reg = registry.clone();
        let bindings = partials.flat_map(move |(r, s, row)| {
            let reg = reg.borrow();
            let rule = reg.rule(r);
            (rule.instances && complete(rule, s)).then_some((r, row))
        });
        (heads.leave(scope), bindings.leave(scope))
    });
    (given.concat(atoms), bindings)
}

/// The partial bindings waiting at a join, keyed by (shape, key values).
fn join_keys<'s, T: Timestamp + Lattice + Ord>(
    partials: Partials<'s, T>,
    registry: &Shared,
) -> Keyed<'s, T, (ShapeId, Row)> {
    keyed(partials, registry, |op, ranges, row| {
        let Op::Join { shape, key } = op else {
            return None;
        };
        let mut values = Row::new();
        key.iter()
            .for_each(|&v| ranges.push_value(v, row, &mut values));
        Some((*shape, values))
    })
}

/// The partial bindings waiting at an antijoin, keyed by the atom they must not meet.
fn antijoin_keys<'s, T: Timestamp + Lattice + Ord>(
    partials: Partials<'s, T>,
    registry: &Shared,
) -> Keyed<'s, T, (RelId, Row)> {
    keyed(partials, registry, |op, ranges, row| {
        let Op::Check(Step::Antijoin { rel, pattern }) = op else {
            return None;
        };
        let mut atom = Row::new();
        ranges.instantiate(pattern, row, &mut atom);
        Some((*rel, atom))
    })
}

/// The partial bindings whose next op `key` gives a key for (from the op, and the binding's
/// values read into the ranges), keyed by it.
fn keyed<'s, T: Timestamp + Lattice + Ord, K: differential_dataflow::ExchangeData>(
    partials: Partials<'s, T>,
    registry: &Shared,
    key: fn(&Op, &Ranges, &Row) -> Option<K>,
) -> Keyed<'s, T, K> {
    let reg = registry.clone();
    let mut ranges = Ranges::new(0);
    partials.flat_map(move |(r, s, row)| {
        let reg = reg.borrow();
        let rule = reg.rule(r);
        let op = rule.ops.get(s as usize)?;
        ranges.room(rule.vars);
        ranges.read_binding(&rule.bound[s as usize], &row, &reg.arities);
        let k = key(op, &ranges, &row)?;
        Some((k, (r, s, row)))
    })
}

/// The join's result closure: a partial binding extended by a matching atom's new values,
/// advanced past the filters and computations that follow.
#[allow(clippy::type_complexity)]
fn extend(
    registry: &Shared,
    limits: &Arc<Limits>,
) -> impl FnMut(&(ShapeId, Row), &(RuleId, u32, Row), &Row) -> Option<(RuleId, u32, Row)> + 'static
{
    let reg = registry.clone();
    let mut ranges = Ranges::new(0);
    let mut guard = Guard::new(limits);
    move |_key, (r, s, row), new| {
        if guard.stop() {
            return None;
        }
        let mut out = Row::from_slice(row);
        out.extend_from_slice(new);
        advance_rule(&reg.borrow(), &mut ranges, *r, *s as usize + 1, out)
    }
}

/// Whether a partial binding of `rule` waiting at op `step` is complete.
fn complete(rule: &LiveRule, step: u32) -> bool {
    rule.ops.len() == step as usize
}

/// The head atoms of the complete bindings among `partials`, with their copies (see
/// [`LiveRule::copies`]); a head nested deeper than the limit stops the run.
fn heads<'s, T: Timestamp + Lattice + Ord>(
    partials: Partials<'s, T>,
    registry: &Shared,
    limits: &Arc<Limits>,
) -> Atoms<'s, T> {
    let reg = registry.clone();
    let limits = limits.clone();
    let mut ranges = Ranges::new(0);
    let mut guard = Guard::new(&limits);
    partials.flat_map(move |(r, s, row)| {
        let reg = reg.borrow();
        let rule = reg.rule(r);
        let atom = (complete(rule, s) && !guard.stop())
            .then(|| head(rule, s, &row, &mut ranges, &reg.arities, &limits))
            .flatten();
        // Inline: no allocation for a head and its one copy (`next`'s `true`).
        let mut atoms: SmallVec<[(RelId, Row); 2]> = SmallVec::new();
        if let Some(atom) = atom {
            atoms.extend(rule.copies.iter().map(|&c| (c, atom.clone())));
            atoms.push((rule.head_rel, atom));
        }
        atoms
    })
}

/// The head atom of `rule`'s complete binding `row` (waiting at op `s`), or `None` if it is
/// nested deeper than the limit (which stops the run).
fn head(
    rule: &LiveRule,
    s: u32,
    row: &Row,
    ranges: &mut Ranges,
    arities: &[u32],
    limits: &Limits,
) -> Option<Row> {
    ranges.room(rule.vars);
    ranges.read_binding(&rule.bound[s as usize], row, arities);
    let mut atom = Row::new();
    ranges.instantiate(&rule.head, row, &mut atom);
    if rule.recursive && depth(&atom, arities) > limits.max_depth {
        limits.exceeded(rule.head_rel, &atom);
        return None;
    }
    Some(atom)
}

/// [`advance`] for the registered rule `r`: the partial binding with its rule.
fn advance_rule(
    reg: &Registry,
    ranges: &mut Ranges,
    r: RuleId,
    step: usize,
    row: Row,
) -> Option<(RuleId, u32, Row)> {
    let (step, row) = advance(reg.rule(r), &reg.arities, ranges, step, row)?;
    Some((r, step, row))
}

/// Applies the filters and computations of `rule` from op `step` on to `row` (`arities`: of
/// the functor tokens), stopping at the next join or antijoin (or the end): the partial
/// binding there (the op it waits at, its values), or `None` if a filter drops it.
pub(super) fn advance(
    rule: &LiveRule,
    arities: &[u32],
    ranges: &mut Ranges,
    mut step: usize,
    mut row: Row,
) -> Option<(u32, Row)> {
    ranges.room(rule.vars);
    while let Some(op) = rule.ops.get(step) {
        match op {
            Op::Check(Step::Filter { op, args, negated }) => {
                ranges.read_binding(&rule.bound[step], &row, arities);
                if !crate::engine::builtin::holds_for(*op, args, *negated, ranges, &row) {
                    return None;
                }
            }
            Op::Compute { op, args, known } => {
                ranges.read_binding(&rule.bound[step], &row, arities);
                let value = crate::engine::builtin::compute_for(*op, args, known, ranges, &row)?;
                row.extend_from_slice(&value);
            }
            Op::Join { .. } | Op::Check(_) => break,
        }
        step += 1;
    }
    Some((step as u32, row))
}
