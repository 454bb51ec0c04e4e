//! One row of results: a game at one worker count, measured for gdlground and for gringo.
//!
//! Invariant: every game asked for has rows, whatever happened; a tool that failed has a
//! [`Status`] other than `Ok` and empty measurements, never a missing row.

use crate::ground::Counts;
use crate::oracle::GringoRun;
use std::fmt;
use std::time::Duration;

/// How a tool fared on a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// It finished.
    Ok,
    /// It did not finish within the time limit.
    Timeout,
    /// gdlground rejected the game (exit code 1): not a valid game.
    Rejected,
    /// Function terms nested deeper than the depth limit.
    DepthLimit,
    /// S* grew past the atom limit.
    AtomLimit,
    /// Any other failure, with the first line of its message.
    Error(String),
    /// Not run (no gringo, or the game has no ASP translation).
    NotRun(String),
}

impl Status {
    /// Whether the tool finished.
    pub fn is_ok(&self) -> bool {
        *self == Status::Ok
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Ok => f.write_str("ok"),
            Status::Timeout => f.write_str("timeout"),
            Status::Rejected => f.write_str("rejected"),
            Status::DepthLimit => f.write_str("depth limit"),
            Status::AtomLimit => f.write_str("atom limit"),
            Status::Error(m) => write!(f, "error: {m}"),
            Status::NotRun(why) => write!(f, "not run: {why}"),
        }
    }
}

/// gdlground's measurements of one game at one worker count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ours {
    /// How it fared.
    pub status: Status,
    /// Worker threads.
    pub workers: usize,
    /// Median wall time of the `ground` processes, start to exit.
    pub wall: Option<Duration>,
    /// Median of the `ms` the processes reported (reading the input to the last byte written).
    pub internal_ms: Option<u64>,
    /// The largest peak resident set size over the runs, KiB.
    pub peak_rss_kib: Option<u64>,
    /// The counts of GDL.md §4.
    pub counts: Option<Counts>,
}

/// gringo's measurements of one translation of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theirs {
    /// How it fared.
    pub status: Status,
    /// The median run (wall time the median of the runs; memory the largest).
    pub run: Option<GringoRun>,
}

/// One row: a game, our measurements at one worker count, gringo's, and S* against S.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The game file, as given.
    pub game: String,
    /// The family the game belongs to (its name without a trailing size), for the fits.
    pub family: String,
    /// gdlground `ground`.
    pub ours: Ours,
    /// gringo on the full translation (negation kept).
    pub full: Theirs,
    /// gringo on the relaxed translation (its facts are S).
    pub relaxed: Theirs,
    /// |S*|, from `gdlground atoms`.
    pub s_star: Option<usize>,
    /// Whether S* ⊆ S; `None` if either set is unknown.
    pub subset: Option<bool>,
}

impl Row {
    /// |S|, gringo's facts on the relaxed translation.
    pub fn s(&self) -> Option<usize> {
        self.relaxed.run.map(|r| r.facts)
    }

    /// |S*| / |S|.
    pub fn s_ratio(&self) -> Option<f64> {
        match (self.s_star, self.s()) {
            (Some(a), Some(b)) if b > 0 => Some(a as f64 / b as f64),
            _ => None,
        }
    }

    /// Our median wall time over gringo's on the full translation.
    pub fn time_ratio(&self) -> Option<f64> {
        let ours = self.ours.wall?.as_secs_f64();
        let theirs = self.full.run?.wall.as_secs_f64();
        (theirs > 0.0).then(|| ours / theirs)
    }

    /// Our peak memory over gringo's on the full translation.
    pub fn rss_ratio(&self) -> Option<f64> {
        let ours = self.ours.peak_rss_kib? as f64;
        let theirs = self.full.run?.peak_rss_kib as f64;
        (theirs > 0.0).then(|| ours / theirs)
    }

    /// The size of our output: ground facts plus rules.
    pub fn our_size(&self) -> Option<usize> {
        self.ours.counts.map(|c| c.facts + c.rules)
    }

    /// The size of gringo's output on the full translation: statements printed.
    pub fn their_size(&self) -> Option<usize> {
        self.full.run.map(|r| r.facts + r.rules)
    }
}

/// The family of a game file: its directory's name and its stem without a trailing `_SIZE`
/// (`series/hex_11.kif` → `series/hex`), so that a corpus game of the same name stays apart.
pub fn family(path: &std::path::Path) -> String {
    let stem = path
        .file_stem()
        .map_or(String::new(), |s| s.to_string_lossy().into_owned());
    let name = match stem.rsplit_once('_') {
        Some((name, size))
            if !name.is_empty() && !size.is_empty() && size.bytes().all(|b| b.is_ascii_digit()) =>
        {
            name.to_owned()
        }
        _ => stem,
    };
    match path.parent().and_then(|p| p.file_name()) {
        Some(dir) => format!("{}/{name}", dir.to_string_lossy()),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::family;
    use std::path::Path;

    #[test]
    fn families_drop_the_size() {
        assert_eq!(family(Path::new("out/series/hex_11.kif")), "series/hex");
        assert_eq!(family(Path::new("base/hex.kif")), "base/hex");
        assert_eq!(family(Path::new("my_game.kif")), "my_game");
        assert_eq!(family(Path::new("2048.kif")), "2048");
    }
}
