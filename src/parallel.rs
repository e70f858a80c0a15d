//! Thread control: a scoped rayon pool per fit, and the serial/parallel crossover.
//!
//! Every parallel loop in the crate goes through [`for_each_chunk`] or
//! [`map_chunks`], which run serially below a work threshold (rayon's per-task overhead
//! dominates on small problems) and when the `parallel` feature is off. Chunk results are
//! always combined in index order, so results never depend on the number of threads.

use crate::error::{FwsvmError, Result};

/// Below this many "work units" (roughly: floating point operations) a loop runs serially.
pub const PARALLEL_MIN_WORK: usize = 1 << 16;

/// Runs `f` in a rayon pool of `n_threads` threads (`None`: the `FWSVM_NUM_THREADS` environment
/// variable if set, else all cores), at most one per available core. Without the `parallel`
/// feature `f` simply runs.
///
/// # Errors
/// [`FwsvmError::ThreadPool`] if the pool cannot be created, [`FwsvmError::InvalidParameter`] if
/// `n_threads` is zero.
pub fn with_threads<T: Send>(n_threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    let n = match n_threads {
        Some(0) => {
            return Err(FwsvmError::param(
                "n_jobs",
                "0 is no number of threads: use None (all cores), -1 (all cores) or a positive number",
            ));
        }
        Some(n) => Some(n),
        None => default_threads(),
    }
    // More threads than the machine has cannot speed a fit up (results do not depend on the
    // count), and thousands of them take seconds to start or fail to: cap at the cores.
    .map(|n| n.min(MAX_THREADS_PER_CORE * available_cores()));
    #[cfg(feature = "parallel")]
    {
        let lent = pools::take(n)?;
        Ok(lent.pool().install(f))
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = n;
        Ok(f())
    }
}

/// Idle rayon pools kept for reuse: building one costs 0.4–3 ms (thread start-up), which a
/// prediction on a few rows or a small fit would pay on every call. A pool is lent to one
/// [`with_threads`] call at a time, so concurrent calls (folds fitted from Python threads)
/// still get pools of their own and run in parallel.
#[cfg(feature = "parallel")]
mod pools {
    use std::sync::Mutex;

    use crate::error::{FwsvmError, Result};

    /// At most this many idle pools are kept; more are dropped when returned.
    const MAX_IDLE: usize = 8;

    /// Idle pools: the process that built them (a child forked from it has none of their
    /// threads: lending it one would hang its first parallel loop), their size, the pool.
    static IDLE: Mutex<Vec<(u32, Option<usize>, rayon::ThreadPool)>> = Mutex::new(Vec::new());

    /// A pool lent by [`take`], returned to the idle list when dropped (also on a panic).
    pub(super) struct Lent {
        threads: Option<usize>,
        pool: Option<rayon::ThreadPool>,
    }

    impl Lent {
        pub(super) fn pool(&self) -> &rayon::ThreadPool {
            self.pool
                .as_ref()
                .expect("a lent pool is present until dropped")
        }
    }

    impl Drop for Lent {
        fn drop(&mut self) {
            if let (Some(pool), Ok(mut idle)) = (self.pool.take(), IDLE.lock())
                && idle.len() < MAX_IDLE
            {
                idle.push((std::process::id(), self.threads, pool));
            }
        }
    }

    /// An idle pool of `threads` threads (`None`: rayon's default), or a new one.
    pub(super) fn take(threads: Option<usize>) -> Result<Lent> {
        let pid = std::process::id();
        let reused = IDLE.lock().ok().and_then(|mut idle| {
            // A forked child's inherited pools have no threads: forget them (dropping one would
            // signal threads that are not there).
            for (_, _, pool) in idle.extract_if(.., |(p, _, _)| *p != pid) {
                std::mem::forget(pool);
            }
            let k = idle.iter().position(|(_, t, _)| *t == threads)?;
            Some(idle.swap_remove(k).2)
        });
        let pool = match reused {
            Some(pool) => pool,
            None => {
                let mut builder = rayon::ThreadPoolBuilder::new();
                if let Some(n) = threads {
                    builder = builder.num_threads(n);
                }
                builder
                    .build()
                    .map_err(|e| FwsvmError::ThreadPool(e.to_string()))?
            }
        };
        Ok(Lent {
            threads,
            pool: Some(pool),
        })
    }
}

