//! How far a grounding has got, for a front end to show while it runs: the stages record
//! what they are doing and how many atoms of S* they have derived, and whoever holds the
//! same [`Progress`] reads it from another thread.
//!
//! Why: a big game grounds for minutes, and a terminal that says nothing for that long looks
//! hung. Recording costs one relaxed atomic add per derived atom.

use std::sync::atomic::{AtomicIsize, AtomicU8, Ordering};

/// What a grounding is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Preparing the checked game for the engine (before it starts).
    Loading,
    /// Computing the static relations that are evaluated exactly (GDL.md §2).
    Static,
    /// Computing S* and the rules' instances.
    Reachable,
    /// Building and simplifying the ground program (GDL.md §3).
    Ground,
}

impl Stage {
    const ALL: [Stage; 4] = [
        Stage::Loading,
        Stage::Static,
        Stage::Reachable,
        Stage::Ground,
    ];

    /// The stage in words, for a status line.
    pub fn describe(self) -> &'static str {
        match self {
            Stage::Loading => "preparing the rules",
            Stage::Static => "computing the static relations",
            Stage::Reachable => "computing S* and the rule instances",
            Stage::Ground => "building the ground program",
        }
    }
}

/// A grounding's progress, shared between the thread that grounds and one that shows it.
#[derive(Debug, Default)]
pub struct Progress {
    stage: AtomicU8,
    atoms: AtomicIsize,
}

impl Progress {
    /// Records that the grounding has entered `stage`.
    pub fn enter(&self, stage: Stage) {
        self.stage.store(stage as u8, Ordering::Relaxed);
    }

    /// Records `diff` more (or, negative, fewer) atoms of the game derived.
    pub fn derived(&self, diff: isize) {
        self.atoms.fetch_add(diff, Ordering::Relaxed);
    }

    /// The current stage, and the atoms derived so far in all stages.
    pub fn status(&self) -> (Stage, usize) {
        let stage = self.stage.load(Ordering::Relaxed) as usize;
        let stage = Stage::ALL[stage.min(Stage::ALL.len() - 1)];
        (stage, self.atoms.load(Ordering::Relaxed).max(0) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reports_the_last_stage_and_the_net_atoms() {
        let p = Progress::default();
        assert_eq!(p.status(), (Stage::Loading, 0));
        p.enter(Stage::Reachable);
        p.derived(5);
        p.derived(-2);
        assert_eq!(p.status(), (Stage::Reachable, 3));
        p.enter(Stage::Ground);
        assert_eq!(p.status().0, Stage::Ground);
    }
}
