//! Several processes grounding one game (`ground -n N -p P --hostfile FILE`): process 0
//! writes what one process writes, byte for byte, whatever the processes and their worker
//! threads; processes that disagree, or one that stops, end every process with an error
//! that says why instead of a hang or a wrong file.

mod support;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{corpus, gdlground};

/// Corpus games of different shapes: recursive components that iterate long, a static
/// relation computed by a run of its own, certain atoms (queens), a game with no dynamic
/// rules left to split, an operations game.
const GAMES: [&str; 7] = [
    "base/hanoi7_bugfix.kif",
    "base/checkLines.kif",
    "base/connectFour.kif",
    "base/breakthrough.kif",
    "base/queens.kif",
    "base/twisty-passages.kif",
    "stanford_gamemaster/badtictactoe.hrf",
];

/// A hostfile of `n` free local ports (asked of the kernel, then let go).
fn hostfile(n: usize, name: &str) -> PathBuf {
    let ports: Vec<u16> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect::<Vec<_>>()
        .iter()
        .map(|l| l.local_addr().expect("an address").port())
        .collect();
    let text: String = ports.iter().map(|p| format!("127.0.0.1:{p}\n")).collect();
    let path = std::env::temp_dir().join(format!("gdlground-hosts-{}-{name}", std::process::id()));
    std::fs::write(&path, format!("# one line per process\n{text}")).expect("hostfile written");
    path
}

/// Starts process `p` of `n` grounding `game` with `extra` flags.
fn start(game: &Path, n: usize, p: usize, hosts: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gdlground"))
        .arg("ground")
        .arg(game)
        .args(["-n", &n.to_string(), "-p", &p.to_string(), "--hostfile"])
        .arg(hosts)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gdlground binary runs")
}

