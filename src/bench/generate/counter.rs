//! A step counter: one player ticks from 0 to n; the game ends at n. Its reachable states form
//! a chain, so a bottom-up grounder needs n rounds to find them.

use super::facts;
use std::fmt::Write;

/// The counter to n, in KIF.
pub fn game(n: usize) -> String {
    let mut out = format!(
        "; A step counter to {n}, written by `gdlground generate counter {n}`.\n\n\
         (role counter)\n(init (step 0))\n"
    );
    facts(&mut out, "succ", (0..n).map(|i| format!("{i} {}", i + 1)));
    let _ = write!(
        out,
        "
(<= (legal counter tick) (true (step ?x)))
(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
(<= terminal (true (step {n})))
(<= (goal counter 100) (true (step {n})))
(<= (goal counter 0) (not (true (step {n}))))
"
    );
    out
}
