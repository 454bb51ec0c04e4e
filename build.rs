//! Generates the parsers in `grammar/` with lalrpop at build time, and records the commit the
//! executable is built from (for `bench` reports, which must name it even when the executable
//! is copied elsewhere or the checkout moves on).
fn main() {
    println!("cargo:rerun-if-changed=grammar");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .emit_rerun_directives(true)
        .process()
        .expect("lalrpop failed to generate the parsers in grammar/");
    // Built again when a commit is made or a source changes, so `--dirty` stays true.
    for path in [".git/HEAD", ".git/index", "src", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={path}");
    }
    let commit = std::process::Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .unwrap_or_default();
    println!("cargo:rustc-env=GDLGROUND_COMMIT={commit}");
}
