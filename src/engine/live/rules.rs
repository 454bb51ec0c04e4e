//! A version of a game as live rules: each rule of P+ planned, put in the token space, and
//! given a key that says when two versions hold the same rule.

use super::space::Mapping;
use crate::engine::pattern::Pattern;
use crate::engine::plan::{Kinds, Memo, Part, Plan, RulePlan, Step};
use crate::engine::stats::Stats;
use crate::engine::templates::Form;
use crate::hash::Recent;
use crate::program::encoding::Encoding;
use crate::program::{Builtin, Program, RelId};
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

/// One rule of a version, ready to run live.
pub struct Candidate {
    /// Equal keys mean the same rule, evaluated the same way.
    pub key: RuleKey,
    /// The plan, in the space. Shared by equal rules (see [`Made`]): its `source` is the
    /// rule it was first made for, so the rule's own is `instances`.
    pub plan: Arc<RulePlan>,
    /// The program rule it comes from, if its instances are part of the ground program.
    pub instances: Option<usize>,
    /// That rule's instance form.
    pub form: Option<Arc<Form>>,
}

/// What a version makes of a rule plan: its key, its plan in the space, and the instance
/// form of its program rule (if it has instances).
type MadeRule = (RuleKey, Arc<RulePlan>, Option<Arc<Form>>);

/// What makes two versions' rules the same, evaluated the same way: head, body literals (in
/// the space, each with how it is evaluated, in a canonical order) and the literals its
/// instances keep. Compared as data, not spelled: every rule of every version gets one.
/// Shared, with its hash computed once: a version looks up every one of its rules' keys.
#[derive(Clone, Debug)]
pub struct RuleKey(Arc<(u64, KeyData)>);

/// What a [`RuleKey`] holds.
#[derive(Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct KeyData {
    recursive: bool,
    head_rel: RelId,
    head: Pattern,
    vars: usize,
    /// Sorted.
    literals: Vec<LiteralKey>,
}

impl RuleKey {
    /// The key of `data`, its hash computed.
    fn new(data: KeyData) -> RuleKey {
        let hash = crate::hash::FastBuild::default().hash_one(&data);
        RuleKey(Arc::new((hash, data)))
    }

    /// The relation of the rule's head (in the space).
    pub fn head_rel(&self) -> RelId {
        self.0 .1.head_rel
    }
}

impl PartialEq for RuleKey {
    fn eq(&self, other: &RuleKey) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}

impl Eq for RuleKey {}

impl Hash for RuleKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0 .0);
    }
}

impl PartialOrd for RuleKey {
    fn partial_cmp(&self, other: &RuleKey) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By hash first: a version sorts its given rules' keys, mostly by one comparison each.
impl Ord for RuleKey {
    fn cmp(&self, other: &RuleKey) -> std::cmp::Ordering {
        let (mine, theirs) = (&*self.0, &*other.0);
        mine.0
            .cmp(&theirs.0)
            .then_with(|| match Arc::ptr_eq(&self.0, &other.0) {
                true => std::cmp::Ordering::Equal,
                false => mine.1.cmp(&theirs.1),
            })
    }
}

/// What [`candidates`] made of plans taken from the memo, by their [`RulePlan::memo_id`],
/// kept while the versions map to the space alike: a version made every rule's key and
/// space plan again, a fifth of a connect four goal edit.
#[derive(Default)]
pub struct Made {
    /// By memo id, whether the plan is recursive, and its part ([`Use`]).
    rules: Recent<(u64, bool, Use), MadeRule>,
}

/// What a candidate's plan is made into: a given rule's key (no literals kept; an exact
/// relation's rule also with its instance form, which the version's forms hold for every
/// program rule), or a rule of the dataflow's, with or without instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Use {
    Exact,
    Certain,
    Derived,
    Instances,
}

impl Made {
    /// Begins a version: what the last one used stays if `same_space` (the version maps to
    /// the space as the last one did), else nothing does.
    pub fn begin(&mut self, same_space: bool) {
        if !same_space {
            *self = Made::default();
        }
        self.rules.begin();
    }

    /// `plan`'s key, space plan and instance form: remembered, or made (the form by `form`,
    /// the key with the literals the form keeps) and remembered when the plan is the memo's.
    fn make(
        &mut self,
        plan: RulePlan,
        part: Use,
        mapping: &Mapping,
        form: impl FnOnce() -> Option<Form>,
    ) -> MadeRule {
        let id = plan.memo_id.map(|id| (id, plan.recursive, part));
        if let Some(found) = id.and_then(|id| self.rules.get(&id)) {
            return found.clone();
        }
        let form = form();
        let given = matches!(part, Use::Exact | Use::Certain);
        let kept = (form.iter().filter(|_| !given).flat_map(|f| f.kept()))
            .map(|(negated, rel, pattern)| {
                let mut p = pattern.clone();
                mapping.translate(&mut p);
                LiteralKey::Kept(*negated, mapping.relation(*rel), p)
            })
            .collect();
        let plan = translate(plan, mapping);
        let made = (key(&plan, kept), Arc::new(plan), form.map(Arc::new));
        if let Some(id) = id {
            self.rules.insert(id, made.clone());
        }
        made
    }
}

