//! Groups of literals projected together into one auxiliary relation.
//!
//! [`super::project`] projects a literal whose variables partly occur nowhere else. A chain
//! of literals can have the same property only as a whole: gt_two_thirds_4p's
//!
//! ```text
//! total(T) :- true(guessed(player1, N1)) & true(guessed(player2, N2)) & sum(N1, N2, S1)
//!           & true(guessed(player3, N3)) & sum(S1, N3, S2)
//!           & true(guessed(player4, N4)) & sum(S2, N4, T)
//! ```
//!
//! has an instance for every four guesses (101⁴), although after `sum(N1, N2, S1)` the rule
//! only needs S1. The first three literals become `aux(S1)`, defined by one rule over them;
//! the rest of the rule, projected in turn, becomes `aux2(S2) :- aux(S1) & … & sum(S1, N3,
//! S2)` and `total(T) :- aux2(S2) & … & sum(S2, N4, T)`: about 60 thousand instances in all
//! instead of 10⁸. The program means the same (an auxiliary atom holds exactly when some
//! instance of its group does, and the group's local variables occur nowhere else).
//!
//! A group is found from each variable that is not in the head: the variables it
//! *eliminates* grow one at a time, each time by the separator variable that leaves the
//! fewest separator variables per eliminated one; the group is every literal that has an
//! eliminated variable, and its *separator* the group's other variables (the auxiliary
//! relation's arguments). A group is projected when it eliminates more variables than it
//! keeps: each eliminated variable multiplies the rule's instances by its values unless the
//! separator determines it, and a group that keeps fewer variables than it drops cannot be
//! determined by them throughout when its literals are independent. A separator of one or
//! two head variables counts as keeping none: every instance has them already, and an
//! auxiliary relation over them has no more dimensions than a face of the head (racer4's
//! `legal_speed(P, N1, N2) :- true(velx(P, D1)) & pmone(D1, N1) & …` keeps P and N1 and drops
//! D1; it had 92 million instances). Any other separator counts all its free variables: an
//! auxiliary relation over head variables and others can outgrow the rule (god's chain of
//! neighbour counts: 1.4 million instances against the rule's 173 thousand), and so can one
//! over more head variables, which the rest of the rule restricts and the group does not
//! (ttcc4's jump from (X1, Y1) over (X2, Y2), every pair of cells: 19 thousand instances
//! against 2 thousand). A group that shares no variable with the rest of the rule must drop
//! two free variables (see [`Body::projectable`]).
//!
//! A group that keeps as many variables as it drops is projected when it is a *cut at one
//! variable*: its separator is a single variable, and the rest of the rule has a variable of
//! its own that the separator leaves free. The rule has an instance for every value of the
//! group's variable and of the rest's together, per value of the separator; cut, each side
//! has one per value of its own. A farmers game's goal, `goal(alice, 100) :- true(money(alice,
//! A)) & true(money(bob, B)) & true(money(carol, C)) & geq(A, B) & geq(A, C)`, had one per
//! triple of amounts (a third of 301³); cut at A, `aux(A) :- true(money(bob, B)) & geq(A, B)`
//! and the rest have one per pair. The rest is not cut again at A: cutting C off would leave
//! the rule an instance per A on top of the cut's per (A, C). A cut can add rules where the
//! rest of the rule admits far fewer separator values than the group does, but rarely does
//! (the performance journal has the corpus's numbers).
//!
//! A chain whose variables are pinned by its neighbours (connect four's `cell(X, Y1, P) &
//! succ(Y1, Y2) & cell(X, Y2, P) & …`) never eliminates more than it keeps, and is left as it
//! is: an auxiliary relation there only adds rules. The group must also leave the rest of
//! the rule a variable of its own (else the group is the rule), and every variable of its
//! literals must occur in one of its positive atoms (the auxiliary rule must be safe).

use super::functional::{free, Dependencies};
use super::project::{push_new, variables, Projection, Variables};
use super::{Literal, RelId, Rule, VarId};

