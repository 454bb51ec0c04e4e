//! Connect four on a board n columns wide and 6 rows high: players drop a disc into a column
//! whose top cell is empty; four in a row, column or diagonal wins.

use super::facts;
use std::fmt::Write;

/// The board's height.
const ROWS: usize = 6;

/// Connect four n columns wide, in KIF.
pub fn game(n: usize) -> String {
    let mut out = format!(
        "; Connect four on a board {n} wide and {ROWS} high, written by \
         `gdlground generate connectfour {n}`.\n\n\
         (role white) (role black)\n(opponent white black) (opponent black white)\n"
    );
    facts(&mut out, "column", 1..=n);
    facts(&mut out, "row", 1..=ROWS);
    facts(
        &mut out,
        "nextcol",
        (1..n).map(|c| format!("{c} {}", c + 1)),
    );
    facts(
        &mut out,
        "nextrow",
        (1..ROWS).map(|r| format!("{r} {}", r + 1)),
    );
    let _ = write!(
        out,
        "
(<= (init (cell ?c ?r b)) (column ?c) (row ?r))
(init (control white))

(<= (legal ?p (drop ?c)) (true (control ?p)) (true (cell ?c {ROWS} b)))
(<= (legal white noop) (true (control black)))
(<= (legal black noop) (true (control white)))

(<= (supported ?c 1) (column ?c))
(<= (supported ?c ?r) (nextrow ?s ?r) (true (cell ?c ?s ?x)) (distinct ?x b))
(<= (landing ?c ?r) (does ?p (drop ?c)) (true (cell ?c ?r b)) (supported ?c ?r))
(<= (next (cell ?c ?r ?p)) (does ?p (drop ?c)) (true (cell ?c ?r b)) (supported ?c ?r))
(<= (next (cell ?c ?r ?x)) (true (cell ?c ?r ?x)) (distinct ?x b))
(<= (next (cell ?c ?r b)) (true (cell ?c ?r b)) (not (landing ?c ?r)))
(<= (next (control white)) (true (control black)))
(<= (next (control black)) (true (control white)))

(<= (line ?p) (role ?p) (true (cell ?c ?r ?p)) (nextcol ?c ?c1) (true (cell ?c1 ?r ?p))
    (nextcol ?c1 ?c2) (true (cell ?c2 ?r ?p)) (nextcol ?c2 ?c3) (true (cell ?c3 ?r ?p)))
(<= (line ?p) (role ?p) (true (cell ?c ?r ?p)) (nextrow ?r ?r1) (true (cell ?c ?r1 ?p))
    (nextrow ?r1 ?r2) (true (cell ?c ?r2 ?p)) (nextrow ?r2 ?r3) (true (cell ?c ?r3 ?p)))
(<= (line ?p) (role ?p) (true (cell ?c ?r ?p))
    (nextcol ?c ?c1) (nextrow ?r ?r1) (true (cell ?c1 ?r1 ?p))
    (nextcol ?c1 ?c2) (nextrow ?r1 ?r2) (true (cell ?c2 ?r2 ?p))
    (nextcol ?c2 ?c3) (nextrow ?r2 ?r3) (true (cell ?c3 ?r3 ?p)))
(<= (line ?p) (role ?p) (true (cell ?c ?r ?p))
    (nextcol ?c ?c1) (nextrow ?r1 ?r) (true (cell ?c1 ?r1 ?p))
    (nextcol ?c1 ?c2) (nextrow ?r2 ?r1) (true (cell ?c2 ?r2 ?p))
    (nextcol ?c2 ?c3) (nextrow ?r3 ?r2) (true (cell ?c3 ?r3 ?p)))
(<= open (true (cell ?c ?r b)))

(<= (goal ?p 100) (role ?p) (line ?p))
(<= (goal ?p 0) (opponent ?p ?q) (line ?q))
(<= (goal ?p 50) (opponent ?p ?q) (not (line ?p)) (not (line ?q)))
(<= terminal (role ?p) (line ?p))
(<= terminal (not open))
"
    );
    out
}
