//! Writing a ground program: KIF or infix text (itself a valid game), or JSON.

use super::Notation;
use crate::engine::Row;
use crate::ground::{AtomId, Counts, GroundProgram};
use crate::grounding::LoopReport;
use crate::parallel;
use crate::program::encoding::{Digits, Encoding, Token};
use crate::program::operations::EffectKind;
use crate::program::{Program, RelId};
use std::fmt::Write as _;

/// Spells ground atoms: relation names from the program, terms from the encoding.
pub struct AtomText<'a> {
    program: &'a Program,
    encoding: &'a Encoding,
    notation: Notation,
}

impl<'a> AtomText<'a> {
    /// Atoms of `program`, terms decoded with `encoding`, spelled in `notation`.
    pub fn new(program: &'a Program, encoding: &'a Encoding, notation: Notation) -> Self {
        AtomText {
            program,
            encoding,
            notation,
        }
    }

    /// Appends atom `rel(args)` to `out`.
    pub fn atom(&self, rel: RelId, args: &Row, out: &mut String) {
        let relation = self.program.relations[rel as usize];
        let mut pos = 0;
        self.notation.apply(
            self.program.relation_spelling(rel),
            relation.arity,
            out,
            |_, out| self.term(args, &mut pos, out),
        );
    }

    /// Each argument of `args` (a row of terms) as text.
    pub fn arguments(&self, args: &Row) -> Vec<String> {
        let mut pos = 0;
        let mut out = Vec::new();
        while pos < args.len() {
            let mut s = String::new();
            self.term(args, &mut pos, &mut s);
            out.push(s);
        }
        out
    }

    /// Appends the term starting at `tokens[*pos]`, advancing `pos` past it.
    fn term(&self, tokens: &[Token], pos: &mut usize, out: &mut String) {
        let Some(&token) = tokens.get(*pos) else {
            return;
        };
        *pos += 1;
        let mut digits = Digits::default();
        let name = self.encoding.spell(token, &mut digits);
        let arity = self.encoding.arity(token) as usize;
        self.notation
            .apply(name, arity, out, |_, out| self.term(tokens, pos, out));
    }
}

/// The ground program as a game in `notation`: facts first, then rules, one per line; for an
/// operations game (`atoms`' program lowered, infix notation) the instances of its operation
/// rules as ground operations `action :: conditions ==> effects`.
pub fn text(ground: &GroundProgram, atoms: &AtomText<'_>) -> String {
    let mut out = Vec::new();
    write_text(ground, atoms, 1, &mut out).expect("writing to memory does not fail");
    String::from_utf8(out).expect("atom names are UTF-8")
}

/// How many rules a thread spells at a time: enough to make handing the text over cheap,
/// few enough to keep the text in memory small.
const RULES_PER_PART: usize = 1 << 15;

/// Writes [`text`] to `out` without building it in memory, spelling atoms and rules on
/// `threads` threads while this one writes; the text does not depend on `threads`.
pub fn write_text(
    ground: &GroundProgram,
    atoms: &AtomText<'_>,
    threads: usize,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let names = names(ground, atoms, threads);
    for &f in &ground.facts {
        out.write_all(names[f as usize].as_bytes())?;
        out.write_all(b"\n")?;
    }
    let rules = ground.rules.len();
    let spell = |part: usize, text: &mut String| {
        text.clear();
        let range = part * RULES_PER_PART..rules.min((part + 1) * RULES_PER_PART);
        for rule in ground.rules.range(range) {
            rule_line(ground, atoms, &names[..], rule, text);
        }
    };
    let parts = rules.div_ceil(RULES_PER_PART);
    parallel::in_order(parts, threads, spell, |text: &String| {
        out.write_all(text.as_bytes())
    })
}

/// The lines [`text`] writes for the facts `facts` and the rules `rules` (indices into
/// `ground.rules`), without the line ends.
pub fn lines(
    ground: &GroundProgram,
    atoms: &AtomText<'_>,
    facts: &[AtomId],
    rules: &[usize],
) -> Vec<String> {
    let names = names(ground, atoms, 1);
    let mut out: Vec<String> = facts.iter().map(|&f| names[f as usize].clone()).collect();
    for &r in rules {
        let mut line = String::new();
        rule_line(ground, atoms, &names[..], ground.rules.get(r), &mut line);
        out.push(line.trim_end().to_string());
    }
    out
}

