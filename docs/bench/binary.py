"""Where `cargo build --release` puts gdlground: the benchmark scripts' default binary."""

import os
import subprocess

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def default_binary():
    """target/<host tuple>/release/gdlground (.cargo/config.toml builds for the host tuple)."""
    tuple_ = subprocess.run(["rustc", "--print", "host-tuple"], capture_output=True, text=True)
    host = tuple_.stdout.strip() if tuple_.returncode == 0 else ""
    return os.path.normpath(os.path.join(ROOT, "target", host, "release", "gdlground"))
