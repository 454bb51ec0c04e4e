//! Unit tests of the domain graph and its fixpoint, on small infix programs.

use super::{Domains, Size, Unbounded, Value};
use crate::program::{Model, Program};
use crate::syntax::{parse, SourceFile, Syntax};

/// The program of infix `text` (checks are not required to pass) and its domains.
fn domains_of(text: &str) -> (Program, Domains) {
    let source = SourceFile::new("test.pl", text);
    let parsed = parse(&source, Syntax::Infix);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let (program, _) = crate::program::lower(&parsed.statements, Model::Classic);
    let domains = Domains::new(&program);
    (program, domains)
}

/// The values of argument `index` of relation `name`/`arity`, as infix text.
fn shown(program: &Program, domains: &Domains, name: &str, arity: usize, index: usize) -> String {
    let rel = program.relation(name, arity).expect("the relation exists");
    let pos = domains.graph.relation_position(rel, index);
    let text: Vec<String> = domains.values(pos).map(|v| text(program, &v)).collect();
    text.join(" ")
}

/// The number of argument tuples of relation `name`/`arity`.
fn size_of(program: &Program, domains: &Domains, name: &str, arity: usize) -> Size {
    let rel = program.relation(name, arity).expect("the relation exists");
    domains.relation_size(program, rel)
}

fn text(program: &Program, v: &Value) -> String {
    match v {
        Value::Const(s) => program.symbols.name(*s).to_string(),
        Value::Func(s, args) => {
            let args: Vec<String> = args.iter().map(|a| text(program, a)).collect();
            format!("{}({})", program.symbols.name(*s), args.join(","))
        }
    }
}

#[test]
fn head_constants_and_shared_variables_fill_the_domains() {
    let (program, domains) = domains_of("p(b)\np(a)\nq(c)\nr(X) :- p(X)\nr(X) :- q(X)\n");
    assert_eq!(shown(&program, &domains, "r", 1, 0), "a b c");
    // Integers sort by value before names.
    let (program, domains) = domains_of("n(10)\nn(9)\nn(x)\nm(X) :- n(X)\n");
    assert_eq!(shown(&program, &domains, "m", 1, 0), "9 10 x");
}

#[test]
fn function_terms_share_their_argument_positions() {
    let (program, domains) =
        domains_of("q(1)\nq(2)\nk(z)\np(f(X)) :- q(X)\ns(f(Y)) :- k(Y)\nt(Z) :- p(Z)\n");
    // f's first position holds 1, 2 and z, wherever f is written.
    assert_eq!(shown(&program, &domains, "t", 1, 0), "f(1) f(2) f(z)");
    assert_eq!(shown(&program, &domains, "s", 1, 0), "f(1) f(2) f(z)");
}

#[test]
fn self_nesting_functions_are_unbounded_unless_they_have_no_ground_term() {
    let (program, domains) = domains_of("p(0)\np(s(X)) :- p(X)\n");
    let size = size_of(&program, &domains, "p", 1);
    assert!(
        matches!(size, Size::Unbounded(Unbounded::Nests(_))),
        "{size:?}"
    );
    // Without a base case no ground s(...) exists: the domain is empty, not infinite.
    let (program, domains) = domains_of("q(a)\np(s(X)) :- p(X)\n");
    assert_eq!(size_of(&program, &domains, "p", 1), Size::Finite(0));
}

#[test]
fn the_dynamics_link_true_and_does() {
    let text =
        "role(w)\nbase(c(1))\ninit(c(2))\nnext(d) :- true(c(X))\ninput(w,go)\nlegal(w,stay)\nm(M) :- does(w,M)\n";
    let (program, domains) = domains_of(text);
    assert_eq!(shown(&program, &domains, "true", 1, 0), "d c(1) c(2)");
    assert_eq!(shown(&program, &domains, "does", 2, 1), "go stay");
}

#[test]
fn tuples_are_enumerated_lazily_in_lexicographic_order() {
    let (program, domains) = domains_of("a(1)\na(2)\nb(x)\nb(y)\nb(z)\np(X,Y) :- a(X) & b(Y)\n");
    let p = program.relation("p", 2).expect("p");
    let tuples = domains.relation_tuples(&program, p).expect("finite");
    assert_eq!(tuples.total(), 6);
    let text: Vec<String> = tuples
        .map(|t| {
            t.iter()
                .map(|v| text(&program, v))
                .collect::<Vec<_>>()
                .join("")
        })
        .collect();
    assert_eq!(text, ["1x", "1y", "1z", "2x", "2y", "2z"]);
}

#[test]
fn rule_instances_count_the_values_a_variable_s_positions_share() {
    let (program, domains) =
        domains_of("a(1)\na(2)\na(3)\nb(2)\nb(3)\nb(4)\nc(9)\nr(X,Y) :- a(X) & b(X) & c(Y)\n");
    let rule = program.rules.last().expect("a rule");
    // X is in a and b: 2 and 3; Y in c: 9.
    assert_eq!(domains.rule_instances(rule), Size::Finite(2));
}

#[test]
fn sizes_multiply_and_add_with_zero_and_unbounded_cases() {
    let unbounded = Size::Unbounded(Unbounded::Computed);
    assert_eq!(
        Size::product([Size::Finite(3), Size::Finite(4)]),
        Size::Finite(12)
    );
    assert_eq!(Size::product([unbounded, Size::Finite(0)]), Size::Finite(0));
    assert_eq!(Size::product([Size::Finite(2), unbounded]), unbounded);
    assert_eq!(Size::sum([Size::Finite(2), unbounded]), unbounded);
    assert_eq!(
        Size::product([Size::Finite(u128::MAX), Size::Finite(2)]),
        Size::Finite(u128::MAX)
    );
}
