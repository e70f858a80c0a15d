//! Adaptations of `swap` and `swap2o` for steps that stay inside the coreset
//! ([`SolverParams::adaptive`](super::SolverParams::adaptive)).
//!
//! Coreset rounds: when most steps only move weight inside the coreset, solve the coreset with
//! O(|S|) pairwise steps and apply the change to the full gradient once. Stalling: while more
//! than 90% of the last ~100 steps were internal, `swap` chooses its partner by the
//! second-order gain like `swap2o` (when |S| ≤ n/4, so the O(|S|) search costs less than the
//! pass, or when every column is cached). Measured on shuttle at C = 100 (BENCHMARKS.md): the pair 1-vs-3 (34,240 slots) took
//! 376k first-order steps and 41 s, and takes 22k steps and 2.1 s; the pair 1-vs-4 171k steps
//! and 9.1 s, now 4.6k and 0.6 s. w8a and a9a are unchanged (their steps keep adding points).
//!
//! Every step of the pairwise methods costs an O(n) pass (update G, find the vertices), even
//! when it only moves weight between two points that are already in the coreset S. On problems
//! whose coreset is small but hard to balance (shuttle at large C: 934 support vectors and 171k
//! steps on 40,856 slots) those passes are nearly all of the time. A round instead re-solves the
//! problem restricted to S with `bc`'s inner solver (second-order pairwise steps on the coreset
//! rows of cached columns, O(|S|) each) and then applies Δα to G, one O(n) pass per changed
//! pair of points.
//!
//! A round pays when it takes many more inner steps than it changes points. The policy counts
//! the full steps whose toward vertex was already in the coreset ("internal" steps); a round is
//! due after `wait · max(MIN_WAIT, |S|/2)` of them. After each round its cost (the deferred
//! passes plus the inner steps, in units of full passes) is compared with the full steps it
//! replaced (one per inner step): a round that did not pay doubles `wait`, one that did halves
//! it (down to 1). Rounds need the coreset's columns in the cache, so they stop once the
//! coreset outgrows it (w8a, a9a after their first few thousand steps).

/// Internal steps before a round, at least.
const MIN_WAIT: u64 = 100;

/// Cost of one inner step per coreset point, relative to one slot of a full pass (gathers from
/// two cached columns for the partner search and the update).
const INNER_COST: f64 = 3.0;

/// The longest back-off, as a multiple of the base wait.
const MAX_WAIT: u64 = 1 << 16;

/// When to run a coreset round.
#[derive(Debug)]
pub(crate) struct Rounds {
    enabled: bool,
    wait: u64,
    internal: u64,
    /// Moving average of the internal-step indicator (about the last 100 steps).
    recent: f64,
    /// Rounds run and those that paid, for the verbose summary.
    pub run: u64,
    pub paid: u64,
}

impl Rounds {
    pub fn new(enabled: bool) -> Self {
        Rounds {
            enabled,
            wait: 1,
            internal: 0,
            recent: 0.0,
            run: 0,
            paid: 0,
        }
    }

    /// Records a full step; `internal` when its toward vertex was already in the coreset.
    pub fn observe(&mut self, internal: bool) {
        if internal {
            self.internal += 1;
        }
        self.recent = 0.99 * self.recent + if internal { 0.01 } else { 0.0 };
    }

    /// Whether nearly all recent steps stayed inside the coreset (first-order pairwise steps
    /// are then stalling, and `swap` switches to second-order partners).
    pub fn stalling(&self) -> bool {
        self.enabled && self.recent > 0.9
    }

    /// Whether a round is due for a coreset of `coreset` points with a column cache of
    /// `capacity` columns. The coreset's columns must all fit (with the toward vertex's): the
    /// inner steps read two of them per step, and the deferred update one per changed point.
    pub fn due(&self, coreset: usize, capacity: usize) -> bool {
        self.enabled
            && coreset < capacity
            && self.internal >= self.wait * MIN_WAIT.max(coreset as u64 / 2)
    }

    /// Records a round that took `inner` steps and changed `changed` weights on a coreset of
    /// `coreset` points out of `n` slots.
    pub fn finished(&mut self, inner: u64, changed: usize, coreset: usize, n: usize) {
        self.run += 1;
        self.internal = 0;
        let passes =
            changed.div_ceil(2) as f64 + inner as f64 * INNER_COST * coreset as f64 / n as f64;
        if (inner as f64) > passes {
            self.paid += 1;
            self.wait = (self.wait / 2).max(1);
        } else {
            self.wait = (self.wait * 2).min(MAX_WAIT);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_back_off_when_they_do_not_pay() {
        let mut r = Rounds::new(true);
        assert!(!r.due(10, 100));
        for _ in 0..MIN_WAIT {
            r.observe(true);
            r.observe(false);
        }
        assert!(r.due(10, 100), "MIN_WAIT internal steps");
        assert!(!r.due(10, 10), "the coreset must fit in the cache");
        assert!(!r.due(1000, 2000), "half the coreset");
        // 10 inner steps changing 100 weights: 50 passes for 10 steps' worth, no pay.
        r.finished(10, 100, 200, 10_000);
        assert!(!r.due(10, 100));
        for _ in 0..MIN_WAIT {
            r.observe(true);
        }
        assert!(!r.due(10, 100), "waits twice as long now");
        for _ in 0..MIN_WAIT {
            r.observe(true);
        }
        assert!(r.due(10, 100));
        r.finished(5000, 100, 200, 10_000);
        assert_eq!((r.run, r.paid, r.wait), (2, 1, 1));
        assert!(!Rounds::new(false).due(0, 100));
    }
}
