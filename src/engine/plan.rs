//! Planning: the relaxed program P+ (GDL.md §2) as a list of rule plans, each an ordered
//! chain of joins, filters and antijoins, grouped into strongly connected components in
//! dependency order.
//!
//! Static relations (those not depending on `true`/`does`) are planned exactly, negation
//! included (antijoins against completed lower strata); dynamic rules drop their negative
//! literals over dynamic relations (the relaxation) but keep those over static relations,
//! which can be decided exactly, and test those over relations with certain atoms
//! ([`crate::analysis::certain`]) against the certain ones. That makes S* tighter than S and
//! still sound.

use super::exists::only_tests_existence;
use super::pattern::{each_item, pattern, variables, Item, Pattern};
use super::stats::Stats;
use crate::analysis::certain::{certain_relations, certain_rule};
use crate::analysis::{each_relation, Dependencies};
use crate::hash::{FastSet, Recent};
use crate::program::encoding::Encoding;
use crate::program::{Atom, Builtin, Literal, Program, RelId, Rule, Term, VarId};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One step of a rule's chain, applied to the bindings so far.
#[derive(Clone, Debug)]
pub enum Step {
    /// Join with the rows of `rel` matching `pattern`: `key` are the variables already bound
    /// (in key order), `new` those the step binds (appended to the binding in that order).
    Join {
        /// The relation.
        rel: RelId,
        /// Its literal's arguments.
        pattern: Pattern,
        /// Shared variables.
        key: Vec<VarId>,
        /// Newly bound variables.
        new: Vec<VarId>,
    },
    /// Keep bindings for which the built-in holds.
    Filter {
        /// Which built-in.
        op: Builtin,
        /// Its arguments.
        args: Vec<Pattern>,
        /// Whether negated.
        negated: bool,
    },
    /// Extend each binding by the value of variable `out`, the one argument of the built-in
    /// not bound yet (`plus(X, 1, N)` with X bound gives N), dropping bindings without one.
    Compute {
        /// Which built-in.
        op: Builtin,
        /// Its arguments; the one that is `out` alone is computed.
        args: Vec<Pattern>,
        /// The variable bound.
        out: VarId,
    },
    /// Drop bindings for which the (static, completed) atom holds.
    Antijoin {
        /// The relation, of a lower stratum.
        rel: RelId,
        /// The atom's arguments, all bound.
        pattern: Pattern,
    },
}

/// A plan's components, shared (see [`Plan::components`]).
pub type Components = Arc<Vec<Component>>;

/// A rule of P+, planned.
#[derive(Clone, Debug)]
pub struct RulePlan {
    /// The program rule it comes from, or `None` for the dynamics rules of §2.
    pub source: Option<usize>,
    /// The head relation.
    pub head_rel: RelId,
    /// The head's arguments. Shared, as the steps and the binding are: a plan taken from the
    /// memo is a copy, and copying these lists was a twentieth of a connect four goal edit.
    pub head: Arc<Pattern>,
    /// The steps, in order; the first `Join` starts from the empty binding. Shared: plans
    /// taken from a [`Memo`] are copies (copying the steps was half of planning a connect
    /// four goal edit from the memo).
    pub steps: Arc<Vec<Step>>,
    /// The variables of the final binding, in order.
    pub binding: Arc<[VarId]>,
    /// How many variables the rule has.
    pub vars: usize,
    /// Whether the head relation is in a recursive component (its terms may grow).
    pub recursive: bool,
    /// The id of the [`Memo`] entry it was taken from (`None`: planned without one). Ids
    /// are never reused, so plans with equal ids are the same plan of the same rule in the
    /// same context, whatever their `source` and `recursive`: a live session reuses what it
    /// made of one (its rule in the live space) instead of making it again every version.
    pub memo_id: Option<u64>,
}

impl RulePlan {
    /// The relation this rule copies, if it is a copy `head(P) :- rel(P)`: one literal with
    /// the head's own arguments, so that each row read is one atom derived (the dynamics
    /// rules `true(F) :- next(F)` and `does(R, M) :- legal(R, M)` are).
    pub fn copies(&self) -> Option<RelId> {
        match &self.steps[..] {
            [Step::Join { rel, pattern, .. }]
                if self.source.is_none() && *pattern == *self.head =>
            {
                Some(*rel)
            }
            _ => None,
        }
    }

    /// The relations its literals read (joins and antijoins), one per literal.
    pub fn reads(&self) -> impl Iterator<Item = RelId> + '_ {
        self.steps.iter().filter_map(|step| match step {
            Step::Join { rel, .. } | Step::Antijoin { rel, .. } => Some(*rel),
            _ => None,
        })
    }
}

/// A strongly connected component of the relaxed dependency graph.
#[derive(Clone, Debug)]
pub struct Component {
    /// Its relations.
    pub relations: Vec<RelId>,
    /// Whether any of its relations depends on itself.
    pub recursive: bool,
    /// The plans (indices into [`Plan::rules`]) whose head is in it.
    pub rules: Vec<usize>,
}

