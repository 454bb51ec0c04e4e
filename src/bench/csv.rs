//! `results.csv`: one line per row, a header first, empty fields for what was not measured.
//!
//! Times are milliseconds with three decimals, memory KiB, ratios four decimals; `subset` is
//! `yes`, `no` or empty.

use super::format::{ms, opt, ratio, yes_no};
use super::row::Row;
use std::fmt::Write;

/// The header line's fields.
pub const COLUMNS: [&str; 26] = [
    "game",
    "family",
    "workers",
    "ours_status",
    "ours_ms",
    "ours_internal_ms",
    "ours_rss_kib",
    "bases",
    "actions",
    "atoms",
    "facts",
    "rules",
    "gringo_status",
    "gringo_ms",
    "gringo_rss_kib",
    "gringo_rules",
    "gringo_facts",
    "relaxed_status",
    "relaxed_ms",
    "relaxed_rss_kib",
    "s",
    "s_star",
    "subset",
    "s_ratio",
    "time_ratio",
    "rss_ratio",
];

/// The CSV text of `rows`, header included.
pub fn csv(rows: &[Row]) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for row in rows {
        let fields = fields(row);
        let line: Vec<String> = fields.iter().map(|f| quote(f)).collect();
        let _ = writeln!(out, "{}", line.join(","));
    }
    out
}

/// The fields of one row, in the order of [`COLUMNS`].
fn fields(row: &Row) -> Vec<String> {
    let counts = row.ours.counts;
    let count = |f: fn(&crate::ground::Counts) -> usize| counts.as_ref().map(f);
    let full = row.full.run;
    let relaxed = row.relaxed.run;
    vec![
        row.game.clone(),
        row.family.clone(),
        row.ours.workers.to_string(),
        row.ours.status.to_string(),
        ms(row.ours.wall, 3),
        opt(row.ours.internal_ms),
        opt(row.ours.peak_rss_kib),
        opt(count(|c| c.bases)),
        opt(count(|c| c.actions)),
        opt(count(|c| c.atoms)),
        opt(count(|c| c.facts)),
        opt(count(|c| c.rules)),
        row.full.status.to_string(),
        ms(full.map(|r| r.wall), 3),
        opt(full.map(|r| r.peak_rss_kib)),
        opt(full.map(|r| r.rules)),
        opt(full.map(|r| r.facts)),
        row.relaxed.status.to_string(),
        ms(relaxed.map(|r| r.wall), 3),
        opt(relaxed.map(|r| r.peak_rss_kib)),
        opt(row.s()),
        opt(row.s_star),
        yes_no(row.subset, "no"),
        ratio(row.s_ratio(), 4),
        ratio(row.time_ratio(), 4),
        ratio(row.rss_ratio(), 4),
    ]
}

/// A field quoted when it holds a comma, a quote or a line break (RFC 4180).
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::row::{Ours, Status, Theirs};
    use crate::ground::Counts;
    use crate::oracle::GringoRun;
    use std::time::Duration;

    fn row() -> Row {
        Row {
            game: "games/a,b.kif".into(),
            family: "a,b".into(),
            ours: Ours {
                status: Status::Ok,
                workers: 2,
                wall: Some(Duration::from_micros(12_500)),
                internal_ms: Some(10),
                peak_rss_kib: Some(4000),
                counts: Some(Counts {
                    bases: 1,
                    actions: 2,
                    atoms: 3,
                    facts: 4,
                    rules: 5,
                    relevant: false,
                }),
            },
            full: Theirs {
                status: Status::Ok,
                run: Some(GringoRun {
                    wall: Duration::from_millis(25),
                    peak_rss_kib: 2000,
                    rules: 6,
                    facts: 7,
                }),
            },
            relaxed: Theirs {
                status: Status::Error("bad \"x\"".into()),
                run: None,
            },
            s_star: Some(3),
            subset: None,
        }
    }

    #[test]
    fn a_header_and_one_line_per_row() {
        let text = csv(&[row()]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].split(',').count(), COLUMNS.len());
        assert_eq!(
            lines[1],
            "\"games/a,b.kif\",\"a,b\",2,ok,12.500,10,4000,1,2,3,4,5,ok,25.000,2000,6,7,\
             \"error: bad \"\"x\"\"\",,,,3,,,0.5000,2.0000"
        );
    }

    #[test]
    fn every_row_has_every_column() {
        assert_eq!(fields(&row()).len(), COLUMNS.len());
    }
}
