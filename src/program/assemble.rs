//! Joining lowered fragments into one program: each fragment's names, terms and relations
//! are renumbered into the program's in the order they first occur, so that fragments joined
//! in file order give the program that lowering the whole file at once gives. Then arity
//! clashes between the fragments are reported, the classic game's dynamics rules written,
//! and the checks of [`super::check`] run.

use super::lower::{Fragment, Kind};
use super::{
    calls, check, Atom, Effect, GroundTerm, Keyword, Literal, Model, Operation, Origin, Program,
    RelId, Rule, Sym, Term, TermId, VarId,
};
use crate::hash::{FastMap, FastSet};
use crate::syntax::{Code, Diagnostic, Span};

/// A program being put together from fragments.
pub struct Assembly {
    program: Program,
    diagnostics: Vec<Diagnostic>,
    /// Relation ids by (name, arity).
    relation_ids: FastMap<(Sym, usize), RelId>,
    /// The first arity and place each relation and function name was used with.
    first_arity: FastMap<(Kind, Sym), (usize, Span)>,
    /// Arity clashes already reported, so each is reported once.
    reported_clashes: FastSet<(Kind, Sym, usize)>,
}

impl Assembly {
    /// An empty program in `model`, to add fragments to.
    pub fn new(model: Model) -> Assembly {
        Assembly {
            program: Program::empty(model),
            diagnostics: Vec::new(),
            relation_ids: FastMap::default(),
            first_arity: FastMap::default(),
            reported_clashes: FastSet::default(),
        }
    }

    /// The program of a fragment that holds every statement of the file: its numbering is
    /// already the program's, so nothing is renumbered.
    pub(super) fn of(fragment: Fragment) -> Assembly {
        let Fragment {
            program,
            arities,
            diagnostics,
        } = fragment;
        let mut assembly = Assembly::new(program.model);
        assembly.relation_ids = (program.relations.iter().enumerate())
            .map(|(id, r)| ((r.name, r.arity), id as RelId))
            .collect();
        (assembly.program, assembly.diagnostics) = (program, diagnostics);
        for (kind, sym, arity, span) in arities {
            assembly.note_arity(kind, sym, arity, span);
        }
        assembly
    }

    /// Adds `fragment`, lowered from text that starts at byte `offset` of the file.
    pub fn add(&mut self, fragment: &Fragment, offset: u32) {
        let from = &fragment.program;
        let symbols = &mut self.program.symbols;
        let syms: Vec<Sym> = (0..from.symbols.len() as Sym)
            .map(|s| symbols.intern_spelled(from.symbols.name(s), from.symbols.spelling(s)))
            .collect();
        let mut terms: Vec<TermId> = Vec::with_capacity(from.terms.len());
        for id in 0..from.terms.len() as TermId {
            let term = match from.terms.term(id) {
                GroundTerm::Const(s) => GroundTerm::Const(syms[*s as usize]),
                GroundTerm::Func(s, args) => GroundTerm::Func(
                    syms[*s as usize],
                    args.iter().map(|a| terms[*a as usize]).collect(),
                ),
            };
            terms.push(self.program.terms.intern(term));
        }
        let relations = from.relations.iter().zip(&from.relation_spans);
        let rels = relations
            .map(|(r, span)| self.relation(syms[r.name as usize], r.arity, span.shifted(offset)))
            .collect();
        for &(kind, sym, arity, span) in &fragment.arities {
            self.note_arity(kind, syms[sym as usize], arity, span.shifted(offset));
        }
        let diagnostics = fragment.diagnostics.iter();
        self.diagnostics
            .extend(diagnostics.map(|d| d.shifted(offset)));
        let map = Renumbering { syms, terms, rels };
        for (rule, origin) in from.rules.iter().zip(&from.rule_origins) {
            self.program.rules.push(map.rule(rule));
            self.program.rule_origins.push(origin.shifted(offset));
        }
        let operations = from.operations.iter().zip(&from.operation_origins);
        for (operation, origin) in operations {
            self.program.operations.push(map.operation(operation));
            self.program.operation_origins.push(origin.shifted(offset));
        }
    }

    /// The program and every diagnostic of lowering and checking it, sorted by place.
    pub fn finish(mut self) -> (Program, Vec<Diagnostic>) {
        if self.program.model == Model::Classic {
            self.dynamics_relations();
        }
        self.bind_by_calls();
        let Assembly {
            program,
            mut diagnostics,
            ..
        } = self;
        diagnostics.extend(check::whole(&program));
        diagnostics.sort_by_key(|d| (d.span, d.code.as_str()));
        (program, diagnostics)
    }

    /// Grounds over their calls the unsafe rules that every call binds ([`calls`]): their
    /// safety errors give way to a warning, or stay where a rule is still unsafe.
    fn bind_by_calls(&mut self) {
        let statements: Vec<Span> = (self.diagnostics.iter())
            .filter(|d| d.code == Code::Unsafe)
            .filter_map(|d| {
                (self.program.rule_origins.iter())
                    .find(|o| o.span.start <= d.span.start && d.span.end <= o.span.end)
                    .map(|o| o.span)
            })
            .collect();
        if statements.is_empty() {
            return;
        }
        let bound = calls::bind_by_calls(&mut self.program, &mut self.relation_ids, &statements);
        if bound.statements.is_empty() {
            return;
        }
        let touched = |span: Span| {
            bound
                .statements
                .iter()
                .any(|s| s.start <= span.start && span.end <= s.end)
        };
        self.diagnostics
            .retain(|d| d.code != Code::Unsafe || !touched(d.span));
        let again = check::rules_where(&self.program, |o| bound.statements.contains(&o.span));
        self.diagnostics.extend(again);
        self.diagnostics.extend(bound.warnings);
    }

