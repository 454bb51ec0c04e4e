//! How much memory this process has used and this machine has: the engine stops cleanly at a
//! limit instead of being killed by the kernel when a game's grounding outgrows memory.

/// The largest resident set this process has had, in bytes (`None` where the OS does not
/// say).
pub fn peak_resident_bytes() -> Option<u64> {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0;
    // Linux reports ru_maxrss in kibibytes.
    (ok && usage.ru_maxrss > 0).then(|| usage.ru_maxrss as u64 * 1024)
}

/// How much more than asked the allocator takes from the kernel each time the heap grows.
const HEAP_GROWTH_PAD: i32 = 16 << 20;

/// Makes glibc's allocator grow the heap in steps of [`HEAP_GROWTH_PAD`] rather than its
/// default 128 KiB: a grounding allocates as it goes and frees little, and each small growth is
/// a system call. Measured alone through `GLIBC_TUNABLES`: 2–5% of the run on games of 4 ms
/// to 2.5 s; peak memory about the same on small games (pages untouched are not resident),
/// up to 10% more on hex. Call it before any thread starts.
pub fn grow_heap_in_large_steps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt sets a tuning parameter of glibc's allocator and has no preconditions.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, HEAP_GROWTH_PAD);
    }
}

/// The machine's physical memory in bytes (`None` where the OS does not say).
pub fn physical_bytes() -> Option<u64> {
    // SAFETY: sysconf reads configuration values and has no preconditions.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && size > 0).then(|| pages as u64 * size as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_uses_some_of_the_machines_memory() {
        let peak = peak_resident_bytes().expect("Linux reports the peak");
        let physical = physical_bytes().expect("Linux reports the memory");
        assert!(peak > 1 << 20 && peak < physical, "{peak} of {physical}");
    }
}
