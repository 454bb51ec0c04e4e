//! Writing domains: a table per relation and function, JSON, or the graph for Graphviz.
//!
//! Every listing is sorted (relations and functions by name then arity, values in the
//! domains' display order) and shows at most `limit` values per position, with the count of
//! the others, so a domain of 10¹² terms prints as fast as one of ten.

use super::Notation;
use crate::analysis::domains::{Domains, Owner, PosId, Size, Unbounded, Value};
use crate::program::{Program, RelId};
use std::fmt::Write as _;

/// One relation or function: its name, arity, number of tuples or terms, positions.
struct Entry {
    kind: &'static str,
    name: String,
    arity: usize,
    size: Size,
    positions: Vec<PosId>,
}

/// Relations with arguments, then functions, each sorted by name then arity.
fn entries(program: &Program, domains: &Domains) -> Vec<Entry> {
    let mut relations: Vec<Entry> = (0..program.relations.len() as RelId)
        .filter(|&r| program.relations[r as usize].arity > 0)
        .map(|r| Entry {
            kind: "relation",
            name: program.relation_spelling(r).to_string(),
            arity: program.relations[r as usize].arity,
            size: domains.relation_size(program, r),
            positions: domains.relation_positions(program, r),
        })
        .collect();
    relations.sort_by(|a, b| (&a.name, a.arity).cmp(&(&b.name, b.arity)));
    let functions = domains
        .graph
        .functions
        .iter()
        .enumerate()
        .map(|(f, func)| Entry {
            kind: "function",
            name: program.symbols.spelling(func.name).to_string(),
            arity: func.arity,
            size: domains.function_size(f as u32),
            positions: domains.graph.function_positions(f as u32).collect(),
        });
    relations.extend(functions);
    relations
}

/// Writes `value` in `notation`.
pub fn value(program: &Program, value: &Value, notation: Notation, out: &mut String) {
    match value {
        Value::Const(s) => notation.name(program.symbols.spelling(*s), out),
        Value::Func(s, args) => {
            notation.apply(program.symbols.spelling(*s), args.len(), out, |i, out| {
                self::value(program, &args[i], notation, out)
            })
        }
    }
}

/// The size as text: a number, `≥ 2^128` when saturated, or `unbounded`.
pub fn size_text(size: Size) -> String {
    match size {
        Size::Finite(u128::MAX) => "≥ 2^128".into(),
        Size::Finite(n) => n.to_string(),
        Size::Unbounded(_) => "unbounded".into(),
    }
}

/// Why a size is unbounded, as text.
pub fn unbounded_reason(program: &Program, domains: &Domains, why: Unbounded) -> String {
    match why {
        Unbounded::Nests(f) => {
            let func = &domains.graph.functions[f as usize];
            let name = program.symbols.spelling(func.name);
            format!("{name}/{} terms nest in themselves", func.arity)
        }
        Unbounded::Computed => "built-ins compute values here".into(),
    }
}

/// The first `limit` values of `pos` as text, and how many more there are (`None`: unbounded).
/// An unbounded domain lists its constants, then `f(…)` for each function.
fn shown(
    program: &Program,
    domains: &Domains,
    pos: PosId,
    notation: Notation,
    limit: usize,
) -> (Vec<String>, Option<u128>) {
    let text = |v: &Value| {
        let mut s = String::new();
        value(program, v, notation, &mut s);
        s
    };
    match domains.size(pos) {
        Size::Finite(n) => {
            let values: Vec<String> = domains.values(pos).take(limit).map(|v| text(&v)).collect();
            let more = n - values.len() as u128;
            (values, Some(more))
        }
        Size::Unbounded(_) => {
            let reach = domains.reach(pos);
            let constants = reach.constants.iter().map(|&c| {
                let sym = domains.graph.constants[c as usize];
                text(&Value::Const(sym))
            });
            let functions = reach.functions.iter().map(|&f| {
                let func = &domains.graph.functions[f as usize];
                let mut s = String::new();
                notation.apply(
                    program.symbols.spelling(func.name),
                    func.arity,
                    &mut s,
                    |_, o| o.push('…'),
                );
                s
            });
            let computed = reach.computed.then(|| "<computed>".to_string());
            (
                constants
                    .chain(functions)
                    .chain(computed)
                    .take(limit)
                    .collect(),
                None,
            )
        }
    }
}