/// The whole relaxed program, planned.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Components in dependency order (every component after those it depends on).
    /// Shared: a live version's parts mostly have the last version's (see [`Memo`]).
    pub components: Components,
    /// Rule plans.
    pub rules: Vec<RulePlan>,
    /// Whether each relation is static and computed exactly (see
    /// [`Dependencies::exact_relations`]); the others are over-approximated.
    pub is_static: Vec<bool>,
    /// Whether each relation is given by the state or the moves
    /// ([`Program::given_relations`]).
    pub is_given: Vec<bool>,
    /// The arity of each functor token.
    pub arities: std::sync::Arc<Vec<u32>>,
    /// With [`Part::Loop`]: the given relations the reduction loop shrinks and the relations
    /// whose atoms support their rows (`true`: `init`, `next`; `does`: `legal`).
    pub supports: Vec<(RelId, Vec<RelId>)>,
    /// Relation ids past the program's (and past the certain ids) that stand for a part of a
    /// program relation, with that relation ([`super::split`]); empty unless split.
    pub renamed: BTreeMap<RelId, RelId>,
    /// The program's auxiliary relations ([`Program::auxiliary`]), sorted.
    pub auxiliary: Vec<RelId>,
    /// The program's demand relations ([`Program::demand`]), sorted.
    pub demand: Vec<RelId>,
}

/// Which rules a plan covers: the engine computes the exact static relations first, then
/// plans the rest with their sizes known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The rules whose heads are exactly computed static relations.
    Exact,
    /// Those of them whose heads' rows the statistics do not know: the known ones (the
    /// relations defined by facts alone) are given to the run instead of derived.
    ExactDerived,
    /// The other rules and the dynamics rules; the exact relations are given.
    Rest,
    /// The other rules without the dynamics rules: the exact relations, `true` and `does`
    /// are given (the domain-graph reduction loop's current sets).
    Loop,
    /// The certain rules ([`crate::analysis::certain`]) of the relations whose certain atoms
    /// some rule tests, renamed to their [`certain_id`]s: the exact relations are given.
    Certain,
}

/// The id under which the certain atoms of relation `rel` are computed and given, for a
/// program with `relations` relations: ids past the program's own.
pub fn certain_id(relations: usize, rel: RelId) -> RelId {
    relations as RelId + rel
}

impl Plan {
    /// All of the plan's rules and relations as one component, for evaluating them together
    /// ([`super::fixpoint`] on one worker).
    pub fn whole(&self) -> Component {
        let components = self.components.iter();
        Component {
            relations: components
                .clone()
                .flat_map(|c| c.relations.clone())
                .collect(),
            recursive: true,
            rules: components.flat_map(|c| c.rules.clone()).collect(),
        }
    }

    /// Plans `part` of `program` (classic model), ordering rule bodies by `stats`.
    pub fn new(program: &Program, encoding: &Encoding, part: Part, stats: &Stats) -> Plan {
        Plan::with_kinds(program, encoding, part, (stats, None), &Kinds::new(program))
    }

    /// [`Plan::new`] with the program's [`Kinds`] already known (a live version plans three
    /// parts of one program, see [`super::live`], and each had analysed it anew, a twentieth
    /// of a connect four goal edit), and the rule plans `memo` remembers for `stats`.
    pub fn with_kinds(
        program: &Program,
        encoding: &Encoding,
        part: Part,
        (stats, memo): (&Stats, Option<&Memo>),
        kinds: &Kinds,
    ) -> Plan {
        let is_static = kinds.exact.clone();
        let context = Context {
            program,
            encoding,
            exact: &is_static,
            certain: &kinds.certain,
            stats,
            memo,
        };
        // Room for every rule up front: grown rule by rule, the list was reallocated a dozen
        // times a version.
        let mut rules = Vec::with_capacity(program.rules.len() + program.dynamics.len());
        if part == Part::Certain {
            rules = certain_plans(&context);
        }
        for (i, rule) in program.rules.iter().enumerate() {
            let head_static = is_static[rule.head.rel as usize];
            let exact = matches!(part, Part::Exact | Part::ExactDerived);
            let known = part == Part::ExactDerived && stats.has_rows(rule.head.rel);
            if part == Part::Certain || head_static != exact || known {
                continue;
            }
            let vars = program.rule_origins[i].var_names.len();
            rules.push(plan_rule(&context, rule, Some(i), vars, head_static, &[]));
        }
        if part == Part::Rest {
            for rule in &program.dynamics {
                rules.push(plan_rule(
                    &context,
                    rule,
                    None,
                    rule.variables(),
                    false,
                    &[],
                ));
            }
        }
        // Room for the certain ids too.
        let ids = 2 * program.relations.len();
        let components = match memo {
            Some(memo) => memo.components(&mut rules, ids),
            None => Arc::new(components(&mut rules, ids)),
        };
        // Semi-naive order: a recursive component's rules start from one of its relations.
        for component in components.iter().filter(|c| c.recursive) {
            for &r in &component.rules {
                let Some(i) = rules[r].source else { continue };
                let (rule, vars) = (&program.rules[i], program.rule_origins[i].var_names.len());
                let head_static = is_static[rule.head.rel as usize];
                let within = &component.relations;
                rules[r] = plan_rule(&context, rule, Some(i), vars, head_static, within);
                rules[r].recursive = true;
            }
        }
        Plan {
            components,
            rules,
            is_static,
            is_given: program.given_relations(),
            arities: std::sync::Arc::new(encoding.arities()),
            supports: if part == Part::Loop {
                supports(program)
            } else {
                Vec::new()
            },
            renamed: BTreeMap::new(),
            auxiliary: program.auxiliary.clone(),
            demand: program.demand.relations.clone(),
        }
    }

