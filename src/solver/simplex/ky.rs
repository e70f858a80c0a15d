//! `ky`: Kumar & Yildirim's Frank-Wolfe with Wolfe away steps on the nearest-point problem
//! (paper 001 Algorithm 1, kernelised form of its §3.4; notes `seeds_001_002.md` §A.2, with the
//! sign of the ‖w‖² update after an add step corrected).
//!
//! The problem: minimise Ψ(u, v) = ½‖Σ_P u_i φ̃(p_i) − Σ_Q v_j φ̃(q_j)‖² over two unit
//! simplices (one per class), with the squared-slack kernel k̃ = k + δ/χ. In fwsvm's slot
//! form this is the L2-SVC matrix Q_ab = s_a s_b (k + κ) + δ_ab/C_a with α = (u, v): on the
//! product of simplices Σ_a s_a α_a = 0, so the bias shift κ drops out, and χ = C (per sample,
//! so sample weights work). W = αᵀQα = ‖w̃‖² = 2Ψ and G = Qα gives s(x_a) = s_a G_a.
//!
//! Each step moves both simplices with the same λ: an *add* step toward (e_{i'}, e_{j'}), the
//! minimisers of the linearisation in each class, or an *away* step from (e_{i''}, e_{j''}),
//! the maximisers on the support (a *drop* when λ reaches its bound). With ε₊ = 1 − wᵀz/W and
//! ε₋ = wᵀy/W − 1, the add step is taken iff ε₊ > ε₋ and the solve stops when
//! max(ε₊, ε₋) ≤ tol (paper 001's relative test; `absolute_gap` stops when the larger of the
//! two Frank-Wolfe gaps 2ε₊W, 2ε₋W of g = −W is ≤ tol). The classifier is
//! sign(Σ_a s_a α_a k(x_a, x) − γ) with γ = (s(p_{i'}) + s(q_{j'}))/2.
//!
//! Relation to the standard L2-SVM: for the squared-hinge SVM with free bias,
//! min ½‖w‖² + (C/2)Σξ² s.t. y_i(⟨w, φ(x_i)⟩ + b) ≥ 1 − ξ_i, the dual optimum is
//! α_std = (2/W)·α and b = −2γ/W; the model stores this canonical scaling.

use super::engine::{Stagnation, Totals, finish};
use super::init::warm_iterate;
use super::monitor::Monitor;
use super::scan::{ColumnTerm, update_and_scan};
use super::state::State;
use super::tracker::Tracker;
use super::{ExitReason, Solution, SolverParams, StepCounts, StepKind, Stopping};
use crate::error::{FwsvmError, Result};
use crate::kernel::{Column, ColumnCache};
use crate::problem::SimplexProblem;
use crate::random::SplitMix64;

/// The toward and away vertices of one class (simplex).
#[derive(Clone, Copy, Debug)]
struct ClassVertices {
    /// argmin_a G_a over the class (the linearisation's minimiser).
    toward: usize,
    /// argmax_a G_a over the class's support.
    away: usize,
}

/// Per-class vertices from G (ties to the lowest index).
fn class_vertices(signs: &[f64], grad_q: &[f64], alpha: &[f64]) -> [ClassVertices; 2] {
    let mut best = [(f64::INFINITY, usize::MAX); 2];
    let mut worst = [(f64::NEG_INFINITY, usize::MAX); 2];
    for (a, (&s, &g)) in signs.iter().zip(grad_q).enumerate() {
        let c = usize::from(s < 0.0);
        if g < best[c].0 || best[c].1 == usize::MAX {
            best[c] = (g, a);
        }
        if alpha[a] > 0.0 && (g > worst[c].0 || worst[c].1 == usize::MAX) {
            worst[c] = (g, a);
        }
    }
    [0, 1].map(|c| ClassVertices {
        toward: best[c].1,
        away: worst[c].1,
    })
}

/// KY's certificates at the current iterate.
#[derive(Clone, Copy, Debug)]
struct Certificates {
    /// ε₊ = 1 − wᵀz/W.
    plus: f64,
    /// ε₋ = wᵀy/W − 1.
    minus: f64,
    /// wᵀz = s(p_{i'}) − s(q_{j'}).
    wz: f64,
    /// wᵀy = s(p_{i''}) − s(q_{j''}).
    wy: f64,
}

