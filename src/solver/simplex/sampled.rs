//! The sampling option ([`SolverParams::sample_size`](super::SolverParams::sample_size)): the
//! "probabilistic speedup" of the Core Vector Machine (paper 003 §5.2.3; docs/SOLVERS.md, "Sampling").
//!
//! Without a gradient cache over all n slots, a step only needs ∇g on the coreset S (for the
//! away or pairwise partner) and on the candidates for the toward vertex. This phase searches
//! the toward vertex over r random slots plus S: each candidate outside S costs |S| kernel
//! evaluations (G_a = Σ_{s∈S} Q_as α_s), so a step costs about r·|S| evaluations instead of
//! the n of a column. The best of r random slots lies in the top 5% of all slots with
//! probability 1 − 0.95^r (0.95 for r = 59). G on S is kept up to date from the coreset's
//! Gram matrix Q_SS, grown by one row per point that joins S.
//!
//! A gap measured on a sample is only a lower bound of the duality gap, so this phase never
//! declares convergence. It hands its iterate to the full engine, which computes G over all
//! slots (|S| columns) and certifies, or continues, as usual. The hand-off happens when
//! - the sampled gap meets the stopping rule (the full scan then checks it),
//! - sampling stops paying: r·|S| ≥ n, a sampled step would cost more than a full pass,
//! - Q_SS outgrows the kernel cache budget (`cache_size`), or
//! - a step limit, the time limit or an interrupt ends the solve.
//!
//! So sampling helps when n is large and the coreset small (|S| < n/r): easy problems on many
//! points. On the shared benchmarks the coreset outgrows n/59 early (BENCHMARKS.md).

use super::engine::{Step, stopping_threshold};
use super::monitor::Monitor;
use super::scan::Vertices;
use super::state::State;
use super::tracker::Tracker;
use super::{Algorithm, ExitReason, SolverParams, StepCounts, StepKind, fw, mfw, swap};
use crate::error::Result;
use crate::kernel::{CachePrecision, ColumnCache};
use crate::problem::SimplexProblem;
use crate::random::SplitMix64;

/// Cost of one kernel entry computed on its own (`SimplexProblem::q_entry`), in units of one
/// slot of a full step (its share of a kernel column plus the update-and-scan pass). Measured
/// with one thread: 13–16 ns per entry on mushrooms, a9a and w8a (bit-packed rows, scalar
/// `exp`) and 30 ns on shuttle, against 4 ns and 7 ns per slot of a full step.
const ENTRY_COST: usize = 4;

/// Consecutive samples without a violator of the stopping rule before the phase hands off.
const QUIET_SAMPLES: u32 = 3;

/// Why the sampled phase ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Handoff {
    /// The gap on the sample met the stopping rule.
    SampleConverged,
    /// 4·r·|S| ≥ n: a sampled step would cost more than a full pass.
    CoresetTooLarge,
    /// The coreset's Gram matrix outgrew the cache budget.
    GramBudget,
    /// No step improved the objective on the sample.
    NoProgress,
    /// The solve must stop (step limit, time limit or interrupt).
    Stop(ExitReason),
}

impl Handoff {
    pub fn describe(self) -> &'static str {
        match self {
            Handoff::SampleConverged => "three samples in a row met the tolerance",
            Handoff::CoresetTooLarge => "the coreset outgrew n / (4 sample_size)",
            Handoff::GramBudget => "the coreset Gram matrix outgrew cache_size",
            Handoff::NoProgress => "no sampled step improved the objective",
            Handoff::Stop(_) => "a limit was reached",
        }
    }
}

/// The result of the sampled phase: the iterate (support and weights) and how it ended.
pub(crate) struct Sampled {
    pub support: Vec<usize>,
    pub values: Vec<f64>,
    pub handoff: Handoff,
    pub steps: u64,
    pub evaluations: u64,
}

/// Q_SS for the coreset, rows in the order of `State::active` (kept in step with its
/// swap-removes).
struct Gram {
    rows: Vec<Vec<f64>>,
}

impl Gram {
    fn bytes(&self) -> usize {
        self.rows.len() * self.rows.len() * std::mem::size_of::<f64>()
    }

    /// Appends a point whose row against the current coreset is `row` and whose diagonal is `diag`.
    fn push(&mut self, mut row: Vec<f64>, diag: f64) {
        for (r, &v) in self.rows.iter_mut().zip(&row) {
            r.push(v);
        }
        row.push(diag);
        self.rows.push(row);
    }

