//! Several processes running one grounding (`ground -n N -p P --hostfile FILE`, timely's
//! cluster flags): each process runs the same runs with its own worker threads, and the
//! workers of all processes form one timely computation per run, connected by TCP.
//!
//! timely's own cluster set-up prints to stdout (where `-o -` writes the ground game) and
//! polls with one-second sleeps, once per run; a grounding makes up to three runs. So the
//! connections are made here, each run's afresh (timely's networking consumes them), on a
//! listener bound once, and handed to timely's networking. Each connection starts with a
//! hello that both ends check: the same run, the same worker threads, the same plan (a
//! process started with another game or other flags is an error, not a wrong result).

use super::EngineError;
use crate::hash::FxHasher;
use std::hash::{Hash, Hasher};
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::Hooks;
use timely::worker::Worker;

/// The first word of a hello: "gdlgrnd" and a protocol version.
const MAGIC: u64 = u64::from_le_bytes(*b"gdlgrnd\x01");

/// How long a process that accepts a connection waits for its hello.
const HELLO_WITHIN: Duration = Duration::from_secs(10);

/// How long a process waits for another before saying so on stderr.
const PATIENCE: Duration = Duration::from_secs(2);

/// The processes of a grounding, as this process sees them.
#[derive(Debug)]
pub struct Cluster {
    /// This process's index, from 0.
    process: usize,
    /// Every process's `host:port`, by index.
    addresses: Vec<String>,
    /// Where the processes after this one connect (none for the last): bound once, so that
    /// a process that connects early waits in the backlog instead of being refused.
    listener: Option<TcpListener>,
    /// Runs connected so far: the next run's number, which both ends of a connection check.
    runs: AtomicU64,
}

/// The unwinding of a worker whose process stopped the run (see [`Cluster::execute`]); not
/// a panic, so no panic message is printed.
struct Stopped;

/// What each end of a connection says first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hello {
    /// The sender's process index.
    process: u64,
    /// The sender's run number.
    run: u64,
    /// The sender's worker threads.
    threads: u64,
    /// A hash of the sender's plan for the run ([`fingerprint`]).
    plan: u64,
}

impl Cluster {
    /// Process `process` of the processes at `addresses` (one `host:port` each, in order),
    /// listening at its own address unless it is the last.
    pub fn new(process: usize, addresses: Vec<String>) -> Result<Cluster, String> {
        if process >= addresses.len() {
            return Err(format!(
                "process {process} is not among {} processes (they are numbered 0 to {})",
                addresses.len(),
                addresses.len().saturating_sub(1)
            ));
        }
        let listener = match process + 1 < addresses.len() {
            true => Some(TcpListener::bind(&addresses[process]).map_err(|e| {
                format!(
                    "cannot listen at {} (process {process}'s address): {e}",
                    addresses[process]
                )
            })?),
            false => None,
        };
        Ok(Cluster {
            process,
            addresses,
            listener,
            runs: AtomicU64::new(0),
        })
    }

    /// How many processes there are.
    pub fn processes(&self) -> usize {
        self.addresses.len()
    }

