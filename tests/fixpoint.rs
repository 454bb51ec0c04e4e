//! A run without rounds computes each recursive component in one operator per worker
//! (`engine::fixpoint`): on several workers splitting the bindings by the owner of their
//! source atom and exchanging the atoms each derives, the other rules by differential joins;
//! on one worker the whole plan is one such operator. However many workers,
//! the ground game must be the same: on the corpus games whose components iterate the most
//! (step counters, ship movements, towers, paths, board lines) `ground -w 1`, `-w 2` and
//! `-w 3` write the same text, byte for byte, and on a seeded sample of small ones `-w 1` and
//! `-w 2` do.

mod support;

use std::path::{Path, PathBuf};
use support::{corpus, game_files, gdlground, Random};

/// Games whose recursive components take many iterations, by path in the corpus.
const ITERATING: [&str; 8] = [
    "base/asteroidsSerial.kif",
    "base/asteroidsParallel__v1.kif",
    "base/checkLines.kif",
    "base/hanoi7_bugfix.kif",
    "base/twisty-passages.kif",
    "base/reversi.kif",
    "base/colonelBlottoVariant.kif",
    "stanford_gamemaster/badtictactoe.hrf",
];

/// How many small games the sample takes, and how small (bytes).
const SAMPLE: usize = 40;
const SMALL: u64 = 8_000;

/// The ground text of `game` on `workers` workers; `None` if it is not ground (a game the
/// corpus has to be rejected, or one that takes longer than the test allows).
fn ground(game: &Path, workers: &str) -> Option<Vec<u8>> {
    let path = game.to_str().expect("corpus paths are UTF-8");
    let out = gdlground(&["ground", path, "-w", workers, "--deadline", "20"]);
    out.status.success().then_some(out.stdout)
}

#[test]
fn one_worker_and_several_ground_every_game_alike() {
    let Some(root) = corpus() else { return };
    let mut games: Vec<PathBuf> = ITERATING.iter().map(|g| root.join(g)).collect();
    let small: Vec<PathBuf> = (game_files(&root).into_iter())
        .filter(|g| std::fs::metadata(g).is_ok_and(|m| m.len() < SMALL))
        .collect();
    let mut random = Random(0x5eed_f1c5);
    games.extend((0..SAMPLE).map(|_| small[random.below(small.len())].clone()));
    let mut compared = 0;
    for game in &games {
        let iterating = ITERATING.iter().any(|g| game.ends_with(g));
        let Some(one) = ground(game, "1") else {
            assert!(!iterating, "{} is not ground", game.display());
            continue;
        };
        let many: &[&str] = if iterating { &["2", "3"] } else { &["2"] };
        for workers in many {
            let other = ground(game, workers).expect("what one worker grounds, more do");
            assert!(
                one == other,
                "{}: -w 1 and -w {workers} differ",
                game.display()
            );
        }
        compared += 1;
    }
    assert!(compared >= 30, "only {compared} games compared");
}