/// The group of literals of `rule` to project (module doc), if it has one; `original` is
/// the number of the program's own relations, whose names are preferred for the auxiliary
/// relation's.
pub(super) fn group(
    rule: &Rule,
    dependencies: &Dependencies,
    original: usize,
) -> Option<Projection> {
    let body = Body::new(rule, dependencies)?;
    let mut best: Option<Grown> = None;
    for &start in &body.candidates {
        let mut grown = body.grow(vec![start]);
        loop {
            if body.worth(&grown)
                && body.projectable(&grown)
                && best.as_ref().is_none_or(|b| grown.score < b.score)
            {
                best = Some(grown.clone());
            }
            let next = (grown.separator.iter())
                .filter(|v| body.candidates.contains(v))
                .map(|&v| body.grow([grown.eliminated.clone(), vec![v]].concat()))
                .min_by_key(|next| next.score);
            match next {
                Some(next) if next.score < grown.score => grown = next,
                _ => break,
            }
        }
    }
    best.map(|grown| body.projection(rule, grown, original))
}

/// A rule's body as the group search sees it: each literal's variables.
struct Body {
    /// The variables of each body literal.
    vars: Vec<Vec<VarId>>,
    /// Whether each body literal is a positive atom.
    positive: Vec<bool>,
    /// The functional dependencies of each body literal.
    dependencies: Vec<Vec<(Vec<VarId>, VarId)>>,
    /// Every variable of the rule, head first.
    all: Vec<VarId>,
    /// The variables a group may eliminate: those not in the head, in order of occurrence.
    candidates: Vec<VarId>,
}

/// A group: the variables it eliminates, its literals and its separator, and its score:
/// the separator's free variables (none if it is one or two of the head's), less the
/// eliminated variables the separator leaves free (through the group's functional
/// dependencies); a group is worth projecting below zero.
#[derive(Clone)]
struct Grown {
    eliminated: Vec<VarId>,
    literals: Vec<usize>,
    separator: Vec<VarId>,
    score: isize,
}

impl Body {
    /// The body of `rule`, or `None` for a rule that is never projected.
    fn new(rule: &Rule, dependencies: &Dependencies) -> Option<Body> {
        let Variables { vars, all, heads } = variables(rule)?;
        Some(Body {
            positive: rule
                .body
                .iter()
                .map(|l| matches!(l, Literal::Pos(_)))
                .collect(),
            dependencies: rule.body.iter().map(|l| dependencies.of(l)).collect(),
            candidates: all[heads..].to_vec(),
            vars,
            all,
        })
    }

    /// The group that eliminates `eliminated` and every other candidate variable whose
    /// literals all have one of them (such a variable is local to the group).
    fn grow(&self, mut eliminated: Vec<VarId>) -> Grown {
        let has = |j: usize, among: &[VarId]| self.vars[j].iter().any(|v| among.contains(v));
        let literals: Vec<usize> = (0..self.vars.len())
            .filter(|&j| has(j, &eliminated))
            .collect();
        let mut separator = Vec::new();
        for &v in literals.iter().flat_map(|&j| &self.vars[j]) {
            let local = self.candidates.contains(&v)
                && (0..self.vars.len())
                    .all(|j| literals.contains(&j) || !self.vars[j].contains(&v));
            match local {
                true => push_new(&mut eliminated, v),
                false => push_new(&mut separator, v),
            }
        }
        separator.retain(|v| !eliminated.contains(v));
        let within: Vec<_> = (literals.iter())
            .flat_map(|&j| self.dependencies[j].iter().cloned())
            .collect();
        let head = &self.all[..self.all.len() - self.candidates.len()];
        let in_head = separator.iter().all(|v| head.contains(v));
        let kept = match in_head && separator.len() <= 2 {
            true => 0,
            false => free(&separator, &[], &within) as isize,
        };
        let dropped = free(&eliminated, &separator, &within) as isize;
        Grown {
            eliminated,
            literals,
            separator,
            score: kept - dropped,
        }
    }

    /// Whether projecting `grown` saves instances: it eliminates more variables than it keeps
    /// (a negative score), or it is joined to the rest of the rule by one variable alone and
    /// both sides have a variable of their own that it leaves free (module doc: a cut at one
    /// variable).
    fn worth(&self, grown: &Grown) -> bool {
        grown.score < 0
            || (grown.score == 0 && grown.separator.len() == 1 && self.rest_free(grown) > 0)
    }

