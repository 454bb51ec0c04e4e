//! Instance templates: how a rule's binding becomes a ground instance (head and dynamic body
//! literals instantiated; static literals, true by construction, left out), packed into an
//! [`Instances`] arena.

use super::pattern::{pattern, Pattern, Ranges, Row};
use super::plan::Plan;
use super::Instances;
use crate::program::encoding::Encoding;
use crate::program::{Literal, Program, RelId, Rule};
use std::sync::Arc;

/// A literal kept in instances: whether negated, its relation and arguments.
pub type KeptLiteral = (bool, RelId, Pattern);

/// Turns bindings into instances: the head and the dynamic body literals, instantiated.
pub struct Templates {
    /// The plan whose rules the templates are for.
    pub plan: Arc<Plan>,
    forms: Forms,
}

impl Templates {
    /// The templates of `plan`'s rules.
    pub fn new(program: &Program, encoding: &Encoding, plan: &Arc<Plan>) -> Templates {
        Templates {
            plan: plan.clone(),
            forms: Forms::new(program, encoding, &plan.is_static),
        }
    }

    /// Appends the instance of rule plan `r` for `binding` to `out` (nothing for the
    /// dynamics rules, which are not rules of the program); `ranges` is scratch room for the
    /// plan's variables.
    pub fn instance(&self, r: usize, binding: &Row, ranges: &mut Ranges, out: &mut Instances) {
        let plan = &self.plan.rules[r];
        if let Some(source) = plan.source {
            (self.forms).instantiate(source, &plan.binding, binding, ranges, out);
        }
    }
}

/// A rule's instance form: its head and the body literals over relations not computed
/// exactly (those, true by construction, are left out).
#[derive(Debug)]
pub struct Form {
    head_rel: RelId,
    head: Pattern,
    kept: Vec<KeptLiteral>,
}

impl Form {
    /// The form of `program`'s `rule`, given which relations are computed exactly.
    pub fn new(program: &Program, encoding: &Encoding, rule: &Rule, is_static: &[bool]) -> Form {
        // A demand literal only says that the head was called: no literal of the game.
        let kept_rel = |rel: RelId| !is_static[rel as usize] && !program.is_demand(rel);
        let kept = (rule.body.iter())
            .filter_map(|l| match l {
                Literal::Pos(a) if kept_rel(a.rel) => {
                    Some((false, a.rel, pattern(program, encoding, &a.args)))
                }
                Literal::Neg(a) if kept_rel(a.rel) => {
                    Some((true, a.rel, pattern(program, encoding, &a.args)))
                }
                _ => None,
            })
            .collect();
        Form {
            head_rel: rule.head.rel,
            head: pattern(program, encoding, &rule.head.args),
            kept,
        }
    }

    /// The literals its instances keep: whether negated, relation and arguments.
    pub fn kept(&self) -> &[KeptLiteral] {
        &self.kept
    }
}

/// The instance form of every rule of a program.
#[derive(Default)]
pub struct Forms {
    /// Each rule's form (shared: a live session's versions share their unchanged rules').
    rules: Vec<Arc<Form>>,
    arities: Arc<Vec<u32>>,
    /// Which relations some kept literal negates, by relation.
    negated: Vec<bool>,
}

impl Forms {
    /// The forms of `program`'s rules, given which relations are computed exactly.
    pub fn new(program: &Program, encoding: &Encoding, is_static: &[bool]) -> Forms {
        Forms::with_known(program, encoding, is_static, |_| None)
    }

    /// [`Forms::new`], taking the form of rule `i` from `known(i)` where it gives one (made
    /// for a rule equal to `i`, with the same relations computed exactly).
    pub fn with_known(
        program: &Program,
        encoding: &Encoding,
        is_static: &[bool],
        mut known: impl FnMut(usize) -> Option<Arc<Form>>,
    ) -> Forms {
        let rules: Vec<Arc<Form>> = (program.rules.iter().enumerate())
            .map(|(i, rule)| {
                known(i).unwrap_or_else(|| Arc::new(Form::new(program, encoding, rule, is_static)))
            })
            .collect();
        let mut negated = vec![false; program.relations.len()];
        for rule in &rules {
            for &(n, rel, _) in &rule.kept {
                negated[rel as usize] |= n;
            }
        }
        Forms {
            rules,
            arities: Arc::new(encoding.arities()),
            negated,
        }
    }

    /// The relations rule `source`'s instances hold negated literals of.
    pub fn negated_in(&self, source: usize) -> impl Iterator<Item = RelId> + '_ {
        (self.rules[source].kept.iter()).filter_map(|&(negated, rel, _)| negated.then_some(rel))
    }

    /// Whether an instance may hold a negated literal of relation `rel`.
    pub fn negates(&self, rel: RelId) -> bool {
        self.negated.get(rel as usize).copied().unwrap_or(false)
    }

    /// Appends the instance of program rule `source` for `binding`, the values of
    /// variables `vars` in order, to `out`.
    pub fn instantiate(
        &self,
        source: usize,
        vars: &[crate::program::VarId],
        binding: &[u32],
        ranges: &mut Ranges,
        out: &mut Instances,
    ) {
        ranges.read_binding(vars, binding, &self.arities);
        let Form {
            head_rel,
            head,
            kept,
        } = &*self.rules[source];
        out.start_with(source, *head_rel, kept.len(), |arena| {
            ranges.instantiate(head, binding, arena)
        });
        for (negated, rel, p) in kept {
            out.literal_with(*negated, *rel, |arena| {
                ranges.instantiate(p, binding, arena)
            });
        }
    }
}