fn certificates(state: &State, v: &[ClassVertices; 2]) -> Certificates {
    let w = state.quad;
    let wz = state.grad_q[v[0].toward] + state.grad_q[v[1].toward];
    let wy = state.grad_q[v[0].away] + state.grad_q[v[1].away];
    Certificates {
        plus: 1.0 - wz / w,
        minus: wy / w - 1.0,
        wz,
        wy,
    }
}

/// Solves the nearest-point problem on an L2-SVC [`SimplexProblem`] (see the module docs).
pub(crate) fn solve(
    problem: &SimplexProblem<'_>,
    params: &SolverParams,
    monitor: &mut (dyn Monitor + Send),
) -> Result<Solution> {
    let n = problem.n_slots();
    let signs = problem.signs();
    if problem.copies() != 1 || problem.linear().iter().any(|&b| b != 0.0) {
        return Err(FwsvmError::param(
            "algorithm",
            "'ky' solves the two-class nearest-point problem of binary classification; \
             one-class and regression problems need fw, mfw, swap, swap2o or bc",
        ));
    }
    if !(signs.iter().any(|&s| s > 0.0) && signs.iter().any(|&s| s < 0.0)) {
        return Err(FwsvmError::param(
            "algorithm",
            "'ky' needs samples of both classes",
        ));
    }
    if params.stopping == Stopping::Meb {
        return Err(FwsvmError::param(
            "stopping",
            "the nearest-point problem of 'ky' is not a minimum enclosing ball; use gap or absolute_gap",
        ));
    }
    let mut tracker = Tracker::new(params, monitor);
    let mut cache = params.column_cache(problem.n_samples());
    let mut state = State::zeros(n);

    if let Some((support, values)) =
        warm_iterate(problem, params, |a| usize::from(signs[a] < 0.0), 2)?
    {
        state.set_iterate(problem, &mut cache, &support, &values);
    } else {
        let (i_star, j_star) = closest_pair(problem, params, &mut cache);
        state.set_iterate(problem, &mut cache, &[i_star, j_star], &[1.0, 1.0]);
    }
    let mut v = class_vertices(signs, &state.grad_q, &state.alpha);
    if params.verbose {
        monitor.log(&format!(
            "ky on {n} points, tol {:e} ({}), cache {} columns",
            params.tol,
            params.stopping.name(),
            cache.capacity()
        ));
    }

    let q_max = (0..n).map(|a| problem.q_diag(a).abs()).fold(0.0, f64::max);
    let mut steps = StepCounts::default();
    let mut since_resync: u64 = 0;
    let mut resyncs: u64 = 0;
    let mut certified = false;
    let mut stalled = false;
    let mut stagnation = Stagnation::new(n);
    let exit_reason = loop {
        let cert = certificates(&state, &v);
        let w = state.quad;
        let objective = -w;
        let gap = 2.0 * (w - cert.wz);
        let eps = cert.plus.max(cert.minus);
        let done = match params.stopping {
            Stopping::AbsoluteGap => 2.0 * eps * w <= params.tol,
            _ => eps <= params.tol,
        };
        if done {
            if certified {
                break ExitReason::Converged;
            }
            state.refresh_scalars(problem);
            let drift = since_resync as f64 * 8.0 * f64::EPSILON * q_max;
            if drift > 0.01 * params.tol * w {
                resync(problem, &mut state, &mut cache, &mut v);
                since_resync = 0;
                resyncs += 1;
            }
            certified = true;
            continue;
        }
        // ε is already relative: round-off level is FLOOR × 1.
        if stagnation.stuck(eps, 1.0, tracker.steps_taken) {
            break ExitReason::NoProgress;
        }
        if let Some(reason) =
            tracker.checkpoint_at(monitor, &state, objective, gap, cache.columns_computed())?
        {
            break reason;
        }
        let kind = pair_step(problem, &mut state, &mut cache, &v, cert);
        let Some(kind) = kind else {
            if stalled {
                break ExitReason::NoProgress;
            }
            stalled = true;
            resync(problem, &mut state, &mut cache, &mut v);
            since_resync = 0;
            resyncs += 1;
            continue;
        };
        v = class_vertices(signs, &state.grad_q, &state.alpha);
        stalled = false;
        certified = false;
        steps.count(kind);
        since_resync += 1;
        tracker.record_at(monitor, &state, objective, gap, kind);
        if params.resync_every.is_some_and(|k| since_resync >= k) {
            resync(problem, &mut state, &mut cache, &mut v);
            since_resync = 0;
            resyncs += 1;
        }
    };

    state.refresh_scalars(problem);
    let cert = certificates(&state, &v);
    let w = state.quad;
    let gap = 2.0 * (w - cert.wz);
    let threshold = (state.grad_q[v[0].toward] - state.grad_q[v[1].toward]) / 2.0;
    tracker.close(-w, gap, state.active.len());
    let stats = tracker.stats(
        exit_reason,
        -w,
        gap,
        w,
        steps,
        state.active.len(),
        &Totals::of(&cache, problem.n_samples(), resyncs),
    );
    finish(
        params,
        monitor,
        stats,
        state.alpha,
        tracker.history,
        Some(threshold),
    )
}