/// The domains as a table: one block per relation and function, one line per position with
/// its size and its first `limit` values.
pub fn table(program: &Program, domains: &Domains, notation: Notation, limit: usize) -> String {
    let mut out = String::new();
    for entry in entries(program, domains) {
        let what = match (entry.kind, entry.size) {
            ("relation", Size::Finite(1)) => "tuple",
            ("relation", _) => "tuples",
            (_, Size::Finite(1)) => "term",
            _ => "terms",
        };
        let _ = write!(out, "{} {}/{}: ", entry.kind, entry.name, entry.arity);
        match entry.size {
            Size::Unbounded(why) => {
                let reason = unbounded_reason(program, domains, why);
                let _ = writeln!(out, "unbounded ({reason})");
            }
            size => {
                let _ = writeln!(out, "{} {what}", size_text(size));
            }
        }
        let sizes: Vec<String> = entry
            .positions
            .iter()
            .map(|&p| size_text(domains.size(p)))
            .collect();
        let width = sizes.iter().map(|s| s.chars().count()).max().unwrap_or(0);
        for (i, (&pos, size)) in entry.positions.iter().zip(&sizes).enumerate() {
            let (values, more) = shown(program, domains, pos, notation, limit);
            let _ = write!(out, "  {:>3}  {size:>width$}  {}", i + 1, values.join(", "));
            let comma = if values.is_empty() { "" } else { ", " };
            match more {
                Some(0) => {}
                Some(n) => {
                    let _ = write!(out, "{comma}… ({n} more)");
                }
                None => {
                    let _ = write!(out, "{comma}…");
                }
            }
            out.push('\n');
        }
    }
    out
}

/// One line per rule with a body: its source line (from `line_of`, given the rule's index),
/// the number of its instances over the domains (before `distinct`, built-ins and negation
/// are evaluated) and the rule.
pub fn rules(
    program: &Program,
    domains: &Domains,
    notation: Notation,
    line_of: impl Fn(usize) -> usize,
) -> String {
    let mut out =
        String::from("rules: instances over the domains (distinct and negation not evaluated)\n");
    let lines: Vec<(usize, String, String)> = (0..program.rules.len())
        .filter(|&i| !program.rules[i].body.is_empty())
        .map(|i| {
            let size = domains.rule_instances(&program.rules[i]);
            let size = match size {
                Size::Unbounded(why) => {
                    format!("unbounded ({})", unbounded_reason(program, domains, why))
                }
                size => size_text(size),
            };
            (line_of(i), size, super::rule_line(program, i, notation))
        })
        .collect();
    let width = lines.iter().map(|l| l.1.chars().count()).max().unwrap_or(0);
    let line_width = lines
        .iter()
        .map(|l| l.0.to_string().len())
        .max()
        .unwrap_or(0);
    for (line, size, rule) in lines {
        let _ = writeln!(out, "  line {line:>line_width$}  {size:>width$}  {rule}");
    }
    out
}

