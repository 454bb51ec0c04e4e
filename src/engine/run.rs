//! Running the dataflow on timely workers and gathering a deterministic result.

use super::cluster::fingerprint;
use super::dataflow::{self, Diff};
use super::lookup::Lookups;
use super::pattern::{each_item, Item, Ranges, Row};
use super::plan::{Part, Plan};
pub use super::share::To;
use super::stats::Stats;
use super::tally::{positive, Tally};
use super::templates::Templates;
use super::{EngineError, Instances, Instantiation, Limits, Options};
use crate::hash::{FastMap, FastSet};
use crate::parallel;
use crate::program::encoding::Encoding;
use crate::program::{Program, RelId, Term};
use crate::progress::Stage;
use differential_dataflow::input::Input;
use smallvec::SmallVec;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ops::Range;
use std::rc::Rc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Instant;
use timely::dataflow::operators::Probe;
use timely::dataflow::ProbeHandle;

/// Relations' rows, by relation.
pub type Tables = BTreeMap<RelId, Vec<Row>>;

/// Computes S* and the ground instances of `program` (classic model), in two runs: the
/// exactly computed static relations first, then the rest, planned with their sizes known
/// (and, between them, the certain atoms of the few games that test some: see [`crate::analysis::certain`]).
pub fn instantiate(
    program: &Program,
    encoding: &Encoding,
    options: &Options,
) -> Result<Instantiation, EngineError> {
    let limits = Limits::new(options);
    let stats = statics(program, encoding, options, &limits, Given::default())?;
    let plan = Plan::new(program, encoding, Part::Rest, &stats);
    let plan = super::split::split(plan, program);
    let plan = Arc::new(super::frame::detach(plan, program));
    let given = Arc::new(stats.into_rows());
    let templates = Arc::new(Templates::new(program, encoding, &plan));
    // Only process 0 of several builds the ground program: the last run's result goes there.
    let (rest, instances, _) = run(&templates, &given, options, &limits, None, To::First)?;
    Ok(gather(&plan, given, rest, instances))
}

/// What a grounding's first runs are given besides the program.
#[derive(Default)]
pub struct Given {
    /// Rows of relations given to the run after them (the reduction loop's seeds).
    pub more: Tables,
    /// Rows of exact derived relations known already (see [`exact`]).
    pub known: Tables,
}

/// The first runs of a grounding: the exactly computed static relations ([`exact`], with
/// what is `given`) and the certain atoms ([`certain`]), as statistics for planning the run
/// after them; `limits` records the stages.
pub fn statics(
    program: &Program,
    encoding: &Encoding,
    options: &Options,
    limits: &Arc<Limits>,
    given: Given,
) -> Result<Stats, EngineError> {
    limits.enter(Stage::Static);
    let stats = exact(program, encoding, options, limits, given)?;
    let stats = certain(program, encoding, options, limits, stats)?;
    limits.enter(Stage::Reachable);
    Ok(stats)
}

/// Computes the exactly computed static relations of `program` (the first run) and returns
/// statistics over their rows together with the rows of `given.more` (relations given to the
/// second run). The relations defined by facts alone are given to the run, not derived by
/// it (a rule per fact costs timely operators), and a game with no other static rules needs
/// no run at all. So are the derived relations whose rows are `given.known` (a live
/// version's, whose edit reached neither their rules nor what they read: see
/// [`super::live`]); a relation known with no row is derived again.
pub fn exact(
    program: &Program,
    encoding: &Encoding,
    options: &Options,
    limits: &Arc<Limits>,
    Given { more, known }: Given,
) -> Result<Stats, EngineError> {
    let arities = Arc::new(encoding.arities());
    let mut rows = facts(program, encoding);
    for (rel, known) in known {
        rows.entry(rel).or_insert(known);
    }
    let facts = Stats::new(rows, arities.clone());
    let exact = Arc::new(Plan::new(program, encoding, Part::ExactDerived, &facts));
    super::estimate::check(&exact, &facts, options.max_memory)?;
    let facts = Arc::new(facts.into_rows());
    let exact_atoms = match exact.rules.is_empty() {
        true => Vec::new(),
        false => {
            let templates = Arc::new(Templates::new(program, encoding, &exact));
            merged(run(&templates, &facts, options, limits, None, To::Every)?.0)
        }
    };
    let mut given = more;
    for (rel, rows) in unshare(facts) {
        given.entry(rel).or_default().extend(rows);
    }
    for (rel, row) in exact_atoms {
        given.entry(rel).or_default().push(row);
    }
    Ok(Stats::new(given, arities))
}