/// Paper 001 steps 2–3: from a (random) positive p¹, its closest negative q^{j*}, then the
/// positive closest to that: D(a, b) = Q_aa + Q_bb + 2Q_ab for a pair of opposite signs.
fn closest_pair(
    problem: &SimplexProblem<'_>,
    params: &SolverParams,
    cache: &mut ColumnCache,
) -> (usize, usize) {
    let n = problem.n_slots();
    let signs = problem.signs();
    let positives: Vec<usize> = (0..n).filter(|&a| signs[a] > 0.0).collect();
    let p1 = positives[SplitMix64::new(params.seed).below(positives.len())];
    let mut closest = |from: usize| -> usize {
        let slot = cache.fetch(problem.kernel(), problem.sample(from), None);
        let col = cache.column(slot);
        let mut best = (f64::INFINITY, usize::MAX);
        for b in (0..n).filter(|&b| signs[b] != signs[from]) {
            let d = problem.q_diag(b) + 2.0 * problem.q_entry_from_column(b, from, col);
            if d < best.0 {
                best = (d, b);
            }
        }
        best.1
    };
    let j_star = closest(p1);
    (closest(j_star), j_star)
}

fn resync(
    problem: &SimplexProblem<'_>,
    state: &mut State,
    cache: &mut ColumnCache,
    v: &mut [ClassVertices; 2],
) {
    // Renormalise each simplex, then rebuild G.
    for sign in [1.0, -1.0] {
        let total: f64 = state
            .active
            .iter()
            .filter(|&&a| problem.signs()[a] == sign)
            .map(|&a| state.alpha[a])
            .sum();
        for &a in &state.active {
            if problem.signs()[a] == sign {
                state.alpha[a] /= total;
            }
        }
    }
    state.resync(problem, cache);
    *v = class_vertices(problem.signs(), &state.grad_q, &state.alpha);
}

/// G ← c₀·G + coef·(Q_{:,i} + Q_{:,j}) for the (slot, cache slot) pairs `ends`; α must already
/// be the new iterate.
fn update_pair(
    problem: &SimplexProblem<'_>,
    state: &mut State,
    cache: &ColumnCache,
    ends: [(usize, usize); 2],
    coef: f64,
    c0: f64,
) {
    let terms = ends.map(|(slot, cached)| ColumnTerm {
        coef,
        slot,
        column: cache.column(cached),
    });
    update_and_scan(problem, &mut state.grad_q, &state.alpha, c0, &terms);
}

/// ‖z‖² for z = φ̃(a) − φ̃(b), a and b of opposite classes, from the column of a.
fn pair_norm(problem: &SimplexProblem<'_>, a: usize, b: usize, column_of_a: Column<'_>) -> f64 {
    problem.q_diag(a) + problem.q_diag(b) + 2.0 * problem.q_entry_from_column(b, a, column_of_a)
}

