//! The solvers, one folder per method family:
//!
//! - `simplex/`: the Frank-Wolfe family on the unit simplex (`fw`, `mfw`, `swap`, `swap2o`,
//!   `bc`, `ky`) for the squared-hinge SVC, the one-class ball and the L2-SVR;
//! - `box_smo/`: LIBSVM's hinge-loss SVC by pairwise SMO steps, with blocked working sets;
//! - `linear/`: dual coordinate descent and SGD with an explicit w;
//! - `crammer_singer.rs`: the joint multiclass SVM by block-coordinate Frank-Wolfe;
//!
//! and the pieces they share: the settings, statistics and stopping rules (this file), the
//! `monitor` hooks (progress, interrupts: [`Monitor`]) and the `tracker` of limits and histories.

mod box_smo;
mod crammer_singer;
mod linear;
mod monitor;
mod simplex;
mod tracker;

// Each family's files under their old names, so that `super::engine` and the like resolve from
// every family.
use box_smo::smo;
#[cfg(feature = "python")]
pub(crate) use linear::{cocoa, newton};
use linear::{dcd, sgd};
#[allow(unused_imports)]
use simplex::{
    bc, engine, fw, init, ky, line_search, mfw, rounds, sampled, scan, shrink, state, subproblem,
    swap,
};

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

pub use box_smo::dual_smo::{DualSolution, solve_dual};
pub use crammer_singer::{CrammerSingerSolution, solve_crammer_singer};
pub use dcd::solve as solve_linear;
pub use engine::solve;
pub use monitor::{Monitor, NoMonitor, Progress, Task};
pub(crate) use sgd::{Data as SgdData, objective as sgd_objective};
pub use sgd::{Schedule, SgdFit, SgdParams, fit_sgd};
pub use smo::{BoxSolution, solve_box};
pub use subproblem::solve_dense;

use crate::error::{FwsvmError, Result};
use crate::kernel::{CachePrecision, ColumnCache};

/// Which Frank-Wolfe variant to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Algorithm {
    /// Plain Frank-Wolfe (Gilbert): toward steps only; weights never drop to zero.
    /// Paper 003 Alg. 2, paper 002 Alg. 1.
    Fw,
    /// Modified FW: toward or Wolfe away steps chosen by first-order gain; away steps may drop
    /// a point. Papers 000 and 003 Alg. 3.
    Mfw,
    /// SWAP: toward or pairwise (e_i − e_j) steps chosen by their exact line-search gains.
    /// Paper 002 Alg. 4. The default.
    #[default]
    Swap,
    /// SWAP with the away vertex chosen by second-order gain (WSS2). Paper 002 Alg. 5.
    Swap2o,
    /// Fully corrective FW (Bădoiu–Clarkson, the Core Vector Machine): add the toward vertex
    /// to the coreset, then re-solve the problem on the coreset (pairwise second-order steps on
    /// cached columns). Paper 003 Alg. 1, paper 002 Alg. 2.
    Bc,
    /// Kumar–Yildirim: FW with Wolfe away steps on the two-simplex nearest-point problem
    /// (unregularised threshold). Binary classification only. Paper 001 Alg. 1.
    Ky,
    /// Not a Frank-Wolfe method: the linear-kernel fast path of the squared-hinge SVC, dual
    /// coordinate descent with an explicit weight vector (O(nnz(x_i)) per step, no kernel
    /// columns), certified by the same duality gap. Not in [`Algorithm::ALL`] (the kernel
    /// solvers); see the `dcd` module.
    Dcd,
}

impl Algorithm {
    /// All variants, in documentation order.
    pub const ALL: [Algorithm; 6] = [
        Algorithm::Fw,
        Algorithm::Mfw,
        Algorithm::Swap,
        Algorithm::Swap2o,
        Algorithm::Bc,
        Algorithm::Ky,
    ];

