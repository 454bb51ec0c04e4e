//! Generates the parsers in `grammar/` with lalrpop at build time.
fn main() {
    println!("cargo:rerun-if-changed=grammar");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .emit_rerun_directives(true)
        .process()
        .expect("lalrpop failed to generate the parsers in grammar/");
}
