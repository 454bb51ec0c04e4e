//! A grounding beside another process that holds most of the machine's memory stops with
//! gdlground's own error and exit code 2, not the kernel's kill: the default memory limit
//! comes from the memory free when the run starts.
//!
//! Its own test binary, so that no other test runs while the memory is held.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};

/// A process holding `bytes` of touched memory until dropped.
struct Hog(Child);

impl Hog {
    /// Starts the hog and waits until it holds its memory; `None` without `python3`.
    fn hold(bytes: u64) -> Option<Hog> {
        let script = format!(
            "import sys\nb = bytearray(b'\\x01') * {bytes}\nprint('ready', flush=True)\nsys.stdin.read()\n"
        );
        let child = Command::new("python3")
            .args(["-c", &script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .ok()?;
        let mut hog = Hog(child);
        let stdout = hog.0.stdout.take().expect("piped");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the hog says when it is ready");
        assert_eq!(line.trim(), "ready", "the hog could not take {bytes} bytes");
        Some(hog)
    }

    /// Whether the hog still runs (the kernel did not kill it).
    fn alive(&mut self) -> bool {
        self.0.try_wait().expect("the hog's status").is_none()
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        drop(self.0.stdin.take());
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The memory free to a new process: the machine's available memory, or its cgroup's room.
fn free() -> u64 {
    let available = gdlground::memory::available_bytes().expect("Linux says what is available");
    gdlground::memory::cgroup_room_bytes().map_or(available, |room| room.min(available))
}

/// The game's one join makes 10⁸ atoms (about 4 GB), far more than the run is left.
#[test]
fn a_grounding_beside_a_process_holding_most_memory_stops_with_its_own_error() {
    let free = free();
    let leave = (3u64 << 30).min(free / 3);
    let Some(mut hog) = Hog::hold(free - leave) else {
        assert!(
            std::env::var("CI").is_err(),
            "CI must have python3 for this test"
        );
        eprintln!("skipped: python3 is not here to hold the memory");
        return;
    };
    let dir = std::env::temp_dir().join(format!("gdlground-pressure-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let game = dir.join("huge.kif");
    std::fs::write(&game, support::huge_step_game(100)).expect("the game is written");
    let out = dir.join("out.kif");
    let mut run = Command::new(env!("CARGO_BIN_EXE_gdlground"))
        .args([
            "ground",
            game.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args(["--max-atoms", "1000000000"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let status = run.wait().expect("the run ends");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut run.stderr.take().expect("piped"), &mut err).unwrap();
    let _ = std::io::stderr().write_all(err.as_bytes());
    assert!(hog.alive(), "the kernel killed the other process: {err}");
    assert_eq!(status.code(), Some(2), "{status:?}: {err}");
    assert!(
        err.contains("the memory limit") || err.contains("memory left"),
        "{err}"
    );
    assert!(!out.exists(), "a failed run leaves no output");
    let _ = std::fs::remove_dir_all(&dir);
}
