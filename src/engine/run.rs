//! Running the dataflow on timely workers and gathering a deterministic result.

use super::dataflow::{self, Diff};
use super::pattern::{pattern, Item, Pattern, Ranges, Row};
use super::plan::{Part, Plan};
use super::stats::Stats;
use super::{EngineError, GroundLiteral, Instance, Instantiation, Limits, Options};
use crate::program::encoding::Encoding;
use crate::program::{Literal, Program, RelId};
use differential_dataflow::input::Input;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use timely::dataflow::ProbeHandle;

/// What one worker gathers: atoms by relation, and instances.
type Gathered = (Vec<(RelId, Row, Diff)>, Vec<Instance>);

/// What a run yields: atoms by relation (consolidated, sorted) and instances.
type Outcome = (Vec<(RelId, Row)>, Vec<Instance>);

/// Relations' rows, by relation.
type Tables = BTreeMap<RelId, Vec<Row>>;

/// Computes S* and the ground instances of `program` (classic model), in two runs: the
/// exactly computed static relations first, then the rest, planned with their sizes known.
pub fn instantiate(
    program: &Program,
    encoding: &Encoding,
    options: &Options,
) -> Result<Instantiation, EngineError> {
    let arities = Arc::new(encoding.arities());
    let limits = Arc::new(Limits {
        max_depth: options.max_depth,
        stop: AtomicBool::new(false),
        reason: Mutex::new(None),
    });
    let atom_count = Arc::new(AtomicUsize::new(0));
    let facts = Stats::new(facts(program, encoding), arities.clone());
    let exact = Arc::new(Plan::new(program, encoding, Part::Exact, &facts));
    let templates = Arc::new(Instances::new(program, encoding, &exact));
    let none = Arc::new(Tables::new());
    let (exact_atoms, _) = run(&templates, &none, options, &limits, &atom_count)?;
    let mut given = Tables::new();
    for (rel, row) in exact_atoms {
        given.entry(rel).or_default().push(row);
    }
    let stats = Stats::new(given, arities);
    let plan = Arc::new(Plan::new(program, encoding, Part::Rest, &stats));
    let given = Arc::new(stats.into_rows());
    let templates = Arc::new(Instances::new(program, encoding, &plan));
    let (rest, instances) = run(&templates, &given, options, &limits, &atom_count)?;
    // The workers are done with their shares of `given`: take the rows back without a copy.
    let given = Arc::try_unwrap(given).unwrap_or_else(|shared| (*shared).clone());
    let mut atoms: Vec<(RelId, Row)> = given
        .into_iter()
        .flat_map(|(rel, rows)| rows.into_iter().map(move |row| (rel, row)))
        .chain(rest)
        .collect();
    atoms.sort_unstable();
    Ok(Instantiation {
        atoms,
        is_static: plan.is_static.clone(),
        instances,
    })
}

/// The rows of the relations defined by ground facts only: what is known before running.
fn facts(program: &Program, encoding: &Encoding) -> Tables {
    let mut tables = Tables::new();
    let mut derived = vec![false; program.relations.len()];
    for rule in &program.rules {
        let p = pattern(program, encoding, &rule.head.args);
        let ground: Option<Row> = p
            .iter()
            .map(|i| match i {
                Item::Tok(t) => Some(*t),
                Item::Var(_) => None,
            })
            .collect();
        match ground {
            Some(row) if rule.body.is_empty() => tables.entry(rule.head.rel).or_default().push(row),
            _ => derived[rule.head.rel as usize] = true,
        }
    }
    tables.retain(|rel, rows| {
        rows.sort_unstable();
        rows.dedup();
        !derived[*rel as usize]
    });
    tables
}

