//! The GDL keywords of each game model, with the arity GDL gives them.

use super::Model;

/// A relation GDL gives a meaning to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Keyword {
    /// `role(r)`: the players.
    Role,
    /// `init(f)`: the initial state.
    Init,
    /// `true(f)`: the current state (classic only).
    True,
    /// `does(r, m)`: the joint move (classic only).
    Does,
    /// `next(f)`: the following state (classic only).
    Next,
    /// `legal(r, m)` (classic) or `legal(a)` (operations).
    Legal,
    /// `goal(r, v)`.
    Goal,
    /// `terminal`.
    Terminal,
    /// `base(f)`: the possible fluents.
    Base,
    /// `input(r, m)`: the possible moves (classic).
    Input,
    /// `action(a)`: the possible actions (operations).
    Action,
}

impl Keyword {
    /// The keyword named `name` in `model`, if it is one.
    pub fn of(model: Model, name: &str) -> Option<Keyword> {
        let k = match name {
            "role" => Keyword::Role,
            "init" => Keyword::Init,
            "legal" => Keyword::Legal,
            "goal" => Keyword::Goal,
            "terminal" => Keyword::Terminal,
            "base" => Keyword::Base,
            "true" if model == Model::Classic => Keyword::True,
            "does" if model == Model::Classic => Keyword::Does,
            "next" if model == Model::Classic => Keyword::Next,
            "input" if model == Model::Classic => Keyword::Input,
            "action" if model == Model::Operations => Keyword::Action,
            _ => return None,
        };
        Some(k)
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Keyword::Role => "role",
            Keyword::Init => "init",
            Keyword::True => "true",
            Keyword::Does => "does",
            Keyword::Next => "next",
            Keyword::Legal => "legal",
            Keyword::Goal => "goal",
            Keyword::Terminal => "terminal",
            Keyword::Base => "base",
            Keyword::Input => "input",
            Keyword::Action => "action",
        }
    }

    /// Whether a use of `self` with `arity` arguments is a legacy form, read as an ordinary
    /// relation: the type declarations of games written before `base` and `input` were
    /// keywords, `(base mark (x 1 2 3) (y 1 2 3) (mark x o))`, give them 2–5 arguments.
    pub fn is_legacy_at(self, model: Model, arity: usize) -> bool {
        matches!(self, Keyword::Base | Keyword::Input) && arity != self.arity(model)
    }

    /// The arity GDL requires in `model`.
    pub fn arity(self, model: Model) -> usize {
        match self {
            Keyword::Terminal => 0,
            Keyword::Does | Keyword::Goal | Keyword::Input => 2,
            Keyword::Legal if model == Model::Classic => 2,
            _ => 1,
        }
    }
}