/// The text of every atom of `ground`, by id, spelled on `threads` threads.
fn names(ground: &GroundProgram, atoms: &AtomText<'_>, threads: usize) -> Vec<String> {
    let parts = parallel::split(0..ground.atoms.len(), threads);
    let spelled = parallel::map_parts(parts, |part| {
        (ground.atoms[part].iter())
            .map(|(rel, args)| {
                let mut s = String::new();
                atoms.atom(*rel, args, &mut s);
                s
            })
            .collect::<Vec<_>>()
    });
    spelled.into_iter().flatten().collect()
}

/// The text of ground atoms, by id: every atom's (a list) or a few atoms' (a map).
pub(super) trait Names {
    /// The text of atom `a`.
    fn name(&self, a: AtomId) -> &str;
}

impl Names for [String] {
    fn name(&self, a: AtomId) -> &str {
        &self[a as usize]
    }
}

impl Names for crate::hash::FastMap<AtomId, String> {
    fn name(&self, a: AtomId) -> &str {
        &self[&a]
    }
}

/// Appends the line of `rule` (an operation's instance as a ground operation), `names` the
/// text of its atoms.
pub(super) fn rule_line(
    ground: &GroundProgram,
    atoms: &AtomText<'_>,
    names: &(impl Names + ?Sized),
    rule: crate::ground::Rule<'_>,
    line: &mut String,
) {
    let operations = atoms.program.lowering.as_ref();
    let head = names.name(rule.head);
    let (rel, args) = &ground.atoms[rule.head as usize];
    if let Some((lowered, kinds)) = operations.and_then(|l| Some((l, l.operation(*rel)?))) {
        let body = rule
            .body
            .iter()
            .filter(|&&(_, a)| ground.atoms[a as usize].0 != lowered.performed);
        operation(&atoms.arguments(args), kinds, body, names, line);
        return;
    }
    let notation = atoms.notation;
    match notation {
        Notation::Kif => {
            let _ = write!(line, "(<= {head}");
            for &(negated, a) in rule.body {
                line.push(' ');
                literal(notation, negated, names.name(a), line);
            }
            line.push_str(")\n");
        }
        Notation::Infix => {
            let _ = write!(line, "{head} :- ");
            for (i, &(negated, a)) in rule.body.iter().enumerate() {
                if i > 0 {
                    line.push_str(" & ");
                }
                literal(notation, negated, names.name(a), line);
            }
            line.push('\n');
        }
    }
}

/// Appends the ground operation `action :: conditions ==> effects` (`action :: effects` when
/// no condition is left); `terms` are the action and the effects, `kinds` what each effect does.
fn operation<'a>(
    terms: &[String],
    kinds: &[EffectKind],
    conditions: impl Iterator<Item = &'a (bool, AtomId)>,
    names: &(impl Names + ?Sized),
    out: &mut String,
) {
    out.push_str(&terms[0]);
    out.push_str(" :: ");
    let mut first = true;
    for &(negated, a) in conditions {
        if !first {
            out.push_str(" & ");
        }
        first = false;
        literal(Notation::Infix, negated, names.name(a), out);
    }
    if !first {
        out.push_str(" ==> ");
    }
    for (i, (term, kind)) in terms[1..].iter().zip(kinds).enumerate() {
        if i > 0 {
            out.push_str(" & ");
        }
        if *kind == EffectKind::Delete {
            out.push('~');
        }
        out.push_str(term);
    }
    out.push('\n');
}

fn literal(notation: Notation, negated: bool, atom: &str, out: &mut String) {
    if negated {
        notation.open_not(out);
    }
    out.push_str(atom);
    if negated {
        notation.close_not(out);
    }
}

