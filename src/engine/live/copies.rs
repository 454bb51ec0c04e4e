//! Copy rules folded into the rules whose atoms they copy.
//!
//! GDL's dynamics (GDL.md §2) derive `true(F)` from `next(F)` and `does(R, M)` from
//! `legal(R, M)` by rules whose body is their head's atom under another name. As a rule of
//! the live dataflow, such a copy costs an iteration of its fixpoint: a step counter's chain
//! (`true(step N)` → `next(step N+1)` → `true(step N+1)` → …) took three iterations a step,
//! one of them the copy's. Folded, every rule of `next` in the dataflow derives its atom's
//! `true` copy in the iteration that derives the atom, and the copy rule is not enabled.

use super::rules::Candidate;
use crate::hash::{FastMap, FastSet};
use crate::program::RelId;

/// A version's folded copy rules, and the relations each relation's rules derive copies in.
pub(super) struct Copies {
    /// By the copied relation, the relations that copy it (in the space).
    by_body: FastMap<RelId, Vec<RelId>>,
    /// Whether each candidate is a folded copy rule.
    folded: Vec<bool>,
}

impl Copies {
    /// The copy rules among `rules` that can be folded: the dynamics rules
    /// ([`RulePlan::copies`](crate::engine::plan::RulePlan::copies)) in the dataflow (not
    /// `above`) whose body relation is derived there too (not `given`: a given relation's
    /// atoms come with no rule to fold into), and which neither copy a copy nor are copied
    /// (one level of folding is all there is).
    pub(super) fn new(
        rules: &[Candidate],
        above: &FastSet<RelId>,
        given: impl Fn(RelId) -> bool,
    ) -> Copies {
        let copy = |c: &Candidate| {
            let body = c.plan.copies()?;
            let inside = !above.contains(&c.plan.head_rel) && !above.contains(&body);
            (inside && !given(body)).then_some((body, c.plan.head_rel))
        };
        let found: Vec<Option<(RelId, RelId)>> = rules.iter().map(copy).collect();
        let heads: FastSet<RelId> = found.iter().flatten().map(|(_, head)| *head).collect();
        let bodies: FastSet<RelId> = found.iter().flatten().map(|(body, _)| *body).collect();
        let mut by_body: FastMap<RelId, Vec<RelId>> = FastMap::default();
        let mut folded = Vec::with_capacity(found.len());
        for copy in found {
            let copy = copy.filter(|(body, head)| !heads.contains(body) && !bodies.contains(head));
            if let Some((body, head)) = copy {
                by_body.entry(body).or_default().push(head);
            }
            folded.push(copy.is_some());
        }
        by_body.values_mut().for_each(|heads| {
            heads.sort_unstable();
            heads.dedup();
        });
        Copies { by_body, folded }
    }

    /// Whether candidate `i` is a folded copy rule (not enabled: its atoms come with the
    /// atoms it copies).
    pub(super) fn folded(&self, i: usize) -> bool {
        self.folded[i]
    }

    /// The relations that copy the atoms of `rel`, sorted.
    pub(super) fn of(&self, rel: RelId) -> &[RelId] {
        self.by_body.get(&rel).map_or(&[], |heads| &heads[..])
    }
}
