//! Local variables projected away (REFERENCES.md: badtictactoe's 5.4 million rules).
//!
//! A positive literal whose variables partly occur nowhere else in its rule multiplies the
//! rule's instances by the values of those *local* variables, although the rule only needs
//! to know that some value exists. Chess's `next(check(P, rook, X, Y)) :- does(O,
//! move(Piece, U, V, X1, Y1)), …` has an instance for every move off (U, V) per binding of
//! the rest of its body: billions. Such a literal is replaced by an auxiliary relation over
//! the variables it shares, defined by one rule, `does_5c1e07a2(O, U, V) :- does(O,
//! move(Piece, U, V, X1, Y1))`. The program means the same (an auxiliary atom holds exactly
//! when some instance of the literal does), its relaxed closure over the original relations
//! is the same, and the ground program has a rule per instance of the literal plus one per
//! binding of the rest, instead of their product.
//!
//! A literal is projected when it has a local variable (one in no other literal and not in
//! the head, except in built-ins whose variables all occur in the literal: those go with it
//! into the auxiliary rule) and the rule has a variable the literal lacks, so that the rest
//! of the body can multiply its instances. Without one, every binding of the rule is a
//! binding of the literal, and an auxiliary relation would only add rules.
//!
//! A group of literals whose variables partly occur nowhere else is projected the same way,
//! when no single literal is ([`super::groups`] finds it): the rules are rewritten until
//! neither is left, each rewrite removing a variable.
//!
//! The auxiliary relation is named after the literal's relation and a hash of its text with
//! the variables numbered canonically: equal literals of different rules share it, and the
//! next version of an edited game names it alike (a live session matches relations by name).

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::hash::Hasher;

use super::functional::Dependencies;
use super::groups::group;
use super::{Atom, GroundTerm, Literal, Origin, Program, RelId, Rule, Term, VarId};
use crate::hash::{FxHasher, Recent};

/// `program` with the local variables of its rules projected into auxiliary relations
/// (listed in [`Program::auxiliary`]), or `None` when no rule has a literal to project.
pub fn project_locals(program: &Program) -> Option<Program> {
    project_locals_reusing(program, &mut Searches::default())
}

/// What projecting the rules of the last program projected and of this one found, by
/// rule: a live session projects each version of a game, and projecting only the rules an
/// edit changed saves most of the work (connect four: 0.46 ms an edit for the group
/// searches ([`super::groups`]), then a quarter of what was left for the rest).
#[derive(Default)]
pub struct Searches {
    /// By rule.
    found: Recent<Rule, Found>,
}

/// What projecting a rule found.
struct Found {
    /// The single literals to project: the rule alone decides them.
    single: Vec<Projection>,
    /// Whether, without any, a group may be (some body variable is not the head's).
    may_group: bool,
    /// The last group search: what it read (the functional dependencies of the body
    /// literals, the number of the program's own relations) and the group it found.
    group: Option<(Reads, usize, Option<Projection>)>,
}

/// What the functional dependencies of a rule's body literals are made of, in order: the
/// pairs of each positive literal's relation ([`Dependencies::pairs`]; the rest depend on
/// the literal alone). Compared in place every version, not built: building each literal's
/// dependencies was a twentieth of a connect four goal edit.
type Reads = Vec<Option<Box<[(usize, usize)]>>>;