    /// Removes the point at `position` the way `State::drop_point` does (swap-remove).
    fn remove(&mut self, position: usize) {
        self.rows.swap_remove(position);
        for r in &mut self.rows {
            r.swap_remove(position);
        }
    }
}

/// Runs sampled steps from the iterate (`support`, `values`) until a [`Handoff`]; every step
/// is counted in `steps` and recorded by `tracker`.
///
/// Only for `fw`, `mfw` and `swap` (checked by `SolverParams::validate`).
pub(crate) fn run(
    problem: &SimplexProblem<'_>,
    params: &SolverParams,
    sample_size: usize,
    (support, values): (Vec<usize>, Vec<f64>),
    tracker: &mut Tracker<'_>,
    monitor: &mut (dyn Monitor + Send),
    steps: &mut StepCounts,
) -> Result<Sampled> {
    let n = problem.n_slots();
    let mut rng = SplitMix64::new(params.seed ^ 0x5A3F_1ED5_A3F1_ED55);
    let mut state = State::zeros(n);
    let mut gram = Gram { rows: Vec::new() };
    let mut evaluations: u64 = 0;
    for (&a, &v) in support.iter().zip(&values) {
        if v > 0.0 {
            let row = coreset_row(problem, &state, a, &mut evaluations);
            state.alpha[a] = v;
            state.activate(a);
            gram.push(row, problem.q_diag(a));
        }
    }
    for p in 0..state.active.len() {
        let a = state.active[p];
        state.grad_q[a] = dot_alpha(&state, &gram.rows[p]);
    }
    state.refresh_scalars(problem);
    // Pairwise partners are looked up in `gram`; the selection functions only ask this cache,
    // which never computes a column, when a point is outside it.
    let mut cache = ColumnCache::with_precision(problem.n_samples(), 0, CachePrecision::Float64);
    let mut taken: u64 = 0;
    let mut quiet = 0;
    let mut toward_row: Vec<f64> = Vec::new();
    let mut candidate: Vec<f64> = Vec::new();

    let handoff = loop {
        if state.active.len() * sample_size * ENTRY_COST >= n {
            break Handoff::CoresetTooLarge;
        }
        if gram.bytes() > params.cache_bytes() {
            break Handoff::GramBudget;
        }
        // The toward vertex over the coreset and r random slots; the away vertex over the coreset.
        let mut v = coreset_vertices(problem, &state);
        let mut outside: Option<usize> = None;
        for _ in 0..sample_size {
            let a = rng.below(n);
            if state.alpha[a] > 0.0 || outside == Some(a) {
                continue;
            }
            candidate.clear();
            candidate.extend(
                state
                    .active
                    .iter()
                    .map(|&s| problem.q_entry(a, s))
                    .inspect(|_| evaluations += 1),
            );
            let g = problem.linear()[a] - 2.0 * dot_alpha(&state, &candidate);
            if g > v.toward_grad || (g == v.toward_grad && a < v.toward) {
                v.toward = a;
                v.toward_grad = g;
                state.grad_q[a] = 0.5 * (problem.linear()[a] - g);
                outside = Some(a);
                std::mem::swap(&mut toward_row, &mut candidate);
            }
        }
        let objective = state.objective();
        let gap = v.toward_grad - state.alpha_dot_grad();
        if gap <= stopping_threshold(problem, params, &state) {
            quiet += 1;
            if quiet >= QUIET_SAMPLES {
                break Handoff::SampleConverged;
            }
            continue;
        }
        quiet = 0;
        if let Some(reason) = tracker.checkpoint_at(monitor, &state, objective, gap, 0)? {
            break Handoff::Stop(reason);
        }
        let step = match params.algorithm {
            Algorithm::Fw => fw::select(problem, &state, &v),
            Algorithm::Mfw => mfw::select(problem, &state, &v),
            _ => swap::select(problem, &state, &v, &mut cache, false),
        };
        if !(step.lambda() > 0.0) {
            break Handoff::NoProgress;
        }
        let row_of = |a: usize, state: &State, gram: &Gram| -> Vec<f64> {
            if outside == Some(a) {
                toward_row.clone()
            } else {
                gram.rows[state.position(a).expect("an active point")].clone()
            }
        };
        let kind = match step {
            Step::Toward { i, lambda } => {
                let row = row_of(i, &state, &gram);
                if lambda >= 1.0 {
                    for a in state.active.clone() {
                        state.drop_point(a);
                    }
                    gram.rows.clear();
                    state.alpha[i] = 1.0;
                    state.activate(i);
                    gram.push(Vec::new(), problem.q_diag(i));
                    state.grad_q[i] = problem.q_diag(i);
                } else {
                    let new_gi = (1.0 - lambda) * state.grad_q[i] + lambda * problem.q_diag(i);
                    for (p, &a) in state.active.iter().enumerate() {
                        state.grad_q[a] = (1.0 - lambda) * state.grad_q[a] + lambda * row[p];
                    }
                    state.scale_active(1.0 - lambda);
                    add_weight(problem, &mut state, &mut gram, i, lambda, new_gi, row);
                }
                StepKind::Toward
            }
            Step::Away { j, lambda, drop } => {
                let row = row_of(j, &state, &gram);
                for (p, &a) in state.active.iter().enumerate() {
                    state.grad_q[a] = (1.0 + lambda) * state.grad_q[a] - lambda * row[p];
                }
                state.scale_active(1.0 + lambda);
                take_weight(&mut state, &mut gram, j, lambda, drop);
                if drop { StepKind::Drop } else { StepKind::Away }
            }
            Step::Swap {
                i, j, lambda, drop, ..
            } => {
                let (row_i, row_j) = (row_of(i, &state, &gram), row_of(j, &state, &gram));
                let pj = state.position(j).expect("the partner is active");
                let new_gi = state.grad_q[i] + lambda * (problem.q_diag(i) - row_i[pj]);
                for (p, &a) in state.active.iter().enumerate() {
                    state.grad_q[a] += lambda * (row_i[p] - row_j[p]);
                }
                add_weight(problem, &mut state, &mut gram, i, lambda, new_gi, row_i);
                take_weight(&mut state, &mut gram, j, lambda, drop);
                if drop {
                    StepKind::SwapDrop
                } else {
                    StepKind::SwapAdd
                }
            }
        };
        state.refresh_scalars(problem);
        steps.count(kind);
        taken += 1;
        tracker.record_at(monitor, &state, objective, gap, kind);
    };

    let values = state.active.iter().map(|&a| state.alpha[a]).collect();
    Ok(Sampled {
        support: state.active,
        values,
        handoff,
        steps: taken,
        evaluations,
    })
}