/// The domains as one JSON object: `{"relations": [...], "functions": [...]}`, each entry
/// `{"name", "arity", "size", "positions": [{"arg", "size", "values", "more"}]}`; an
/// unbounded size is `null` with an `"unbounded"` reason, and its `"more"` is `null`.
pub fn json(program: &Program, domains: &Domains, limit: usize) -> String {
    let mut out = String::from("{\"relations\": [");
    let mut kind = "relation";
    for (k, entry) in entries(program, domains).iter().enumerate() {
        if entry.kind != kind {
            kind = entry.kind;
            out.push_str("], \"functions\": [");
        } else if k > 0 {
            out.push_str(", ");
        }
        out.push_str("{\"name\": ");
        super::ground::json_string(&entry.name, &mut out);
        let _ = write!(out, ", \"arity\": {}, ", entry.arity);
        json_size(program, domains, entry.size, &mut out);
        out.push_str(", \"positions\": [");
        for (i, &pos) in entry.positions.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{{\"arg\": {}, ", i + 1);
            json_size(program, domains, domains.size(pos), &mut out);
            out.push_str(", \"values\": [");
            let (values, more) = shown(program, domains, pos, Notation::Kif, limit);
            for (j, v) in values.iter().enumerate() {
                if j > 0 {
                    out.push_str(", ");
                }
                super::ground::json_string(v, &mut out);
            }
            match more {
                Some(n) => {
                    let _ = write!(out, "], \"more\": {n}}}");
                }
                None => out.push_str("], \"more\": null}"),
            }
        }
        out.push_str("]}");
    }
    if kind == "relation" {
        out.push_str("], \"functions\": [");
    }
    out.push_str("]}\n");
    out
}

/// `"size": n` or `"size": null, "unbounded": "why"`.
fn json_size(program: &Program, domains: &Domains, size: Size, out: &mut String) {
    match size {
        Size::Finite(n) => {
            let _ = write!(out, "\"size\": {n}");
        }
        Size::Unbounded(why) => {
            out.push_str("\"size\": null, \"unbounded\": ");
            super::ground::json_string(&unbounded_reason(program, domains, why), out);
        }
    }
}

/// The domain graph for Graphviz, edges in the direction values flow: a constant or function
/// into the positions it is written at, a body position into the head position sharing its
/// variable, a function's argument positions into the function (dashed).
pub fn dot(program: &Program, domains: &Domains, notation: Notation) -> String {
    let graph = &domains.graph;
    let mut out =
        String::from("digraph domains {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n");
    let label = |id: String, text: &str, shape: &str, out: &mut String| {
        let _ = write!(out, "  {id} [label=");
        super::ground::json_string(text, out);
        let _ = writeln!(out, ", shape={shape}];");
    };
    for (p, position) in graph.positions.iter().enumerate() {
        let owner = match position.owner {
            Owner::Relation(r) => program.relation_spelling(r).to_string(),
            Owner::Function(f) => {
                let func = &graph.functions[f as usize];
                format!("{}/{}", program.symbols.spelling(func.name), func.arity)
            }
        };
        let text = format!("{owner}[{}]", position.index + 1);
        label(format!("p{p}"), &text, "box", &mut out);
    }
    for (f, func) in graph.functions.iter().enumerate() {
        let text = format!("{}/{}", program.symbols.spelling(func.name), func.arity);
        label(format!("f{f}"), &text, "hexagon", &mut out);
    }
    for (c, &sym) in graph.constants.iter().enumerate() {
        let mut text = String::new();
        notation.name(program.symbols.spelling(sym), &mut text);
        label(format!("c{c}"), &text, "plaintext", &mut out);
    }
    for p in 0..graph.positions.len() {
        for &q in &graph.includes[p] {
            let _ = writeln!(out, "  p{q} -> p{p};");
        }
        for &c in &graph.constants_at[p] {
            let _ = writeln!(out, "  c{c} -> p{p};");
        }
        for &f in &graph.functions_at[p] {
            let _ = writeln!(out, "  f{f} -> p{p};");
        }
        if graph.computed[p] {
            let _ = writeln!(out, "  computed -> p{p};");
        }
    }
    for f in 0..graph.functions.len() as u32 {
        for p in graph.function_positions(f) {
            let _ = writeln!(out, "  p{p} -> f{f} [style=dashed];");
        }
    }
    if graph.computed.iter().any(|&c| c) {
        out.push_str("  computed [label=\"built-ins\", shape=diamond];\n");
    }
    out.push_str("}\n");
    out
}
