//! Games as they are found outside curated collections: comments in Latin-1, type
//! declarations of GDL before 2010. Each grounds as the game it is, with a warning where the
//! form is old.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use support::gdlground;

/// `bytes` written as `name` in a fresh scratch directory.
fn game_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gdlground-found-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("the game is written");
    path
}

/// The ground tictactoe of `path` (stdout) and what was said (stderr); panics on failure.
fn ground(path: &Path) -> (String, String) {
    let out = gdlground(&["ground", path.to_str().expect("a UTF-8 path"), "-o", "-"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), err)
}

/// The bundled tictactoe's text.
fn tictactoe() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/tictactoe.kif");
    std::fs::read(path).expect("the bundled example")
}

#[test]
fn latin_1_comments_and_legacy_declarations_ground_as_the_game_they_are() {
    let (plain, _) = ground(&game_file("plain.kif", &tictactoe()));
    let mut found = b"; Tic-tac-toe, by L\xe9s Cam\xe9les \xa9 1999\n".to_vec();
    found.extend_from_slice(
        b"(base cell (x 1 2 3) (y 1 2 3) (content x o b))\n(base control (role xplayer))\n",
    );
    found.extend(tictactoe());
    found.extend_from_slice(b"(input xplayer noop mark)  ; \x93legacy\x94\n");
    let (text, err) = ground(&game_file("found.kif", &found));
    assert_eq!(err.matches("warning[W011]").count(), 3, "{err}");
    assert!(
        err.contains("found.kif:2:2: warning[W011]: `base` with 4 arguments"),
        "{err}"
    );
    assert!(!err.contains("UTF-8"), "{err}");
    // The declarations are ordinary facts of the ground game; everything else is the game's.
    let legacy = ["(base cell ", "(base control ", "(input xplayer noop mark)"];
    let rest: Vec<&str> = (text.lines())
        .filter(|l| !legacy.iter().any(|p| l.starts_with(p)))
        .collect();
    assert_eq!(rest, plain.lines().collect::<Vec<_>>());
    assert_eq!(text.lines().count(), plain.lines().count() + 3);
}

#[test]
fn bytes_that_are_not_utf_8_outside_a_comment_are_an_error_that_names_the_encoding() {
    let mut text = tictactoe();
    text.extend_from_slice(b"(succ caf\xe9 tea)\n");
    let path = game_file("latin1.kif", &text);
    let out = gdlground(&["ground", path.to_str().expect("a UTF-8 path"), "-o", "-"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error[E001]: the file is not valid UTF-8 here (byte 0xe9)"),
        "{err}"
    );
    assert!(
        err.contains("Latin-1 (ISO 8859-1), where they read `é`"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// The ggp-base driver beside the repository, if `java` is here to run it (with CI=true it
/// must be: `.ci/run` installs a JRE).
fn ggpbase() -> Option<PathBuf> {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/ggpbase/ggpbase");
    let java = Command::new("java").arg("-version").output().is_ok();
    if java && driver.exists() {
        return Some(driver);
    }
    assert!(
        std::env::var("CI").is_err(),
        "CI must have java and ggp-base"
    );
    eprintln!("skipped: ggp-base needs java and ../shared/tools/ggpbase");
    None
}

/// ggp-base's traces of 20 seeded random playouts of `game`, without its timing line.
fn traces(driver: &Path, game: &Path) -> String {
    let out = Command::new(driver)
        .args(["playout", game.to_str().expect("a UTF-8 path"), "20", "7"])
        .output()
        .expect("ggp-base runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `(<= (legal ?player noop))` and `(<= (goal ?r ?n) (score ?n))` are unsafe bottom-up, but
/// the game asks `legal` and `goal` for each role: they are ground over their calls, with a
/// warning, and ggp-base (whose prover reasons top-down, as these games were written for)
/// plays the ground game exactly as the original.
#[test]
fn rules_bound_by_their_calls_ground_and_play_as_ggp_base_plays_the_original() {
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/called.kif");
    let (text, err) = ground(&game);
    assert_eq!(err.matches("warning[W012]").count(), 2, "{err}");
    assert!(err.contains("the game asks `legal` for each role"), "{err}");
    for rule in [
        "(legal xplayer noop)",
        "(<= (goal oplayer 100) (score 100))",
    ] {
        assert!(text.lines().any(|l| l == rule), "{rule} missing:\n{text}");
    }
    let Some(driver) = ggpbase() else { return };
    let ground = game_file("called.ground.kif", text.as_bytes());
    let original = traces(&driver, &game);
    assert!(original.lines().count() > 40, "{original}");
    assert_eq!(traces(&driver, &ground), original);
}