/// Adds to `stats` (the exact relations' rows) the certain atoms the rules of `program` test
/// ([`Part::Certain`]), under their [`certain_id`](super::plan::certain_id)s: one more run,
/// for the games that have any (rare; queens is one). The plans made with the result decide
/// those tests.
fn certain(
    program: &Program,
    encoding: &Encoding,
    options: &Options,
    limits: &Arc<Limits>,
    stats: Stats,
) -> Result<Stats, EngineError> {
    let plan = Arc::new(Plan::new(program, encoding, Part::Certain, &stats));
    if plan.rules.is_empty() {
        return Ok(stats);
    }
    let templates = Arc::new(Templates::new(program, encoding, &plan));
    let given = Arc::new(stats.into_rows());
    let (atoms, _, _) = run(&templates, &given, options, limits, None, To::Every)?;
    let mut rows = unshare(given);
    // Every relation tested, with no certain atom too: the plans read them all.
    for rule in &plan.rules {
        rows.entry(rule.head_rel).or_default();
    }
    for (rel, row) in merged(atoms) {
        rows.entry(rel).or_default().push(row);
    }
    Ok(Stats::new(rows, Arc::new(encoding.arities())))
}

/// The result of a second run: the given relations' rows and the atoms each worker computed
/// (sorted), all sorted (the certain atoms, given under ids past the program's relations, left
/// out; the atoms of split relations under the program's ids, each once).
///
/// In one pass, each atom moved once: in each list, a relation's atoms (of the plan's
/// relations: the parts split from a relation have ids of their own) are a sorted run, so
/// each relation of the program is a merge of its runs. A sort of all the atoms after
/// merging the workers' lists took amazonsTorus 80 ms on two workers (and the merge 30 ms),
/// on the calling thread alone.
pub fn gather(
    plan: &Plan,
    given: Arc<Tables>,
    computed: Vec<Vec<(RelId, Row)>>,
    instances: Instances,
) -> Instantiation {
    let mut given = unshare(given);
    given.retain(|rel, _| (*rel as usize) < plan.is_static.len() && !plan.is_demand(*rel));
    // The computed atoms are under the plan's ids (split parts and frame relations mapped
    // back by `original`), the given rows under the program's already.
    let planned = computed.len();
    let mut lists = computed;
    for (rel, mut rows) in given {
        if !rows.is_sorted_by(|a, b| a < b) {
            rows.sort_unstable();
            rows.dedup();
        }
        lists.push(rows.into_iter().map(|row| (rel, row)).collect());
    }
    let mut runs: BTreeMap<RelId, Vec<(usize, Range<usize>)>> = BTreeMap::new();
    for (l, list) in lists.iter().enumerate() {
        let mut start = 0;
        for run in list.chunk_by(|a, b| a.0 == b.0) {
            let rel = match l < planned {
                true => plan.original(run[0].0),
                false => run[0].0,
            };
            if !plan.is_demand(rel) {
                runs.entry(rel)
                    .or_default()
                    .push((l, start..start + run.len()));
            }
            start += run.len();
        }
    }
    let mut atoms = Vec::with_capacity(lists.iter().map(Vec::len).sum());
    for (rel, mut runs) in runs {
        merge_runs(&mut lists, &mut runs, rel, &mut atoms);
    }
    Instantiation {
        atoms: Arc::new(atoms),
        is_static: plan.is_static.clone(),
        is_given: plan.is_given.clone(),
        instances,
    }
}