    /// Whether the relation derived by rule plans `rules` needs no `distinct`: each of them
    /// copies a relation that no copy derives, and no antijoin reads it. Its atoms then come
    /// at most once per rule, which its readers allow (joins and the result sum
    /// multiplicities; an antijoin would subtract them), and a cycle through it still has a
    /// `distinct` elsewhere (the relation it copies is derived by rules that are not copies).
    /// In the iterations of a recursive component, that is one operator less on the state's
    /// cycle (`true`, read by every rule, copied from `next`).
    pub fn copy_only(&self, rules: &[usize]) -> bool {
        let copied =
            |rel: RelId| (self.rules.iter()).any(|r| r.head_rel == rel && r.copies().is_some());
        let negated = |rel: RelId| {
            (self.rules.iter().flat_map(|r| r.steps.iter()))
                .any(|step| matches!(step, Step::Antijoin { rel: a, .. } if *a == rel))
        };
        let Some(&first) = rules.first() else {
            return false;
        };
        (rules.iter()).all(|&r| self.rules[r].copies().is_some_and(|rel| !copied(rel)))
            && !negated(self.rules[first].head_rel)
    }

    /// The program's relation that relation id `rel` of the plan stands for: itself, or the
    /// relation a part of it was split from ([`Plan::renamed`]).
    pub fn original(&self, rel: RelId) -> RelId {
        self.renamed.get(&rel).copied().unwrap_or(rel)
    }

    /// Whether relation id `rel` of the plan stands for an auxiliary relation of the program,
    /// whose atoms are not atoms of the game. Called per atom: a program without auxiliary
    /// relations pays no lookup.
    pub fn is_auxiliary(&self, rel: RelId) -> bool {
        !self.auxiliary.is_empty() && self.auxiliary.binary_search(&self.original(rel)).is_ok()
    }

    /// Whether relation id `rel` of the plan stands for a demand relation of the program,
    /// whose atoms are calls: neither atoms of the game nor of the ground program.
    pub fn is_demand(&self, rel: RelId) -> bool {
        !self.demand.is_empty() && self.demand.binary_search(&self.original(rel)).is_ok()
    }

    /// Whether the atoms of relation id `rel` are atoms of the game (not auxiliary nor
    /// demand relations'), which the limits and the progress count.
    pub fn is_game(&self, rel: RelId) -> bool {
        !self.is_auxiliary(rel) && !self.is_demand(rel)
    }
}

/// The strongly connected components of the relations of `rules` (ids below `ids`) that
/// some rule derives, in dependency order; sets each rule's [`RulePlan::recursive`].
pub(super) fn components(rules: &mut [RulePlan], ids: usize) -> Vec<Component> {
    let mut edges: Vec<Vec<RelId>> = vec![Vec::new(); ids];
    let mut heads = vec![false; ids];
    for plan in rules.iter() {
        heads[plan.head_rel as usize] = true;
        edges[plan.head_rel as usize].extend(plan.reads());
    }
    let mut components: Vec<Component> = crate::analysis::components(&edges)
        .into_iter()
        .filter(|relations| relations.iter().any(|&r| heads[r as usize]))
        .map(|relations| {
            let recursive =
                relations.len() > 1 || edges[relations[0] as usize].contains(&relations[0]);
            Component {
                relations,
                recursive,
                rules: Vec::new(),
            }
        })
        .collect();
    let mut component_of = vec![usize::MAX; ids];
    for (c, comp) in components.iter().enumerate() {
        for &r in &comp.relations {
            component_of[r as usize] = c;
        }
    }
    for (i, plan) in rules.iter_mut().enumerate() {
        let c = component_of[plan.head_rel as usize];
        plan.recursive = components[c].recursive;
        components[c].rules.push(i);
    }
    components
}

/// Which relations of a program planning decides exactly, and which it tests against their
/// certain atoms: what every part's plan reads of the program besides its rules.
pub struct Kinds {
    /// Whether each relation is computed exactly ([`Dependencies::exact_relations`]).
    pub exact: Vec<bool>,
    /// Whether each relation has its certain atoms computed ([`certain_relations`]).
    pub certain: Vec<bool>,
}

impl Kinds {
    /// The kinds of `program`'s relations.
    pub fn new(program: &Program) -> Kinds {
        let exact = Dependencies::new(program).exact_relations(program);
        let certain = certain_relations(program, &exact);
        Kinds { exact, certain }
    }
}

/// What planning a rule needs besides the rule.
struct Context<'a> {
    program: &'a Program,
    encoding: &'a Encoding,
    /// Which relations are computed exactly.
    exact: &'a [bool],
    /// Which relations have their certain atoms computed ([`certain_relations`]).
    certain: &'a [bool],
    /// The statistics that order bodies.
    stats: &'a Stats,
    /// The rule plans made with them, if remembered.
    memo: Option<&'a Memo>,
}

/// A remembered plan and the relations its rule's literals read.
type ReadingPlan = (RulePlan, Box<[RelId]>);

