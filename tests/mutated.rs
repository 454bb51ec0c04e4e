//! Damaged games: every corpus game cut short, with a character taken out, with a stray
//! character put in, and with two characters swapped, each at a seeded place. Each must load
//! or be rejected with diagnostics that render, never panic; the small ones that still load
//! are ground too, which must give a ground game or an engine error, never a worker's panic
//! (the engine turns a worker's panic into `EngineError::Worker`).
//!
//! Without the corpus the test skips with a message on stderr (and fails when `CI=true`).

mod support;

use gdlground::engine::{EngineError, Options};
use gdlground::grounding::{ground, GroundError};
use gdlground::load::{load, source_from_bytes};
use gdlground::program::encoding::Encoding;
use gdlground::syntax::Syntax;
use std::panic::catch_unwind;
use std::time::{Duration, Instant};

/// Games up to this size that load after the damage are ground as well.
const GROUND_BELOW: usize = 6000;

/// Characters put in: each means something to one of the syntaxes.
const STRAY: &[u8] = b"()?x 1;~&|:-,=>";

/// `text` damaged in way `kind` (0–3) at places `seeded` picks.
fn damaged(text: &[u8], kind: usize, seeded: &mut support::Random) -> Vec<u8> {
    let mut bytes = text.to_vec();
    let at = seeded.below(bytes.len());
    match kind {
        0 => bytes.truncate(at),
        1 if !bytes.is_empty() => {
            bytes.remove(at);
        }
        2 => bytes.insert(at, STRAY[seeded.below(STRAY.len())]),
        _ => {
            let other = seeded.below(bytes.len());
            if at < bytes.len() && other < bytes.len() {
                bytes.swap(at, other);
            }
        }
    }
    bytes
}

/// Loads (and, when small, grounds) `bytes` as the game `name` in `syntax`; `Err` says what
/// went wrong in a way no damaged game may cause. Returns whether it loaded and was ground.
fn try_game(name: &str, bytes: Vec<u8>, syntax: Syntax) -> Result<(bool, bool), String> {
    let small = bytes.len() < GROUND_BELOW;
    let game = match source_from_bytes(name.to_owned(), bytes, syntax).and_then(|s| load(s, syntax))
    {
        Ok(game) => game,
        Err(e) => {
            let text = e.render();
            return match text.contains("error") {
                true => Ok((false, false)),
                false => Err(format!("rejected without an error: {text}")),
            };
        }
    };
    if !small {
        return Ok((true, false));
    }
    let options = Options {
        deadline: Some(Instant::now() + Duration::from_secs(5)),
        max_memory: Some(2 << 30),
        ..Options::default()
    };
    match ground(&game.program, &options) {
        Err(GroundError::Engine(EngineError::Worker(panic))) => {
            Err(format!("a worker panicked: {panic}"))
        }
        Err(e) => {
            e.render(&game.program, &Encoding::new(&game.program));
            Ok((true, true))
        }
        Ok(_) => Ok((true, true)),
    }
}

#[test]
fn damaged_games_are_rejected_or_ground_never_a_panic() {
    let Some(root) = support::corpus() else {
        return;
    };
    let mut seeded = support::Random(0x2545_f491_4f6c_dd1d);
    let (mut tried, mut loaded, mut grounded) = (0, 0, 0);
    let mut failures = Vec::new();
    for path in support::game_files(&root) {
        let text = std::fs::read(&path).expect("a corpus game reads");
        let syntax = Syntax::detect(&path, &String::from_utf8_lossy(&text));
        for kind in 0..4 {
            let bytes = damaged(&text, kind, &mut seeded);
            let name = format!("{} (damage {kind})", path.display());
            tried += 1;
            match catch_unwind(|| try_game(&name, bytes.clone(), syntax)) {
                Ok(Ok((l, g))) => {
                    loaded += l as usize;
                    grounded += g as usize;
                }
                Ok(Err(why)) => failures.push(format!("{name}: {why}")),
                Err(_) => failures.push(format!(
                    "{name}: panicked on:\n{}",
                    String::from_utf8_lossy(&bytes)
                )),
            }
        }
    }
    eprintln!("{tried} damaged games: {loaded} loaded, {grounded} of them ground");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The damage must leave some games whole enough to load and ground, or this tests
    // little beyond the parser.
    assert!(
        loaded > tried / 4 && grounded > tried / 8,
        "{loaded} {grounded}"
    );
}
