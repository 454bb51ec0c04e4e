//! Lowering: syntax tree → `Program`. Interns names and ground terms, pushes negation inward,
//! splits disjunctions into separate rules and recognises built-ins and operation effects,
//! giving a [`Fragment`]; [`super::assemble`] then joins fragments into one program, reports
//! arity clashes and runs the checks of [`super::check`].

use super::assemble::Assembly;
use super::{
    check, Atom, Builtin, Context, Effect, GroundTerm, Keyword, Literal, Model, Operation, Origin,
    Program, RelId, Rule, Sym, Term, VarId,
};
use crate::hash::{FastMap, FastSet};
use crate::syntax::{self as ast, Code, Diagnostic, Formula, Span, Statement};
use std::rc::Rc;

/// The most rules one statement may split into when its disjunctions are multiplied out.
pub const MAX_DISJUNCTS: usize = 4096;

/// Lowers the statements of one file to a `Program` in `model`, returning it with every
/// diagnostic of lowering and checking. The program is usable only when none is an error.
pub fn lower(statements: &[Statement], model: Model) -> (Program, Vec<Diagnostic>) {
    let context = Context::of(statements, model);
    Assembly::of(lower_fragment(statements, &context, model)).finish()
}

/// Some statements lowered on their own, with names, terms and relations numbered in the
/// order they first occur in them. Joined in file order, fragments make the program that
/// lowering the whole file at once makes (see [`super::assemble`]).
#[derive(Clone, Debug)]
pub struct Fragment {
    /// The rules, operations, names, terms and relations of the statements (no dynamics).
    pub(super) program: Program,
    /// The first use of each name with each arity, as a relation or a function, in order:
    /// arity clashes are found when fragments are joined.
    pub(super) arities: Vec<(Kind, Sym, usize, Span)>,
    /// The problems found in the statements themselves (lowering them, and the checks of
    /// each rule on its own).
    pub(super) diagnostics: Vec<Diagnostic>,
}

/// Lowers `statements` in `model`, knowing of the rest of the game what `context` says.
pub fn lower_fragment(statements: &[Statement], context: &Context, model: Model) -> Fragment {
    let mut lowerer = Lowerer::new(context, model);
    for statement in statements {
        match statement {
            Statement::Rule { head, body, span } => lowerer.rule(head, body, *span),
            Statement::Operation {
                action,
                conditions,
                effects,
                span,
            } => lowerer.operation(action, conditions, effects, *span),
        }
    }
    let mut diagnostics = lowerer.diagnostics;
    diagnostics.extend(check::rules(&lowerer.program));
    Fragment {
        program: lowerer.program,
        arities: lowerer.arities,
        diagnostics,
    }
}

/// A literal before lowering: an atom of the syntax tree and whether it is negated. Shared,
/// since multiplying out disjunctions copies each literal into many conjunctions.
type RawLiteral = (Rc<ast::Atom>, bool);

/// Relations and functions have arities of their own: `cell` may be both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Kind {
    Relation,
    Function,
}

/// The variables of the statement being lowered.
#[derive(Default)]
struct Scope {
    ids: FastMap<String, VarId>,
    names: Vec<String>,
    spans: Vec<Span>,
}

impl Scope {
    /// The id of the variable `name` written at `span`; `_` is new at every occurrence.
    fn var(&mut self, name: &str, span: Span) -> VarId {
        if name != "_" {
            if let Some(&id) = self.ids.get(name) {
                return id;
            }
        }
        let id = self.names.len() as VarId;
        let shown = if name == "_" {
            format!("_{id}")
        } else {
            name.to_string()
        };
        self.names.push(shown);
        self.spans.push(span);
        if name != "_" {
            self.ids.insert(name.to_string(), id);
        }
        id
    }
}

/// Lowering state for the statements of one fragment.
struct Lowerer<'c> {
    program: Program,
    diagnostics: Vec<Diagnostic>,
    /// Relation ids by (name, arity).
    relation_ids: FastMap<(Sym, usize), RelId>,
    /// See [`Fragment::arities`].
    arities: Vec<(Kind, Sym, usize, Span)>,
    /// The (kind, name, arity) in `arities`.
    noted: FastSet<(Kind, Sym, usize)>,
    /// What the rest of the game says.
    context: &'c Context,
}