/// Runs the plan of `templates` on timely workers with the relations `given`, returning the
/// atoms of the relations it computes and the instances of its rules with dynamic heads. The
/// workers consolidate the bindings and instantiate the rules themselves, in parallel.
fn run(
    templates: &Arc<Instances>,
    given: &Arc<Tables>,
    options: &Options,
    limits: &Arc<Limits>,
    atom_count: &Arc<AtomicUsize>,
) -> Result<Outcome, EngineError> {
    let (t, l, count, deadline, max_atoms) = (
        templates.clone(),
        limits.clone(),
        atom_count.clone(),
        options.deadline,
        options.max_atoms,
    );
    let given = given.clone();
    let config = timely::Config::process(options.workers.max(1));
    let guards = timely::execute(config, move |worker| -> Gathered {
        let atoms: Rc<RefCell<Vec<(RelId, Row, Diff)>>> = Rc::default();
        let instances: Rc<RefCell<Vec<Instance>>> = Rc::default();
        let p = &t.plan;
        let probe = ProbeHandle::new();
        let dataflow_id = worker.next_dataflow_index();
        let (mut unit_input, mut inputs) = worker.dataflow::<u32, _, _>(|scope| {
            let (input, unit) = scope.new_collection::<Row, Diff>();
            let mut inputs = Vec::new();
            let mut relations = BTreeMap::new();
            for &rel in given.keys() {
                let (handle, rows) = scope.new_collection::<Row, Diff>();
                inputs.push((rel, handle));
                relations.insert(rel, rows);
            }
            let outputs = dataflow::build(scope, p, unit, relations, &l);
            for (rel, rows) in outputs.relations {
                let (sink, count, limits) = (atoms.clone(), count.clone(), l.clone());
                rows.inspect(move |(row, _, diff)| {
                    if *diff > 0 && count.fetch_add(1, Ordering::Relaxed) >= max_atoms {
                        limits.fail(EngineError::TooManyAtoms);
                    }
                    sink.borrow_mut().push((rel, row.clone(), *diff));
                })
                .probe_with(&probe);
            }
            for (r, rows) in outputs.instances {
                let rule = &p.rules[r];
                if rule.source.is_none() || p.is_static[rule.head_rel as usize] {
                    continue;
                }
                let (sink, templates) = (instances.clone(), t.clone());
                let mut ranges = Ranges::new(rule.vars);
                // All updates are at time 0: consolidated, each binding comes once, with its
                // final multiplicity (an antijoin's retractions cancelled).
                rows.consolidate()
                    .inspect(move |(row, _, diff)| {
                        if *diff > 0 {
                            let instance = templates.instance(r, row, &mut ranges);
                            sink.borrow_mut().extend(instance);
                        }
                    })
                    .probe_with(&probe);
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
        inputs.into_iter().for_each(|(_, handle)| handle.close());
        while !probe.done() {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                l.fail(EngineError::Deadline);
            }
            if l.stopped() {
                // timely would otherwise run the unfinished dataflow to completion.
                worker.drop_dataflow(dataflow_id);
                break;
            }
            // Park (briefly) rather than spin when idle: on a busy machine a spinning worker
            // takes the core its peer needs.
            worker.step_or_park(Some(std::time::Duration::from_millis(1)));
        }
        let atoms = std::mem::take(&mut *atoms.borrow_mut());
        let instances = std::mem::take(&mut *instances.borrow_mut());
        (atoms, instances)
    })
    .map_err(EngineError::Worker)?;
    let mut all_atoms = Vec::new();
    let mut all_instances = Vec::new();
    for result in guards.join() {
        let (a, i) = result.map_err(EngineError::Worker)?;
        all_atoms.extend(a);
        all_instances.extend(i);
    }
    if let Some(error) = limits.reason.lock().ok().and_then(|mut r| r.take()) {
        return Err(error);
    }
    Ok((consolidate(all_atoms), all_instances))
}

/// The records whose multiplicities add up to a positive number, sorted.
fn consolidate<K: Ord + Clone>(mut updates: Vec<(K, Row, Diff)>) -> Vec<(K, Row)> {
    updates.sort_unstable_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let mut out: Vec<(K, Row)> = Vec::new();
    let mut i = 0;
    while i < updates.len() {
        let mut j = i;
        let mut sum = 0;
        while j < updates.len() && updates[j].0 == updates[i].0 && updates[j].1 == updates[i].1 {
            sum += updates[j].2;
            j += 1;
        }
        if sum > 0 {
            out.push((updates[i].0.clone(), updates[i].1.clone()));
        }
        i = j;
    }
    out
}

/// A literal kept in instances: whether negated, its relation and arguments.
type KeptLiteral = (bool, RelId, Pattern);

/// Turns bindings into instances: the head and the dynamic body literals, instantiated.
struct Instances {
    plan: Arc<Plan>,
    /// Per program rule: its head pattern and the literals kept in instances.
    rules: Vec<(Pattern, Vec<KeptLiteral>)>,
}

impl Instances {
    fn new(program: &Program, encoding: &Encoding, plan: &Arc<Plan>) -> Instances {
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
        Instances {
            plan: plan.clone(),
            rules,
        }
    }

    /// The instance of rule plan `r` for `binding` (`None` for the dynamics rules, which are
    /// not rules of the program); `ranges` is scratch room for the plan's variables.
    fn instance(&self, r: usize, binding: &Row, ranges: &mut Ranges) -> Option<Instance> {
        let plan = &self.plan.rules[r];
        let source = plan.source?;
        ranges.read_binding(&plan.binding, binding, &self.plan.arities);
        let (head, kept) = &self.rules[source];
        let mut head_row = Row::new();
        ranges.instantiate(head, binding, &mut head_row);
        let body = kept
            .iter()
            .map(|(negated, rel, p)| {
                let mut args = Row::new();
                ranges.instantiate(p, binding, &mut args);
                GroundLiteral {
                    negated: *negated,
                    rel: *rel,
                    args,
                }
            })
            .collect();
        Some(Instance {
            rule: source,
            head_rel: plan.head_rel,
            head: head_row,
            body,
        })
    }
}