/// The rule plans a live session's versions made with their [`Stats`], for its next version
/// to take rather than plan again (connect four's goal edits planned its 31 rules again
/// each time, a fifth of the edit). A rule's plan is a function of its literals (tokens and
/// variables), of which of their relations are exact or certain, of the recursive component
/// it starts from, and of the statistics of its relations: its key ([`plan_key`]) holds all
/// but the statistics, so the memo holds while they are the same, and when facts change the
/// plans of the rules that read their relations go ([`Memo::forget_reading`]). The plans the
/// last version did not use are dropped.
#[derive(Default)]
pub struct Memo {
    /// Plans by key, each with the relations its rule's literals read.
    plans: RefCell<Recent<Box<[u32]>, ReadingPlan>>,
    /// The components of the rules of each part planned, by their heads and reads.
    components: RefCell<Recent<Box<[u32]>, Components>>,
    /// Where the next key is written: looking up a remembered plan allocates nothing (the
    /// keys built as nested lists had been a tenth of a connect four goal edit).
    key: RefCell<Vec<u32>>,
    /// How many plans this version made rather than found remembered.
    made: Cell<usize>,
}

impl Memo {
    /// Forgets the plans of the rules that read one of `relations` (whose facts changed):
    /// a plan reads the statistics of its rule's relations only, so the others are what
    /// planning them again with the new statistics would give. Skirmish's step-counter edits
    /// (a fact of `pp`) planned every rule again, 0.7 ms of their 12.
    pub fn forget_reading(&self, relations: &FastSet<RelId>) {
        (self.plans.borrow_mut()).retain(|(_, reads)| !reads.iter().any(|r| relations.contains(r)));
    }

    /// How many rules the version begun last planned afresh, not finding their plans
    /// remembered.
    pub fn made(&self) -> usize {
        self.made.get()
    }

    /// Begins a version: the plans the last version used stay, older ones go.
    pub fn begin(&self) {
        self.made.set(0);
        self.plans.borrow_mut().begin();
        self.components.borrow_mut().begin();
    }

    /// [`components`] of `rules` among `ids` relations: remembered by the rules' heads and
    /// reads in order (equal lists have equal components), or found and remembered. Finding
    /// them was a twelfth of a connect four goal edit, for three parts that an edit of one
    /// rule mostly leaves as they were.
    fn components(&self, rules: &mut [RulePlan], ids: usize) -> Components {
        let mut room = self.key.borrow_mut();
        room.clear();
        room.push(ids as u32);
        heads_and_reads(rules.iter(), &mut room);
        let known = self.components.borrow_mut().get(&room[..]).cloned();
        if let Some(known) = known {
            for component in known.iter() {
                for &r in &component.rules {
                    rules[r].recursive = component.recursive;
                }
            }
            return known;
        }
        let found = Arc::new(components(rules, ids));
        (self.components.borrow_mut()).insert(room[..].into(), found.clone());
        found
    }

    /// The plan of the rule whose key `key` writes: remembered, or made by `plan` and
    /// remembered. A rule `key` writes no key for (`false`) is planned and not remembered.
    fn plan(
        &self,
        key: impl FnOnce(&mut Vec<u32>) -> bool,
        plan: impl FnOnce() -> RulePlan,
        reads: impl FnOnce() -> Box<[RelId]>,
    ) -> RulePlan {
        let mut room = self.key.borrow_mut();
        room.clear();
        let keyed = key(&mut room);
        if keyed {
            if let Some((found, _)) = self.plans.borrow_mut().get(&room[..]) {
                return found.clone();
            }
        }
        self.made.set(self.made.get() + 1);
        if !keyed {
            return plan();
        }
        // Unique in the process: a memo made afresh (new statistics) reuses no id.
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let planned = RulePlan {
            memo_id: Some(id),
            ..plan()
        };
        self.plans
            .borrow_mut()
            .insert(room[..].into(), (planned.clone(), reads()));
        planned
    }
}

/// Writes each of `plans`' head relation and the relations it reads (after their count) to
/// `out`: what the dependency graph of the plans' relations is made of, so that equal lists
/// have equal graphs.
pub fn heads_and_reads<'a>(plans: impl Iterator<Item = &'a RulePlan>, out: &mut Vec<u32>) {
    for plan in plans {
        out.push(plan.head_rel);
        let at = out.len();
        out.push(0);
        out.extend(plan.reads());
        out[at] = (out.len() - at - 1) as u32;
    }
}

/// Writes the key of `rule`'s plan (see [`Memo`]) to `out`: the head's relation, the rule's
/// variable count, whether the head is static, the program's relation count and the
/// relations of `within`, then the head's pattern and each body literal with its relation's
/// flags (exact, certain), every list after its length, so that equal keys are equal rules
/// in equal contexts. `false` (the key unfinished) for a rule with an aggregate, whose
/// conditions the key does not hold.
fn plan_key(
    context: &Context<'_>,
    rule: &Rule,
    (vars, head_static): (usize, bool),
    within: &[RelId],
    out: &mut Vec<u32>,
) -> bool {
    let (program, encoding) = (context.program, context.encoding);
    let flag = |flags: &[bool], rel: RelId| flags.get(rel as usize).copied().unwrap_or(false);
    let relations = program.relations.len() as u32;
    out.extend([rule.head.rel, vars as u32, head_static as u32, relations]);
    out.push(within.len() as u32);
    out.extend_from_slice(within);
    let pattern = |out: &mut Vec<u32>, terms: &[Term]| {
        let at = out.len();
        out.push(0);
        each_item(program, encoding, terms, &mut |item| match item {
            Item::Tok(t) => out.extend([0, t]),
            Item::Var(v) => out.extend([1, v]),
        });
        out[at] = (out.len() - at - 1) as u32;
    };
    pattern(out, &rule.head.args);
    out.push(rule.body.len() as u32);
    for literal in &rule.body {
        match literal {
            Literal::Pos(a) | Literal::Neg(a) => {
                let negated = matches!(literal, Literal::Neg(_)) as u32;
                let flags = [flag(context.exact, a.rel), flag(context.certain, a.rel)];
                out.extend([negated, a.rel, flags[0] as u32, flags[1] as u32]);
                pattern(out, &a.args);
            }
            Literal::Builtin { op, args, negated } => {
                out.extend([2 + *negated as u32, *op as u32, args.len() as u32]);
                for arg in args {
                    pattern(out, std::slice::from_ref(arg));
                }
            }
            Literal::Count { .. } => return false,
        }
    }
    true
}

