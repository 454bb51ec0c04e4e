//! The domain-graph reduction loop as a superset mode: its seeds from the analysis stage's
//! domains, the engine's loop, and the final reachability pass, checked against the loop.

use super::GroundError;
use crate::analysis::domains::Domains;
use crate::engine::{self, Instantiation, Options, Round, Row, Strategy, Tables};
use crate::program::encoding::Encoding;
use crate::program::{Program, RelId};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How to run the loop.
#[derive(Clone)]
pub struct LoopOptions {
    /// After the loop, compute S* by the direct reachable fixpoint and ground over it (and
    /// check that the loop's fixpoint contains it); without it, ground over the fixpoint.
    pub final_pass: bool,
    /// Retractions into the live dataflow, or a fresh dataflow per round.
    pub strategy: Strategy,
    /// Called after each round (for `--trace`).
    pub on_round: Arc<dyn Fn(&Round) + Send + Sync>,
}

impl Default for LoopOptions {
    fn default() -> LoopOptions {
        LoopOptions {
            final_pass: true,
            strategy: Strategy::Incremental,
            on_round: Arc::new(|_| {}),
        }
    }
}

/// What the loop did.
#[derive(Clone, Debug)]
pub struct LoopReport {
    /// Every round, the first (the derivation from the seeds) included.
    pub rounds: Vec<Round>,
    /// `true` and `does`: name, the domain graph's instance count (the seeds) and the count
    /// kept at the fixpoint.
    pub shrunk: Vec<(String, usize, usize)>,
    /// Atoms of the fixpoint (all relations).
    pub fixpoint_atoms: usize,
    /// The loop's time, seeds and first run of static relations included.
    pub elapsed: Duration,
    /// With the final pass: |S*| (checked to be inside the fixpoint).
    pub reachable: Option<usize>,
}

/// Runs the loop on `program` and, if asked, the final pass; the instantiation to ground.
pub fn run(
    program: &Program,
    encoding: &Encoding,
    options: &Options,
    settings: &LoopOptions,
) -> Result<(Instantiation, LoopReport), GroundError> {
    let start = Instant::now();
    let seeds = seeds(program, encoding, options)?;
    let reduction = engine::reduce(
        program,
        encoding,
        options,
        seeds,
        settings.strategy,
        settings.on_round.clone(),
    )
    .map_err(|e| super::too_large::located(e, program))?;
    let mut report = LoopReport {
        rounds: reduction.rounds,
        shrunk: reduction
            .sizes
            .iter()
            .map(|&(rel, seeded, kept)| (program.relation_name(rel).to_string(), seeded, kept))
            .collect(),
        fixpoint_atoms: game_atoms(program, &reduction.instantiation.atoms),
        elapsed: start.elapsed(),
        reachable: None,
    };
    if !settings.final_pass {
        return Ok((reduction.instantiation, report));
    }
    let reachable = engine::instantiate(program, encoding, options)
        .map_err(|e| super::too_large::located(e, program))?;
    let missing = missing(&reduction.instantiation.atoms, &reachable.atoms);
    if missing > 0 {
        return Err(GroundError::DomainLoop(format!(
            "internal error: {missing} atoms of S* are missing from the loop's fixpoint, which \
             must contain S*; please report this game"
        )));
    }
    report.reachable = Some(game_atoms(program, &reachable.atoms));
    Ok((reachable, report))
}

/// The seeds: the `true` and `does` instances the domain graph allows.
fn seeds(program: &Program, encoding: &Encoding, options: &Options) -> Result<Tables, GroundError> {
    let domains = Domains::new(program);
    let mut seeds = Tables::new();
    for (name, arity) in [("true", 1), ("does", 2)] {
        let Some(rel) = program.relation(name, arity) else {
            continue;
        };
        let Some(tuples) = domains.relation_tuples(program, rel) else {
            return Err(GroundError::DomainLoop(format!(
                "the domain graph gives `{name}` an infinite domain (function terms nest, or \
                 built-ins compute values): the loop needs finite seeds (`gdlground domains` \
                 shows which position)"
            )));
        };
        if tuples.total() > options.max_atoms as u128 {
            return Err(GroundError::DomainLoop(format!(
                "the domain graph gives {} `{name}` instances, more than --max-atoms ({}) allows",
                tuples.total(),
                options.max_atoms
            )));
        }
        seeds.insert(rel, tuples.rows(encoding).map(Row::from_vec).collect());
    }
    Ok(seeds)
}

/// How many of `atoms` are atoms of the game, not of `program`'s auxiliary relations.
fn game_atoms(program: &Program, atoms: &[(RelId, Row)]) -> usize {
    atoms
        .iter()
        .filter(|(rel, _)| !program.is_auxiliary(*rel))
        .count()
}

/// How many atoms of `small` are not in `big` (both sorted).
fn missing(big: &[(RelId, Row)], small: &[(RelId, Row)]) -> usize {
    let mut rest = big.iter().peekable();
    small
        .iter()
        .filter(|atom| {
            while rest.next_if(|b| b < atom).is_some() {}
            rest.peek() != Some(atom)
        })
        .count()
}
