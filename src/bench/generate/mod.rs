//! Generators of scaling series: bigger versions of a few games, written as KIF, so that the
//! benchmark can fit how time grows with output size.
//!
//! Input: a family and a size. Output: the text of a valid classic game (`gdlground check`
//! accepts it), named `FAMILY_SIZE.kif` when written to a directory.
//!
//! Invariant: a game's ground counts grow with its size in the way each family's doc says.

mod connect_four;
mod counter;
mod hex;

use std::fmt::Write;
use std::path::{Path, PathBuf};

/// A family of generated games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Hex on an n×n board: 3n²+2 fluents, a connection rule grounded ~12n² times.
    Hex,
    /// A step counter to n: n+1 fluents, one reachable step per round of the fixpoint.
    Counter,
    /// Connect four on a board n columns wide and 6 high: 18n+2 fluents.
    ConnectFour,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 3] = [Family::Hex, Family::Counter, Family::ConnectFour];

    /// The family's name, as in file names.
    pub fn name(self) -> &'static str {
        match self {
            Family::Hex => "hex",
            Family::Counter => "counter",
            Family::ConnectFour => "connectfour",
        }
    }

    /// The family named `name`.
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The sizes of the standard series.
    pub fn series(self) -> &'static [usize] {
        match self {
            Family::Hex => &[11, 13, 15, 17, 19],
            Family::Counter => &[100, 200, 400, 800, 1600],
            Family::ConnectFour => &[7, 14, 28, 56, 112],
        }
    }

    /// The smallest size the family accepts.
    pub fn min_size(self) -> usize {
        match self {
            Family::Hex => 2,
            Family::Counter => 1,
            Family::ConnectFour => 4,
        }
    }

    /// The game of this family at `size` (at least [`Family::min_size`]), as KIF text.
    pub fn game(self, size: usize) -> Result<String, String> {
        if size < self.min_size() {
            return Err(format!(
                "{} needs a size of at least {}, not {size}",
                self.name(),
                self.min_size()
            ));
        }
        Ok(match self {
            Family::Hex => hex::game(size),
            Family::Counter => counter::game(size),
            Family::ConnectFour => connect_four::game(size),
        })
    }
}

/// Writes the games of `family` at `sizes` into `dir` (created if needed) as
/// `FAMILY_SIZE.kif`; returns their paths.
pub fn write_games(dir: &Path, family: Family, sizes: &[usize]) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("{}: cannot create the directory: {e}", dir.display()))?;
    let mut paths = Vec::new();
    for &size in sizes {
        let path = dir.join(format!("{}_{size}.kif", family.name()));
        std::fs::write(&path, family.game(size)?)
            .map_err(|e| format!("{}: cannot write the game: {e}", path.display()))?;
        paths.push(path);
    }
    Ok(paths)
}

/// Writes `(relation a b …)` facts, one per line, for every item of `items`.
fn facts<I, T>(out: &mut String, relation: &str, items: I)
where
    I: IntoIterator<Item = T>,
    T: std::fmt::Display,
{
    for item in items {
        let _ = writeln!(out, "({relation} {item})");
    }
}

#[cfg(test)]
mod tests {
    use super::Family;
    use crate::engine::Options;
    use crate::ground::Counts;
    use crate::syntax::{SourceFile, Syntax};

    /// The counts of `family` at `size`, after checking that the game loads cleanly.
    fn counts(family: Family, size: usize) -> Counts {
        let text = family.game(size).expect("a valid size");
        let name = format!("{}_{size}.kif", family.name());
        let game = match crate::load::load(SourceFile::new(name.clone(), text), Syntax::Kif) {
            Ok(game) => game,
            Err(e) => panic!("{name} is rejected:\n{}", e.render()),
        };
        assert!(game.warnings.is_empty(), "{name} has warnings");
        let grounded = crate::ground(&game.program, &Options::default()).expect("it grounds");
        grounded.ground.counts(grounded.program(&game.program))
    }

    #[test]
    fn hex_has_three_states_per_cell() {
        for n in [2, 3, 4] {
            assert_eq!(counts(Family::Hex, n).bases, 3 * n * n + 2);
        }
        assert!(counts(Family::Hex, 4).rules > counts(Family::Hex, 3).rules);
    }

    #[test]
    fn the_counter_has_one_step_per_number() {
        for n in [1, 5, 20] {
            assert_eq!(counts(Family::Counter, n).bases, n + 1);
        }
        assert!(counts(Family::Counter, 20).rules > counts(Family::Counter, 5).rules);
    }

    #[test]
    fn connect_four_has_three_states_per_cell() {
        for n in [4, 5, 7] {
            assert_eq!(counts(Family::ConnectFour, n).bases, 18 * n + 2);
        }
        assert!(counts(Family::ConnectFour, 7).rules > counts(Family::ConnectFour, 5).rules);
    }

    #[test]
    fn sizes_below_the_minimum_are_refused() {
        assert!(Family::Hex.game(1).is_err());
        assert!(Family::ConnectFour.game(3).is_err());
        assert_eq!(Family::from_name("hex"), Some(Family::Hex));
        assert_eq!(Family::from_name("chess"), None);
    }
}
