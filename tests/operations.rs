//! Operations games (Stanford `.hrf`): grounding, the ground `.hrf` writer, built-ins, and
//! `validate` with the operation semantics, on the project's own example and on a sample of
//! `../shared/games/stanford_gamemaster`, with the Stanford grounder's published counts
//! (../shared/docs/REFERENCES.md) as the outside reference for fluents and actions.
//!
//! Without the corpus the corpus tests skip with a message on stderr (and fail when `CI=true`).

mod support;

use std::path::{Path, PathBuf};
use support::{corpus, gdlground};

/// The project's own operations example.
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/takeaway.hrf");

/// A Stanford game of the corpus, or `None` (with a skip note) without the corpus.
fn stanford(name: &str) -> Option<PathBuf> {
    Some(corpus()?.join("stanford_gamemaster").join(name))
}

/// The counts of `gdlground ground GAME --stats=json` (the JSON on stderr) and the ground
/// game written to `out`.
fn ground(game: &Path, out: &Path) -> serde_json::Value {
    let output = gdlground(&[
        "ground",
        game.to_str().expect("a UTF-8 path"),
        "-o",
        out.to_str().expect("a UTF-8 path"),
        "--stats=json",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}: {stderr}", game.display());
    let line = stderr.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

/// The counts that do not depend on the machine (`ms` left out).
fn counts(stats: &serde_json::Value) -> Vec<u64> {
    ["bases", "actions", "atoms", "facts", "rules"]
        .iter()
        .map(|k| stats[k].as_u64().unwrap_or(u64::MAX))
        .collect()
}

/// Runs `gdlground validate GAME --playouts 20 --seed 1`: success and stdout + stderr.
fn validate(game: &Path) -> (bool, String) {
    let output = gdlground(&[
        "validate",
        game.to_str().expect("a UTF-8 path"),
        "--playouts",
        "20",
        "--seed",
        "1",
    ]);
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// A scratch file for one test's output.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gdlground-operations-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir.join(name)
}

/// Take-away: fluents, actions and ground operations as worked out by hand, built-ins that
/// compute (`minus`, `plus`) and compare, a chained action, and a ground game that is itself a
/// valid operations game with the same counts and the same play.
#[test]
fn the_example_grounds_to_the_operations_worked_out_by_hand() {
    let out = scratch("takeaway.hrf");
    let stats = ground(Path::new(EXAMPLE), &out);
    // Fluents: pile 0..5, control of 2 roles, score 0..5 of 2 roles (the base bounds the
    // additions); actions: take(1), take(2) and the chained pass.
    assert_eq!(stats["bases"], 6 + 2 + 12);
    assert_eq!(stats["actions"], 3);
    let text = std::fs::read_to_string(&out).expect("the ground game");
    for line in [
        "legal(take(2)) :- pile(2)",
        "take(2) :: pile(5) ==> ~pile(5) & pile(3) & pass",
        "take(1) :: control(bob) & score(bob,2) ==> ~score(bob,2) & score(bob,3)",
        "pass :: control(alice) ==> ~control(alice) & control(bob)",
        "goal(alice,100) :- score(alice,3)",
    ] {
        assert!(text.lines().any(|l| l == line), "missing `{line}`:\n{text}");
    }
    assert!(!text.contains("legal(take(2)) :- pile(1)"), "{text}");
    let again = ground(&out, &scratch("takeaway-again.hrf"));
    assert_eq!(counts(&again), counts(&stats));
    for game in [Path::new(EXAMPLE), &out] {
        let (ok, report) = validate(game);
        assert!(ok, "{report}");
        assert!(report.contains(": ok: 20 playouts"), "{report}");
    }
}

/// The Stanford grounder's fluent and action counts (REFERENCES.md), on games whose
/// declarations are complete (hex7x7's are not: see below).
#[test]
fn fluents_and_actions_match_the_stanford_table() {
    for (name, bases, actions) in [
        ("tictactoe.hrf", 29, 9),
        ("connectfour.hrf", 98, 8),
        ("badtictactoe.hrf", 29, 9),
    ] {
        let Some(game) = stanford(name) else { return };
        let stats = ground(&game, &scratch(name));
        assert_eq!(
            (&stats["bases"], &stats["actions"]),
            (&bases.into(), &actions.into()),
            "{name}"
        );
    }
}

/// Ground and original agree over 20 playouts on games that use chained actions, built-ins
/// (`plus`/`minus` computing scores in skirmish, `leq` in its base), `true` as a body, and a
/// bloated ruleset.
#[test]
fn stanford_games_validate() {
    for name in [
        "tictactoe.hrf",
        "alquerque.hrf",
        "breakthrough.hrf",
        "buttonsandlights.hrf",
        "knightthrough.hrf",
        "pentago.hrf",
        "skirmish.hrf",
        "badconnectfour.hrf",
    ] {
        let Some(game) = stanford(name) else { return };
        let (ok, report) = validate(&game);
        assert!(ok, "{report}");
    }
}

/// Declarations bound S* only where arithmetic computes the values (the example's scores);
/// elsewhere reachable atoms they leave out are kept: hex7x7 declares steps 1–49 but a full
/// board reaches `step(50)`, lightboard starts in `control(robot)` without declaring it, and
/// capturetheflag performs `kerchunk` without an `action(kerchunk)`. All three validate.
#[test]
fn reachable_atoms_the_declarations_leave_out_are_kept() {
    for (name, atom) in [
        ("hex7x7.hrf", "(step 50)"),
        ("lightboard.hrf", "(control robot)"),
        ("capturetheflag.hrf", "(does_2 kerchunk)"),
    ] {
        let Some(game) = stanford(name) else { return };
        let output = gdlground(&["atoms", game.to_str().expect("UTF-8")]);
        let atoms = String::from_utf8_lossy(&output.stdout);
        assert!(atoms.lines().any(|l| l == atom), "{name}: {atom} missing");
        let (ok, report) = validate(&game);
        assert!(ok, "{report}");
    }
}

/// albuquerque's `goal(Role,N) :- score(N)` is unsafe bottom-up, but the game asks `goal` for
/// each role: it is ground over those calls with a warning at the rule, and validates.
#[test]
fn a_goal_bound_only_by_its_calls_is_ground_over_them() {
    let Some(game) = stanford("albuquerque.hrf") else {
        return;
    };
    let output = gdlground(&["ground", game.to_str().expect("UTF-8"), "-o", "-"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("albuquerque.hrf:115:1: warning[W012]"),
        "{stderr}"
    );
    let ground = String::from_utf8_lossy(&output.stdout);
    assert!(
        ground.lines().any(|l| l == "goal(red,5) :- score(5)"),
        "{ground}"
    );
    let (ok, report) = validate(&game);
    assert!(ok, "{report}");
}

/// The files still refused are rejected with their location: reversum's `score(R,N) :-
/// countofall(cell(X,Y),cell(X,Y,R),N)` leaves `R` to its calls, which a `countofall` does
/// not take yet (its `affectedcellindir(Other,X1,Y1,Dir,X1,Y1)` is ground over its calls).
#[test]
fn invalid_stanford_games_are_rejected_with_a_location() {
    let Some(game) = stanford("reversum.hrf") else {
        return;
    };
    let output = gdlground(&["ground", game.to_str().expect("UTF-8"), "-o", "-"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("reversum.hrf:53:15: error[E002]"),
        "{stderr}"
    );
    assert!(
        stderr.contains("reversum.hrf:87:1: warning[W012]"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

/// `--format json`: a ground operation is a rule whose head is an instance
/// `(operation_K action effect...)`, and `"operations"` says what each effect does.
#[test]
fn json_output_says_what_each_effect_does() {
    let output = gdlground(&["ground", EXAMPLE, "--format", "json"]);
    assert!(output.status.success());
    let json: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the output is JSON");
    assert_eq!(
        json["operations"]["operation_0"],
        serde_json::json!(["delete", "add", "perform"])
    );
    let atoms = json["atoms"].as_array().expect("atoms");
    let text = |id: &serde_json::Value| atoms[id.as_u64().expect("an id") as usize].clone();
    let rules = json["rules"].as_array().expect("rules");
    let take = rules
        .iter()
        .find(|r| text(&r["head"]) == "(operation_0 (take 2) (pile 5) (pile 3) pass)")
        .expect("the ground operation take(2) :: pile(5)");
    let mut body: Vec<_> = take["pos"]
        .as_array()
        .expect("pos")
        .iter()
        .map(text)
        .collect();
    body.sort_by_key(|v| v.to_string());
    assert_eq!(body, vec!["(does (take 2))", "(pile 5)"]);
}

/// Queens on 6×6: `solution(Y1,…,Y6)` negates `queenmove` between every two columns, and a
/// queen next to another attacks it in every state (`horizontalmove` and `northeastmove` have
/// rules over static relations only). Those certain attacks decide the negations between
/// neighbouring columns, so S* holds exactly the `solution` tuples whose neighbouring ranks
/// differ by two or more (counted here by brute force) instead of all 6^6; and the game still
/// validates.
#[test]
fn certain_atoms_decide_the_queens_negations() {
    let Some(game) = stanford("queens6x6.hrf") else {
        return;
    };
    let output = gdlground(&["atoms", game.to_str().expect("a UTF-8 path")]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let atoms = String::from_utf8_lossy(&output.stdout);
    let solutions = atoms
        .lines()
        .filter(|a| a.starts_with("(solution "))
        .count();
    let spread = |t: &[u32]| t.windows(2).all(|w| w[0].abs_diff(w[1]) >= 2);
    let tuples = (0..6u32.pow(6)).map(|i| (0..6).map(|k| i / 6u32.pow(k) % 6).collect::<Vec<_>>());
    let expected = tuples.filter(|t| spread(t)).count();
    assert_eq!(solutions, expected);
    let (ok, report) = validate(&game);
    assert!(ok, "{report}");
}

/// `countofall` is checked but not grounded: a valid game using it is refused with the
/// location of the count and exit code 1, by `ground` (leaving no output file) and by
/// `validate`, never with a panic.
#[test]
fn a_count_is_refused_with_its_location() {
    let game = scratch("count.hrf");
    std::fs::write(
        &game,
        "role(white)\nbase(cell(X)) :- num(X)\naction(mark(X)) :- num(X)\ninit(step(1))\n\
         num(1)\nnum(2)\nlegal(mark(X)) :- num(X) & ~cell(X)\nmark(X) :: cell(X)\n\
         marked(N) :- countofall(X, cell(X), N)\nterminal :- marked(2)\n\
         goal(white,100) :- marked(2)\ngoal(white,0) :- ~marked(2)\n",
    )
    .expect("game written");
    let (path, out) = (game.display().to_string(), scratch("count.ground.hrf"));
    let ground = gdlground(&["ground", &path, "-o", out.to_str().expect("a UTF-8 path")]);
    let validate = gdlground(&["validate", &path]);
    for output in [ground, validate] {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("count.hrf:9:14: error[E009]"), "{stderr}");
    }
    assert!(!out.exists());
}