    /// The variables of the rule outside `grown` (neither eliminated nor its separator) that
    /// the separator leaves free through the dependencies of the other literals.
    fn rest_free(&self, grown: &Grown) -> usize {
        let rest: Vec<usize> = (0..self.vars.len())
            .filter(|j| !grown.literals.contains(j))
            .collect();
        let inside = |v: &VarId| grown.eliminated.contains(v) || grown.separator.contains(v);
        let mut outside = Vec::new();
        (rest.iter().flat_map(|&j| &self.vars[j]))
            .filter(|v| !inside(v))
            .for_each(|&v| push_new(&mut outside, v));
        let within: Vec<_> = (rest.iter())
            .flat_map(|&j| self.dependencies[j].iter().cloned())
            .collect();
        free(&outside, &grown.separator, &within)
    }

    /// Whether `grown` can be projected: two positive atoms or more (one is
    /// [`super::project`]'s case), a separator or two free variables dropped (a group that
    /// shares no variable with the rest of the rule only tests that some instance exists;
    /// with one free variable, as asteroids' `does(ship, do(M)) & game1Thrust(M)`, the
    /// relation it adds costs the small games more than the rules it saves: asteroidsParallel
    /// 2.6 → 3.1 times gringo's time; with more, as in urmAdd and tron, it saves millions of
    /// rules), every variable in one of its atoms, and a variable left to the rest of the rule.
    fn projectable(&self, grown: &Grown) -> bool {
        let atoms: Vec<usize> = (grown.literals.iter().copied())
            .filter(|&j| self.positive[j])
            .collect();
        let bound = |v: &VarId| atoms.iter().any(|&j| self.vars[j].contains(v));
        let inside = |v: &VarId| grown.eliminated.contains(v) || grown.separator.contains(v);
        atoms.len() >= 2
            && (!grown.separator.is_empty() || grown.score <= -2)
            && grown.separator.iter().chain(&grown.eliminated).all(bound)
            && self.all.iter().any(|v| !inside(v))
    }