impl<'c> Lowerer<'c> {
    fn new(context: &'c Context, model: Model) -> Lowerer<'c> {
        Lowerer {
            program: Program::empty(model),
            diagnostics: Vec::new(),
            relation_ids: FastMap::default(),
            arities: Vec::new(),
            noted: FastSet::default(),
            context,
        }
    }

    /// `head :- body`, split into one rule per disjunct of the body.
    fn rule(&mut self, head: &ast::Atom, body: &[Formula], span: Span) {
        let Some(disjuncts) = self.dnf_all(body, span) else {
            return;
        };
        for conjunction in disjuncts {
            let mut scope = Scope::default();
            let head_atom = self.relation_atom(head, &mut scope);
            let mut literals = Vec::with_capacity(conjunction.len());
            let mut spans = Vec::with_capacity(conjunction.len());
            for (atom, negated) in &conjunction {
                if let Some(literal) = self.literal(atom, *negated, &mut scope) {
                    literals.push(literal);
                    spans.push(atom.span);
                }
            }
            self.program.rules.push(Rule {
                head: head_atom,
                body: literals,
            });
            self.program.rule_origins.push(Origin {
                span,
                head_span: head.span,
                literal_spans: spans,
                var_names: scope.names,
                var_spans: scope.spans,
            });
        }
    }

    /// `action :: conditions ==> effects`, split into one operation per disjunct.
    fn operation(
        &mut self,
        action: &ast::Term,
        conditions: &[Formula],
        effects: &[Formula],
        span: Span,
    ) {
        if self.program.model != Model::Operations {
            self.diagnostics.push(
                Diagnostic::error(
                    Code::Syntax,
                    span,
                    "operation rules (`::`) belong to the Stanford infix game model",
                )
                .with_hint("name the file `.hrf` or pass `--syntax hrf`"),
            );
            return;
        }
        if let ast::Term::Var(name) = action {
            self.diagnostics.push(
                Diagnostic::error(
                    Code::Syntax,
                    name.span,
                    "the action of an operation rule cannot be a variable",
                )
                .with_hint("write the action's name, as in `mark(M,N) :: ...`"),
            );
            return;
        }
        let Some(disjuncts) = self.dnf_all(conditions, span) else {
            return;
        };
        for conjunction in disjuncts {
            let mut scope = Scope::default();
            let action_term = self.term(action, &mut scope);
            let mut literals = Vec::new();
            let mut spans = Vec::new();
            for (atom, negated) in &conjunction {
                if let Some(literal) = self.literal(atom, *negated, &mut scope) {
                    literals.push(literal);
                    spans.push(atom.span);
                }
            }
            let mut lowered_effects = Vec::new();
            for effect in effects {
                if let Some(e) = self.effect(effect, &mut scope) {
                    lowered_effects.push(e);
                    spans.push(effect.span());
                }
            }
            self.program.operations.push(Operation {
                action: action_term,
                conditions: literals,
                effects: lowered_effects,
            });
            self.program.operation_origins.push(Origin {
                span,
                head_span: action.span(),
                literal_spans: spans,
                var_names: scope.names,
                var_spans: scope.spans,
            });
        }
    }

    /// One effect: `fluent`, `~fluent`, or an action performed too.
    fn effect(&mut self, effect: &Formula, scope: &mut Scope) -> Option<Effect> {
        let (atom, negated) = match effect {
            Formula::Atom(a) => (a, false),
            Formula::Not(inner, _) => match &**inner {
                Formula::Atom(a) => (a, true),
                _ => return self.bad_effect(effect.span()),
            },
            _ => return self.bad_effect(effect.span()),
        };
        let term = self.atom_as_term(atom, scope);
        let is_action = self.context.is_action(&atom.name.text, atom.args.len());
        match (is_action, negated) {
            (false, false) => Some(Effect::Add(term)),
            (false, true) => Some(Effect::Delete(term)),
            (true, false) => Some(Effect::Perform(term)),
            (true, true) => {
                self.diagnostics.push(
                    Diagnostic::error(
                        Code::Syntax,
                        atom.span,
                        format!("`~{}` negates an action", atom.name.text),
                    )
                    .with_hint("only fluents can be deleted; an action in an effect is performed"),
                );
                None
            }
        }
    }

    fn bad_effect(&mut self, span: Span) -> Option<Effect> {
        self.diagnostics.push(
            Diagnostic::error(
                Code::Syntax,
                span,
                "an effect must be a fluent, `~fluent`, or an action",
            )
            .with_hint("effects are a conjunction: `==> f(X) & ~g(X) & kerchunk`"),
        );
        None
    }

    /// Multiplies out a conjunction of formulas into disjunctive normal form, or reports
    /// that it is too large.
    fn dnf_all(&mut self, conjuncts: &[Formula], span: Span) -> Option<Vec<Vec<RawLiteral>>> {
        let mut result = vec![Vec::new()];
        for f in conjuncts {
            let part = self.dnf(f, false)?;
            result = self.product(result, part, span)?;
        }
        Some(result)
    }

    /// `f` (negated if `negated`) in disjunctive normal form.
    fn dnf(&mut self, f: &Formula, negated: bool) -> Option<Vec<Vec<RawLiteral>>> {
        match f {
            // `or(F, G)` in infix is a disjunction unless the game defines `or` itself.
            Formula::Atom(a)
                if a.name.text == "or" && !self.context.defines("or", a.args.len()) =>
            {
                let parts: Option<Vec<Formula>> = a
                    .args
                    .iter()
                    .map(|t| term_as_atom(t).map(Formula::Atom))
                    .collect();
                match parts {
                    Some(parts) => self.dnf(&Formula::Or(parts, a.span), negated),
                    None => Some(vec![vec![(Rc::new(a.clone()), negated)]]),
                }
            }
            Formula::Atom(a) => Some(vec![vec![(Rc::new(a.clone()), negated)]]),
            Formula::Not(inner, _) => self.dnf(inner, !negated),
            Formula::And(fs, span) | Formula::Or(fs, span) => {
                let conjunctive = matches!(f, Formula::And(..)) != negated;
                if conjunctive {
                    let mut result = vec![Vec::new()];
                    for g in fs {
                        let part = self.dnf(g, negated)?;
                        result = self.product(result, part, *span)?;
                    }
                    Some(result)
                } else {
                    let mut result = Vec::new();
                    for g in fs {
                        result.extend(self.dnf(g, negated)?);
                    }
                    Some(result)
                }
            }
        }
    }

    /// The conjunctions of one from `left` and one from `right`, unless there are too many.
    fn product(
        &mut self,
        left: Vec<Vec<RawLiteral>>,
        right: Vec<Vec<RawLiteral>>,
        span: Span,
    ) -> Option<Vec<Vec<RawLiteral>>> {
        if left.len().saturating_mul(right.len()) > MAX_DISJUNCTS {
            self.diagnostics.push(
                Diagnostic::error(
                    Code::Limit,
                    span,
                    format!("this body splits into more than {MAX_DISJUNCTS} rules"),
                )
                .with_hint("introduce helper relations for the disjunctions"),
            );
            return None;
        }
        let mut out = Vec::with_capacity(left.len() * right.len());
        for l in &left {
            for r in &right {
                let mut c = l.clone();
                c.extend(r.iter().cloned());
                out.push(c);
            }
        }
        Some(out)
    }

    /// One body literal: a built-in, `countofall`, or a (possibly negated) relation atom.
    fn literal(&mut self, atom: &ast::Atom, negated: bool, scope: &mut Scope) -> Option<Literal> {
        let model = self.program.model;
        let name = atom.name.text.as_str();
        let arity = atom.args.len();
        let builtin = Builtin::of(model, name, arity);
        let counts = model == Model::Operations && name == "countofall" && arity == 3;
        // A relation the game defines is read as that relation, whatever its name.
        if (builtin.is_some() || counts) && !self.context.defines(name, arity) {
            if let Some(op) = builtin {
                let args = atom.args.iter().map(|t| self.term(t, scope)).collect();
                return Some(Literal::Builtin { op, args, negated });
            }
            return self.count(atom, negated, scope);
        }
        let a = self.relation_atom(atom, scope);
        Some(if negated {
            Literal::Neg(a)
        } else {
            Literal::Pos(a)
        })
    }

    /// `countofall(template, condition, result)`.
    fn count(&mut self, atom: &ast::Atom, negated: bool, scope: &mut Scope) -> Option<Literal> {
        let Some(condition) = term_as_atom(&atom.args[1]) else {
            self.diagnostics.push(
                Diagnostic::error(
                    Code::Syntax,
                    atom.args[1].span(),
                    "the condition of `countofall` must be an atom",
                )
                .with_hint("write `countofall(Template, p(...), N)`"),
            );
            return None;
        };
        if negated {
            self.diagnostics.push(
                Diagnostic::error(Code::Syntax, atom.span, "`countofall` cannot be negated")
                    .with_hint("count into a variable and compare it instead"),
            );
            return None;
        }
        let template = self.term(&atom.args[0], scope);
        let condition = self.literal(&condition, false, scope)?;
        let result = self.term(&atom.args[2], scope);
        Some(Literal::Count {
            template,
            condition: vec![condition],
            result,
        })
    }

    /// The atom of a relation (not a built-in), interning the relation.
    fn relation_atom(&mut self, atom: &ast::Atom, scope: &mut Scope) -> Atom {
        let rel = self.relation(&atom.name, atom.args.len());
        let args = atom.args.iter().map(|t| self.term(t, scope)).collect();
        Atom { rel, args }
    }

    /// The id of relation `name`/`arity` in this fragment.
    fn relation(&mut self, name: &ast::Name, arity: usize) -> RelId {
        let sym = self.intern(name);
        self.note_arity(Kind::Relation, sym, name, arity);
        (self.program).add_relation(&mut self.relation_ids, sym, arity, name.span)
    }

    /// The symbol of `name`, spelled as written; keywords are spelled as GDL names them,
    /// since every reader knows them in lower case.
    fn intern(&mut self, name: &ast::Name) -> Sym {
        let spelling = match Keyword::of(self.program.model, &name.text) {
            Some(keyword) => keyword.name(),
            None => name.spelling(),
        };
        self.program.symbols.intern_spelled(&name.text, spelling)
    }

    /// Records the first use of `name` with `arity` as a relation or a function.
    fn note_arity(&mut self, kind: Kind, sym: Sym, name: &ast::Name, arity: usize) {
        if self.noted.insert((kind, sym, arity)) {
            self.arities.push((kind, sym, arity, name.span));
        }
    }

    /// A term of the rule; ground subterms are interned.
    fn term(&mut self, t: &ast::Term, scope: &mut Scope) -> Term {
        match t {
            ast::Term::Const(n) => {
                let sym = self.intern(n);
                Term::Ground(self.program.terms.constant(sym))
            }
            ast::Term::Var(n) => Term::Var(scope.var(&n.text, n.span)),
            ast::Term::Func(n, args, _) => {
                let sym = self.intern(n);
                self.note_arity(Kind::Function, sym, n, args.len());
                let args: Vec<Term> = args.iter().map(|a| self.term(a, scope)).collect();
                self.function(sym, args)
            }
        }
    }

    /// `f(args)`, interned when ground.
    fn function(&mut self, sym: Sym, args: Vec<Term>) -> Term {
        let ground: Option<Vec<_>> = args
            .iter()
            .map(|a| match a {
                Term::Ground(id) => Some(*id),
                _ => None,
            })
            .collect();
        match ground {
            Some(ids) => Term::Ground(
                self.program
                    .terms
                    .intern(GroundTerm::Func(sym, ids.into_boxed_slice())),
            ),
            None => Term::Func(sym, args.into_boxed_slice()),
        }
    }

    /// An atom read as a term (an effect's fluent or action).
    fn atom_as_term(&mut self, atom: &ast::Atom, scope: &mut Scope) -> Term {
        let sym = self.intern(&atom.name);
        if atom.args.is_empty() {
            return Term::Ground(self.program.terms.constant(sym));
        }
        self.note_arity(Kind::Function, sym, &atom.name, atom.args.len());
        let args = atom.args.iter().map(|a| self.term(a, scope)).collect();
        self.function(sym, args)
    }
}

/// A term read as an atom (the condition of `countofall`, the parts of `or(...)`).
fn term_as_atom(t: &ast::Term) -> Option<ast::Atom> {
    match t {
        ast::Term::Const(n) => Some(ast::Atom {
            name: n.clone(),
            args: Vec::new(),
            span: n.span,
        }),
        ast::Term::Func(n, args, span) => Some(ast::Atom {
            name: n.clone(),
            args: args.clone(),
            span: *span,
        }),
        ast::Term::Var(_) => None,
    }
}
