//! The `gdlground` command line; all logic lives in the library and `cli`.
mod cli;

fn main() {
    gdlground::memory::grow_heap_in_large_steps();
    std::process::exit(cli::run());
}