    /// Runs `work` on `threads` workers of this process, joined with the other processes'
    /// workers into one computation, and returns what this process's workers returned. `plan`
    /// ([`fingerprint`]) must be the same in every process.
    ///
    /// `stopped` says whether this process stopped the run (a limit). A worker that returns
    /// from a stopped run then unwinds instead ([`Stopped`]): returning would close its
    /// connections cleanly, and the other processes would wait for its part of the run
    /// forever; unwinding breaks them, and timely fails the other processes' workers. Their
    /// connections are left open until the process exits: closing them waits for the others.
    pub fn execute<T: Send + 'static>(
        &self,
        threads: usize,
        plan: u64,
        deadline: Option<Instant>,
        stopped: impl Fn() -> bool + Send + Sync + 'static,
        work: impl Fn(&mut Worker) -> T + Send + Sync + 'static,
    ) -> Result<Vec<Result<T, String>>, EngineError> {
        let hello = Hello {
            process: self.process as u64,
            run: self.runs.fetch_add(1, Ordering::Relaxed),
            threads: threads as u64,
            plan,
        };
        let sockets = self.connect(hello, deadline)?;
        let hooks = Hooks::default();
        let local = ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), None);
        let (builders, comms) =
            initialize_networking_from_sockets(local, sockets, self.process, threads, hooks)
                .map_err(|e| EngineError::Cluster(format!("cannot start the connections: {e}")))?;
        let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
        let stop = std::sync::Arc::new(stopped);
        let halt = stop.clone();
        let work = move |worker: &mut Worker| {
            let result = work(worker);
            if halt() {
                std::panic::resume_unwind(Box::new(Stopped));
            }
            result
        };
        let config = timely::WorkerConfig::default();
        let guards = timely::execute::execute_from(builders, Box::new(()), config, work)
            .map_err(EngineError::Worker)?;
        let results = guards.join();
        if stop() || results.iter().any(Result::is_err) {
            std::mem::forget(comms);
        }
        Ok(results)
    }

    /// One connection to every other process, by index (`None` at this process's): to
    /// those before it by connecting, from those after it by accepting; each checked by
    /// both ends' hellos.
    fn connect(
        &self,
        hello: Hello,
        deadline: Option<Instant>,
    ) -> Result<Vec<Option<TcpStream>>, EngineError> {
        let mut sockets: Vec<Option<TcpStream>> = Vec::new();
        for (index, address) in self.addresses.iter().enumerate().take(self.process) {
            let mut stream = self.dial(index, address, &sockets, deadline)?;
            hello.write(&mut stream).map_err(|e| self.lost(index, e))?;
            let theirs = Hello::read(&mut stream, deadline).map_err(|e| self.lost(index, e))?;
            self.check(&hello, &theirs, index as u64)?;
            sockets.push(Some(stream));
        }
        sockets.push(None);
        let mut later: Vec<Option<TcpStream>> =
            (self.process + 1..self.processes()).map(|_| None).collect();
        let Some(listener) = &self.listener else {
            return Ok(sockets);
        };
        let (start, mut told) = (Instant::now(), false);
        listener
            .set_nonblocking(true)
            .map_err(|e| self.lost(self.process, e))?;
        while later.iter().any(Option::is_none) {
            let (mut stream, from) = match listener.accept() {
                Ok((stream, from)) => (stream, from),
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    self.gone(&sockets)?;
                    self.wait(deadline, start, &mut told, || {
                        let missing = (later.iter().enumerate())
                            .filter(|(_, s)| s.is_none())
                            .map(|(k, _)| (self.process + 1 + k).to_string());
                        format!(
                            "process {} is waiting for process {}",
                            self.process,
                            list(missing)
                        )
                    })?;
                    continue;
                }
                Err(e) => return Err(self.lost(self.process, e)),
            };
            (stream.set_nonblocking(false))
                .and_then(|()| stream.set_nodelay(true))
                .map_err(|e| self.lost(self.process, e))?;
            // A process writes its hello as soon as it connects; anything else that connects
            // (a port scan, a health check) is let go, and the wait goes on.
            let soon = Instant::now() + HELLO_WITHIN;
            let Ok(theirs) = Hello::read(&mut stream, Some(deadline.map_or(soon, |d| d.min(soon))))
            else {
                eprintln!(
                    "process {} let go of a connection from {from} that did not say hello as gdlground does",
                    self.process
                );
                // Another version of gdlground learns why from this one's hello.
                drop(hello.write(&mut stream));
                continue;
            };
            hello
                .write(&mut stream)
                .map_err(|e| self.lost(theirs.process as usize, e))?;
            let slot = (theirs.process as usize)
                .checked_sub(self.process + 1)
                .and_then(|k| later.get_mut(k))
                .filter(|slot| slot.is_none());
            let Some(slot) = slot else {
                return Err(EngineError::Cluster(format!(
                    "process {} connected twice or out of turn: give each process its own -p, and all of them the same -n and --hostfile",
                    theirs.process
                )));
            };
            self.check(&hello, &theirs, theirs.process)?;
            *slot = Some(stream);
        }
        sockets.extend(later);
        Ok(sockets)
    }

    /// A connection to process `index` at `address`, retried until it listens.
    fn dial(
        &self,
        index: usize,
        address: &str,
        connected: &[Option<TcpStream>],
        deadline: Option<Instant>,
    ) -> Result<TcpStream, EngineError> {
        let (start, mut told) = (Instant::now(), false);
        loop {
            match TcpStream::connect(address) {
                Ok(stream) => {
                    stream.set_nodelay(true).map_err(|e| self.lost(index, e))?;
                    return Ok(stream);
                }
                Err(_) => self.gone(connected)?,
            }
            self.wait(deadline, start, &mut told, || {
                format!(
                    "process {} is waiting for process {index} at {address}",
                    self.process
                )
            })?;
        }
    }

    /// A short sleep while waiting for another process; past [`PATIENCE`], says what it
    /// waits for (once); past the deadline, stops.
    fn wait(
        &self,
        deadline: Option<Instant>,
        start: Instant,
        told: &mut bool,
        what: impl FnOnce() -> String,
    ) -> Result<(), EngineError> {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(EngineError::Deadline);
        }
        if !*told && start.elapsed() >= PATIENCE {
            eprintln!(
                "{} (start every process with the same game and flags)",
                what()
            );
            *told = true;
        }
        std::thread::sleep(Duration::from_millis(5));
        Ok(())
    }

    /// An error if a process connected already has gone (it stopped, on an error of its
    /// own, while this one waits for others).
    fn gone(&self, connected: &[Option<TcpStream>]) -> Result<(), EngineError> {
        for (index, stream) in connected.iter().enumerate() {
            let Some(stream) = stream else { continue };
            let mut byte = [0u8; 1];
            let peeked = (stream.set_nonblocking(true)).and_then(|()| stream.peek(&mut byte));
            stream
                .set_nonblocking(false)
                .map_err(|e| self.lost(index, e))?;
            let closed = match peeked {
                Ok(n) => n == 0,
                Err(e) => e.kind() != ErrorKind::WouldBlock,
            };
            if closed {
                return Err(EngineError::Cluster(format!(
                    "process {index} stopped before every process was connected (its own error says why)"
                )));
            }
        }
        Ok(())
    }

    /// Checks another process's hello against this one's.
    fn check(&self, mine: &Hello, theirs: &Hello, expected: u64) -> Result<(), EngineError> {
        let me = self.process;
        let them = theirs.process;
        let problem = if theirs.process != expected {
            format!("process {expected}'s address answered as process {them}")
        } else if theirs.threads != mine.threads {
            format!(
                "process {them} runs {} worker threads and process {me} runs {}: give every process the same -w",
                theirs.threads, mine.threads
            )
        } else if theirs.run != mine.run || theirs.plan != mine.plan {
            format!(
                "process {them} planned another run than process {me}: every process must ground the same game with the same flags and the same gdlground"
            )
        } else {
            return Ok(());
        };
        Err(EngineError::Cluster(problem))
    }

    /// The error for a connection to process `index` that failed.
    fn lost(&self, index: usize, e: std::io::Error) -> EngineError {
        let cause = match e.kind() {
            ErrorKind::InvalidData => "it is not a gdlground process of this version".to_string(),
            ErrorKind::WouldBlock | ErrorKind::TimedOut => return EngineError::Deadline,
            _ => e.to_string(),
        };
        EngineError::Cluster(format!(
            "the connection between process {} and process {index} failed: {cause}",
            self.process
        ))
    }
}