/// A literal of a [`RuleKey`], whatever its place in the rule's order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum LiteralKey {
    /// A join with the relation's atoms.
    Pos(RelId, Pattern),
    /// A built-in, computed or tested alike, and whether negated.
    Builtin(Builtin, bool, Vec<Pattern>),
    /// An antijoin with the relation's atoms.
    Neg(RelId, Pattern),
    /// A literal its instances keep, and whether negated.
    Kept(bool, RelId, Pattern),
}

/// A version's rules of P+ planned.
pub struct Planned {
    /// The plans of the exact relations, of the certain atoms and of the rest.
    plans: [Plan; 3],
}

/// The rules of P+ for `program` (exact relations first, its relations' `kinds` known),
/// planned with `stats` (and the plans `memo` remembers for them).
pub fn plan(
    program: &Program,
    encoding: &Encoding,
    stats: (&Stats, Option<&Memo>),
    kinds: &Kinds,
) -> Planned {
    if let Some(memo) = stats.1 {
        memo.begin();
    }
    let plans = [Part::Exact, Part::Certain, Part::Rest]
        .map(|p| Plan::with_kinds(program, encoding, p, stats, kinds));
    Planned { plans }
}

/// A version's rules in the space of `mapping`: the keys of the rules that give the exact
/// relations and the certain atoms (sorted: equal lists give equal atoms, which the dataflow
/// is given rather than derives), the candidates of every other rule of `planned` (for
/// `program`, with `exact` as planned), and the instance forms of the exact relations' rules,
/// by program rule. What `made` remembers is reused (see [`Made`]): the forms too, which were
/// made again for every version, a twentieth of a connect four goal edit.
pub fn candidates(
    planned: Planned,
    (program, encoding): (&Program, &Encoding),
    mapping: &Mapping,
    exact: &[bool],
    made: &mut Made,
) -> (Vec<RuleKey>, Vec<Candidate>, Vec<Option<Arc<Form>>>) {
    let [exact_plan, certain_plan, rest] = planned.plans;
    let form_of = |source: Option<usize>| {
        move || {
            let rule = &program.rules[source?];
            Some(Form::new(program, encoding, rule, exact))
        }
    };
    let mut forms = vec![None; program.rules.len()];
    let mut given = Vec::with_capacity(exact_plan.rules.len() + certain_plan.rules.len());
    for rule in exact_plan.rules {
        let source = rule.source;
        let (key, _, form) = made.make(rule, Use::Exact, mapping, form_of(source));
        if let Some(source) = source {
            forms[source] = form;
        }
        given.push(key);
    }
    for rule in certain_plan.rules {
        given.push(made.make(rule, Use::Certain, mapping, || None).0);
    }
    given.sort_unstable();
    let mut out = Vec::with_capacity(rest.rules.len());
    for rule in rest.rules {
        // The rest's heads are never exact: a rule with a source has instances, unless it
        // derives calls (a demand relation's atoms are not the game's).
        let instances = (rule.source).filter(|&i| !program.is_demand(program.rules[i].head.rel));
        let part = match instances {
            Some(_) => Use::Instances,
            None => Use::Derived,
        };
        let (key, plan, form) = made.make(rule, part, mapping, form_of(instances));
        out.push(Candidate {
            key,
            plan,
            instances,
            form,
        });
    }
    (given, out, forms)
}

/// The key of `plan` (in the space), with the literals `kept` its instances keep.
fn key(plan: &RulePlan, mut literals: Vec<LiteralKey>) -> RuleKey {
    literals.extend(plan.steps.iter().map(describe));
    literals.sort_unstable();
    RuleKey::new(KeyData {
        recursive: plan.recursive,
        head_rel: plan.head_rel,
        head: (*plan.head).clone(),
        vars: plan.vars,
        literals,
    })
}

/// `plan` with its relations and tokens in the space, changed in place (its lists are the
/// memo's copy, not shared).
fn translate(mut plan: RulePlan, m: &Mapping) -> RulePlan {
    for step in Arc::make_mut(&mut plan.steps) {
        match step {
            Step::Join { rel, pattern, .. } | Step::Antijoin { rel, pattern } => {
                *rel = m.relation(*rel);
                m.translate(pattern);
            }
            Step::Filter { args, .. } | Step::Compute { args, .. } => {
                args.iter_mut().for_each(|a| m.translate(a));
            }
        }
    }
    plan.head_rel = m.relation(plan.head_rel);
    m.translate(Arc::make_mut(&mut plan.head).as_mut_slice());
    plan
}

/// A step's literal, whatever its place in the order: what makes two rules the same.
fn describe(step: &Step) -> LiteralKey {
    match step {
        Step::Join { rel, pattern, .. } => LiteralKey::Pos(*rel, pattern.clone()),
        Step::Filter { op, args, negated } => LiteralKey::Builtin(*op, *negated, args.clone()),
        Step::Compute { op, args, .. } => LiteralKey::Builtin(*op, false, args.clone()),
        Step::Antijoin { rel, pattern } => LiteralKey::Neg(*rel, pattern.clone()),
    }
}
