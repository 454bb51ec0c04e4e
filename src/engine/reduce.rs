//! The domain-graph reduction loop (GDL.md §2; the analysis chapter's steps 3–5).
//!
//! Input: seed sets for `true` and `does` (the domain graph's instances, computed by the
//! analysis stage). The relaxed program without its dynamics rules is run with `true` and
//! `does` given (step 3); then `true(t)` is kept only if `init(t)` or `next(t)` was derived
//! (step 4) and `does(r, m)` only if `legal(r, m)` was (step 5), and the program is derived
//! again, until nothing shrinks. The result is a fixpoint ⊇ S: every instance of the
//! program over it, ground, is a correct (if less tight) ground program.
//!
//! Two strategies compute the same fixpoint: [`Strategy::Incremental`] feeds each round's
//! removals into the running dataflow as retractions, and it updates only what they touch;
//! [`Strategy::Recompute`] builds and runs a fresh dataflow each round (the baseline the
//! incremental loop is measured against).

use super::plan::{Part, Plan};
use super::run::{gather, merged, run, shrinking, statics, unshare, Given, Round, Tables, To};
use super::templates::Templates;
use super::{EngineError, Instantiation, Limits, Options, Row};
use crate::hash::{FastMap, FastSet};
use crate::program::encoding::Encoding;
use crate::program::{Program, RelId};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// How the loop recomputes after a round's removals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Retractions into the live dataflow.
    Incremental,
    /// A fresh dataflow every round.
    Recompute,
}

/// The loop's result.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The fixpoint: its atoms (`true` and `does` as kept) and the instances over them.
    pub instantiation: Instantiation,
    /// Every round, the first (derivation from the seeds) included.
    pub rounds: Vec<Round>,
    /// The shrinking relations: each one's seed count and its count at the fixpoint.
    pub sizes: Vec<(RelId, usize, usize)>,
}

/// Runs the reduction loop on `program` from `seeds` (rows of `true` and `does`), calling
/// `on_round` after each round.
pub fn reduce(
    program: &Program,
    encoding: &Encoding,
    options: &Options,
    seeds: Tables,
    strategy: Strategy,
    on_round: Arc<dyn Fn(&Round) + Send + Sync>,
) -> Result<Reduction, EngineError> {
    let limits = Limits::new(options);
    let seed_sizes: BTreeMap<RelId, usize> = seeds.iter().map(|(r, s)| (*r, s.len())).collect();
    let stats = statics(
        program,
        encoding,
        options,
        &limits,
        Given {
            more: seeds,
            ..Given::default()
        },
    )?;
    let plan = Arc::new(Plan::new(program, encoding, Part::Loop, &stats));
    let templates = Arc::new(Templates::new(program, encoding, &plan));
    let rounds: Arc<Mutex<Vec<Round>>> = Arc::default();
    let record = {
        let rounds = rounds.clone();
        move |round: &Round| {
            on_round(round);
            if let Ok(mut all) = rounds.lock() {
                all.push(round.clone());
            }
        }
    };
    let mut given = stats.into_rows();
    // In the plan's order: `true`, then `does`.
    let relations = shrinking(&plan, &given);
    let instantiation = match strategy {
        Strategy::Incremental => {
            let shared = Arc::new(given);
            let (computed, instances, retracted) = run(
                &templates,
                &shared,
                options,
                &limits,
                Some(Arc::new(record)),
                To::Every,
            )?;
            given = unshare(shared);
            let mut gone: FastMap<RelId, FastSet<Row>> = FastMap::default();
            for (rel, row) in retracted {
                gone.entry(rel).or_default().insert(row);
            }
            for (rel, rows) in gone {
                if let Some(kept) = given.get_mut(&rel) {
                    kept.retain(|row| !rows.contains(row));
                }
            }
            gather(&plan, Arc::new(given), computed, instances)
        }
        Strategy::Recompute => {
            let mut index = 0;
            loop {
                let start = Instant::now();
                let shared = Arc::new(given);
                let (computed, instances, _) =
                    run(&templates, &shared, options, &limits, None, To::Every)?;
                let computed = merged(computed);
                given = unshare(shared);
                let removed = shrink(&mut given, &relations, &computed);
                record(&Round {
                    index,
                    removed: removed.clone(),
                    atoms: computed.len(),
                    elapsed: start.elapsed(),
                });
                if removed.iter().all(|&n| n == 0) {
                    break gather(&plan, Arc::new(given), vec![computed], instances);
                }
                index += 1;
            }
        }
    };
    let sizes = relations
        .iter()
        .map(|(rel, _)| {
            let seeded = seed_sizes[rel];
            let kept = instantiation.atoms.iter().filter(|(r, _)| r == rel).count();
            (*rel, seeded, kept)
        })
        .collect();
    let rounds = std::mem::take(
        &mut *rounds
            .lock()
            .map_err(|e| EngineError::Worker(e.to_string()))?,
    );
    Ok(Reduction {
        instantiation,
        rounds,
        sizes,
    })
}

/// Steps 4 and 5 on the main thread: keeps each shrinking relation's rows that one of its
/// supporting relations has (in `computed` or given); returns how many each lost.
fn shrink(
    given: &mut Tables,
    relations: &[(RelId, Vec<RelId>)],
    computed: &[(RelId, Row)],
) -> Vec<usize> {
    relations
        .iter()
        .map(|(rel, support)| {
            let mut kept: FastSet<Row> = computed
                .iter()
                .filter(|(r, _)| support.contains(r))
                .map(|(_, row)| row.clone())
                .collect();
            for s in support {
                kept.extend(given.get(s).into_iter().flatten().cloned());
            }
            let rows = given.entry(*rel).or_default();
            let before = rows.len();
            rows.retain(|row| kept.contains(row));
            before - rows.len()
        })
        .collect()
}