/// Threads per core allowed by [`with_threads`] (a request for more is capped there).
const MAX_THREADS_PER_CORE: usize = 1;

/// The number of cores available to this process (1 when unknown).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The thread count from `FWSVM_NUM_THREADS`, if it is set to a positive integer.
pub fn default_threads() -> Option<usize> {
    std::env::var("FWSVM_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
}

/// Number of threads of the current pool (1 without the `parallel` feature).
pub fn current_num_threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

/// Calls `f(offset, chunk)` on consecutive chunks of `out`, in parallel when `work` (an estimate of
/// the total cost) is large enough and more than one thread is available.
pub fn for_each_chunk<T: Send>(
    out: &mut [T],
    chunk: usize,
    work: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    let chunk = chunk.max(1);
    #[cfg(feature = "parallel")]
    {
        if work >= PARALLEL_MIN_WORK && out.len() > chunk && rayon::current_num_threads() > 1 {
            use rayon::prelude::*;
            out.par_chunks_mut(chunk)
                .enumerate()
                .for_each(|(c, s)| f(c * chunk, s));
            return;
        }
    }
    let _ = work;
    for (c, s) in out.chunks_mut(chunk).enumerate() {
        f(c * chunk, s);
    }
}

/// Like [`for_each_chunk`], but each chunk also returns a value; the values come back in chunk
/// order so that a sequential fold over them is deterministic.
pub fn map_chunks<T: Send, R: Send>(
    out: &mut [T],
    chunk: usize,
    work: usize,
    f: impl Fn(usize, &mut [T]) -> R + Sync,
) -> Vec<R> {
    let chunk = chunk.max(1);
    #[cfg(feature = "parallel")]
    {
        if work >= PARALLEL_MIN_WORK && out.len() > chunk && rayon::current_num_threads() > 1 {
            use rayon::prelude::*;
            return out
                .par_chunks_mut(chunk)
                .enumerate()
                .map(|(c, s)| f(c * chunk, s))
                .collect();
        }
    }
    let _ = work;
    out.chunks_mut(chunk)
        .enumerate()
        .map(|(c, s)| f(c * chunk, s))
        .collect()
}

/// Calls `f(lo, hi)` on consecutive ranges of `0..n` (each `chunk` long but the last), in
/// parallel when `work` is large enough and more than one thread is available; the results come
/// back in range order, so a sequential fold over them is deterministic.
pub fn map_ranges<R: Send>(
    n: usize,
    chunk: usize,
    work: usize,
    f: impl Fn(usize, usize) -> R + Sync,
) -> Vec<R> {
    let chunk = chunk.max(1);
    let starts: Vec<usize> = (0..n).step_by(chunk).collect();
    #[cfg(feature = "parallel")]
    {
        if work >= PARALLEL_MIN_WORK && n > chunk && rayon::current_num_threads() > 1 {
            use rayon::prelude::*;
            return starts
                .par_iter()
                .map(|&lo| f(lo, (lo + chunk).min(n)))
                .collect();
        }
    }
    let _ = work;
    starts
        .iter()
        .map(|&lo| f(lo, (lo + chunk).min(n)))
        .collect()
}

#[cfg(all(test, feature = "parallel"))]
mod pool_tests {
    use super::with_threads;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Two concurrent one-thread calls must run at the same time (each inside its own pool):
    /// each waits inside its pool for the other to arrive.
    #[test]
    fn concurrent_calls_get_pools_of_their_own() {
        let (to_b, from_a) = mpsc::channel::<()>();
        let (to_a, from_b) = mpsc::channel::<()>();
        let a = std::thread::spawn(move || {
            with_threads(Some(1), move || {
                to_b.send(()).unwrap();
                from_b.recv_timeout(Duration::from_secs(20)).is_ok()
            })
            .unwrap()
        });
        let b = std::thread::spawn(move || {
            with_threads(Some(1), move || {
                to_a.send(()).unwrap();
                from_a.recv_timeout(Duration::from_secs(20)).is_ok()
            })
            .unwrap()
        });
        assert!(a.join().unwrap() && b.join().unwrap());
        // And the pools are reusable afterwards.
        assert_eq!(with_threads(Some(1), || 7).unwrap(), 7);
    }
}