impl Searches {
    /// The literals of `rule` to project next (see [`projections`], [`group`]), found
    /// again only for what the last program or this one did not find (its group searched
    /// again when the dependencies it reads changed).
    fn plan(
        &mut self,
        rule: &Rule,
        dependencies: &Dependencies,
        original: usize,
    ) -> Vec<Projection> {
        let Some(found) = self.found.get_mut(rule) else {
            // A rule with a `countofall` is never projected (see `variables`).
            let found = match variables(rule) {
                None => Found {
                    single: Vec::new(),
                    may_group: false,
                    group: None,
                },
                Some(variables) => Found {
                    single: projections(rule, &variables),
                    may_group: variables.all.len() > variables.heads,
                    group: None,
                },
            };
            self.found.insert(rule.clone(), found);
            return self.plan(rule, dependencies, original);
        };
        if !found.single.is_empty() || !found.may_group {
            return found.single.clone();
        }
        let same = |known: &Reads| {
            (known.iter().zip(&rule.body))
                .all(|(known, l)| known.as_deref() == dependencies.pairs(l))
        };
        match &found.group {
            Some((known, count, group)) if *count == original && same(known) => {
                group.iter().cloned().collect()
            }
            _ => {
                let group = group(rule, dependencies, original);
                let reads = (rule.body.iter())
                    .map(|l| dependencies.pairs(l).map(Into::into))
                    .collect();
                found.group = Some((reads, original, group.clone()));
                group.into_iter().collect()
            }
        }
    }

    /// Begins a program's projection: the last program's searches are the ones to reuse,
    /// older ones are dropped.
    fn begin(&mut self) {
        self.found.begin();
    }
}

/// [`project_locals`], reusing the searches of the last program projected with `searches`
/// (the same result, faster when the programs share rules).
pub fn project_locals_reusing(program: &Program, searches: &mut Searches) -> Option<Program> {
    searches.begin();
    let dependencies = Dependencies::new(program);
    let original = program.relations.len();
    let mut plan = |rule: &Rule| searches.plan(rule, &dependencies, original);
    // Each rule's first plan, made once: nothing to project (as in most versions of most
    // games) leaves nothing to copy.
    let plans: Vec<Vec<Projection>> = program.rules.iter().map(&mut plan).collect();
    if plans.iter().all(Vec::is_empty) {
        return None;
    }
    let mut rewriting = Rewriting {
        out: without_rules(program),
        defined: HashMap::new(),
        auxiliary: VecDeque::new(),
    };
    let mut projected = Vec::with_capacity(program.rules.len());
    let rules = program.rules.iter().zip(&program.rule_origins);
    for ((rule, origin), first) in rules.zip(plans) {
        projected.push(match first.is_empty() {
            true => (rule.clone(), origin.clone()),
            false => rewriting.settled(rule, origin, first, &mut plan),
        });
    }
    while let Some((rule, origin)) = rewriting.auxiliary.pop_front() {
        let first = plan(&rule);
        projected.push(match first.is_empty() {
            true => (rule, origin),
            false => rewriting.settled(&rule, &origin, first, &mut plan),
        });
    }
    let mut out = rewriting.out;
    out.auxiliary = (program.relations.len() as RelId..out.relations.len() as RelId).collect();
    if let Some(lowering) = &mut out.lowering {
        // One entry per relation: auxiliary relations hold no fluents.
        lowering.fluents.resize(out.relations.len(), false);
    }
    (out.rules, out.rule_origins) = projected.into_iter().unzip();
    Some(out)
}

/// A copy of `program` but for its rules and their origins, which the projection makes
/// anew (copying them only to drop them was most of a chess goal edit's projection).
fn without_rules(program: &Program) -> Program {
    let Program {
        model,
        symbols,
        terms,
        relations,
        relation_spans,
        rules: _,
        rule_origins: _,
        operations,
        operation_origins,
        dynamics,
        lowering,
        auxiliary,
        demand,
    } = program;
    Program {
        model: *model,
        symbols: symbols.clone(),
        terms: terms.clone(),
        relations: relations.clone(),
        relation_spans: relation_spans.clone(),
        rules: Vec::new(),
        rule_origins: Vec::new(),
        operations: operations.clone(),
        operation_origins: operation_origins.clone(),
        dynamics: dynamics.clone(),
        lowering: lowering.clone(),
        auxiliary: auxiliary.clone(),
        demand: demand.clone(),
    }
}

