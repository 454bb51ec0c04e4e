//! The program stage: syntax tree → `Program`, interned, normalised and checked.
//!
//! Input: the statements of one file and its [`Model`]. Output: a [`Program`] whose names and
//! ground terms are `u32`s, whose rule bodies are flat conjunctions of literals (negation pushed
//! inward, disjunctions split into separate rules), with operation rules kept as their own kind,
//! plus every diagnostic of the checks (safety, stratification, arity, GDL keywords).
//! Invariant: a `Program` returned without errors is safe and stratified.

mod assemble;
mod builtin;
mod calls;
mod check;
mod compare;
mod context;
pub mod encoding;
mod functional;
mod groups;
mod intern;
mod keyword;
mod lower;
pub mod operations;
pub mod project;

pub use assemble::Assembly;
pub use builtin::Builtin;
pub use context::Context;
pub use intern::{GroundTerm, Sym, Symbols, TermId, Terms};
pub use keyword::Keyword;
pub use lower::{lower, lower_fragment, Fragment};

use crate::hash::FastMap;
use crate::syntax::Span;

/// A relation id: an index into [`Program::relations`].
pub type RelId = u32;
/// A variable of one rule: an index into its [`Origin::var_names`].
pub type VarId = u32;

/// The game model: how state and moves are written (GDL.md §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// `true`/`does`/`next`/`init`, as in KIF and classic infix.
    Classic,
    /// Bare fluents, `base`/`action`/`legal(A)` and operation rules (Stanford `.hrf`).
    Operations,
}

/// A term inside a rule: a variable, an interned ground term, or a function applied to
/// terms of which at least one contains a variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// A variable of the rule.
    Var(VarId),
    /// A ground term.
    Ground(TermId),
    /// `f(t1, ..., tn)` with a variable somewhere inside.
    Func(Sym, Box<[Term]>),
}

impl Term {
    /// Calls `f` on every variable occurrence, left to right.
    pub fn for_each_var(&self, f: &mut impl FnMut(VarId)) {
        match self {
            Term::Var(v) => f(*v),
            Term::Ground(_) => {}
            Term::Func(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }
}

/// A relation: a name and an arity. The same name with two arities is an arity error, but
/// both relations exist so that checking can go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Relation {
    /// Its name.
    pub name: Sym,
    /// Its number of arguments.
    pub arity: usize,
}

/// A relation applied to terms.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Atom {
    /// The relation.
    pub rel: RelId,
    /// One term per argument.
    pub args: Box<[Term]>,
}

/// One conjunct of a normalised body.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    /// An atom that must hold.
    Pos(Atom),
    /// An atom that must not hold (`not`, `~`).
    Neg(Atom),
    /// A built-in test or computation (`distinct`, `plus`, …), possibly negated.
    Builtin {
        /// Which built-in.
        op: Builtin,
        /// Its arguments.
        args: Box<[Term]>,
        /// Whether the literal was negated.
        negated: bool,
    },
    /// `countofall(template, condition, result)`: `result` is the number of distinct
    /// instances of `template` for which the condition holds (Stanford infix).
    Count {
        /// The term whose instances are counted.
        template: Term,
        /// The condition, a conjunction of literals.
        condition: Vec<Literal>,
        /// The count.
        result: Term,
    },
}

/// A normalised rule `head :- body`, body a conjunction (empty for a fact).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    /// The head.
    pub head: Atom,
    /// The body literals in source order.
    pub body: Vec<Literal>,
}

impl Rule {
    /// How many variables the rule has: one more than the largest `VarId` in it.
    pub fn variables(&self) -> usize {
        let mut n = 0;
        let mut note = |v: VarId| n = n.max(v as usize + 1);
        self.head
            .args
            .iter()
            .for_each(|t| t.for_each_var(&mut note));
        for l in &self.body {
            match l {
                Literal::Pos(a) | Literal::Neg(a) => {
                    a.args.iter().for_each(|t| t.for_each_var(&mut note))
                }
                Literal::Builtin { args, .. } => {
                    args.iter().for_each(|t| t.for_each_var(&mut note))
                }
                Literal::Count { .. } => {}
            }
        }
        n
    }
}

/// One effect of an operation rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    /// The fluent becomes true.
    Add(Term),
    /// The fluent becomes false (`~fluent`).
    Delete(Term),
    /// Another action is performed too (a chained action, like `kerchunk`).
    Perform(Term),
}

/// An operation rule `action :: conditions ==> effects` (disjunctive conditions split).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operation {
    /// The action performed.
    pub action: Term,
    /// Conditions on the state before the move.
    pub conditions: Vec<Literal>,
    /// What the action does.
    pub effects: Vec<Effect>,
}

/// Where a rule or operation came from: spans for diagnostics and variable names for printing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// The whole source statement (several rules share it when a disjunction was split).
    pub span: Span,
    /// The head (rules) or action (operations).
    pub head_span: Span,
    /// One span per body literal (rules) or per condition then per effect (operations).
    pub literal_spans: Vec<Span>,
    /// The name of each variable, by `VarId`.
    pub var_names: Vec<String>,
    /// The first occurrence of each variable, by `VarId`.
    pub var_spans: Vec<Span>,
}

