//! The engine stage: a checked program → its reachable superset S* and the ground instances
//! of its rules, computed on timely + differential-dataflow (GDL.md §2–3).
//!
//! Input: a classic [`Program`](crate::program::Program) and [`Options`]. Output: an [`Instantiation`]: the atoms of
//! S* and, for each rule with a dynamic head, its instances with static literals evaluated.
//! Invariant: only this module imports timely or differential-dataflow; the atoms are sorted
//! and the instances a set (each once, unordered; the ground stage sorts what it keeps), so
//! any number of workers gives the same ground program.

mod builtin;
mod chain;
pub mod cluster;
mod dataflow;
mod eager;
mod estimate;
mod exists;
mod fixpoint;
mod frame;
mod fused;
mod instances;
pub mod live;
mod lookup;
mod loops;
mod pattern;
mod pipe;
mod plan;
mod reduce;
mod row_set;
mod run;
mod shape;
mod share;
mod split;
mod stats;
mod steps;
mod tally;
mod templates;

pub use estimate::TooLarge;
pub use instances::{Instance, Instances};
pub use pattern::Row;
pub use reduce::{reduce, Reduction, Strategy};
pub use run::{instantiate, Round, Tables};

use crate::program::RelId;
use crate::progress::{Progress, Stage};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// How to run the engine.
#[derive(Clone, Debug)]
pub struct Options {
    /// Worker threads (timely workers in this process).
    pub workers: usize,
    /// Function terms nested deeper than this stop grounding with an error.
    pub max_depth: usize,
    /// More atoms than this stop grounding with an error.
    pub max_atoms: usize,
    /// Stop with [`EngineError::TooMuchMemory`] when the process's resident memory passes
    /// this many bytes.
    pub max_memory: Option<u64>,
    /// Stop with [`EngineError::Deadline`] at this instant.
    pub deadline: Option<Instant>,
    /// Whether the grounding pipeline projects local variables into auxiliary relations
    /// before the engine runs ([`crate::program::project`]); `false` instantiates every rule
    /// as written.
    pub project_locals: bool,
    /// Whether the grounding pipeline restricts relations by demand before the engine runs
    /// ([`crate::analysis::demand`]): only the instances the game can ask for (GDL.md §3.1).
    /// `false` instantiates every rule over all of S*.
    pub demand: bool,
    /// Where the run records its stage and the atoms it derives, for a front end to show.
    pub progress: Option<Arc<Progress>>,
    /// The processes this one grounds with (`None`: alone): every run's workers are theirs
    /// and this process's together. Process 0 gets the whole result; the others get the
    /// static relations and certain atoms, which plan the last run, and an empty result.
    pub cluster: Option<Arc<cluster::Cluster>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            workers: 1,
            max_depth: 12,
            max_atoms: 50_000_000,
            max_memory: default_max_memory(),
            deadline: None,
            project_locals: true,
            demand: true,
            progress: None,
            cluster: None,
        }
    }
}

/// Three quarters of the memory the machine can give when the run starts: of what is
/// available (other processes hold the rest), of what the control group still allows where
/// it sets a limit, and at most of the machine's memory. A run that needs more stops with an
/// error before the kernel kills it (or the machine starts swapping).
pub fn default_max_memory() -> Option<u64> {
    let room = [
        crate::memory::physical_bytes(),
        crate::memory::available_bytes(),
        crate::memory::cgroup_room_bytes(),
    ];
    room.into_iter().flatten().min().map(|b| b / 4 * 3)
}

/// Why grounding stopped without a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The relaxed closure grows function terms without bound.
    TooDeep {
        /// The relation whose atoms grow.
        relation: RelId,
        /// One atom over the limit (its arguments).
        atom: Row,
    },
    /// More atoms than the limit.
    TooManyAtoms,
    /// A rule is expected to have far more instances than the memory limit holds: estimated
    /// before the first run from the rows it reads, so that the run did not start.
    TooLarge(TooLarge),
    /// The process's memory passed the limit (bytes).
    TooMuchMemory(u64),
    /// The deadline passed.
    Deadline,
    /// A worker failed.
    Worker(String),
    /// The game cannot be grounded this way (what and why).
    Unsupported(String),
    /// The processes grounding together could not connect or disagree (what and why).
    Cluster(String),
}

/// The limits shared by all workers, and the first one exceeded.
#[derive(Debug)]
pub struct Limits {
    max_depth: usize,
    max_memory: Option<u64>,
    deadline: Option<Instant>,
    stop: AtomicBool,
    reason: Mutex<Option<EngineError>>,
    progress: Option<Arc<Progress>>,
}

impl Limits {
    /// The limits of `options`, none exceeded yet.
    fn new(options: &Options) -> Arc<Limits> {
        Arc::new(Limits {
            max_depth: options.max_depth,
            max_memory: options.max_memory,
            deadline: options.deadline,
            stop: AtomicBool::new(false),
            reason: Mutex::new(None),
            progress: options.progress.clone(),
        })
    }

    /// Records that the run has entered `stage` (see [`Progress`]).
    fn enter(&self, stage: Stage) {
        if let Some(progress) = &self.progress {
            progress.enter(stage);
        }
    }

    /// Records `diff` more atoms of the game derived (see [`Progress`]).
    fn derived(&self, diff: isize) {
        if let Some(progress) = &self.progress {
            progress.derived(diff);
        }
    }

    /// Records that `rel(atom)` is nested too deep; every worker stops at its next step.
    fn exceeded(&self, rel: RelId, atom: &Row) {
        self.fail(EngineError::TooDeep {
            relation: rel,
            atom: atom.clone(),
        });
    }

    /// Records the first reason to stop.
    fn fail(&self, error: EngineError) {
        if let Ok(mut reason) = self.reason.lock() {
            reason.get_or_insert(error);
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Stops every worker if the process's memory has passed the limit.
    fn check_memory(&self) {
        let peak = crate::memory::peak_resident_bytes();
        if let (Some(limit), Some(peak)) = (self.max_memory, peak) {
            if peak > limit {
                self.fail(EngineError::TooMuchMemory(limit));
            }
        }
    }

    /// Stops every worker if the options' deadline has passed: for an operator that works
    /// long within one step, where the workers' own checks between steps cannot see it.
    fn check_deadline(&self) {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.fail(EngineError::Deadline);
        }
    }

    /// The reason recorded for stopping, or a worker failure saying `otherwise`.
    fn failure(&self, otherwise: &str) -> EngineError {
        (self.reason.lock().ok().and_then(|r| r.clone()))
            .unwrap_or_else(|| EngineError::Worker(otherwise.into()))
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// What the engine computes.
#[derive(Clone, Debug, Default)]
pub struct Instantiation {
    /// S*: every atom, sorted by relation then arguments; shared with the ground program made
    /// of it (a copy was 2% of amazonsTorus's time on two workers, and memory).
    pub atoms: Arc<Vec<(RelId, Row)>>,
    /// Whether each relation is static (its atoms in S* are exactly the true ones).
    pub is_static: Vec<bool>,
    /// Whether each relation is given by the state or the moves
    /// ([`Program::given_relations`](crate::program::Program::given_relations)).
    pub is_given: Vec<bool>,
    /// Instances of rules with dynamic heads, in no particular order (the ground stage sorts
    /// what it keeps).
    pub instances: Instances,
}
