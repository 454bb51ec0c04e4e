//! Instance templates: how a rule's binding becomes a ground instance (head and dynamic body
//! literals instantiated; static literals, true by construction, left out), packed into an
//! [`Instances`] arena.

use super::pattern::{pattern, Pattern, Ranges, Row};
use super::plan::Plan;
use super::Instances;
use crate::program::encoding::Encoding;
use crate::program::{Literal, Program, RelId};
use std::sync::Arc;

/// A literal kept in instances: whether negated, its relation and arguments.
type KeptLiteral = (bool, RelId, Pattern);

/// Turns bindings into instances: the head and the dynamic body literals, instantiated.
pub struct Templates {
    /// The plan whose rules the templates are for.
    pub plan: Arc<Plan>,
    /// Per program rule: its head pattern and the literals kept in instances.
    rules: Vec<(Pattern, Vec<KeptLiteral>)>,
}

impl Templates {
    /// The templates of `plan`'s rules.
    pub fn new(program: &Program, encoding: &Encoding, plan: &Arc<Plan>) -> Templates {
        let rules = program
            .rules
            .iter()
            .map(|rule| {
                let kept = rule
                    .body
                    .iter()
                    .filter_map(|l| match l {
                        Literal::Pos(a) if !plan.is_static[a.rel as usize] => {
                            Some((false, a.rel, pattern(program, encoding, &a.args)))
                        }
                        Literal::Neg(a) if !plan.is_static[a.rel as usize] => {
                            Some((true, a.rel, pattern(program, encoding, &a.args)))
                        }
                        _ => None,
                    })
                    .collect();
                (pattern(program, encoding, &rule.head.args), kept)
            })
            .collect();
        Templates {
            plan: plan.clone(),
            rules,
        }
    }

    /// Appends the instance of rule plan `r` for `binding` to `out` (nothing for the
    /// dynamics rules, which are not rules of the program); `ranges` is scratch room for the
    /// plan's variables.
    pub fn instance(&self, r: usize, binding: &Row, ranges: &mut Ranges, out: &mut Instances) {
        let plan = &self.plan.rules[r];
        let Some(source) = plan.source else {
            return;
        };
        ranges.read_binding(&plan.binding, binding, &self.plan.arities);
        let (head, kept) = &self.rules[source];
        let mut args = Row::new();
        ranges.instantiate(head, binding, &mut args);
        out.start(source, plan.head_rel, &args, kept.len());
        for (negated, rel, p) in kept {
            args.clear();
            ranges.instantiate(p, binding, &mut args);
            out.literal(*negated, *rel, &args);
        }
    }
}