/// Σ_{p} α_{S_p} row_p over the coreset.
fn dot_alpha(state: &State, row: &[f64]) -> f64 {
    state
        .active
        .iter()
        .zip(row)
        .map(|(&s, &q)| state.alpha[s] * q)
        .sum()
}

/// Q_{a,s} for every s in the coreset, in coreset order.
fn coreset_row(
    problem: &SimplexProblem<'_>,
    state: &State,
    a: usize,
    evaluations: &mut u64,
) -> Vec<f64> {
    *evaluations += state.active.len() as u64;
    state
        .active
        .iter()
        .map(|&s| problem.q_entry(a, s))
        .collect()
}

/// The toward (largest ∇g) and away (smallest ∇g) vertices over the coreset.
fn coreset_vertices(problem: &SimplexProblem<'_>, state: &State) -> Vertices {
    let mut v = Vertices::empty();
    for &a in &state.active {
        v.consider(a, state.grad(problem, a), true);
    }
    v
}

/// α_i += λ; a point new to the coreset joins it with G_i = `g_i` and its Gram row `row`
/// (against the coreset before it joined).
fn add_weight(
    problem: &SimplexProblem<'_>,
    state: &mut State,
    gram: &mut Gram,
    i: usize,
    lambda: f64,
    g_i: f64,
    row: Vec<f64>,
) {
    if state.alpha[i] > 0.0 {
        state.alpha[i] += lambda;
    } else {
        state.alpha[i] = lambda;
        state.grad_q[i] = g_i;
        state.activate(i);
        gram.push(row, problem.q_diag(i));
    }
}

/// α_j −= λ, or `j` leaves the coreset (with exactly zero weight) when the step drops it.
fn take_weight(state: &mut State, gram: &mut Gram, j: usize, lambda: f64, drop: bool) {
    if drop {
        remove(state, gram, j);
    } else {
        state.alpha[j] -= lambda;
    }
}

/// Drops `a` from the coreset and its row and column from the Gram matrix.
fn remove(state: &mut State, gram: &mut Gram, a: usize) {
    let p = state.position(a).expect("an active point");
    state.drop_point(a);
    gram.remove(p);
}