/// One step on the vertex pair (one per class) of the larger certificate: the add step on
/// the toward pair when ε₊ > ε₋, else the away step on the away pair; the columns of both
/// ends are fetched and G updated here. `None` when the step would not move α.
fn pair_step(
    problem: &SimplexProblem<'_>,
    state: &mut State,
    cache: &mut ColumnCache,
    v: &[ClassVertices; 2],
    cert: Certificates,
) -> Option<StepKind> {
    let toward = cert.plus > cert.minus;
    let (i, j) = if toward {
        (v[0].toward, v[1].toward)
    } else {
        (v[0].away, v[1].away)
    };
    let si = cache.fetch(problem.kernel(), problem.sample(i), None);
    let sj = cache.fetch(problem.kernel(), problem.sample(j), Some(si));
    let norm = pair_norm(problem, i, j, cache.column(si));
    // G ← c0·G + coef·(Q_{·i} + Q_{·j}).
    let (kind, coef, c0) = if toward {
        let lambda = add_step(state, i, j, norm, cert.wz)?;
        (StepKind::Toward, lambda, 1.0 - lambda)
    } else {
        let (kind, lambda) = away_step(state, i, j, norm, cert.wy)?;
        (kind, -lambda, 1.0 + lambda)
    };
    update_pair(problem, state, cache, [(i, si), (j, sj)], coef, c0);
    Some(kind)
}

/// Add (toward) step on the pair (i, j) with ‖z‖² = `zz`: α ← (1−λ)α + λ(e_{i'} + e_{j'}),
/// λ = min(1, (W − wᵀz)/‖w − z‖²); returns λ.
fn add_step(state: &mut State, i: usize, j: usize, zz: f64, wz: f64) -> Option<f64> {
    let w = state.quad;
    let denominator = w - 2.0 * wz + zz;
    let lambda = if denominator > 0.0 {
        ((w - wz) / denominator).min(1.0)
    } else {
        1.0
    };
    if !(lambda > 0.0) {
        return None;
    }
    // Notes A.2: W ← (1−λ)²W + 2λ(1−λ)wᵀz + λ²‖z‖² (the paper prints −2λ(1−λ)).
    state.quad =
        (1.0 - lambda).powi(2) * w + 2.0 * lambda * (1.0 - lambda) * wz + lambda * lambda * zz;
    if lambda >= 1.0 {
        for a in state.active.clone() {
            state.drop_point(a);
        }
    } else {
        state.scale_active(1.0 - lambda);
    }
    state.alpha[i] += lambda;
    state.alpha[j] += lambda;
    state.activate(i);
    state.activate(j);
    Some(lambda)
}

/// Away step on the pair (i, j) with ‖y‖² = `yy`: α ← (1+λ)α − λ(e_{i''} + e_{j''}),
/// λ = min((wᵀy − W)/‖w − y‖², λ_max) with λ_max = min(u_{i''}/(1−u_{i''}), v_{j''}/(1−v_{j''}));
/// a drop when λ_max binds. Returns the kind and λ.
fn away_step(state: &mut State, i: usize, j: usize, yy: f64, wy: f64) -> Option<(StepKind, f64)> {
    let bound = |x: f64| {
        if x < 1.0 {
            x / (1.0 - x)
        } else {
            f64::INFINITY
        }
    };
    let (bound_i, bound_j) = (bound(state.alpha[i]), bound(state.alpha[j]));
    let lambda_max = bound_i.min(bound_j);
    let w = state.quad;
    let denominator = w - 2.0 * wy + yy;
    let unclipped = if denominator > 0.0 {
        (wy - w) / denominator
    } else {
        f64::INFINITY
    };
    let lambda = unclipped.min(lambda_max);
    if !(lambda > 0.0 && lambda.is_finite()) {
        return None;
    }
    let drop = unclipped >= lambda_max;
    state.quad =
        (1.0 + lambda).powi(2) * w - 2.0 * lambda * (1.0 + lambda) * wy + lambda * lambda * yy;
    state.scale_active(1.0 + lambda);
    for (a, b) in [(i, bound_i), (j, bound_j)] {
        if drop && b <= lambda {
            state.drop_point(a);
        } else {
            state.alpha[a] -= lambda;
        }
    }
    Some((if drop { StepKind::Drop } else { StepKind::Away }, lambda))
}
