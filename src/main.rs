//! The `gdlground` command line; all logic lives in the library and `cli`.
mod cli;

/// mimalloc rather than glibc's allocator. A grounding allocates as it goes, much of it in
/// hash tables that grow by doubling: glibc gives the freed blocks back to the kernel and takes
/// fresh pages for the next, each page a fault when first touched (crissrace: 242 K faults,
/// a fifth of its run in the kernel on a machine where a fault costs 4 µs), and two workers
/// fault in the same address space. mimalloc keeps freed memory for reuse and backs its
/// segments with transparent huge pages (crissrace: 7 K faults). Measured on the ten largest
/// games of the corpus (docs/bench/README.md): less time at both worker counts, more peak
/// memory.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(cli::run());
}
