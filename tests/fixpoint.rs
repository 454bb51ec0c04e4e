//! On one worker, a run without rounds computes each recursive component in one operator
//! (`engine::fixpoint`); on two, in an iterative scope of differential operators. Both must
//! give the same ground game: on the corpus games whose components iterate the most (step
//! counters, ship movements, towers, paths, board lines) and on a seeded sample of small
//! ones, `ground -w 1` and `ground -w 2` write the same text, byte for byte.

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
fn one_worker_and_two_ground_every_game_alike() {
    let Some(root) = corpus() else { return };
    let mut games: Vec<PathBuf> = ITERATING.iter().map(|g| root.join(g)).collect();
    let small: Vec<PathBuf> = (game_files(&root).into_iter())
        .filter(|g| std::fs::metadata(g).is_ok_and(|m| m.len() < SMALL))
        .collect();
    let mut random = Random(0x5eed_f1c5);
    games.extend((0..SAMPLE).map(|_| small[random.below(small.len())].clone()));
    let mut compared = 0;
    for game in &games {
        let Some(one) = ground(game, "1") else {
            assert!(
                !ITERATING.iter().any(|g| game.ends_with(g)),
                "{} is not ground",
                game.display()
            );
            continue;
        };
        let two = ground(game, "2").expect("what one worker grounds, two do");
        assert!(one == two, "{}: -w 1 and -w 2 differ", game.display());
        compared += 1;
    }
    assert!(compared >= 30, "only {compared} games compared");
}