    /// The id of relation `sym`/`arity`, added (first used at `span`) if new.
    fn relation(&mut self, sym: Sym, arity: usize, span: Span) -> RelId {
        (self.program).add_relation(&mut self.relation_ids, sym, arity, span)
    }

    /// Records that `sym` was used with `arity` arguments as a relation or a function at
    /// `span`, and reports a clash with the first arity it was used with.
    fn note_arity(&mut self, kind: Kind, sym: Sym, arity: usize, span: Span) {
        let Some(&(first, first_span)) = self.first_arity.get(&(kind, sym)) else {
            self.first_arity.insert((kind, sym), (arity, span));
            return;
        };
        if first == arity || !self.reported_clashes.insert((kind, sym, arity)) {
            return;
        }
        let model = self.program.model;
        let keyword = Keyword::of(model, self.program.symbols.name(sym));
        let legacy = |arity| keyword.is_some_and(|k: Keyword| k.is_legacy_at(model, arity));
        if kind == Kind::Relation && (legacy(first) || legacy(arity)) {
            // Each legacy arity is a relation of its own; `keywords` warns of them.
            return;
        }
        let what = match kind {
            Kind::Relation => "relation",
            Kind::Function => "function",
        };
        self.diagnostics.push(
            Diagnostic::error(
                Code::Arity,
                span,
                format!(
                    "{what} `{}` is used with {} here but with {} before",
                    self.program.symbols.name(sym),
                    arguments(arity),
                    arguments(first)
                ),
            )
            .with_note(
                Some(first_span),
                format!("first used with {} here", arguments(first)),
            )
            .with_hint(format!("a {what} has one arity; rename one of the two")),
        );
    }

    /// Interns `true`/1 and `does`/2 even where no rule mentions them: the dynamics of GDL.md
    /// §2 derive them from `init`, `next` and `legal` (a game whose rules never read `does`
    /// still has moves), and the engine needs relations to put their atoms in.
    /// Then writes those dynamics rules (for the support relations the program has).
    fn dynamics_relations(&mut self) {
        for (name, arity) in [("true", 1), ("does", 2)] {
            let sym = self.program.symbols.intern(name);
            self.relation(sym, arity, Span::default());
        }
        for (head, body, arity) in [
            ("true", "init", 1),
            ("true", "next", 1),
            ("does", "legal", 2),
        ] {
            let (Some(h), Some(b)) = (
                self.program.relation(head, arity),
                self.program.relation(body, arity),
            ) else {
                continue;
            };
            let args: Box<[Term]> = (0..arity as VarId).map(Term::Var).collect();
            self.program.dynamics.push(Rule {
                head: Atom {
                    rel: h,
                    args: args.clone(),
                },
                body: vec![Literal::Pos(Atom { rel: b, args })],
            });
        }
    }
}

impl Origin {
    /// The origin with every span moved `offset` bytes on.
    fn shifted(&self, offset: u32) -> Origin {
        let spans = |spans: &[Span]| spans.iter().map(|s| s.shifted(offset)).collect();
        Origin {
            span: self.span.shifted(offset),
            head_span: self.head_span.shifted(offset),
            literal_spans: spans(&self.literal_spans),
            var_names: self.var_names.clone(),
            var_spans: spans(&self.var_spans),
        }
    }
}

/// A fragment's ids mapped to the program's.
struct Renumbering {
    syms: Vec<Sym>,
    terms: Vec<TermId>,
    rels: Vec<RelId>,
}

impl Renumbering {
    fn term(&self, t: &Term) -> Term {
        match t {
            Term::Var(v) => Term::Var(*v),
            Term::Ground(id) => Term::Ground(self.terms[*id as usize]),
            Term::Func(sym, args) => Term::Func(self.syms[*sym as usize], self.terms_of(args)),
        }
    }

    fn terms_of(&self, terms: &[Term]) -> Box<[Term]> {
        terms.iter().map(|t| self.term(t)).collect()
    }

    fn atom(&self, atom: &Atom) -> Atom {
        Atom {
            rel: self.rels[atom.rel as usize],
            args: self.terms_of(&atom.args),
        }
    }

    fn literal(&self, literal: &Literal) -> Literal {
        match literal {
            Literal::Pos(a) => Literal::Pos(self.atom(a)),
            Literal::Neg(a) => Literal::Neg(self.atom(a)),
            Literal::Builtin { op, args, negated } => Literal::Builtin {
                op: *op,
                args: self.terms_of(args),
                negated: *negated,
            },
            Literal::Count {
                template,
                condition,
                result,
            } => Literal::Count {
                template: self.term(template),
                condition: condition.iter().map(|c| self.literal(c)).collect(),
                result: self.term(result),
            },
        }
    }

    fn rule(&self, rule: &Rule) -> Rule {
        Rule {
            head: self.atom(&rule.head),
            body: rule.body.iter().map(|l| self.literal(l)).collect(),
        }
    }

    fn operation(&self, operation: &Operation) -> Operation {
        let effect = |e: &Effect| match e {
            Effect::Add(t) => Effect::Add(self.term(t)),
            Effect::Delete(t) => Effect::Delete(self.term(t)),
            Effect::Perform(t) => Effect::Perform(self.term(t)),
        };
        Operation {
            action: self.term(&operation.action),
            conditions: operation
                .conditions
                .iter()
                .map(|l| self.literal(l))
                .collect(),
            effects: operation.effects.iter().map(effect).collect(),
        }
    }
}

/// "1 argument", "2 arguments".
fn arguments(n: usize) -> String {
    if n == 1 {
        "1 argument".into()
    } else {
        format!("{n} arguments")
    }
}