/// Moves the rows of `runs` (each a run of `lists`: a list and a range in it, sorted without
/// repeats, as `gather` makes them) to `out` as atoms of `rel`, merged: sorted, each once (a
/// row in several runs goes once; a run is advanced by one row per row taken, so a repeat
/// within a run would go twice). Each run's next row is compared once,
/// with the least so far, which says both which is least and which are equal: one comparison
/// per row for two runs (on two workers most relations are two runs, one per worker) and none
/// for one, where finding the least and then skipping its equals took three and one
/// (crisscross at `-w 2`: 79 → 64 ms; ruleDepthExponential's rows of 20 tokens at `-w 1`:
/// 181–215 → 63–65 ms).
fn merge_runs(
    lists: &mut [Vec<(RelId, Row)>],
    runs: &mut [(usize, Range<usize>)],
    rel: RelId,
    out: &mut Vec<(RelId, Row)>,
) {
    use std::cmp::Ordering::{Equal, Greater};
    // The runs whose next row is the least: the same atom in several runs (a split
    // relation's parts may share some) goes once.
    let mut least: SmallVec<[usize; 4]> = SmallVec::new();
    loop {
        least.clear();
        let mut min: Option<&Row> = None;
        for (k, run) in runs.iter().enumerate() {
            let Some(row) = next(lists, run) else {
                continue;
            };
            match min.map(|min| row.cmp(min)) {
                Some(Greater) => {}
                Some(Equal) => least.push(k),
                _ => {
                    least.clear();
                    least.push(k);
                    min = Some(row);
                }
            }
        }
        let Some(&first) = least.first() else { return };
        let (l, range) = &runs[first];
        out.push((rel, std::mem::take(&mut lists[*l][range.start].1)));
        for &k in &least {
            runs[k].1.start += 1;
        }
    }
}

/// The next row of `run` (a list and a range in it) in `lists`, if any is left.
fn next<'a>(lists: &'a [Vec<(RelId, Row)>], (l, range): &(usize, Range<usize>)) -> Option<&'a Row> {
    (range.start < range.end).then(|| &lists[*l][range.start].1)
}

/// The given relations back from a finished run: the workers are done with their shares, so
/// without a copy.
pub fn unshare(given: Arc<Tables>) -> Tables {
    Arc::try_unwrap(given).unwrap_or_else(|shared| (*shared).clone())
}

/// The rows of the relations defined by ground facts only: what is known before running.
pub(super) fn facts(program: &Program, encoding: &Encoding) -> Tables {
    let derived = derived_relations(program);
    let mut tables = Tables::new();
    // Every rule of a relation not derived is a ground fact: its head's pattern is tokens,
    // written straight into the row (a live session finds every version's facts).
    for rule in (program.rules.iter()).filter(|rule| !derived[rule.head.rel as usize]) {
        let mut row = Row::new();
        each_item(program, encoding, &rule.head.args, &mut |item| {
            if let Item::Tok(t) = item {
                row.push(t);
            }
        });
        tables.entry(rule.head.rel).or_default().push(row);
    }
    for rows in tables.values_mut() {
        rows.sort_unstable();
        rows.dedup();
    }
    tables
}

/// Whether each relation of `program` has a rule other than a ground fact (a body, or a
/// variable in its head): the relations not defined by facts alone.
pub(super) fn derived_relations(program: &Program) -> Vec<bool> {
    let mut derived = vec![false; program.relations.len()];
    for rule in &program.rules {
        let ground = (rule.head.args.iter()).all(|t| matches!(t, Term::Ground(_)));
        derived[rule.head.rel as usize] |= !(rule.body.is_empty() && ground);
    }
    derived
}

/// Called after each round of a shrinking run, on one worker.
pub type OnRound = Arc<dyn Fn(&Round) + Send + Sync>;

/// The plan's [`supports`](Plan::supports) among the relations `given`: the relations a
/// shrinking run shrinks, each with the relations whose atoms keep its rows.
pub fn shrinking(plan: &Plan, given: &Tables) -> Vec<(RelId, Vec<RelId>)> {
    plan.supports
        .iter()
        .filter(|(rel, _)| given.contains_key(rel))
        .cloned()
        .collect()
}

/// The given relations a run of `plan` reads: those its rules join with or test, and those it
/// narrows or narrows by ([`Plan::supports`]). Only these are fed to its dataflow: a live
/// edit's static run of skirmish was given every static relation, 9,409 rows, and read 137.
fn read_in_run(plan: &Plan) -> FastSet<RelId> {
    let narrowing = (plan.supports.iter()).flat_map(|(rel, by)| std::iter::once(rel).chain(by));
    (plan.rules.iter())
        .flat_map(|rule| rule.reads())
        .chain(narrowing.copied())
        .collect()
}