impl Origin {
    /// Variable `v` as the source writes it: `?x` in KIF, `X` (upper case or `_`) in the
    /// infix syntaxes; `_v` for a variable without a name.
    pub fn shown_var(&self, v: VarId) -> String {
        match self.var_names.get(v as usize) {
            Some(name) if name.starts_with(|c: char| c.is_uppercase() || c == '_') => name.clone(),
            Some(name) => format!("?{name}"),
            None => format!("_{v}"),
        }
    }

    /// The origin of a rule made from this one's, whose variables are `order`'s numbered from
    /// 0, with its head at `head_span` and its literals at `literal_spans`.
    pub(super) fn renumbered(
        &self,
        order: &[VarId],
        head_span: Span,
        literal_spans: Vec<Span>,
    ) -> Origin {
        let name = |v: &VarId| self.var_names.get(*v as usize).cloned().unwrap_or_default();
        let at = |v: &VarId| self.var_spans.get(*v as usize).copied().unwrap_or_default();
        Origin {
            span: self.span,
            head_span,
            literal_spans,
            var_names: order.iter().map(name).collect(),
            var_spans: order.iter().map(at).collect(),
        }
    }
}

/// A checked, interned, normalised game description.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Classic or operations game model.
    pub model: Model,
    /// Names.
    pub symbols: Symbols,
    /// Ground terms met in the rules.
    pub terms: Terms,
    /// Relations, by `RelId`.
    pub relations: Vec<Relation>,
    /// Where each relation is first used, by `RelId`.
    pub relation_spans: Vec<Span>,
    /// Rules and facts, in source order.
    pub rules: Vec<Rule>,
    /// The origin of each rule, by index.
    pub rule_origins: Vec<Origin>,
    /// Operation rules, in source order (empty in the classic model).
    pub operations: Vec<Operation>,
    /// The origin of each operation rule, by index.
    pub operation_origins: Vec<Origin>,
    /// The game's dynamics as rules of the relaxed program P+ (GDL.md §2): classic
    /// `true(F) :- init(F)`, `true(F) :- next(F)`, `does(R,M) :- legal(R,M)`; for operations
    /// the rules [`operations::lower_operations`] writes. Their heads are the state relations;
    /// they are never rules of the ground program.
    pub dynamics: Vec<Rule>,
    /// Set on an operations game once [`operations::lower_operations`] lowered it: which of
    /// the relations it added hold performed actions and operation instances.
    pub lowering: Option<operations::Lowering>,
    /// The relations [`project::project_locals`] added, sorted: auxiliary relations of the
    /// ground program, not atoms of the game (S* and the counts of GDL.md §4 leave them out).
    pub auxiliary: Vec<RelId>,
    /// What [`crate::analysis::demand`] restricted: empty unless it did.
    pub demand: Demand,
}

/// The relations of a program restricted by demand (GDL.md §3.1), and the demand relations
/// that say which of their atoms the game can ask for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Demand {
    /// The demand relations, sorted: neither atoms of the game nor relations of the ground
    /// program (their literals are left out of every instance, and their rules have none).
    pub relations: Vec<RelId>,
    /// The relations whose rules read a demand relation, sorted: their atoms are those of S*
    /// that some rule calls, not all of S*'s.
    pub restricted: Vec<RelId>,
}

impl Demand {
    /// Whether `rel` is one of the demand relations.
    pub fn has(&self, rel: RelId) -> bool {
        !self.relations.is_empty() && self.relations.binary_search(&rel).is_ok()
    }
}

impl Program {
    /// The name of relation `rel`.
    pub fn relation_name(&self, rel: RelId) -> &str {
        self.symbols.name(self.relations[rel as usize].name)
    }

    /// How relation `rel`'s name is written in the game (see [`Symbols::spelling`]).
    pub fn relation_spelling(&self, rel: RelId) -> &str {
        self.symbols.spelling(self.relations[rel as usize].name)
    }

    /// The relation with this name and arity, if the program uses it.
    pub fn relation(&self, name: &str, arity: usize) -> Option<RelId> {
        let sym = self.symbols.get(name)?;
        self.relations
            .iter()
            .position(|r| r.name == sym && r.arity == arity)
            .map(|i| i as RelId)
    }

    /// A program with nothing in it yet, in `model` (lowering fills it).
    pub(super) fn empty(model: Model) -> Program {
        Program {
            model,
            symbols: Symbols::default(),
            terms: Terms::default(),
            relations: Vec::new(),
            relation_spans: Vec::new(),
            rules: Vec::new(),
            rule_origins: Vec::new(),
            operations: Vec::new(),
            operation_origins: Vec::new(),
            dynamics: Vec::new(),
            lowering: None,
            auxiliary: Vec::new(),
            demand: Demand::default(),
        }
    }

    /// The id of relation `sym`/`arity` while lowering, where `ids` holds the program's
    /// relations by name and arity: added, first used at `span`, if new.
    pub(super) fn add_relation(
        &mut self,
        ids: &mut FastMap<(Sym, usize), RelId>,
        sym: Sym,
        arity: usize,
        span: Span,
    ) -> RelId {
        *ids.entry((sym, arity)).or_insert_with(|| {
            self.relations.push(Relation { name: sym, arity });
            self.relation_spans.push(span);
            (self.relations.len() - 1) as RelId
        })
    }