/// The ground program as JSON: atoms (KIF text) by id, facts and rules by atom id, counts.
/// For an operations game, a ground operation is a rule whose head is an instance
/// `(operation_K action effect...)` and whose body is the operation's conditions (with the
/// performed action, `(does action)`, among them); `"operations"` gives, per operation
/// relation, what each effect does (`add`, `delete`, `perform`).
pub fn json(ground: &GroundProgram, atoms: &AtomText<'_>, counts: &Counts) -> String {
    let mut out = String::from("{\n  \"atoms\": [");
    for (i, (rel, args)) in ground.atoms.iter().enumerate() {
        let mut s = String::new();
        atoms.atom(*rel, args, &mut s);
        out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        json_string(&s, &mut out);
    }
    out.push_str("\n  ],\n  \"facts\": [");
    push_ids(ground.facts.iter().copied(), &mut out);
    out.push_str("],\n  \"rules\": [");
    for (i, rule) in ground.rules.iter().enumerate() {
        out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        let _ = write!(out, "{{\"head\": {}, \"pos\": [", rule.head);
        push_ids(rule.body.iter().filter(|l| !l.0).map(|l| l.1), &mut out);
        out.push_str("], \"neg\": [");
        push_ids(rule.body.iter().filter(|l| l.0).map(|l| l.1), &mut out);
        out.push_str("]}");
    }
    out.push_str("\n  ],");
    if let Some(lowering) = &atoms.program.lowering {
        out.push_str("\n  \"operations\": {");
        for (i, (rel, kinds)) in lowering.operations.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            json_string(atoms.program.relation_spelling(*rel), &mut out);
            let kinds: Vec<String> = kinds.iter().map(|k| format!("\"{}\"", k.name())).collect();
            let _ = write!(out, ": [{}]", kinds.join(", "));
        }
        out.push_str("\n  },");
    }
    let _ = write!(
        out,
        "\n  \"stats\": {}\n}}\n",
        stats_json(counts, None, None)
    );
    out
}

fn push_ids(ids: impl Iterator<Item = AtomId>, out: &mut String) {
    for (i, id) in ids.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{id}");
    }
}

/// `s` as a JSON string literal.
pub(crate) fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The counts as one JSON object, with `ms` when given (milliseconds, to a tenth: small
/// games take a few), and what the domain-graph loop did
/// (`"loop"`: per shrunk relation its seed and kept counts, sizes, rounds, times) when it ran.
pub fn stats_json(
    counts: &Counts,
    elapsed: Option<std::time::Duration>,
    reduction: Option<&LoopReport>,
) -> String {
    let mut s = format!(
        "{{\"bases\": {}, \"actions\": {}, \"atoms\": {}, \"facts\": {}, \"rules\": {}",
        counts.bases, counts.actions, counts.atoms, counts.facts, counts.rules
    );
    if counts.relevant {
        s.push_str(", \"relevant\": true");
    }
    if let Some(elapsed) = elapsed {
        let _ = write!(s, ", \"ms\": {:.1}", elapsed.as_secs_f64() * 1e3);
    }
    if let Some(report) = reduction {
        let sets: Vec<String> = report
            .shrunk
            .iter()
            .map(|(name, seeded, kept)| format!("\"{name}\": [{seeded}, {kept}]"))
            .collect();
        let rounds: Vec<String> = report
            .rounds
            .iter()
            .map(|r| format!("{:.3}", r.elapsed.as_secs_f64() * 1000.0))
            .collect();
        let _ = write!(
            s,
            ", \"loop\": {{\"seeded_kept\": {{{}}}, \"fixpoint_atoms\": {}, \"reachable_atoms\": {}, \"rounds\": {}, \"round_ms\": [{}], \"ms\": {:.3}}}",
            sets.join(", "),
            report.fixpoint_atoms,
            report.reachable.map_or("null".to_string(), |n| n.to_string()),
            report.rounds.len(),
            rounds.join(", "),
            report.elapsed.as_secs_f64() * 1000.0
        );
    }
    s.push('}');
    s
}

/// The counts as the human stats line.
pub fn stats_line(counts: &Counts, ms: u128) -> String {
    let of = if counts.relevant { " (R*)" } else { "" };
    format!(
        "bases {} · actions {} · atoms {}{of} · facts {} · rules {} · {} ms",
        counts.bases, counts.actions, counts.atoms, counts.facts, counts.rules, ms
    )
}