    /// The variants that solve the single-simplex problem (every problem type); `ky` solves
    /// the two-simplex nearest-point problem of binary classification instead.
    pub const SINGLE_SIMPLEX: [Algorithm; 5] = [
        Algorithm::Fw,
        Algorithm::Mfw,
        Algorithm::Swap,
        Algorithm::Swap2o,
        Algorithm::Bc,
    ];

    /// The name used by the Python API and the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Fw => "fw",
            Algorithm::Mfw => "mfw",
            Algorithm::Swap => "swap",
            Algorithm::Swap2o => "swap2o",
            Algorithm::Bc => "bc",
            Algorithm::Ky => "ky",
            Algorithm::Dcd => "dcd",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = FwsvmError;
    fn from_str(s: &str) -> Result<Self> {
        Algorithm::ALL
            .into_iter()
            .chain([Algorithm::Dcd])
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                FwsvmError::param(
                    "algorithm",
                    format!(
                        "unknown algorithm {s:?}; expected one of fw, mfw, swap, swap2o, bc, ky, dcd"
                    ),
                )
            })
    }
}

/// `name()` (the Python API's spelling) and `FromStr` (the name or an alias) for a fieldless
/// option enum; an unknown string is an invalid `$param`, with `$unknown` formatted with it.
macro_rules! api_names {
    ($ty:ident, $param:literal, $unknown:literal,
     { $($variant:ident => $name:literal $(| $alias:literal)*),+ $(,)? }) => {
        impl $ty {
            /// The name used by the Python API.
            pub fn name(&self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }
        }

        impl FromStr for $ty {
            type Err = FwsvmError;
            fn from_str(s: &str) -> Result<Self> {
                match s {
                    $($name $(| $alias)* => Ok($ty::$variant),)+
                    _ => Err(FwsvmError::param($param, format!($unknown, s))),
                }
            }
        }
    };
}

/// The stopping rule. All are tests on the Frank-Wolfe duality gap
/// Δ(α) = max_i ∇g_i − αᵀ∇g ≥ g(α*) − g(α).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Stopping {
    /// Δ(α) ≤ tol·|g(α)|. Scale-free: for the SVC, |g| = ρ is the margin, so this bounds the
    /// margin violation relative to the margin. The default.
    #[default]
    RelativeGap,
    /// Δ(α) ≤ tol (paper 002's criterion, ε = 1e-6 there).
    AbsoluteGap,
    /// The CVM/MEB rule 1 + δ⁺ ≤ (1 + tol)², δ⁺ = Δ(α)/R² (papers 000, 003). Only for problems
    /// that are minimum enclosing balls (constant k(x,x), no per-sample weights).
    Meb,
}

api_names!(Stopping, "stopping", "unknown rule {:?}; expected gap, absolute_gap or meb", {
    RelativeGap => "gap" | "relative_gap",
    AbsoluteGap => "absolute_gap",
    Meb => "meb" | "cvm",
});

/// How the first iterate is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Init {
    /// Solve the problem exactly on p = 20 random points (CVM's and paper 003's default).
    #[default]
    Random,
    /// A random point and the point farthest from it (Kumar et al. 2004), solved exactly.
    Farthest,
    /// The closest pair of opposite-sign points in feature space (paper 000), solved exactly.
    /// Pairs are searched on random subsets of at most 2,000 points per class.
    ClosestPair,
}

api_names!(
    Init,
    "init",
    "unknown initialisation {:?}; expected random, farthest or closest_pair",
    {
        Random => "random",
        Farthest => "farthest",
        ClosestPair => "closest_pair",
    }
);