/// What rewriting a program's rules builds up: the program they go into, with the
/// auxiliary relations defined so far.
struct Rewriting {
    /// The projected program, but for its rules.
    out: Program,
    /// Auxiliary relations by the canonical text of their rule.
    defined: HashMap<String, RelId>,
    /// Auxiliary rules as they are defined, to project in turn (a group's rule can have
    /// literals of its own to project).
    auxiliary: VecDeque<(Rule, Origin)>,
}

impl Rewriting {
    /// `rule` rewritten by `first`, then by what `plan` finds in each rewritten rule until it
    /// finds nothing more to project.
    fn settled(
        &mut self,
        rule: &Rule,
        origin: &Origin,
        first: Vec<Projection>,
        plan: &mut impl FnMut(&Rule) -> Vec<Projection>,
    ) -> (Rule, Origin) {
        let mut rewritten = self.rewrite(rule, origin, &first);
        loop {
            let next = plan(&rewritten.0);
            if next.is_empty() {
                return rewritten;
            }
            rewritten = self.rewrite(&rewritten.0, &rewritten.1, &next);
        }
    }

    /// `rule` with the literals of each projection in `plan` replaced by an atom of its
    /// auxiliary relation, defined in `out` (or shared with an equal one in `defined`) and
    /// its rule queued in `auxiliary`.
    fn rewrite(&mut self, rule: &Rule, origin: &Origin, plan: &[Projection]) -> (Rule, Origin) {
        let Rewriting {
            out,
            defined,
            auxiliary,
        } = self;
        let (mut body, mut spans) = (Vec::new(), Vec::new());
        for (i, literal) in rule.body.iter().enumerate() {
            let literal = match plan.iter().find(|p| p.literals.contains(&i)) {
                None => literal.clone(),
                Some(p) if p.literals[0] != i => continue,
                Some(p) => {
                    let (mut aux, aux_origin) = p.auxiliary(rule, origin);
                    // Names, not ids: an auxiliary relation read here has a stable name too.
                    let text = canonical_text(out, &aux);
                    let rel = *defined.entry(text).or_insert_with_key(|text| {
                        let name = aux_name(out, p.reads, text);
                        aux.head.rel = out.fresh_relation(&name, p.shared.len());
                        let rel = aux.head.rel;
                        auxiliary.push_back((aux, aux_origin));
                        rel
                    });
                    let args = p.shared.iter().map(|&v| Term::Var(v)).collect();
                    Literal::Pos(Atom { rel, args })
                }
            };
            // A conjunction needs a literal once: equal projections in one rule merge.
            if !body.contains(&literal) {
                body.push(literal);
                spans.push(origin.literal_spans.get(i).copied().unwrap_or(origin.span));
            }
        }
        let rule = Rule {
            head: rule.head.clone(),
            body,
        };
        let origin = Origin {
            literal_spans: spans,
            ..origin.clone()
        };
        (rule, origin)
    }
}

/// Literals of a rule to project together: where they are, and their variables, shared
/// ones first, each group in order of first occurrence in the literals.
#[derive(Clone, Debug)]
pub(super) struct Projection {
    /// The indexes of the body literals that move into the auxiliary rule: the positive
    /// literal that names it first, then the others in body order.
    pub(super) literals: Vec<usize>,
    /// The relation its first literal reads.
    pub(super) reads: RelId,
    /// Its variables that occur elsewhere in the rule: the auxiliary relation's arguments.
    pub(super) shared: Vec<VarId>,
    /// Its variables that occur nowhere else.
    pub(super) local: Vec<VarId>,
}