    /// The id of relation `sym`/`arity`, added if the program does not use it yet.
    pub fn relation_of(&mut self, sym: Sym, arity: usize) -> RelId {
        let found = (self.relations.iter()).position(|r| r.name == sym && r.arity == arity);
        match found {
            Some(i) => i as RelId,
            None => {
                self.relations.push(Relation { name: sym, arity });
                self.relation_spans.push(Default::default());
                (self.relations.len() - 1) as RelId
            }
        }
    }

    /// A new relation called `name` (or `name_2`, `name_3`, … if the program has that name).
    pub fn fresh_relation(&mut self, name: &str, arity: usize) -> RelId {
        let mut candidate = name.to_string();
        let mut n = 1;
        while self.symbols.get(&candidate).is_some() {
            n += 1;
            candidate = format!("{name}_{n}");
        }
        let sym = self.symbols.intern(&candidate);
        self.relation_of(sym, arity)
    }

    /// Whether `rel` is an auxiliary relation of grounding (see [`Program::auxiliary`]).
    pub fn is_auxiliary(&self, rel: RelId) -> bool {
        self.auxiliary.binary_search(&rel).is_ok()
    }

    /// Whether `rel` is a demand relation of grounding (see [`Program::demand`]).
    pub fn is_demand(&self, rel: RelId) -> bool {
        self.demand.has(rel)
    }

    /// Whether `rel`'s atoms are restricted by demand (see [`Demand::restricted`]).
    pub fn is_restricted(&self, rel: RelId) -> bool {
        self.demand.restricted.binary_search(&rel).is_ok()
    }

    /// Calls `f` on every top-level term of every rule and operation (atom arguments,
    /// built-in arguments, actions, effects).
    pub fn for_each_term(&self, f: &mut impl FnMut(&Term)) {
        fn literal(l: &Literal, f: &mut impl FnMut(&Term)) {
            match l {
                Literal::Pos(a) | Literal::Neg(a) => a.args.iter().for_each(&mut *f),
                Literal::Builtin { args, .. } => args.iter().for_each(&mut *f),
                Literal::Count {
                    template,
                    condition,
                    result,
                } => {
                    f(template);
                    f(result);
                    condition.iter().for_each(|c| literal(c, f));
                }
            }
        }
        for rule in &self.rules {
            rule.head.args.iter().for_each(&mut *f);
            rule.body.iter().for_each(|l| literal(l, f));
        }
        for op in &self.operations {
            f(&op.action);
            op.conditions.iter().for_each(|l| literal(l, f));
            for e in &op.effects {
                match e {
                    Effect::Add(t) | Effect::Delete(t) | Effect::Perform(t) => f(t),
                }
            }
        }
    }

    /// The (name, arity) of every fluent of an operations game: the top symbol of the terms in
    /// `init(...)` and `base(...)` heads and in the effects that add or delete.
    pub fn fluent_signatures(&self) -> std::collections::HashSet<(Sym, usize)> {
        let mut out = std::collections::HashSet::new();
        for rule in &self.rules {
            if matches!(
                self.keyword(rule.head.rel),
                Some(Keyword::Init | Keyword::Base)
            ) {
                out.extend(rule.head.args.first().and_then(|t| self.signature(t)));
            }
        }
        for operation in &self.operations {
            for effect in &operation.effects {
                if let Effect::Add(t) | Effect::Delete(t) = effect {
                    out.extend(self.signature(t));
                }
            }
        }
        out
    }

    /// The name and arity of a term read as an atom (a fluent or an action); `None` for a
    /// variable.
    pub fn signature(&self, term: &Term) -> Option<(Sym, usize)> {
        match term {
            Term::Var(_) => None,
            Term::Func(sym, args) => Some((*sym, args.len())),
            Term::Ground(id) if (*id as usize) < self.terms.len() => match self.terms.term(*id) {
                GroundTerm::Const(sym) => Some((*sym, 0)),
                GroundTerm::Func(sym, args) => Some((*sym, args.len())),
            },
            Term::Ground(_) => None,
        }
    }

    /// Which relations the state or the moves give (the heads of the [`dynamics`]
    /// rules: `true` and `does`, or an operations game's fluents and performed actions):
    /// their atoms can hold with no rule of the ground program deriving them.
    ///
    /// [`dynamics`]: Program::dynamics
    pub fn given_relations(&self) -> Vec<bool> {
        let mut given = vec![false; self.relations.len()];
        for rule in &self.dynamics {
            given[rule.head.rel as usize] = true;
        }
        given
    }

    /// The GDL keyword relation `rel` is, in this program's model.
    pub fn keyword(&self, rel: RelId) -> Option<Keyword> {
        let arity = self.relations.get(rel as usize).map_or(0, |r| r.arity);
        Keyword::of(self.model, self.relation_name(rel))
            .filter(|k| !k.is_legacy_at(self.model, arity))
    }
}