/// Plans the certain rules of the relations [`certain_relations`] names, with those relations
/// renamed to their [`certain_id`]s.
fn certain_plans(context: &Context<'_>) -> Vec<RulePlan> {
    let (program, exact, certain) = (context.program, context.exact, context.certain);
    let n = program.relations.len();
    let rename = |a: &Atom| match certain[a.rel as usize] {
        true => Atom {
            rel: certain_id(n, a.rel),
            args: a.args.clone(),
        },
        false => a.clone(),
    };
    (program.rules.iter().enumerate())
        .filter(|(_, rule)| certain[rule.head.rel as usize])
        .filter(|(_, rule)| certain_rule(rule, exact, certain))
        .map(|(i, rule)| {
            let body = (rule.body.iter())
                .map(|literal| match literal {
                    Literal::Pos(a) => Literal::Pos(rename(a)),
                    other => other.clone(),
                })
                .collect();
            let renamed = Rule {
                head: rename(&rule.head),
                body,
            };
            let vars = program.rule_origins[i].var_names.len();
            plan_rule(context, &renamed, None, vars, true, &[])
        })
        .collect()
}

/// Plans one rule of P+ with `vars` variables: its positive literals ordered as joins, its
/// built-ins as filters or computations, and its negative literals as antijoins where they
/// can be decided exactly (the head or the negated relation is static). A negative literal
/// over a relation with certain atoms is an antijoin against those (its instances with a
/// certain atom never fire); the other negative literals are the relaxation's and dropped.
/// If some positive literal is over a relation of `within` (the rule's recursive component),
/// the chain starts with one of those (see [`order`]).
fn plan_rule(
    context: &Context<'_>,
    rule: &Rule,
    source: Option<usize>,
    vars: usize,
    head_static: bool,
    within: &[RelId],
) -> RulePlan {
    let plan = || plan_afresh(context, rule, (vars, head_static), within);
    let planned = match context.memo {
        Some(memo) => {
            let key =
                |out: &mut Vec<u32>| plan_key(context, rule, (vars, head_static), within, out);
            let reads = || {
                let mut reads = Vec::new();
                (rule.body.iter()).for_each(|l| each_relation(l, &mut |rel, _| reads.push(rel)));
                reads.into()
            };
            memo.plan(key, plan, reads)
        }
        None => plan(),
    };
    RulePlan { source, ..planned }
}

/// [`plan_rule`] without the memo, for no source rule.
fn plan_afresh(
    context: &Context<'_>,
    rule: &Rule,
    (vars, head_static): (usize, bool),
    within: &[RelId],
) -> RulePlan {
    let Context {
        program,
        encoding,
        exact,
        certain,
        stats,
        ..
    } = *context;
    let mut positives = Vec::new();
    let mut filters = Vec::new();
    for (i, literal) in rule.body.iter().enumerate() {
        match literal {
            Literal::Pos(a) => {
                let p = pattern(program, encoding, &a.args);
                // A static literal that only tests existence, and holds (see `exists.rs`).
                let exact = exact.get(a.rel as usize).copied().unwrap_or(false);
                let holds = exact && stats.matches(a.rel, &p);
                if !(holds && only_tests_existence(rule, i)) {
                    positives.push((a.rel, p));
                }
            }
            Literal::Neg(a) if head_static || exact[a.rel as usize] => {
                filters.push(Step::Antijoin {
                    rel: a.rel,
                    pattern: pattern(program, encoding, &a.args),
                })
            }
            Literal::Neg(a) if certain[a.rel as usize] => filters.push(Step::Antijoin {
                rel: certain_id(program.relations.len(), a.rel),
                pattern: pattern(program, encoding, &a.args),
            }),
            Literal::Neg(_) => {}
            Literal::Builtin { op, args, negated } => filters.push(Step::Filter {
                op: *op,
                args: args
                    .iter()
                    .map(|t| pattern(program, encoding, std::slice::from_ref(t)))
                    .collect(),
                negated: *negated,
            }),
            Literal::Count { .. } => {}
        }
    }
    let head = pattern(program, encoding, &rule.head.args);
    let (steps, binding) = order(&positives, filters, stats, within);
    RulePlan {
        source: None,
        head_rel: rule.head.rel,
        head: Arc::new(head),
        steps: Arc::new(steps),
        binding: binding.into(),
        vars,
        recursive: false,
        memo_id: None,
    }
}