impl Hello {
    /// Writes the hello: the magic word, then its four fields, little-endian.
    fn write(&self, stream: &mut TcpStream) -> std::io::Result<()> {
        let words = [MAGIC, self.process, self.run, self.threads, self.plan];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        stream.write_all(&bytes)
    }

    /// Reads a hello, waiting until `deadline` at most.
    fn read(stream: &mut TcpStream, deadline: Option<Instant>) -> std::io::Result<Hello> {
        if let Some(deadline) = deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            stream.set_read_timeout(Some(left.max(Duration::from_millis(1))))?;
        }
        let mut bytes = [0u8; 40];
        stream.read_exact(&mut bytes)?;
        stream.set_read_timeout(None)?;
        let word = |k: usize| u64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().expect("8"));
        if word(0) != MAGIC {
            return Err(ErrorKind::InvalidData.into());
        }
        Ok(Hello {
            process: word(1),
            run: word(2),
            threads: word(3),
            plan: word(4),
        })
    }
}

/// A hash of `parts` (a run's plan and given relations' sizes) that every process must agree
/// on: the same hasher everywhere, unlike std's, whose keys are random per process.
pub fn fingerprint(parts: impl Hash) -> u64 {
    let mut hasher = FxHasher::default();
    parts.hash(&mut hasher);
    hasher.finish()
}

/// `items` as an English list: "1", "1 and 2", "1, 2 and 3".
fn list(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    match items.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The addresses of `processes` processes on this machine, as timely numbers them by default:
/// `localhost:2101`, `localhost:2102`, …
pub fn local_addresses(processes: usize) -> Vec<String> {
    (0..processes)
        .map(|p| format!("localhost:{}", 2101 + p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_english() {
        let l = |v: &[&str]| list(v.iter().map(|s| s.to_string()));
        assert_eq!(l(&["1"]), "1");
        assert_eq!(l(&["1", "2"]), "1 and 2");
        assert_eq!(l(&["1", "2", "3"]), "1, 2 and 3");
    }

    #[test]
    fn hellos_that_disagree_are_errors_that_say_why() {
        let cluster = Cluster::new(1, vec!["127.0.0.1:0".into(), "127.0.0.1:0".into()]).unwrap();
        let mine = Hello {
            process: 1,
            run: 0,
            threads: 2,
            plan: 7,
        };
        assert_eq!(
            cluster.check(&mine, &Hello { process: 0, ..mine }, 0),
            Ok(())
        );
        let threads = cluster.check(
            &mine,
            &Hello {
                process: 0,
                threads: 1,
                ..mine
            },
            0,
        );
        assert!(format!("{threads:?}").contains("same -w"), "{threads:?}");
        let plan = cluster.check(
            &mine,
            &Hello {
                process: 0,
                plan: 8,
                ..mine
            },
            0,
        );
        assert!(format!("{plan:?}").contains("same game"), "{plan:?}");
        let who = cluster.check(&mine, &Hello { process: 2, ..mine }, 0);
        assert!(
            format!("{who:?}").contains("answered as process 2"),
            "{who:?}"
        );
    }
}