impl Projection {
    /// The auxiliary rule (its head relation still to be set) with its variables numbered
    /// canonically (shared ones first, as the head's arguments), and its origin.
    fn auxiliary(&self, rule: &Rule, origin: &Origin) -> (Rule, Origin) {
        let order: Vec<VarId> = self.shared.iter().chain(&self.local).copied().collect();
        let renumber = |v: VarId| order.iter().position(|&w| w == v).unwrap_or(0) as VarId;
        let indexes = self.literals.iter().copied();
        let body: Vec<Literal> = indexes
            .clone()
            .map(|i| rename(&rule.body[i], &renumber))
            .collect();
        let head = Atom {
            rel: 0,
            args: (0..self.shared.len() as VarId).map(Term::Var).collect(),
        };
        let span = |i: usize| origin.literal_spans.get(i).copied().unwrap_or(origin.span);
        let literal_spans = indexes.map(span).collect();
        let aux_origin = origin.renumbered(&order, span(self.literals[0]), literal_spans);
        (Rule { head, body }, aux_origin)
    }
}

/// The literals of `rule` (whose variables are `variables`) to project (module doc).
fn projections(rule: &Rule, variables: &Variables) -> Vec<Projection> {
    let Variables { vars, all, heads } = variables;
    let head = &all[..*heads];
    let mut out = Vec::new();
    for (i, literal) in rule.body.iter().enumerate() {
        let own = &vars[i];
        let Literal::Pos(atom) = literal else {
            continue;
        };
        if all.iter().all(|v| own.contains(v)) {
            continue;
        }
        let within = |j: usize| {
            matches!(rule.body[j], Literal::Builtin { .. })
                && vars[j].iter().all(|v| own.contains(v))
        };
        let local: Vec<VarId> = (own.iter().copied())
            .filter(|v| !head.contains(v))
            .filter(|v| (0..vars.len()).all(|j| j == i || !vars[j].contains(v) || within(j)))
            .collect();
        if local.is_empty() {
            continue;
        }
        let builtins = (0..vars.len())
            .filter(|&j| j != i && within(j) && vars[j].iter().any(|v| local.contains(v)));
        let shared = own.iter().copied().filter(|v| !local.contains(v)).collect();
        out.push(Projection {
            literals: std::iter::once(i).chain(builtins).collect(),
            reads: atom.rel,
            shared,
            local,
        });
    }
    out
}

/// A rule's variables as the projections see them.
pub(super) struct Variables {
    /// The variables of each body literal.
    pub(super) vars: Vec<Vec<VarId>>,
    /// Every variable of the rule, each once: the head's first, then the body's in order.
    pub(super) all: Vec<VarId>,
    /// How many of `all` are the head's.
    pub(super) heads: usize,
}

/// The variables of `rule`, or `None` for a rule with a `countofall` (whose condition's
/// variables are its own: such a rule is never projected).
pub(super) fn variables(rule: &Rule) -> Option<Variables> {
    if rule.body.iter().any(|l| matches!(l, Literal::Count { .. })) {
        return None;
    }
    let vars: Vec<Vec<VarId>> = rule.body.iter().map(literal_vars).collect();
    let mut all = Vec::new();
    (rule.head.args.iter()).for_each(|t| t.for_each_var(&mut |v| push_new(&mut all, v)));
    let heads = all.len();
    vars.iter().flatten().for_each(|&v| push_new(&mut all, v));
    Some(Variables { vars, all, heads })
}

/// The variables of a literal, each once, in order of first occurrence.
fn literal_vars(literal: &Literal) -> Vec<VarId> {
    let mut out = Vec::new();
    let args = match literal {
        Literal::Pos(a) | Literal::Neg(a) => &a.args,
        Literal::Builtin { args, .. } => args,
        Literal::Count { .. } => return out,
    };
    args.iter()
        .for_each(|t| t.for_each_var(&mut |v| push_new(&mut out, v)));
    out
}

/// Pushes `v` onto `list` unless it is there.
pub(crate) fn push_new(list: &mut Vec<VarId>, v: VarId) {
    if !list.contains(&v) {
        list.push(v);
    }
}

