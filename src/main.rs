//! The `gdlground` command line; all logic lives in the library and `cli`.
mod cli;

fn main() {
    std::process::exit(cli::run());
}