/// The dynamics of classic GDL as supports: `true` by `init` and `next`, `does` by `legal`
/// (those of them the program has).
fn supports(program: &Program) -> Vec<(RelId, Vec<RelId>)> {
    [
        ("true", 1, &["init", "next"][..]),
        ("does", 2, &["legal"][..]),
    ]
    .iter()
    .filter_map(|(name, arity, support)| {
        let rel = program.relation(name, *arity)?;
        let support = support
            .iter()
            .filter_map(|s| program.relation(s, *arity))
            .collect();
        Some((rel, support))
    })
    .collect()
}

/// How much more an order of a recursive rule that starts inside its component may be
/// expected to cost than the cheapest order (see [`order`]).
const INSIDE_FIRST: f64 = 4.0;

/// Orders a rule's literals. A literal whose variables are all bound (a semijoin) comes as
/// soon as possible, since it can only shrink the bindings; among the others, the next is
/// the one with the smallest expected fan-out ([`Stats::fanout`]) among those sharing a bound
/// variable, a literal sharing nothing only when no other is left. Every literal is tried as
/// the first, and the order with the fewest expected intermediate bindings wins (ties: source
/// order). Each filter goes right after the join that binds its last variable.
///
/// Why fan-outs and not a fixed preference: in checkers,
/// `next(cell(X,Y,P)) :- does(R, move(Q,X1,Y1,X2,Y2)) & true(cell(X,Y,P)) &
/// different_cells(X,Y,X1,Y1) & different_cells(X,Y,X2,Y2)` started from `true` joins both
/// `different_cells` (63 rows per cell each) before `does`: 12 million bindings; started from
/// `does` it never holds more than the rule's instances.
///
/// In a recursive component, the best order that starts from a literal over one of its
/// relations (`within`) wins unless it is expected to cost more than [`INSIDE_FIRST`] times
/// the best: the chain then starts from what changes between iterations and reads the other
/// relations, given ones by lookups ([`super::lookup`]), with no operator that waits for the
/// iteration's frontier; started from a given relation, its join with the component's
/// relation waits once per iteration.
fn order(
    positives: &[(RelId, Pattern)],
    mut filters: Vec<Step>,
    stats: &Stats,
    within: &[RelId],
) -> (Vec<Step>, Vec<VarId>) {
    let inside = (positives.iter())
        .map(|(rel, _)| within.contains(rel))
        .collect();
    let sequence = stats.order((positives.to_vec(), inside), |(positives, inside)| {
        let orders: Vec<(Vec<usize>, f64)> = (0..positives.len().max(1))
            .map(|first| greedy(positives, first, stats))
            .collect();
        let cheapest = |within: bool| {
            (orders.iter())
                .filter(|(sequence, _)| !within || sequence.first().is_some_and(|&i| inside[i]))
                .min_by(|a, b| a.1.total_cmp(&b.1))
        };
        let best = match (cheapest(false), cheapest(true)) {
            (Some(best), Some(inside)) if inside.1 <= INSIDE_FIRST * best.1 => Some(inside),
            (best, _) => best,
        };
        best.map(|(sequence, _)| sequence.clone())
            .unwrap_or_default()
    });
    let mut bound: Vec<VarId> = Vec::new();
    let mut steps = Vec::new();
    place_filters(&mut filters, &mut bound, &mut steps);
    for i in sequence {
        let (rel, pattern) = positives[i].clone();
        let vs = variables(&pattern);
        let key: Vec<VarId> = vs.iter().copied().filter(|v| bound.contains(v)).collect();
        let new: Vec<VarId> = vs.iter().copied().filter(|v| !bound.contains(v)).collect();
        bound.extend(&new);
        steps.push(Step::Join {
            rel,
            pattern,
            key,
            new,
        });
        place_filters(&mut filters, &mut bound, &mut steps);
    }
    // Filters whose variables no join binds cannot be evaluated (unsafe rules are rejected
    // before planning), so none can be left here.
    debug_assert!(filters.is_empty(), "internal error: unplaced filter");
    (steps, bound)
}

/// The greedy order of `positives` starting with literal `first`, and its cost: the expected
/// number of bindings summed over the steps.
fn greedy(positives: &[(RelId, Pattern)], first: usize, stats: &Stats) -> (Vec<usize>, f64) {
    let mut left: Vec<usize> = (0..positives.len()).filter(|&i| i != first).collect();
    let mut sequence = Vec::new();
    let mut bound: Vec<VarId> = Vec::new();
    let (mut size, mut cost) = (1.0f64, 0.0f64);
    let mut next = (first < positives.len()).then_some(first);
    while let Some(i) = next {
        let (rel, pattern) = &positives[i];
        let vs = variables(pattern);
        let key: Vec<VarId> = vs.iter().copied().filter(|v| bound.contains(v)).collect();
        size *= stats.fanout(*rel, pattern, &key);
        cost += size;
        bound.extend(vs.iter().filter(|v| !key.contains(v)));
        sequence.push(i);
        next = pick(positives, &left, &bound, stats);
        left.retain(|&j| Some(j) != next);
    }
    (sequence, cost)
}