/// Solver settings shared by every problem type.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverParams {
    /// The Frank-Wolfe variant.
    pub algorithm: Algorithm,
    /// Tolerance of the stopping rule.
    pub tol: f64,
    /// The stopping rule.
    pub stopping: Stopping,
    /// Maximum number of steps (`None`: unlimited).
    pub max_iter: Option<u64>,
    /// Wall-clock limit for the solve (`None`: unlimited).
    pub time_limit: Option<Duration>,
    /// Memory budget of the kernel-column cache in MB.
    pub cache_size_mb: f64,
    /// `swap`, `swap2o`: when most steps stay inside the coreset, re-solve it with O(|coreset|)
    /// steps ("coreset rounds"), and let `swap` pick second-order partners while its steps
    /// stall (see the `rounds` module). `false`: the papers' algorithms exactly.
    pub adaptive: bool,
    /// Storage precision of cached columns (automatic: `f32` when the budget cannot hold the
    /// whole kernel matrix as `f64`).
    pub cache_precision: CachePrecision,
    /// Search the toward vertex over this many random slots plus the coreset instead of all
    /// slots, while that is cheaper than a full pass (coreset smaller than n / 4`sample_size`);
    /// the iterate then goes to the full solver, which certifies convergence (see the `sampled`
    /// module). 59 finds a point of the top 5% with probability 0.95. `None`: no sampling.
    /// `fw`, `mfw` and `swap` only.
    pub sample_size: Option<usize>,
    /// Initialisation.
    pub init: Init,
    /// Seed of the random initialisation.
    pub seed: u64,
    /// Print progress lines to stderr.
    pub verbose: bool,
    /// Record one [`HistoryEntry`] per step.
    pub record_history: bool,
    /// Recompute the gradient cache from scratch every this many steps (`None`: only when the
    /// accumulated round-off could affect the stopping test).
    pub resync_every: Option<u64>,
    /// Start from this α (one entry per slot, e.g. the solution for another C): it is
    /// rescaled onto the simplex (per class for `ky`), so any non-negative weights with some
    /// mass work. `None` (or all zeros): the `init` rule.
    pub warm_start: Option<Vec<f64>>,
    /// Leave out of the problem the samples that cannot become support vectors soon (not in
    /// the coreset, gradient well below the coreset's), solve the smaller problem, then rebuild
    /// the gradient of the left-out samples and certify the duality gap on all of them; a
    /// left-out sample that violates brings the fit back (see the `shrink` module). Single-simplex
    /// algorithms on problems of at least a few thousand samples; not with `sample_size` or a
    /// precomputed kernel.
    pub shrinking: bool,
    /// The hinge loss's working set: `None` chooses (blocked working sets of 64 on dense data of
    /// 8–64 features and at least 2,000 rows, per-step pairs elsewhere; see the `smo_blocked`
    /// module), `Some(0)` takes per-step pairs (LIBSVM's scheme), `Some(q)` blocked working
    /// sets of q samples (at most half the columns the cache holds). Other losses ignore it.
    pub working_set: Option<usize>,
}

impl Default for SolverParams {
    fn default() -> Self {
        SolverParams {
            algorithm: Algorithm::Swap,
            tol: 1e-3,
            stopping: Stopping::RelativeGap,
            max_iter: None,
            time_limit: None,
            cache_size_mb: 200.0,
            cache_precision: CachePrecision::Auto,
            adaptive: true,
            sample_size: None,
            init: Init::Random,
            seed: 0,
            verbose: false,
            record_history: false,
            resync_every: None,
            warm_start: None,
            shrinking: true,
            working_set: None,
        }
    }
}

impl SolverParams {
    /// The kernel-column cache budget in bytes.
    pub fn cache_bytes(&self) -> usize {
        (self.cache_size_mb * 1024.0 * 1024.0) as usize
    }

    /// The kernel-column cache for a problem with `m` samples, as these parameters ask, its
    /// budget capped at a quarter of the memory still available (see [`crate::memory`]).
    pub(crate) fn column_cache(&self, m: usize) -> ColumnCache {
        let budget = crate::memory::cache_budget(self.cache_bytes());
        ColumnCache::with_precision(m, budget, self.cache_precision)
    }