/// One round of the reduction loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    /// 0 for the derivation from the seeds, then 1, 2, …
    pub index: usize,
    /// Rows the round retracts, per shrinking relation (in the order of the shrinking relations).
    pub removed: Vec<usize>,
    /// Atoms of the derived (not given) relations after the round.
    pub atoms: usize,
    /// How long the round's derivation took.
    pub elapsed: std::time::Duration,
}

/// The workers' shared state for a shrinking run: a barrier and each round's retractions.
struct Rounds {
    on_round: OnRound,
    barrier: Barrier,
    removed: Mutex<Vec<Vec<usize>>>,
}

/// What a worker gathers: its atoms (those whose updates add up to a positive number on it,
/// sorted), instances, and the rows it retracted from shrinking relations. A worker's count
/// of an atom is never negative, so an atom is in S* exactly when some worker keeps it.
pub(super) type Gathered = (Vec<(RelId, Row)>, Instances, Vec<(RelId, Row)>);

/// What a run yields: atoms of the relations it computes (consolidated; each worker's, sorted:
/// see [`merged`]), instances and the rows retracted from shrinking relations.
pub type Outcome = (Vec<Vec<(RelId, Row)>>, Instances, Vec<(RelId, Row)>);

/// The workers' atoms of a run's [`Outcome`] as one sorted list.
pub fn merged(atoms: Vec<Vec<(RelId, Row)>>) -> Vec<(RelId, Row)> {
    parallel::merge_sorted(atoms)
}

