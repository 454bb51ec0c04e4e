//! Stepping a timely worker until a condition holds, under the run's limits.

use super::{EngineError, Limits};
use std::time::Instant;

/// Steps `worker` until `done`, checking the deadline and the memory limit as it goes;
/// `false` if the run stopped first (then the dataflow `dataflow_id` is dropped, since
/// timely would otherwise run it to completion).
pub fn step_until(
    worker: &mut timely::worker::Worker,
    limits: &Limits,
    deadline: Option<Instant>,
    dataflow_id: usize,
    done: &dyn Fn() -> bool,
) -> bool {
    let mut steps = 0u32;
    while !done() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            limits.fail(EngineError::Deadline);
        }
        steps = steps.wrapping_add(1);
        if steps.is_multiple_of(64) {
            limits.check_memory();
        }
        if limits.stopped() {
            worker.drop_dataflow(dataflow_id);
            return false;
        }
        // Park (briefly) rather than spin when idle: on a busy machine a spinning worker
        // takes the core its peer needs.
        worker.step_or_park(Some(std::time::Duration::from_millis(1)));
    }
    true
}
