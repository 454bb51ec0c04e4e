//! Walks a program and spells it in one [`Notation`], one statement per line.

use super::names::variable_names;
use super::Notation;
use crate::program::{Atom, Effect, GroundTerm, Literal, Operation, Origin, Program, Rule, Term};

/// The whole program as text: rules in order, then operation rules.
pub fn print(program: &Program, notation: Notation) -> String {
    let mut out = String::new();
    for (rule, origin) in program.rules.iter().zip(&program.rule_origins) {
        Printer::new(program, notation, origin).rule(rule, &mut out);
    }
    for (op, origin) in program.operations.iter().zip(&program.operation_origins) {
        Printer::new(program, notation, origin).operation(op, &mut out);
    }
    out
}

/// Rule `index` of `program` as text on one line.
pub fn rule_line(program: &Program, index: usize, notation: Notation) -> String {
    let mut out = String::new();
    let origin = &program.rule_origins[index];
    Printer::new(program, notation, origin).rule(&program.rules[index], &mut out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Prints one statement, with its variables' names.
struct Printer<'p> {
    program: &'p Program,
    notation: Notation,
    vars: Vec<String>,
}

impl<'p> Printer<'p> {
    fn new(program: &'p Program, notation: Notation, origin: &Origin) -> Printer<'p> {
        Printer {
            program,
            notation,
            vars: variable_names(&origin.var_names, notation),
        }
    }

    fn rule(&self, rule: &Rule, out: &mut String) {
        if rule.body.is_empty() {
            self.atom(&rule.head, out);
            out.push('\n');
            return;
        }
        match self.notation {
            Notation::Kif => {
                out.push_str("(<= ");
                self.atom(&rule.head, out);
                for literal in &rule.body {
                    out.push_str("\n    ");
                    self.literal(literal, out);
                }
                out.push_str(")\n");
            }
            Notation::Infix => {
                self.atom(&rule.head, out);
                out.push_str(" :-");
                self.conjunction(&rule.body, out);
                out.push('\n');
            }
        }
    }

    /// `\n  l1 &\n  l2`, the body of an infix rule or operation.
    fn conjunction(&self, literals: &[Literal], out: &mut String) {
        for (i, literal) in literals.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { " &\n    " });
            self.literal(literal, out);
        }
    }

    fn operation(&self, op: &Operation, out: &mut String) {
        self.term(&op.action, out);
        out.push_str(" ::");
        if !op.conditions.is_empty() {
            self.conjunction(&op.conditions, out);
            out.push_str("\n    ==>");
        }
        for (i, effect) in op.effects.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { " & " });
            match effect {
                Effect::Add(t) | Effect::Perform(t) => self.term(t, out),
                Effect::Delete(t) => {
                    self.notation.open_not(out);
                    self.term(t, out);
                    self.notation.close_not(out);
                }
            }
        }
        out.push('\n');
    }

    fn literal(&self, literal: &Literal, out: &mut String) {
        match literal {
            Literal::Pos(atom) => self.atom(atom, out),
            Literal::Neg(atom) => {
                self.notation.open_not(out);
                self.atom(atom, out);
                self.notation.close_not(out);
            }
            Literal::Builtin { op, args, negated } => {
                if *negated {
                    self.notation.open_not(out);
                }
                self.notation.apply(op.name(), args.len(), out, |i, out| {
                    self.term(&args[i], out)
                });
                if *negated {
                    self.notation.close_not(out);
                }
            }
            Literal::Count {
                template,
                condition,
                result,
            } => self.notation.apply("countofall", 3, out, |i, out| match i {
                0 => self.term(template, out),
                1 => condition.iter().for_each(|c| self.literal(c, out)),
                _ => self.term(result, out),
            }),
        }
    }

    fn atom(&self, atom: &Atom, out: &mut String) {
        let name = self.program.relation_spelling(atom.rel);
        self.notation.apply(name, atom.args.len(), out, |i, out| {
            self.term(&atom.args[i], out)
        });
    }

    fn term(&self, term: &Term, out: &mut String) {
        match term {
            Term::Var(v) => self.notation.variable(&self.vars[*v as usize], out),
            Term::Ground(id) => self.ground(*id, out),
            Term::Func(f, args) => {
                let name = self.program.symbols.spelling(*f);
                self.notation
                    .apply(name, args.len(), out, |i, out| self.term(&args[i], out));
            }
        }
    }

    fn ground(&self, id: u32, out: &mut String) {
        match self.program.terms.term(id) {
            GroundTerm::Const(c) => self.notation.name(self.program.symbols.spelling(*c), out),
            GroundTerm::Func(f, args) => {
                let name = self.program.symbols.spelling(*f);
                self.notation
                    .apply(name, args.len(), out, |i, out| self.ground(args[i], out));
            }
        }
    }
}