/// The literal of `left` to join next, given the `bound` variables (see [`order`]).
fn pick(
    positives: &[(RelId, Pattern)],
    left: &[usize],
    bound: &[VarId],
    stats: &Stats,
) -> Option<usize> {
    left.iter()
        .map(|&i| {
            let (rel, pattern) = &positives[i];
            let vs = variables(pattern);
            let key: Vec<VarId> = vs.iter().copied().filter(|v| bound.contains(v)).collect();
            let class = match (key.len() == vs.len(), key.is_empty()) {
                (true, _) => 0,
                (false, false) => 1,
                (false, true) => 2,
            };
            (class, stats.fanout(*rel, pattern, &key), i)
        })
        .min_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)))
        .map(|(_, _, i)| i)
}

/// Moves every filter whose variables are all in `bound` to `steps`, and every built-in that
/// can compute its one unbound variable from the others as a [`Step::Compute`] (binding it,
/// which may make more filters ready).
fn place_filters(filters: &mut Vec<Step>, bound: &mut Vec<VarId>, steps: &mut Vec<Step>) {
    let is_bound = |p: &Pattern, bound: &[VarId]| variables(p).iter().all(|v| bound.contains(v));
    let mut i = 0;
    while i < filters.len() {
        let placed = match &filters[i] {
            Step::Filter { args, .. } if args.iter().all(|p| is_bound(p, bound)) => {
                Some(filters.remove(i))
            }
            Step::Filter {
                op,
                args,
                negated: false,
            } => match computable(*op, args, bound) {
                Some(out) => {
                    let (op, args) = (*op, args.clone());
                    bound.push(out);
                    filters.remove(i);
                    Some(Step::Compute { op, args, out })
                }
                None => None,
            },
            Step::Antijoin { pattern, .. } if is_bound(pattern, bound) => Some(filters.remove(i)),
            _ => None,
        };
        match placed {
            Some(step) => {
                steps.push(step);
                i = 0;
            }
            None => i += 1,
        }
    }
}