/// Runs the plan of `templates` on timely workers with the relations `given`, returning the
/// atoms of the relations it computes and the instances of its rules with dynamic heads. The
/// workers consolidate the bindings and instantiate the rules themselves, in parallel. With
/// `on_round`, the run is the reduction loop (GDL.md §2, steps 3–5) over the [`shrinking`]
/// relations: after each round every row of theirs that none of its supporting relations
/// derived is retracted from the running dataflow, which updates incrementally, and the run
/// ends when a round retracts nothing.
pub fn run(
    templates: &Arc<Templates>,
    given: &Arc<Tables>,
    options: &Options,
    limits: &Arc<Limits>,
    on_round: Option<OnRound>,
    to: To,
) -> Result<Outcome, EngineError> {
    let atom_count = Arc::new(AtomicIsize::new(0));
    let (t, l, count, deadline, max_atoms) = (
        templates.clone(),
        limits.clone(),
        atom_count.clone(),
        options.deadline,
        options.max_atoms as isize,
    );
    let given = given.clone();
    let workers = options.workers.max(1);
    if options.cluster.is_some() && on_round.is_some() {
        return Err(EngineError::Cluster(
            "the domain loop runs in one process (leave out -n)".into(),
        ));
    }
    // With several processes, the run's fingerprint, which they all must share: its plan and
    // the sizes of its given relations (a process alone hashes nothing).
    let cluster = options.cluster.clone().map(|cluster| {
        let sizes: Vec<(RelId, usize)> = given.iter().map(|(r, rows)| (*r, rows.len())).collect();
        (
            cluster,
            fingerprint((format!("{:?}", templates.plan), sizes)),
        )
    });
    let processes = cluster.as_ref().map(|(c, _)| c.processes());
    let shrinks = match on_round {
        Some(_) => shrinking(&templates.plan, &given),
        None => Vec::new(),
    };
    let rounds = on_round.map(|on_round| {
        Arc::new(Rounds {
            on_round,
            barrier: Barrier::new(workers),
            removed: Mutex::default(),
        })
    });
    let lookups = Arc::new(Lookups::new(&templates.plan, &given));
    let read = read_in_run(&templates.plan);
    let work = move |worker: &mut timely::worker::Worker| -> Vec<Gathered> {
        let atoms: Rc<RefCell<Vec<(RelId, Row, Diff)>>> = Rc::default();
        // Without rounds, the updates of the bindings, netted at the end.
        let tally = Tally::default();
        // With rounds, bindings come and go: they are kept with their changes and turned
        // into instances at the end, once each binding's multiplicity is final.
        let bindings: Rc<RefCell<Vec<(usize, Row, Diff)>>> = Rc::default();
        let stale: Vec<Rc<RefCell<FastMap<Row, Diff>>>> =
            shrinks.iter().map(|_| Rc::default()).collect();
        let p = &t.plan;
        let probe = ProbeHandle::new();
        let dataflow_id = worker.next_dataflow_index();
        let (mut unit_input, mut inputs) = worker.dataflow::<u32, _, _>(|scope| {
            let (input, unit) = scope.new_collection::<Row, Diff>();
            let mut inputs = Vec::new();
            let mut relations = BTreeMap::new();
            for &rel in given.keys().filter(|rel| read.contains(rel)) {
                let (handle, rows) = scope.new_collection::<Row, Diff>();
                inputs.push((rel, handle));
                relations.insert(rel, rows);
            }
            let outputs = dataflow::build(
                scope,
                p,
                unit,
                relations.clone(),
                &lookups,
                &l,
                rounds.is_some(),
            );
            for ((rel, support), sink) in shrinks.iter().zip(&stale) {
                let supported: Vec<_> = support
                    .iter()
                    .filter_map(|s| outputs.supports.get(s).or(relations.get(s)).cloned())
                    .collect();
                let supported = differential_dataflow::collection::concatenate(scope, supported);
                let sink = sink.clone();
                relations[rel]
                    .clone()
                    .map(|row| (row, ()))
                    .antijoin(supported.distinct())
                    // The antijoin's own rows stay where they were inserted and its
                    // retractions go where the key lives: bring them together.
                    .consolidate()
                    .inspect(move |((row, ()), _, diff)| {
                        let mut stale = sink.borrow_mut();
                        let count = stale.entry(row.clone()).or_insert(0);
                        *count += diff;
                        if *count == 0 {
                            stale.remove(row);
                        }
                    })
                    .probe_with(&probe);
            }
            let (sink, count, limits, plan) = (atoms.clone(), count.clone(), l.clone(), t.clone());
            outputs
                .atoms
                .inspect_batch(move |_, batch| {
                    // Atoms of the game are counted (for --max-atoms and the rounds' report),
                    // a batch at a time: the counters are shared by the workers, and adding
                    // to them atom by atom had the workers take the counters' cache line
                    // from each other.
                    let mut game = 0;
                    let mut sink = sink.borrow_mut();
                    for ((rel, row), _, diff) in batch {
                        if plan.plan.is_game(*rel) {
                            game += diff;
                        }
                        sink.push((*rel, row.clone(), *diff));
                    }
                    if game != 0 {
                        limits.derived(game);
                        if count.fetch_add(game, Ordering::Relaxed) + game > max_atoms {
                            limits.fail(EngineError::TooManyAtoms);
                        }
                    }
                })
                .probe_with(&probe);
            let kept: Vec<bool> = (p.rules.iter())
                .map(|rule| {
                    rule.source.is_some()
                        && !p.is_static[p.original(rule.head_rel) as usize]
                        && !p.is_demand(rule.head_rel)
                })
                .collect();
            let kept = move |(r, _): &(usize, Row)| kept[*r];
            let instances = outputs.instances.filter(kept.clone());
            let made_once = outputs.made_once.filter(kept);
            match rounds {
                // Without rounds, netted once the run is complete ([`Tally`]); those made
                // once need no netting.
                None => {
                    tally.collect(instances).probe_with(&probe);
                    tally.keep(made_once).probe_with(&probe);
                }
                // Consolidated, each binding comes once per time, with its change in
                // multiplicity (an antijoin's retractions cancelled), always on the same
                // worker.
                Some(_) => {
                    let changes = bindings.clone();
                    instances
                        .concat(made_once)
                        .consolidate()
                        .inspect(move |((r, row), _, diff)| {
                            changes.borrow_mut().push((*r, row.clone(), *diff));
                        })
                        .probe_with(&probe);
                }
            }
            (input, inputs)
        });
        if worker.index() == 0 {
            unit_input.insert(Row::new());
        }
        unit_input.close();
        let (index, peers) = (worker.index(), worker.peers());
        for (rel, handle) in &mut inputs {
            let rows = &given[rel];
            (index..rows.len())
                .step_by(peers)
                .for_each(|i| handle.insert(rows[i].clone()));
        }
        let mut retracted = Vec::new();
        let step_until = |worker: &mut timely::worker::Worker, done: &dyn Fn() -> bool| {
            super::steps::step_until(worker, &l, deadline, dataflow_id, done)
        };
        if let Some(rounds) = &rounds {
            for round in 0.. {
                let start = Instant::now();
                let time = round as u32 + 1;
                inputs.iter_mut().for_each(|(_, h)| h.advance_to(time));
                inputs.iter_mut().for_each(|(_, h)| h.flush());
                let finished = step_until(worker, &|| !probe.less_than(&time));
                let mut removed = vec![0; shrinks.len()];
                for (i, ((rel, _), sink)) in shrinks.iter().zip(&stale).enumerate() {
                    if !finished {
                        break;
                    }
                    let handle = &mut inputs.iter_mut().find(|(r, _)| r == rel).expect("given").1;
                    for (row, _) in sink.borrow().iter().filter(|(_, &count)| count > 0) {
                        handle.remove(row.clone());
                        retracted.push((*rel, row.clone()));
                        removed[i] += 1;
                    }
                }
                let total = {
                    let mut all = rounds.removed.lock().expect("round counts");
                    if all.len() <= round {
                        all.push(vec![0; shrinks.len()]);
                    }
                    all[round]
                        .iter_mut()
                        .zip(&removed)
                        .for_each(|(a, b)| *a += b);
                    drop(all);
                    rounds.barrier.wait();
                    rounds.removed.lock().expect("round counts")[round].clone()
                };
                let stop = l.stopped();
                if index == 0 && !stop {
                    (rounds.on_round)(&Round {
                        index: round,
                        removed: total.clone(),
                        atoms: count.load(Ordering::Relaxed).max(0) as usize,
                        elapsed: start.elapsed(),
                    });
                }
                // Everyone decides on the same numbers before anyone steps again.
                rounds.barrier.wait();
                if stop || total.iter().all(|&n| n == 0) {
                    break;
                }
            }
        }
        inputs.into_iter().for_each(|(_, handle)| handle.close());
        if l.stopped() || !step_until(worker, &|| probe.done()) {
            // Nothing of a stopped run is used: netting and instantiating what it made would
            // only take more memory past a limit. The dataflow goes too (again, if stepping
            // dropped it): a worker that saw another stop before stepping would otherwise
            // wait at its end for the peers' progress, which never comes.
            worker.drop_dataflow(dataflow_id);
            return Vec::new();
        }
        let atoms: Vec<_> = positive(std::mem::take(&mut *atoms.borrow_mut())).collect();
        let mut instances = Instances::default();
        let mut ranges: Vec<Ranges> = p.rules.iter().map(|r| Ranges::new(r.vars)).collect();
        for (r, row) in tally.bindings() {
            t.instance(r, &row, &mut ranges[r], &mut instances);
        }
        // After round 0 the loop only retracts, and every operator is monotone in the
        // shrinking relations (antijoins read only static relations): a binding is added at
        // most once and retracted at most once, so no sort is needed to net the changes.
        let changes = std::mem::take(&mut *bindings.borrow_mut());
        let gone: FastSet<(usize, &Row)> = changes
            .iter()
            .filter(|(_, _, diff)| *diff < 0)
            .map(|(r, row, _)| (*r, row))
            .collect();
        for (r, row, diff) in &changes {
            if *diff > 0 && !gone.contains(&(*r, row)) {
                t.instance(*r, row, &mut ranges[*r], &mut instances);
            }
        }
        let mine = (atoms, instances, retracted);
        match processes {
            Some(processes) => super::share::share(worker, mine, processes, to, &l, deadline),
            None => vec![mine],
        }
    };
    let mut all_atoms = Vec::new();
    let mut all_instances = Instances::default();
    let mut all_retracted = Vec::new();
    let results = match &cluster {
        Some((cluster, plan)) => {
            let stopped = limits.clone();
            let stopped = move || stopped.stopped();
            cluster.execute(workers, *plan, deadline, stopped, work)?
        }
        None => execute(workers, work)?,
    };
    if let Some(error) = limits.reason.lock().ok().and_then(|mut r| r.take()) {
        return Err(error);
    }
    for result in results {
        let gathered = result.map_err(|e| match cluster {
            // timely gives no message here: the worker failed because another process's
            // connection broke (a panic of this process would have printed its own).
            Some(_) => EngineError::Cluster(
                "the run broke off: another process stopped (its own error says why) or its connection was lost".into(),
            ),
            None => EngineError::Worker(e),
        })?;
        for (a, i, r) in gathered {
            all_atoms.push(a);
            all_instances.append(i);
            all_retracted.extend(r);
        }
    }
    Ok((all_atoms, all_instances, all_retracted))
}