/// `literal` (an atom or a built-in) with its variables renumbered by `f`.
pub(super) fn rename(literal: &Literal, f: &impl Fn(VarId) -> VarId) -> Literal {
    fn term(t: &Term, f: &impl Fn(VarId) -> VarId) -> Term {
        match t {
            Term::Var(v) => Term::Var(f(*v)),
            Term::Ground(id) => Term::Ground(*id),
            Term::Func(sym, args) => Term::Func(*sym, args.iter().map(|a| term(a, f)).collect()),
        }
    }
    let args = |args: &[Term]| args.iter().map(|t| term(t, f)).collect();
    let atom = |a: &Atom| Atom {
        rel: a.rel,
        args: args(&a.args),
    };
    match literal {
        Literal::Pos(a) => Literal::Pos(atom(a)),
        Literal::Neg(a) => Literal::Neg(atom(a)),
        Literal::Builtin {
            op,
            args: a,
            negated,
        } => Literal::Builtin {
            op: *op,
            args: args(a),
            negated: *negated,
        },
        Literal::Count { .. } => literal.clone(),
    }
}

/// The text of an auxiliary rule with names, not ids (which differ between versions of a
/// game): its arity, then its body.
fn canonical_text(program: &Program, rule: &Rule) -> String {
    let mut text = format!("{}", rule.head.args.len());
    for literal in &rule.body {
        text.push(' ');
        match literal {
            Literal::Pos(a) | Literal::Neg(a) => {
                if matches!(literal, Literal::Neg(_)) {
                    text.push('~');
                }
                text.push_str(program.relation_name(a.rel));
                terms(program, &a.args, &mut text);
            }
            Literal::Builtin { op, args, negated } => {
                text.push_str(if *negated { "~" } else { "" });
                text.push_str(op.name());
                terms(program, args, &mut text);
            }
            Literal::Count { .. } => {}
        }
    }
    text
}

/// Appends `(t1 t2 …)` to `text`.
fn terms(program: &Program, args: &[Term], text: &mut String) {
    fn ground(program: &Program, id: u32, text: &mut String) {
        match program.terms.term(id) {
            GroundTerm::Const(sym) => text.push_str(program.symbols.name(*sym)),
            GroundTerm::Func(sym, args) => {
                text.push_str(program.symbols.name(*sym));
                text.push('(');
                for &a in args.iter() {
                    ground(program, a, text);
                    text.push(' ');
                }
                text.push(')');
            }
        }
    }
    text.push('(');
    for t in args {
        match t {
            Term::Var(v) => {
                let _ = write!(text, "?{v}");
            }
            Term::Ground(id) => ground(program, *id, text),
            Term::Func(sym, inner) => {
                text.push_str(program.symbols.name(*sym));
                terms(program, inner, text);
            }
        }
        text.push(' ');
    }
    text.push(')');
}