/// The variable built-in `op` can compute from `args` given `bound`: the one argument that is
/// an unbound variable alone, when the others match one of the built-in's modes.
fn computable(op: Builtin, args: &[Pattern], bound: &[VarId]) -> Option<VarId> {
    let mut mask = 0u8;
    let mut out = None;
    for (i, p) in args.iter().enumerate() {
        if variables(p).iter().all(|v| bound.contains(v)) {
            mask |= 1 << i;
        } else if let [Item::Var(v)] = p[..] {
            if out.replace(v).is_some() {
                return None;
            }
        } else {
            return None;
        }
    }
    out.filter(|_| op.modes().contains(&mask))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{load, source_from_bytes};
    use crate::program::encoding::Encoding;
    use crate::syntax::Syntax;

    /// A checkers-like game: `far` is a static table with 39 rows per first column, and the
    /// `next` rule could start from `true`, `does` or `far`.
    const GAME: &str = "
        (role r) (init (at 1)) (legal r (go 1 2)) (terminal) (goal r 100)
        (<= (far ?x ?y) (n ?x) (n ?y) (distinct ?x ?y))
        (<= (next (at ?c)) (true (at ?c)) (does ?p (go ?a ?b)) (far ?c ?a) (far ?c ?b))
    ";
    /// The numbers of the `n` table.
    const N: i64 = 40;

    #[test]
    fn bodies_start_from_the_literal_that_keeps_bindings_few() {
        let text: String = (1..=N).map(|i| format!("(n {i})")).collect::<String>() + GAME;
        let source = source_from_bytes("game.kif".into(), text.into_bytes(), Syntax::Kif).unwrap();
        let game = load(source, Syntax::Kif).unwrap();
        let (program, encoding) = (&game.program, Encoding::new(&game.program));
        let arities = std::sync::Arc::new(encoding.arities());
        let far = program.relation("far", 2).unwrap();
        let rows = (1..=N)
            .flat_map(|x| (1..=N).filter(move |&y| y != x).map(move |y| (x, y)))
            .map(|(x, y)| {
                let int = |n| crate::program::encoding::int_token(n).unwrap();
                crate::engine::Row::from_slice(&[int(x), int(y)])
            })
            .collect();
        let stats = Stats::new(BTreeMap::from([(far, rows)]), arities);
        let plan = Plan::new(program, &encoding, Part::Rest, &stats);
        let next = program.relation("next", 1).unwrap();
        let rule = plan.rules.iter().find(|r| r.head_rel == next).unwrap();
        let rels: Vec<RelId> = rule
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Join { rel, .. } => Some(*rel),
                _ => None,
            })
            .collect();
        let (does, truth) = (
            program.relation("does", 2).unwrap(),
            program.relation("true", 1).unwrap(),
        );
        // From `does`: one `far` fans out by 39; `true` and the other `far` are semijoins.
        // From `true`, both `far`s would fan out by 39 before `does`; from `far`, the whole
        // table (1560 rows) times 39.
        assert_eq!(rels, vec![does, far, truth, far]);
    }

    /// A game whose `p` is static (exact) and `q`-reachable `step` recursive; with `edit`,
    /// `p` holds of the state instead, so it is neither exact nor static (nor has certain
    /// atoms: only its exactness tells the versions' `legal` rules apart).
    fn versioned(edit: bool) -> crate::load::Game {
        let p = match edit {
            false => "(<= (p ?x) (n ?x))",
            true => "(<= (p ?x) (true (q ?x)))",
        };
        let text = format!(
            "(role r) (init (q 1)) (n 1) (n 2) (succ 1 2)
            (<= (legal r (go ?x)) (n ?x) (not (p ?x)))
            (<= (next (q ?y)) (true (q ?x)) (succ ?x ?y) (not (p ?y)))
            (<= (step ?y) (step ?x) (succ ?x ?y)) (<= (step ?x) (true (q ?x)))
            (<= terminal (step 2)) (goal r 100) {p}"
        );
        let source = source_from_bytes("game.kif".into(), text.into_bytes(), Syntax::Kif).unwrap();
        load(source, Syntax::Kif).unwrap()
    }

    /// Regression guard for the memo's key: plans taken from a [`Memo`] are the plans made
    /// afresh, in every part, across versions where a relation stops being exact (the key
    /// must hold the literals' kinds, or `legal`'s negation of `p` keeps its antijoin), and
    /// so are their components.
    #[test]
    fn remembered_plans_are_the_plans_made_afresh() {
        let first = versioned(false);
        let encoding = Encoding::new(&first.program);
        let stats = Stats::new(BTreeMap::new(), std::sync::Arc::new(encoding.arities()));
        let memo = Memo::default();
        let parts = [Part::Exact, Part::Certain, Part::Rest];
        // Each version twice: the second takes everything from the memo.
        for edit in [false, false, true, true, false, false] {
            let game = versioned(edit);
            let (program, encoding) = (&game.program, Encoding::new(&game.program));
            let kinds = Kinds::new(program);
            memo.begin();
            for part in parts {
                let remembered =
                    Plan::with_kinds(program, &encoding, part, (&stats, Some(&memo)), &kinds);
                let afresh = Plan::new(program, &encoding, part, &stats);
                // The memo's ids aside, which only remembered plans have.
                let show = |plan: &Plan| {
                    let rules = plan.rules.iter().map(|r| RulePlan {
                        memo_id: None,
                        ..r.clone()
                    });
                    format!("{:?} {:?}", rules.collect::<Vec<_>>(), plan.components)
                };
                assert_eq!(show(&remembered), show(&afresh), "{part:?}, edited: {edit}");
            }
        }
        assert!(!memo.plans.borrow().is_empty());
    }

    /// A game with `facts`: `p`'s order follows the sizes of `big` and `small`, `w` tests
    /// `flag(1)` (a test the plan drops while it holds), `u` reads no fact.
    fn with_facts(facts: &str) -> crate::load::Game {
        let text = format!(
            "(role r) (init (q 1)) {facts}
            (<= (p ?x ?y) (big ?x ?y) (small ?x)) (<= (w ?x) (n ?x) (flag 1))
            (<= (legal r (go ?x)) (true (q ?x)) (w ?x)) (<= (next (q ?x)) (does r (go ?x)))
            (<= (u ?x) (true (q ?x))) (<= terminal (u 5)) (goal r 100)"
        );
        let source = source_from_bytes("game.kif".into(), text.into_bytes(), Syntax::Kif).unwrap();
        load(source, Syntax::Kif).unwrap()
    }

    /// Plans kept in a [`Memo`] across versions with other facts (in the same tokens) are the
    /// plans made afresh with the new facts' statistics, when the memo forgets the plans of
    /// the rules that read a relation whose facts changed; some plans are kept.
    #[test]
    fn plans_kept_across_changed_facts_are_the_plans_made_afresh() {
        let one = "(small 1) (big 1 2) (big 1 3) (big 1 4) (big 1 5) (flag 1) (n 2) (n 5)";
        let other = "(small 1) (small 2) (small 5) (big 1 2) (big 3 4) (flag 2) (n 2) (n 5)";
        let memo = Memo::default();
        let (mut last, mut last_ids, mut kept): (Option<Stats>, Vec<u64>, usize) =
            (None, vec![], 0);
        for facts in [one, other, one] {
            let game = with_facts(facts);
            let (program, encoding) = (&game.program, Encoding::new(&game.program));
            let rows = crate::engine::run::facts(program, &encoding);
            let arities = encoding.arities();
            if let Some(last) = &last {
                let changed = last.changed(&rows, &arities).expect("the same tokens");
                assert_eq!(changed.len(), 3, "small, big and flag changed");
                memo.forget_reading(&changed);
            }
            let stats = Stats::new(rows, std::sync::Arc::new(arities));
            let kinds = Kinds::new(program);
            memo.begin();
            let mut ids = Vec::new();
            for part in [Part::Exact, Part::Certain, Part::Rest] {
                let remembered =
                    Plan::with_kinds(program, &encoding, part, (&stats, Some(&memo)), &kinds);
                let afresh = Plan::new(program, &encoding, part, &stats);
                ids.extend(remembered.rules.iter().filter_map(|r| r.memo_id));
                let show = |plan: &Plan| {
                    let rules = plan.rules.iter().map(|r| RulePlan {
                        memo_id: None,
                        ..r.clone()
                    });
                    format!("{:?}", rules.collect::<Vec<_>>())
                };
                assert_eq!(show(&remembered), show(&afresh), "{part:?}, facts: {facts}");
            }
            kept += ids.iter().filter(|id| last_ids.contains(id)).count();
            (last, last_ids) = (Some(stats), ids);
        }
        assert!(kept > 0, "no plan was kept");
    }
}