/// What every process of a run said, process 0's first; a process still running after a
/// minute fails the test (a hang).
fn finish(children: Vec<Child>) -> Vec<Output> {
    let start = Instant::now();
    let mut children = children;
    while children
        .iter_mut()
        .any(|c| c.try_wait().expect("waits").is_none())
    {
        if start.elapsed() > Duration::from_secs(60) {
            children.iter_mut().for_each(|c| drop(c.kill()));
            panic!("a process hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    children
        .into_iter()
        .map(|c| c.wait_with_output().expect("output"))
        .collect()
}

/// Grounds `game` on `n` processes with `extra` flags (the same for all), each told to
/// write to a file (not stdout: a pipe nobody reads while waiting would fill); what each
/// said, and the file's bytes.
fn together(game: &Path, n: usize, extra: &[&str]) -> (Vec<Output>, Vec<u8>) {
    let name = game.file_name().expect("a file").to_string_lossy();
    let tag = format!("{name}-{n}-{}", extra.join(""));
    let hosts = hostfile(n, &tag);
    let out = std::env::temp_dir().join(format!("gdlground-out-{}-{tag}", std::process::id()));
    let out_flag = out.to_str().expect("UTF-8 paths");
    let flags: Vec<&str> = [extra, &["-o", out_flag]].concat();
    let children = (0..n)
        .rev()
        .map(|p| start(game, n, p, &hosts, &flags))
        .collect();
    let mut outputs = finish(children);
    outputs.reverse();
    let written = std::fs::read(&out).unwrap_or_default();
    drop(std::fs::remove_file(&out));
    (outputs, written)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn processes_write_what_one_process_writes() {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut games = vec![
        here.join("examples/tictactoe.kif"),
        here.join("examples/nim.pl"),
    ];
    if let Some(root) = corpus() {
        games.extend(GAMES.iter().map(|g| root.join(g)));
    }
    for game in &games {
        let path = game.to_str().expect("UTF-8 paths");
        let alone = gdlground(&["ground", path]);
        assert!(alone.status.success(), "{path}: {}", text(&alone.stderr));
        for (n, workers) in [(2, "1"), (3, "2")] {
            let (outputs, written) = together(game, n, &["-w", workers]);
            for (p, out) in outputs.iter().enumerate() {
                assert!(
                    out.status.success(),
                    "{path}, process {p} of {n}: {}",
                    text(&out.stderr)
                );
            }
            assert!(
                written == alone.stdout,
                "{path}: process 0 of {n} (-w {workers}) wrote another ground game"
            );
            for out in &outputs[1..] {
                assert!(out.stdout.is_empty(), "{path}: only process 0 writes");
                assert!(text(&out.stderr).contains("process 0 writes the output"));
            }
        }
    }
}

#[test]
fn processes_that_disagree_say_so_and_stop() {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let (tictactoe, nim) = (
        here.join("examples/tictactoe.kif"),
        here.join("examples/nim.pl"),
    );
    // Another game on process 1.
    let hosts = hostfile(2, "games");
    let outputs = finish(vec![
        start(&tictactoe, 2, 0, &hosts, &[]),
        start(&nim, 2, 1, &hosts, &[]),
    ]);
    for out in &outputs {
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("the same game"),
            "{}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
    // Other worker threads on process 1.
    let hosts = hostfile(2, "threads");
    let outputs = finish(vec![
        start(&tictactoe, 2, 0, &hosts, &[]),
        start(&tictactoe, 2, 1, &hosts, &["-w", "2"]),
    ]);
    for out in &outputs {
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("same -w"),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_stray_connection_is_let_go() {
    use std::io::Write;
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let game = here.join("examples/tictactoe.kif");
    let hosts = hostfile(2, "stray");
    let zero = start(&game, 2, 0, &hosts, &[]);
    // Something that is not gdlground connects to process 0 first, says nonsense and hangs up.
    let address = std::fs::read_to_string(&hosts).expect("hostfile");
    let address = address
        .lines()
        .find(|l| !l.starts_with('#'))
        .expect("an address");
    let begun = Instant::now();
    let mut stray = loop {
        match std::net::TcpStream::connect(address) {
            Ok(stream) => break stream,
            Err(_) if begun.elapsed() < Duration::from_secs(30) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => panic!("process 0 does not listen at {address}: {e}"),
        }
    };
    stray
        .write_all(b"GET / HTTP/1.0\r\n\r\nand some more bytes")
        .expect("written");
    drop(stray);
    let outputs = finish(vec![zero, start(&game, 2, 1, &hosts, &[])]);
    let said = text(&outputs[0].stderr);
    assert!(outputs[0].status.success(), "{said}");
    assert!(said.contains("let go of a connection"), "{said}");
    let alone = gdlground(&["ground", game.to_str().expect("UTF-8")]);
    assert_eq!(outputs[0].stdout, alone.stdout);
}

#[test]
fn a_process_that_stops_stops_the_others() {
    let Some(root) = corpus() else { return };
    let game = root.join("base/connectFour.kif");
    let hosts = hostfile(2, "stop");
    // Process 1 passes its atom limit mid-run; process 0 must not wait for it forever.
    let outputs = finish(vec![
        start(&game, 2, 0, &hosts, &[]),
        start(&game, 2, 1, &hosts, &["--max-atoms", "50"]),
    ]);
    let (zero, one) = (text(&outputs[0].stderr), text(&outputs[1].stderr));
    assert_eq!(outputs[1].status.code(), Some(2), "{one}");
    assert!(one.contains("--max-atoms"), "{one}");
    assert_eq!(outputs[0].status.code(), Some(2), "{zero}");
    assert!(zero.contains("another process stopped"), "{zero}");
    assert!(!zero.contains("panicked"), "no panic message: {zero}");
    assert!(outputs[0].stdout.is_empty());
}

#[test]
fn a_process_alone_says_what_it_waits_for_until_its_deadline() {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let hosts = hostfile(2, "alone");
    let game = here.join("examples/tictactoe.kif");
    let outputs = finish(vec![start(&game, 2, 0, &hosts, &["--deadline", "3"])]);
    let err = text(&outputs[0].stderr);
    assert_eq!(outputs[0].status.code(), Some(3), "{err}");
    assert!(err.contains("process 0 is waiting for process 1"), "{err}");
    // Flags that do not fit, said at once (not after waiting for the other processes).
    let path = game.to_str().expect("UTF-8");
    let hosts = hosts.to_str().expect("UTF-8");
    for (flags, says) in [
        (&["-p", "2"][..], "numbered 0 to 1"),
        (
            &["-p", "1", "--superset", "domain-loop"],
            "--superset domain-loop runs in one process",
        ),
        (&["-p", "1", "--edits", path], "--edits runs in one process"),
    ] {
        let args = [&["ground", path, "-n", "2", "--hostfile", hosts][..], flags].concat();
        let out = gdlground(&args);
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        assert!(
            text(&out.stderr).contains(says),
            "{flags:?}: {}",
            text(&out.stderr)
        );
    }
}
