//! Writing a ground program: KIF or infix text (itself a valid game), or JSON.

use super::Notation;
use crate::engine::Row;
use crate::ground::{AtomId, Counts, GroundProgram};
use crate::grounding::LoopReport;
use crate::program::encoding::{Encoding, Token};
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
            self.program.relation_name(rel),
            relation.arity,
            out,
            |_, out| self.term(args, &mut pos, out),
        );
    }

    /// Appends the term starting at `tokens[*pos]`, advancing `pos` past it.
    fn term(&self, tokens: &[Token], pos: &mut usize, out: &mut String) {
        let Some(&token) = tokens.get(*pos) else {
            return;
        };
        *pos += 1;
        let mut name = String::new();
        self.encoding.name(token, &mut name);
        let arity = self.encoding.arity(token) as usize;
        self.notation
            .apply(&name, arity, out, |_, out| self.term(tokens, pos, out));
    }
}

/// The ground program as a game in `notation`: facts first, then rules, one per line.
pub fn text(ground: &GroundProgram, atoms: &AtomText<'_>) -> String {
    let mut out = Vec::new();
    write_text(ground, atoms, &mut out).expect("writing to memory does not fail");
    String::from_utf8(out).expect("atom names are UTF-8")
}

/// Writes [`text`] to `out` line by line, without building it in memory.
pub fn write_text(
    ground: &GroundProgram,
    atoms: &AtomText<'_>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut names: Vec<String> = Vec::with_capacity(ground.atoms.len());
    for (rel, args) in &ground.atoms {
        let mut s = String::new();
        atoms.atom(*rel, args, &mut s);
        names.push(s);
    }
    let mut line = String::new();
    for &f in &ground.facts {
        out.write_all(names[f as usize].as_bytes())?;
        out.write_all(b"\n")?;
    }
    let notation = atoms.notation;
    for rule in ground.rules.iter() {
        line.clear();
        let head = &names[rule.head as usize];
        match notation {
            Notation::Kif => {
                let _ = write!(line, "(<= {head}");
                for &(negated, a) in rule.body {
                    line.push(' ');
                    literal(notation, negated, &names[a as usize], &mut line);
                }
                line.push_str(")\n");
            }
            Notation::Infix => {
                let _ = write!(line, "{head} :- ");
                for (i, &(negated, a)) in rule.body.iter().enumerate() {
                    if i > 0 {
                        line.push_str(" & ");
                    }
                    literal(notation, negated, &names[a as usize], &mut line);
                }
                line.push('\n');
            }
        }
        out.write_all(line.as_bytes())?;
    }
    Ok(())
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
    let _ = write!(
        out,
        "\n  ],\n  \"stats\": {}\n}}\n",
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

/// The counts as one JSON object, with `ms` when given, and what the domain-graph loop did
/// (`"loop"`: per shrunk relation its seed and kept counts, sizes, rounds, times) when it ran.
pub fn stats_json(counts: &Counts, ms: Option<u128>, reduction: Option<&LoopReport>) -> String {
    let mut s = format!(
        "{{\"bases\": {}, \"actions\": {}, \"atoms\": {}, \"facts\": {}, \"rules\": {}",
        counts.bases, counts.actions, counts.atoms, counts.facts, counts.rules
    );
    if let Some(ms) = ms {
        let _ = write!(s, ", \"ms\": {ms}");
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
    format!(
        "bases {} · actions {} · atoms {} · facts {} · rules {} · {} ms",
        counts.bases, counts.actions, counts.atoms, counts.facts, counts.rules, ms
    )
}
