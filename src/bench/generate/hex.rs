//! Hex on an n×n rhombus: red joins the top row to the bottom row, blue the left column to the
//! right one; players alternate placing a stone on an empty cell.

use super::facts;
use std::fmt::Write;

/// The six neighbours of a cell on the hex grid, as (dx, dy).
const NEIGHBOURS: [(i64, i64); 6] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)];

/// Hex on an n×n board, in KIF.
pub fn game(n: usize) -> String {
    let mut out = format!(
        "; Hex on a {n}x{n} board, written by `gdlground generate hex {n}`.\n\
         ; Red joins row 1 to row {n}, blue column 1 to column {n}.\n\n\
         (role red) (role blue)\n(colour red) (colour blue) (colour b)\n"
    );
    facts(&mut out, "index", 1..=n);
    let size = n as i64;
    for x in 1..=size {
        for y in 1..=size {
            for (dx, dy) in NEIGHBOURS {
                let (a, b) = (x + dx, y + dy);
                if (1..=size).contains(&a) && (1..=size).contains(&b) {
                    let _ = writeln!(out, "(adjacent {x} {y} {a} {b})");
                }
            }
        }
    }
    let _ = write!(
        out,
        "
(<= (base (cell ?x ?y ?c)) (index ?x) (index ?y) (colour ?c))
(<= (base (control ?p)) (role ?p))
(<= (input ?p (place ?x ?y)) (role ?p) (index ?x) (index ?y))
(<= (input ?p noop) (role ?p))

(<= (init (cell ?x ?y b)) (index ?x) (index ?y))
(init (control red))

(<= (legal ?p (place ?x ?y)) (true (control ?p)) (true (cell ?x ?y b)))
(<= (legal red noop) (true (control blue)))
(<= (legal blue noop) (true (control red)))

(<= (placed ?x ?y) (does ?p (place ?x ?y)))
(<= (next (cell ?x ?y ?p)) (does ?p (place ?x ?y)))
(<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (not (placed ?x ?y)))
(<= (next (control red)) (true (control blue)))
(<= (next (control blue)) (true (control red)))

(<= (reach red ?x 1) (true (cell ?x 1 red)))
(<= (reach blue 1 ?y) (true (cell 1 ?y blue)))
(<= (reach ?p ?a ?b) (reach ?p ?x ?y) (adjacent ?x ?y ?a ?b) (true (cell ?a ?b ?p)))
(<= (won red) (reach red ?x {n}))
(<= (won blue) (reach blue {n} ?y))
(<= open (true (cell ?x ?y b)))

(<= (goal ?p 100) (role ?p) (won ?p))
(<= (goal ?p 0) (role ?p) (not (won ?p)))
(<= terminal (role ?p) (won ?p))
(<= terminal (not open))
"
    );
    out
}