    /// Checks every field.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidParameter`] naming the first bad field.
    pub fn validate(&self) -> Result<()> {
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(FwsvmError::param(
                "tol",
                format!("must be a positive finite number, got {}", self.tol),
            ));
        }
        if !(self.cache_size_mb.is_finite() && self.cache_size_mb > 0.0) {
            return Err(FwsvmError::param(
                "cache_size",
                format!(
                    "must be a positive number of MB, got {}",
                    self.cache_size_mb
                ),
            ));
        }
        if self.max_iter == Some(0) {
            return Err(FwsvmError::param(
                "max_iter",
                "must be positive (or -1 for no limit)",
            ));
        }
        if let Some(r) = self.sample_size {
            if r == 0 {
                return Err(FwsvmError::param(
                    "sample_size",
                    "must be positive (59 is the usual choice), or None for no sampling",
                ));
            }
            if !matches!(
                self.algorithm,
                Algorithm::Fw | Algorithm::Mfw | Algorithm::Swap
            ) {
                return Err(FwsvmError::param(
                    "sample_size",
                    format!(
                        "sampling works with algorithm 'fw', 'mfw' or 'swap', not '{}' (which needs \
                         the kernel columns of every candidate)",
                        self.algorithm
                    ),
                ));
            }
        }
        if self.resync_every == Some(0) {
            return Err(FwsvmError::param("resync_every", "must be positive"));
        }
        if let Some(w) = &self.warm_start
            && let Some(i) = w.iter().position(|v| !(v.is_finite() && *v >= 0.0))
        {
            return Err(FwsvmError::param(
                "warm_start",
                format!(
                    "weights must be finite and non-negative, got {} at {i}",
                    w[i]
                ),
            ));
        }
        Ok(())
    }
}

/// Why the solver stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ExitReason {
    /// The stopping rule was met.
    #[default]
    Converged,
    /// `max_iter` steps were taken first.
    MaxIterations,
    /// The wall-clock limit was reached first.
    TimeLimit,
    /// No step could improve the objective in floating point although the gap is above the
    /// tolerance (the tolerance is below what double precision can certify).
    NoProgress,
}

impl ExitReason {
    /// A short name (`converged`, `max_iter`, `time_limit`, `no_progress`).
    pub fn name(&self) -> &'static str {
        match self {
            ExitReason::Converged => "converged",
            ExitReason::MaxIterations => "max_iter",
            ExitReason::TimeLimit => "time_limit",
            ExitReason::NoProgress => "no_progress",
        }
    }
}

/// The kind of a step (paper 002's vocabulary).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// Toward (Frank-Wolfe) step: α ← (1−λ)α + λe_i.
    Toward,
    /// Wolfe away step that keeps the away vertex: α ← (1+λ)α − λe_j.
    Away,
    /// Away step clipped at α_j/(1−α_j): the away vertex leaves the coreset.
    Drop,
    /// Pairwise step α ← α + λ(e_i − e_j) with λ < α_j.
    SwapAdd,
    /// Pairwise step clipped at λ = α_j: j leaves the coreset.
    SwapDrop,
    /// Fully corrective step (`bc`): the toward vertex joins the coreset and the problem is
    /// re-solved on it.
    Corrective,
    /// A sweep of dual coordinate descent (`dcd`) over the samples still in play: one history
    /// entry stands for the coordinate updates of the sweep.
    Sweep,
    /// Not a step: the last history entry, the state the solve ended in.
    Final,
}

impl StepKind {
    /// A short name.
    pub fn name(&self) -> &'static str {
        match self {
            StepKind::Toward => "toward",
            StepKind::Away => "away",
            StepKind::Drop => "drop",
            StepKind::SwapAdd => "swap_add",
            StepKind::SwapDrop => "swap_drop",
            StepKind::Corrective => "corrective",
            StepKind::Sweep => "sweep",
            StepKind::Final => "final",
        }
    }
}