/// Runs `work` on `workers` timely workers and returns what each gathered. One worker runs
/// on the calling thread: no thread to start and no fresh allocator arena to grow (about
/// 1–2 ms of ticTacToe's 10). A panic of that worker is an error, as a worker thread's is.
fn execute(
    workers: usize,
    work: impl Fn(&mut timely::worker::Worker) -> Vec<Gathered> + Send + Sync + 'static,
) -> Result<Vec<Result<Vec<Gathered>, String>>, EngineError> {
    if workers > 1 {
        let guards = timely::execute(timely::Config::process(workers), work);
        return Ok(guards.map_err(EngineError::Worker)?.join());
    }
    let run = std::panic::AssertUnwindSafe(|| timely::execute_directly(work));
    Ok(vec![std::panic::catch_unwind(run).map_err(|panic| {
        let text = panic.downcast_ref::<&str>().map(|s| s.to_string());
        text.or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the worker panicked".into())
    })])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list of atoms of relation `rel`, one per token.
    fn list(rel: RelId, tokens: &[u32]) -> Vec<(RelId, Row)> {
        tokens.iter().map(|&t| (rel, Row::from(&[t][..]))).collect()
    }

    #[test]
    fn a_run_reads_the_relations_its_rules_join_with_test_or_narrow() {
        let (mut plan, _, program) = super::super::split::tests::plans(
            "(role r) (init (cell 0)) (succ 0 1) (succ 1 2) (blocked 2) (unused 7)
            (<= (legal r (fill ?y)) (true (cell ?x)) (succ ?x ?y) (not (blocked ?y)))
            (<= (next (cell ?y)) (does r (fill ?y)))
            (<= terminal (true (cell 2))) (goal r 100)",
        );
        let rel = |name, arity| program.relation(name, arity).unwrap();
        let read = read_in_run(&plan);
        assert!(read.contains(&rel("succ", 2)), "a join's relation");
        assert!(read.contains(&rel("blocked", 1)), "a negation's relation");
        assert!(
            !read.contains(&rel("unused", 1)),
            "a relation no rule reads"
        );
        // Every relation but `terminal` and `goal` is read by a rule of the relaxed program; a
        // relation that narrows another (here `terminal`, narrowing `does`) is read too.
        assert!(!read.contains(&rel("terminal", 0)));
        plan.supports
            .push((rel("does", 2), vec![rel("terminal", 0)]));
        assert!(
            read_in_run(&plan).contains(&rel("terminal", 0)),
            "a narrowing relation"
        );
    }

    #[test]
    fn runs_are_merged_sorted_and_each_atom_kept_once() {
        // Two workers' lists; relation 5's parts 1 and 2 (split) share the atom 4.
        let mut a = list(1, &[1, 4, 9]);
        a.extend(list(3, &[2]));
        let mut b = list(2, &[0, 4, 7]);
        b.extend(list(3, &[1, 3]));
        let mut lists = vec![a, b];
        let mut out = Vec::new();
        merge_runs(&mut lists, &mut [(0, 0..3), (1, 0..3)], 5, &mut out);
        merge_runs(&mut lists, &mut [(1, 3..5), (0, 3..4)], 3, &mut out);
        merge_runs(&mut lists, &mut [], 4, &mut out);
        let tokens: Vec<(RelId, u32)> = out.iter().map(|(rel, row)| (*rel, row[0])).collect();
        assert_eq!(
            tokens,
            [
                (5, 0),
                (5, 1),
                (5, 4),
                (5, 7),
                (5, 9),
                (3, 1),
                (3, 2),
                (3, 3)
            ]
        );
    }
}