/// The name of the auxiliary relation of `text`, whose literal reads `rel`: the relation's
/// name and 32 bits of the text's hash.
fn aux_name(program: &Program, rel: RelId, text: &str) -> String {
    let mut hasher = FxHasher::default();
    hasher.write(text.as_bytes());
    format!(
        "{}_{:08x}",
        program.relation_name(rel),
        hasher.finish() as u32
    )
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::load::load;
    use crate::syntax::{SourceFile, Syntax};
    use crate::write::{program as print, Format};

    /// A classic infix game: roles, a legal move and a goal around `rules`.
    pub(in crate::program) fn game(rules: &str) -> Program {
        let text = format!(
            "role(r)\ninit(c(1))\ninit(c(2))\nlegal(r,a)\ngoal(r,100)\nterminal :- true(c(2))\n{rules}"
        );
        match load(SourceFile::new("t.pl", &text), Syntax::Infix) {
            Ok(game) => game.program,
            Err(e) => panic!("{}", e.render()),
        }
    }

    /// The rules of `program` printed in infix, each on one line.
    pub(in crate::program) fn rules(program: &Program) -> Vec<String> {
        let text = print(program, Format::Infix).expect("printable");
        let mut out: Vec<String> = Vec::new();
        for line in text.lines() {
            match (line.strip_prefix("    "), out.last_mut()) {
                (Some(literal), Some(rule)) => *rule = format!("{rule} {literal}"),
                _ => out.push(line.to_string()),
            }
        }
        out
    }

    /// The auxiliary relations of `program`, by name.
    pub(in crate::program) fn auxiliary(program: &Program) -> Vec<String> {
        (program.auxiliary.iter())
            .map(|&r| program.relation_name(r).to_string())
            .collect()
    }

    #[test]
    fn literals_of_local_variables_only_become_one_atom_shared_by_the_rules() {
        // badtictactoe's shape: each true(c(Xi)) only asks that some c holds.
        let program = game(
            "next(c(X)) :- true(c(X1)) & true(c(X2)) & true(c(X))\n\
             next(c(X)) :- true(c(Y)) & true(c(X))\n",
        );
        let projected = project_locals(&program).expect("something to project");
        let names = auxiliary(&projected);
        assert_eq!(names.len(), 1, "{names:?}");
        let aux = &names[0];
        assert!(
            aux.starts_with("true_") && aux.len() == "true_".len() + 8,
            "{aux}"
        );
        let text = rules(&projected);
        // The conjunction keeps the atom once, and both rules read it.
        let main = format!("next(c(X)) :- {aux} & true(c(X))");
        assert_eq!(text.iter().filter(|l| **l == main).count(), 2, "{text:#?}");
        assert!(text.contains(&format!("{aux} :- true(c(X1))")), "{text:#?}");
    }

    #[test]
    fn built_ins_of_local_variables_go_with_their_literal() {
        let program = game("p(X,Z) :- true(c(X)) & q(X,Y) & distinct(Y,a) & q(X,Z)\nq(1,b)\n");
        let projected = project_locals(&program).expect("something to project");
        let aux = auxiliary(&projected).pop().expect("one auxiliary relation");
        let text = rules(&projected);
        assert!(
            text.contains(&format!("p(X,Z) :- true(c(X)) & {aux}(X) & q(X,Z)")),
            "{text:#?}"
        );
        assert!(
            text.contains(&format!("{aux}(X) :- q(X,Y) & distinct(Y,a)")),
            "{text:#?}"
        );
        assert!(aux.starts_with("q_"), "{aux}");
    }

    #[test]
    fn a_literal_the_rest_of_its_rule_cannot_multiply_is_left_alone() {
        // Every variable of the rule is in q(X,Y): each binding of the rule is one of q's
        // rows, and an auxiliary relation would only add rules. Nor is a variable that
        // another literal or the head reads local.
        let program = game(
            "p(X) :- q(X,Y) & true(c(X))\nr(X,Y) :- q(X,Y) & true(c(X))\n\
             s(X) :- q(X,Y) & true(c(Y)) & q(Y,X)\nq(1,b)\n",
        );
        assert!(project_locals(&program).is_none());
    }

    #[test]
    fn an_auxiliary_relation_is_named_alike_in_every_version_of_a_game() {
        // The second version interns other names first: ids differ, the name must not.
        let rule = "p(X,Z) :- true(c(Z)) & q(X,Y)\nq(1,b)\n";
        let first = project_locals(&game(rule)).expect("something to project");
        let second = game(&format!("z(zz,yy)\nw(X,Z) :- z(X,Z) & true(c(X))\n{rule}"));
        let second = project_locals(&second).expect("something to project");
        assert_eq!(auxiliary(&first), auxiliary(&second));
        // And another literal gets another name.
        let other = game("p(X,Z) :- true(c(Z)) & q(Y,X)\nq(1,b)\n");
        let other = project_locals(&other).expect("something to project");
        assert_ne!(auxiliary(&first), auxiliary(&other));
    }
}
