//! What lowering one statement needs to know of the others: which names the game defines
//! that a statement could also read as a built-in, and (operations model) which names are
//! actions. Kept apart so that a statement lowered once stays valid while this is unchanged
//! (see [`crate::load::Reader`]).

use super::{Builtin, Model};
use crate::syntax::{Statement, Term};
use std::collections::BTreeSet;

/// The facts about the whole game that the lowering of a statement reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// Rule heads (name, arity) whose name a body could also read as a built-in,
    /// `countofall` or `or`: the game defines that relation, so a body reads the relation.
    defined: BTreeSet<(String, usize)>,
    /// Operations model: the (name, arity) of every action (operation rules' actions and
    /// `action(...)` heads). An effect that names one performs it.
    actions: BTreeSet<(String, usize)>,
}

/// Whether a body atom `name`/`arity` means something else than a relation unless the game
/// defines that relation itself.
fn special(model: Model, name: &str, arity: usize) -> bool {
    Builtin::of(model, name, arity).is_some()
        || (model == Model::Operations && name == "countofall" && arity == 3)
        || name == "or"
}

/// The name and arity of a term used as an atom (an action or a fluent).
fn signature(term: &Term) -> Option<(String, usize)> {
    match term {
        Term::Const(n) => Some((n.text.clone(), 0)),
        Term::Func(n, args, _) => Some((n.text.clone(), args.len())),
        Term::Var(_) => None,
    }
}

impl Context {
    /// The context `statements` give in `model`.
    pub fn of(statements: &[Statement], model: Model) -> Context {
        let mut context = Context::default();
        for statement in statements {
            match statement {
                Statement::Rule { head, .. } => {
                    let (name, arity) = (head.name.text.as_str(), head.args.len());
                    if special(model, name, arity) {
                        context.defined.insert((name.to_string(), arity));
                    }
                    if model == Model::Operations && name == "action" && arity == 1 {
                        context.actions.extend(signature(&head.args[0]));
                    }
                }
                Statement::Operation { action, .. } => {
                    if model == Model::Operations {
                        context.actions.extend(signature(action));
                    }
                }
            }
        }
        context
    }

    /// Adds what `other` knows (the context of more statements).
    pub fn extend(&mut self, other: &Context) {
        self.defined.extend(other.defined.iter().cloned());
        self.actions.extend(other.actions.iter().cloned());
    }

    /// Whether the game defines relation `name`/`arity`, as far as lowering needs to know:
    /// exact for the names [`special`] gives another meaning, `false` for the others (whose
    /// atoms are relation atoms either way).
    pub(super) fn defines(&self, name: &str, arity: usize) -> bool {
        !self.defined.is_empty() && self.defined.contains(&(name.to_string(), arity))
    }

    /// Whether `name`/`arity` is an action of an operations game.
    pub(super) fn is_action(&self, name: &str, arity: usize) -> bool {
        self.actions.contains(&(name.to_string(), arity))
    }
}