/// How many steps of each kind were taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCounts {
    /// Toward steps.
    pub toward: u64,
    /// Away steps that kept the away vertex.
    pub away: u64,
    /// Away steps that dropped it.
    pub drop: u64,
    /// Pairwise steps that kept j.
    pub swap_add: u64,
    /// Pairwise steps that dropped j.
    pub swap_drop: u64,
    /// Fully corrective (`bc`) outer steps.
    pub corrective: u64,
    /// Pairwise steps of the inner coreset solves of `bc` and of the coreset rounds of `swap`
    /// and `swap2o`.
    pub inner: u64,
    /// Coordinate updates of dual coordinate descent (`dcd`).
    pub coordinate: u64,
}

impl StepCounts {
    pub(crate) fn count(&mut self, kind: StepKind) {
        match kind {
            StepKind::Toward => self.toward += 1,
            StepKind::Away => self.away += 1,
            StepKind::Drop => self.drop += 1,
            StepKind::SwapAdd => self.swap_add += 1,
            StepKind::SwapDrop => self.swap_drop += 1,
            StepKind::Corrective => self.corrective += 1,
            StepKind::Sweep | StepKind::Final => {}
        }
    }
}

/// What the solver did and where it ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolverStats {
    /// Why it stopped.
    pub exit_reason: ExitReason,
    /// Steps taken.
    pub n_iter: u64,
    /// Final duality gap Δ(α) (absolute).
    pub gap: f64,
    /// Final Δ(α)/|g(α)|.
    pub relative_gap: f64,
    /// Final objective g(α) = bᵀα − αᵀQα.
    pub objective: f64,
    /// Final αᵀQα.
    pub quadratic: f64,
    /// Step counts by kind.
    pub steps: StepCounts,
    /// Size of the final coreset (points with α > 0).
    pub n_active: usize,
    /// Kernel columns computed (cache misses; with shrinking, columns of the smaller problems
    /// are shorter than m).
    pub columns_computed: u64,
    /// Kernel values computed for columns and for rebuilding the gradient of rows left out by
    /// shrinking (m per column without shrinking).
    pub kernel_evaluations: u64,
    /// Kernel column requests served by the cache.
    pub cache_hits: u64,
    /// Capacity of the column cache in columns.
    pub cache_capacity: usize,
    /// How the column cache stored its columns ([`CachePrecision::Float64`] or
    /// [`CachePrecision::Float32`]).
    pub cache_precision: CachePrecision,
    /// Full recomputations of the gradient cache.
    pub resyncs: u64,
    /// Smaller problems built by shrinking (see [`SolverParams::shrinking`]).
    pub shrinks: u64,
    /// Times the gradient rebuilt on left-out samples showed violators, which rejoined the
    /// problem.
    pub rejoins: u64,
    /// Steps taken in the sampled phase (included in `n_iter`; see
    /// [`SolverParams::sample_size`]).
    pub sampled_steps: u64,
    /// Wall time of the solve in seconds.
    pub seconds: f64,
}

/// One recorded step (when [`SolverParams::record_history`] is set). The history holds one
/// entry per step and ends with a [`StepKind::Final`] entry: the state the solve ended in
/// (`iteration` = steps taken).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HistoryEntry {
    /// Step number (0-based).
    pub iteration: u64,
    /// Objective g(α) before the step.
    pub objective: f64,
    /// Duality gap before the step.
    pub gap: f64,
    /// The step taken ([`StepKind::Final`] for the last entry).
    pub kind: StepKind,
    /// Coreset size after the step.
    pub coreset_size: usize,
    /// Seconds since the solve started.
    pub seconds: f64,
}

/// The solver's output: the full α (one entry per simplex slot), statistics and the optional
/// per-step history.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The final iterate on the simplex.
    pub alpha: Vec<f64>,
    /// Statistics.
    pub stats: SolverStats,
    /// Per-step history (empty unless requested).
    pub history: Vec<HistoryEntry>,
    /// The threshold γ of the nearest-point formulation (`ky` only): the classifier is
    /// sign(Σ_a s_a α_a k(x_a, x) − γ).
    pub threshold: Option<f64>,
}
