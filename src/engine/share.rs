//! Every worker's result of a run, sent to the first worker of each process that needs it.
//! With several processes ([`super::cluster`]) every process needs the static runs' results,
//! to plan the next run as the others do, and process 0 the last run's, to build the ground
//! program. In pieces of bounded size (a worker's atoms can be hundreds of megabytes),
//! through a dataflow of their own after the run's.

use super::run::Gathered;
use super::steps::step_until;
use super::{Instances, Limits, Row};
use crate::program::encoding::Token;
use crate::program::RelId;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::core::Probe;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::ProbeHandle;
use timely::worker::Worker;

/// Atoms per piece.
const ATOMS_PER_PIECE: usize = 1 << 15;

/// Which processes get a run's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum To {
    /// Every process: a run whose result the next run is planned with.
    Every,
    /// Process 0 alone: the last run, whose result only the process that builds and writes
    /// the ground program needs (the others would receive all of it for nothing).
    First,
}

/// A part of one worker's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
enum Piece {
    /// Some of its atoms, in order.
    Atoms(Vec<(RelId, Row)>),
    /// One arena of its instances.
    Arena(Vec<Token>),
    /// How many instances its arenas hold (sent once, first).
    Count(usize),
    /// Some of the rows it retracted.
    Retracted(Vec<(RelId, Row)>),
}

/// A piece on its way: the process it goes to, the worker it comes from, its place among
/// that worker's pieces, and the piece.
type Parcel = (u32, u32, u32, Piece);

/// Sends `mine`, this worker's result, to the first worker of each process of `processes`
/// that `to` names, and returns, on those workers, every worker's result in worker order
/// (nothing on the others, or if the run stopped).
pub fn share(
    worker: &mut Worker,
    mine: Gathered,
    processes: usize,
    to: To,
    limits: &Limits,
    deadline: Option<Instant>,
) -> Vec<Gathered> {
    let threads = (worker.peers() / processes).max(1) as u64;
    let received: Rc<RefCell<Vec<Parcel>>> = Rc::default();
    let probe = ProbeHandle::new();
    let id = worker.next_dataflow_index();
    let mut input = worker.dataflow::<u32, _, _>(|scope| {
        let (input, stream) = scope.new_input::<Parcel>();
        let sink = received.clone();
        let to_first = Exchange::new(move |parcel: &Parcel| parcel.0 as u64 * threads);
        // Taken, not cloned; the output is empty, and its frontier passes once every parcel
        // has been taken.
        stream
            .unary::<CapacityContainerBuilder<Vec<Parcel>>, _, _, _>(to_first, "Share", |_, _| {
                move |input, _output| input.for_each(|_, data| sink.borrow_mut().append(data))
            })
            .probe_with(&probe);
        input
    });
    let from = worker.index() as u32;
    let targets = match to {
        To::Every => processes as u32,
        To::First => 1,
    };
    for (seq, piece) in pieces(mine).enumerate() {
        for target in 1..targets {
            input.send((target, from, seq as u32, piece.clone()));
        }
        input.send((0, from, seq as u32, piece));
    }
    input.close();
    if !step_until(worker, limits, deadline, id, &|| probe.done()) {
        return Vec::new();
    }
    let mut parcels = std::mem::take(&mut *received.borrow_mut());
    parcels.sort_unstable_by_key(|p| (p.1, p.2));
    let mut results: Vec<(Gathered, Vec<Vec<Token>>, usize)> = Vec::new();
    let mut last = None;
    for (_, from, _, piece) in parcels {
        if last != Some(from) {
            results.push(Default::default());
            last = Some(from);
        }
        let ((atoms, _, retracted), arenas, count) = results.last_mut().expect("pushed");
        match piece {
            Piece::Atoms(a) => atoms.extend(a),
            Piece::Arena(arena) => arenas.push(arena),
            Piece::Count(n) => *count = n,
            Piece::Retracted(r) => retracted.extend(r),
        }
    }
    (results.into_iter())
        .map(|((atoms, _, retracted), arenas, count)| {
            (atoms, Instances::from_arenas(arenas, count), retracted)
        })
        .collect()
}

/// `gathered` in pieces, its count of instances first (so that every worker sends one).
fn pieces(gathered: Gathered) -> impl Iterator<Item = Piece> {
    let (atoms, instances, retracted) = gathered;
    let (arenas, count) = instances.into_arenas();
    std::iter::once(Piece::Count(count))
        .chain(chunks(atoms).map(Piece::Atoms))
        .chain(arenas.into_iter().map(Piece::Arena))
        .chain(chunks(retracted).map(Piece::Retracted))
}

/// `rows` in chunks of [`ATOMS_PER_PIECE`], each row moved once.
fn chunks(rows: Vec<(RelId, Row)>) -> impl Iterator<Item = Vec<(RelId, Row)>> {
    let mut rows = rows.into_iter();
    std::iter::from_fn(move || {
        let chunk: Vec<_> = rows.by_ref().take(ATOMS_PER_PIECE).collect();
        (!chunk.is_empty()).then_some(chunk)
    })
}