    /// The projection of `grown`: its first positive atom first, then its other literals.
    fn projection(&self, rule: &Rule, grown: Grown, original: usize) -> Projection {
        let atom = |j: usize| match &rule.body[j] {
            Literal::Pos(atom) => Some(atom.rel),
            _ => None,
        };
        let first = (grown.literals.iter().copied())
            .find(|&j| self.positive[j])
            .unwrap_or(grown.literals[0]);
        let literals: Vec<usize> = std::iter::once(first)
            .chain(grown.literals.iter().copied().filter(|&j| j != first))
            .collect();
        let reads: RelId = (literals.iter().filter_map(|&j| atom(j)))
            .find(|&rel| (rel as usize) < original)
            .or_else(|| atom(first))
            .unwrap_or_default();
        let mut order = Vec::new();
        (literals.iter()).for_each(|&j| self.vars[j].iter().for_each(|&v| push_new(&mut order, v)));
        Projection {
            shared: (order.iter().copied())
                .filter(|v| grown.separator.contains(v))
                .collect(),
            local: (order.iter().copied())
                .filter(|v| grown.eliminated.contains(v))
                .collect(),
            literals,
            reads,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::project::tests::{auxiliary, game, rules};
    use super::super::project::{project_locals, project_locals_reusing, Searches};

    /// An addition table none of whose arguments determines another.
    const SUMS: &str = "sum(0,1,1)\nsum(1,0,1)\nsum(1,1,2)\n";

    #[test]
    fn a_chain_of_sums_becomes_one_auxiliary_relation_per_partial_sum() {
        // gt_two_thirds_4p's total, on three guesses.
        let program = game(&format!(
            "total(T) :- true(g(a,N1)) & true(g(b,N2)) & sum(N1,N2,S1) \
             & true(g(c,N3)) & sum(S1,N3,T)\n{SUMS}"
        ));
        let projected = project_locals(&program).expect("a group to project");
        let names = auxiliary(&projected);
        assert_eq!(names.len(), 1, "{names:?}");
        let aux = &names[0];
        assert!(aux.starts_with("true_"), "{aux}");
        let text = rules(&projected);
        assert!(
            text.contains(&format!(
                "total(T) :- {aux}(S1) & true(g(c,N3)) & sum(S1,N3,T)"
            )),
            "{text:#?}"
        );
        assert!(
            text.contains(&format!(
                "{aux}(S1) :- true(g(a,N1)) & true(g(b,N2)) & sum(N1,N2,S1)"
            )),
            "{text:#?}"
        );
    }

    #[test]
    fn a_longer_chain_is_projected_link_by_link() {
        let program = game(&format!(
            "total(T) :- true(g(a,N1)) & true(g(b,N2)) & sum(N1,N2,S1) \
             & true(g(c,N3)) & sum(S1,N3,S2) & true(g(d,N4)) & sum(S2,N4,T)\n{SUMS}"
        ));
        let projected = project_locals(&program).expect("groups to project");
        let names = auxiliary(&projected);
        assert_eq!(names.len(), 2, "{names:?}");
        let text = rules(&projected);
        // The larger group goes first (it eliminates four variables), and its rule is
        // projected in turn.
        let (second, first) = (&names[0], &names[1]);
        assert!(
            text.contains(&format!(
                "total(T) :- {second}(S2) & true(g(d,N4)) & sum(S2,N4,T)"
            )),
            "{text:#?}"
        );
        assert!(
            text.contains(&format!(
                "{second}(S2) :- {first}(S1) & true(g(c,N3)) & sum(S1,N3,S2)"
            )),
            "{text:#?}"
        );
    }

    #[test]
    fn a_body_joined_at_one_variable_is_cut_there() {
        // The farmers' goal: B and C each meet the rest of the body at A alone. Cutting B off
        // keeps one variable and drops one (a score of nothing), but the rest keeps a free
        // variable of its own (C), so the rule's instances were every triple (A, B, C).
        let program = game(
            "win :- true(m(a,A)) & true(m(b,B)) & true(m(c,C)) & geq(A,B) & geq(A,C)\n\
             geq(X,Y) :- n(X) & n(Y)\nn(1)\nn(2)\n",
        );
        let projected = project_locals(&program).expect("a cut to project");
        let names = auxiliary(&projected);
        assert_eq!(names.len(), 1, "{names:?}");
        let (b, text) = (&names[0], rules(&projected));
        assert!(
            text.contains(&format!("{b}(A) :- true(m(b,B)) & geq(A,B)")),
            "{text:#?}"
        );
        // The rest has an instance per (A, C), as the cut's rule per (A, B): cutting C off
        // too would only add a rule per A.
        assert!(
            text.contains(&format!(
                "win :- true(m(a,A)) & {b}(A) & true(m(c,C)) & geq(A,C)"
            )),
            "{text:#?}"
        );
    }

    #[test]
    fn a_cut_whose_other_side_is_pinned_is_left_alone() {
        // C is determined by A (`succ` is a function): cutting B off saves nothing.
        let program = game(
            "win :- true(m(a,A)) & true(m(b,B)) & geq(A,B) & succ(A,C) & true(m(c,C))\n\
             geq(X,Y) :- n(X) & n(Y)\nn(1)\nn(2)\nsucc(1,2)\n",
        );
        assert!(project_locals(&program).is_none());
    }

    #[test]
    fn a_chain_its_neighbours_pin_is_left_alone() {
        // connect four's line: each Yi is determined by the next; no group drops more
        // variables than it keeps.
        let program = game(
            "line(P) :- true(k(X,Y1,P)) & succ(Y1,Y2) & true(k(X,Y2,P)) & succ(Y2,Y3) \
             & true(k(X,Y3,P)) & succ(Y3,Y4) & true(k(X,Y4,P))\nsucc(1,2)\n",
        );
        assert!(project_locals(&program).is_none());
    }

    #[test]
    fn a_group_that_keeps_only_head_variables_is_projected() {
        // racer4's legal_speed: each velocity D gives three new ones N (`near` is derived:
        // no dependency is known), and D occurs nowhere else. The group keeps P and N, both
        // in the head already, and drops D: without it the rule has an instance for every D
        // of every N (racer4: 92 M instances, past 8 GiB; with it 4.6 M rules in 14 s).
        let program = game(
            "speed(P,N,X) :- true(vel(P,D)) & near(D,N) & true(pos(P,X))\n\
             near(D,N) :- n(D) & n(N)\nn(1)\nn(2)\n",
        );
        let projected = project_locals(&program).expect("a group to project");
        let aux = auxiliary(&projected).pop().expect("one auxiliary relation");
        let text = rules(&projected);
        assert!(
            text.contains(&format!("speed(P,N,X) :- {aux}(P,N) & true(pos(P,X))")),
            "{text:#?}"
        );
        assert!(
            text.contains(&format!("{aux}(P,N) :- true(vel(P,D)) & near(D,N)")),
            "{text:#?}"
        );
    }

    #[test]
    fn a_group_that_keeps_four_head_variables_is_left_alone() {
        // ttcc4's jump: the pieces on (X1, Y1) and (X2, Y2) are the group, but only the
        // rest of the rule (`jumpable`) pairs the cells; projected, the group would have an
        // instance for every pair of cells and pieces.
        let program = game(
            "jump(X1,Y1,X2,Y2,X3,Y3) :- true(k(X1,Y1,P)) & own(P,R) & true(k(X2,Y2,Q)) \
             & own(Q,S) & distinct(R,S) & jumpable(X1,Y1,X2,Y2,X3,Y3)\n\
             own(P,R) :- piece(P,R)\npiece(a,w)\njumpable(1,1,1,2,1,3)\n",
        );
        let text = project_locals(&program).map(|p| rules(&p));
        assert!(text.is_none(), "{text:#?}");
    }

    #[test]
    fn a_group_whose_negation_needs_an_outside_variable_is_left_alone() {
        // Z occurs only in the negation and in q(Z): the group of N1, N2 would need Z in
        // its auxiliary rule without an atom to bind it.
        let program = game(
            "p(T) :- true(g(a,N1)) & true(g(b,N2)) & ~r(N1,Z) & sum(N1,N2,S) \
             & q(Z) & sum(S,Z,T)\nsum(1,1,2)\nq(1)\nr(1,1)\n",
        );
        let text = project_locals(&program)
            .map(|p| rules(&p))
            .unwrap_or_default();
        assert!(
            !text
                .iter()
                .any(|r| r.contains("~r(N1,Z)") && !r.starts_with("p(")),
            "{text:#?}"
        );
    }

    #[test]
    fn a_long_chain_a_fact_relation_pins_is_left_alone() {
        // gomoku's hasLine: four of the Xi against a separator of three, but succ's facts
        // make each Xi follow from the next, so no group leaves a variable free.
        let program = game(
            "line(P) :- true(k(X1,Y,P)) & succ(X0,X1) & ~true(k(X0,Y,P)) & succ(X1,X2) \
             & true(k(X2,Y,P)) & succ(X2,X3) & true(k(X3,Y,P)) & succ(X3,X4) \
             & true(k(X4,Y,P)) & succ(X4,X5) & ~true(k(X5,Y,P))\n\
             succ(1,2)\nsucc(2,3)\nsucc(3,4)\nsucc(4,5)\nsucc(5,6)\n",
        );
        assert!(project_locals(&program).is_none());
    }

    #[test]
    fn a_group_sharing_no_variable_needs_two_free_variables() {
        // asteroids' shape: some move of a kind; one free variable, left alone.
        let one = game("p(X) :- true(c(X)) & true(m(M)) & q(M)\nq(1)\nq(2)\n");
        assert!(project_locals(&one).is_none());
        // Two free variables (r determines neither argument from the other): projected
        // into a relation without arguments.
        let two = game("p(X) :- true(c(X)) & true(m(A,B)) & r(A,B)\nr(1,1)\nr(1,2)\nr(2,1)\n");
        let projected = project_locals(&two).expect("a closed group to project");
        let aux = auxiliary(&projected).pop().expect("one auxiliary relation");
        let text = rules(&projected);
        assert!(
            text.contains(&format!("p(X) :- true(c(X)) & {aux}")),
            "{text:#?}"
        );
    }

    #[test]
    fn searches_kept_between_versions_give_what_a_fresh_projection_gives() {
        // The same rule in both versions, but the second's sums determine each guess from
        // the partial sum: its group drops no free variable and is left alone, so a search
        // of the first version must not answer for the second.
        let chain = "total(T) :- true(g(a,N1)) & true(g(b,N2)) & sum(N1,N2,S1) \
                     & true(g(c,N3)) & sum(S1,N3,T)\n";
        let first = game(&format!("{chain}{SUMS}"));
        let second = game(&format!("{chain}sum(0,1,1)\nsum(1,1,2)\n"));
        let fresh = |p| project_locals(p).map(|p| rules(&p));
        assert!(fresh(&first).is_some() && fresh(&second).is_none());
        let mut searches = Searches::default();
        for version in [&first, &second, &first, &first] {
            let reused = project_locals_reusing(version, &mut searches).map(|p| rules(&p));
            assert_eq!(reused, fresh(version));
        }
    }
}
