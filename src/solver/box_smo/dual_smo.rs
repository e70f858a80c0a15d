//! LIBSVM's `Solver` and `Solver_NU` for the duals of [`DualProblem`]: ν-SVC, one-class,
//! ε-SVR and ν-SVR.
//!
//! As for the hinge SVC ([`super::smo`]), the state is kept as v_t = −y_t ∇_t f(α) =
//! −y_t p_t − Σ_u α_u y_u k(x_s(u), x_s(t)); a step moves a pair (i, j) along y_i e_i − y_j e_j
//! (which keeps yᵀα), i the largest v over I_up and j the second-order partner in I_low
//! (Fan, Chen & Lin 2005), clipped to the box by LIBSVM's update ([`super::smo::pair_update`]).
//! With two equality constraints (ν-SVC, ν-SVR: LIBSVM's `Solver_NU`) both variables of a pair
//! have the same y, so that eᵀα is kept too: the violation and the selection are taken within
//! each class, and the pair comes from the class whose partner gains most. The fit stops when
//! the largest violation (max over I_up of v − min over I_low of v, per class for ν) is at
//! most `tol`, LIBSVM's `-e`.
//!
//! Kernel columns come from the [`ColumnCache`](crate::kernel::ColumnCache) over samples: the regressions' two variables
//! of a sample share one column. With `f32` columns the gradient is recomputed exactly (one
//! kernel expansion over the support vectors) before convergence is declared, so the final
//! violation — the certificate reported in the statistics as `gap` — is exact.

use super::engine::Totals;
use super::monitor::Monitor;
use super::smo::{TAU, pair_update, step_kind};
use super::tracker::Tracker;
use super::{ExitReason, HistoryEntry, SolverParams, SolverStats, StepCounts};
use crate::error::Result;
use crate::kernel::{CachePrecision, Column, Kernel, KernelMatrix, QueryScratch};
use crate::problem::dual::DualProblem;

/// A solved dual: α per variable, LIBSVM's ρ (and r for the ν forms) and statistics.
#[derive(Clone, Debug)]
pub struct DualSolution {
    /// α_t ∈ [0, C_t], one per variable (α then α* for the regressions).
    pub alpha: Vec<f64>,
    /// LIBSVM's ρ: the decision value is Σ coef k − ρ.
    pub rho: f64,
    /// LIBSVM's r of the ν forms: (r₁ + r₂)/2 (the ν-SVC scale 1/C; −ε for the ν-SVR); 0 else.
    pub r: f64,
    /// Statistics: `gap` is the exact maximal violation of the optimality conditions at the
    /// end, `objective` ½αᵀQα + pᵀα (LIBSVM's `obj`), `quadratic` αᵀQα.
    pub stats: SolverStats,
    /// Per-step history when requested (`gap`: the maximal violation before the step).
    pub history: Vec<HistoryEntry>,
}

/// Certifications with `f32` columns that may fail before the gradient is kept exact.
const MAX_REFINEMENTS: usize = 3;

/// Largest v over I_up and smallest over I_low, with where the largest is.
#[derive(Clone, Copy, Debug)]
struct Extremes {
    up_idx: usize,
    up: f64,
    low: f64,
}

impl Extremes {
    const EMPTY: Extremes = Extremes {
        up_idx: usize::MAX,
        up: f64::NEG_INFINITY,
        low: f64::INFINITY,
    };

    fn violation(&self) -> f64 {
        if self.up_idx == usize::MAX {
            0.0
        } else {
            self.up - self.low
        }
    }
}

/// The state of one solve.
struct State<'p, 'a> {
    problem: &'p DualProblem<'a>,
    m: usize,
    alpha: Vec<f64>,
    v: Vec<f64>,
    /// 0 for a variable in I_up, −∞ else.
    up: Vec<f64>,
    /// 0 for a variable in I_low, +∞ else.
    low: Vec<f64>,
}

impl State<'_, '_> {
    fn set_membership(&mut self, t: usize) {
        let (a, c, y) = (self.alpha[t], self.problem.c[t], self.problem.y[t]);
        let (grow, shrink) = if y > 0.0 {
            (a < c, a > 0.0)
        } else {
            (a > 0.0, a < c)
        };
        self.up[t] = if grow { 0.0 } else { f64::NEG_INFINITY };
        self.low[t] = if shrink { 0.0 } else { f64::INFINITY };
    }

    /// The extremes over the variables with y = `class` (all variables when `None`).
    fn extremes(&self, class: Option<f64>) -> Extremes {
        let mut out = Extremes::EMPTY;
        let y = &self.problem.y;
        for t in 0..self.v.len() {
            if class.is_some_and(|c| y[t] != c) {
                continue;
            }
            let x = self.v[t] + self.up[t];
            if x > out.up {
                out.up = x;
                out.up_idx = t;
            }
            out.low = out.low.min(self.v[t] + self.low[t]);
        }
        if out.up == f64::NEG_INFINITY {
            out.up_idx = usize::MAX;
        }
        out
    }

    /// The classes whose violations count: one (all variables) or the two of the ν forms.
    fn classes(&self) -> &'static [Option<f64>] {
        if self.problem.kind.two_constraints() {
            &[Some(1.0), Some(-1.0)]
        } else {
            &[None]
        }
    }

    /// The largest violation over the classes.
    fn violation(&self) -> f64 {
        self.classes()
            .iter()
            .map(|&c| self.extremes(c).violation())
            .fold(0.0, f64::max)
    }

    /// v computed exactly (`f64`, no cache) from α: −y∘p − Σ α y k.
    fn recompute(&mut self) -> u64 {
        let (y, p, m) = (&self.problem.y, &self.problem.p, self.m);
        let mut coef = vec![0.0; m];
        for t in 0..self.alpha.len() {
            coef[t % m] -= self.alpha[t] * y[t];
        }
        let support: Vec<usize> = (0..m).filter(|&s| coef[s] != 0.0).collect();
        let weights: Vec<f64> = support.iter().map(|&s| coef[s]).collect();
        let mut f = vec![0.0; m];
        let kernel = &self.problem.kernel;
        if kernel.kernel() == Kernel::Precomputed {
            let mut column = vec![0.0; m];
            let mut scratch = QueryScratch::new();
            for (&s, &w) in support.iter().zip(&weights) {
                kernel.column(s, &mut column, &mut scratch);
                for (o, &k) in f.iter_mut().zip(&column) {
                    *o += w * k;
                }
            }
        } else {
            kernel.add_expansion(&kernel.data(), &support, &weights, &mut f);
        }
        for t in 0..self.v.len() {
            self.v[t] = -y[t] * p[t] + f[t % m];
        }
        (m * support.len()) as u64
    }
}

/// The second-order partner of `i` among the variables of `class`: the j ∈ I_low with
/// v_j < `gmax` of the largest (gmax − v_j)²/(k_ii + k_jj − 2k_ij), as (j, gain).
fn partner(
    state: &State<'_, '_>,
    col: Column<'_>,
    diag: &[f64],
    i: usize,
    gmax: f64,
    class: Option<f64>,
) -> Option<(usize, f64)> {
    match col {
        Column::F32(c) => best_partner(state, c, diag, i, gmax, class),
        Column::F64(c) => best_partner(state, c, diag, i, gmax, class),
    }
}

fn best_partner<T: Copy + Into<f64>>(
    state: &State<'_, '_>,
    col: &[T],
    diag: &[f64],
    i: usize,
    gmax: f64,
    class: Option<f64>,
) -> Option<(usize, f64)> {
    let m = state.m;
    let kii = diag[i % m];
    let y = &state.problem.y;
    let mut best: Option<(usize, f64)> = None;
    for copy in 0..state.v.len() / m {
        let base = copy * m;
        let (v, low) = (&state.v[base..base + m], &state.low[base..base + m]);
        for s in 0..m {
            if class.is_some_and(|c| y[base + s] != c) {
                continue;
            }
            let b = gmax - (v[s] + low[s]);
            if b <= 0.0 {
                continue;
            }
            let a = kii + diag[s] - 2.0 * col[s].into();
            let a = if a > 0.0 { a } else { TAU };
            let gain = b * b / a;
            if best.is_none_or(|(_, g)| gain > g) {
                best = Some((base + s, gain));
            }
        }
    }
    best
}

/// v_t −= wi k(x_s(t), x_s(i)) + wj k(x_s(t), x_s(j)) on every variable.
fn update(v: &mut [f64], m: usize, ci: Column<'_>, cj: Column<'_>, wi: f64, wj: f64) {
    fn go<T: Copy + Into<f64>>(v: &mut [f64], m: usize, ci: &[T], cj: &[T], wi: f64, wj: f64) {
        for part in v.chunks_exact_mut(m) {
            for ((x, &a), &b) in part.iter_mut().zip(ci).zip(cj) {
                *x -= wi * a.into() + wj * b.into();
            }
        }
    }
    match (ci, cj) {
        (Column::F32(a), Column::F32(b)) => go(v, m, a, b, wi, wj),
        (Column::F64(a), Column::F64(b)) => go(v, m, a, b, wi, wj),
        _ => unreachable!("one cache holds one precision"),
    }
}

/// Minimises the dual to a maximal violation of at most `params.tol` (see the module).
///
/// # Errors
/// [`FwsvmError::InvalidParameter`](crate::FwsvmError::InvalidParameter) for invalid
/// `params`, or whatever the monitor returns (e.g. an interrupt).
pub fn solve_dual(
    problem: &DualProblem<'_>,
    params: &SolverParams,
    monitor: &mut (dyn Monitor + Send),
) -> Result<DualSolution> {
    params.validate()?;
    let m = problem.n_samples();
    let n = problem.n_vars();
    let kernel: &KernelMatrix<'_> = &problem.kernel;
    let diag = kernel.diagonal().to_vec();
    let mut tracker = Tracker::new(params, monitor);
    let mut steps = StepCounts::default();
    let mut state = State {
        problem,
        m,
        alpha: problem.alpha0.clone(),
        v: vec![0.0; n],
        up: vec![0.0; n],
        low: vec![0.0; n],
    };
    let mut totals = Totals::default();
    totals.evaluations += state.recompute();
    for t in 0..n {
        state.set_membership(t);
    }
    let mut cache = params.column_cache(m);
    let rounded = cache.precision() == CachePrecision::Float32;
    let mut refinements = 0;
    let mut objective = 0.0;
    let exit = loop {
        if tracker.steps_taken.is_multiple_of(64) {
            objective = dual_objective(&state);
        }
        // The pair: per class for the ν forms, the best partner's class wins.
        let mut pick: Option<(usize, usize, f64)> = None;
        let mut violation: f64 = 0.0;
        let mut slot_i = None;
        for &class in state.classes() {
            let ext = state.extremes(class);
            violation = violation.max(ext.violation());
            if ext.violation() <= params.tol {
                continue;
            }
            let i = ext.up_idx;
            let si = cache.fetch(kernel, i % m, None);
            if let Some((j, gain)) = partner(&state, cache.column(si), &diag, i, ext.up, class)
                && pick.is_none_or(|(_, _, g)| gain > g)
            {
                pick = Some((i, j, gain));
                slot_i = Some(si);
            }
        }
        let Some((i, j, _)) = pick else {
            // Converged on v: exact when the columns are f64; else certified on an exact v.
            if !rounded || refinements >= MAX_REFINEMENTS {
                break ExitReason::Converged;
            }
            refinements += 1;
            totals.resyncs += 1;
            totals.evaluations += state.recompute();
            if state.violation() <= params.tol {
                break ExitReason::Converged;
            }
            continue;
        };
        let n_sv = if tracker.steps_taken.is_multiple_of(64) {
            state.alpha.iter().filter(|&&a| a > 0.0).count()
        } else {
            0
        };
        if let Some(reason) = tracker.checkpoint(
            monitor,
            objective,
            violation,
            n_sv,
            cache.columns_computed(),
        )? {
            break reason;
        }
        // Re-fetch i's column (a ν fit may have fetched the other class's since), then j's
        // with i's kept.
        let si = match slot_i.and_then(|_| cache.lookup(i % m)) {
            Some(s) => s,
            None => cache.fetch(kernel, i % m, None),
        };
        let sj = cache.fetch(kernel, j % m, Some(si));
        let si = cache
            .lookup(i % m)
            .expect("kept while j's column was fetched");
        let (ci, cj) = (cache.column(si), cache.column(sj));
        let kij = ci.get(j % m);
        let y = &problem.y;
        let c = &problem.c;
        let (old_i, old_j) = (state.alpha[i], state.alpha[j]);
        let (gi, gj) = (-y[i] * state.v[i], -y[j] * state.v[j]);
        let (new_i, new_j) = pair_update(
            y[i] != y[j],
            diag[i % m] + diag[j % m] - 2.0 * kij,
            gi,
            gj,
            old_i,
            old_j,
            c[i],
            c[j],
        );
        let (wi, wj) = (y[i] * (new_i - old_i), y[j] * (new_j - old_j));
        if wi == 0.0 && wj == 0.0 {
            break ExitReason::NoProgress;
        }
        state.alpha[i] = new_i;
        state.alpha[j] = new_j;
        state.set_membership(i);
        state.set_membership(j);
        update(&mut state.v, m, ci, cj, wi, wj);
        let kind = step_kind(new_i, c[i], new_j, c[j]);
        steps.count(kind);
        tracker.record(monitor, &state.alpha, objective, violation, kind, 0);
    };
    totals.merge(&Totals::of(&cache, m, 0));
    drop(cache);

    let (rho, r) = rho(&state);
    let objective = dual_objective(&state);
    let quadratic = quadratic(&state);
    let gap = state.violation();
    let n_active = state.alpha.iter().filter(|&&a| a > 0.0).count();
    tracker.close(objective, gap, n_active);
    let stats = tracker.stats(exit, objective, gap, quadratic, steps, n_active, &totals);
    if params.verbose {
        monitor.log(&format!(
            "{}, {} after {} steps: objective {:.10e}, max violation {:.3e} (tol {:e}), rho {:.6e}, {} support variables, {} kernel columns, {:.3} s",
            problem.kind.name(),
            exit.name(),
            stats.n_iter,
            objective,
            gap,
            params.tol,
            rho,
            n_active,
            stats.columns_computed,
            stats.seconds
        ));
    }
    Ok(DualSolution {
        alpha: state.alpha,
        rho,
        r: if problem.kind.two_constraints() {
            r
        } else {
            0.0
        },
        stats,
        history: tracker.history,
    })
}

/// αᵀQα from v: (Qα)_t = −p_t − y_t v_t.
fn quadratic(state: &State<'_, '_>) -> f64 {
    let (y, p) = (&state.problem.y, &state.problem.p);
    (0..state.alpha.len())
        .filter(|&t| state.alpha[t] > 0.0)
        .map(|t| state.alpha[t] * (-p[t] - y[t] * state.v[t]))
        .sum()
}

/// ½αᵀQα + pᵀα = ½ Σ α_t (p_t − y_t v_t).
fn dual_objective(state: &State<'_, '_>) -> f64 {
    let (y, p) = (&state.problem.y, &state.problem.p);
    0.5 * (0..state.alpha.len())
        .filter(|&t| state.alpha[t] > 0.0)
        .map(|t| state.alpha[t] * (p[t] - y[t] * state.v[t]))
        .sum::<f64>()
}

/// LIBSVM's ρ (and r): `Solver::calculate_rho`, or `Solver_NU::calculate_rho` for the ν forms.
fn rho(state: &State<'_, '_>) -> (f64, f64) {
    let y = &state.problem.y;
    if state.problem.kind.two_constraints() {
        // Per class on ∇_t = −y_t v_t; a variable at its upper bound bounds r from below
        // whatever its class.
        let r1 = average(state, |t| y[t] > 0.0, |t| -state.v[t], |_, upper| upper);
        let r2 = average(state, |t| y[t] < 0.0, |t| state.v[t], |_, upper| upper);
        ((r1 - r2) / 2.0, (r1 + r2) / 2.0)
    } else {
        // On y_t ∇_t = −v_t; at the upper bound it bounds ρ from below for y = +1, at the
        // lower bound for y = −1.
        let below = |t: usize, upper: bool| upper == (y[t] > 0.0);
        (average(state, |_| true, |t| -state.v[t], below), 0.0)
    }
}

/// The mean of `value` over the free variables among `members`, or with none the middle of
/// the interval the bounded ones allow (`below(t, at_upper)`: t's value bounds from below).
fn average(
    state: &State<'_, '_>,
    members: impl Fn(usize) -> bool,
    value: impl Fn(usize) -> f64,
    below: impl Fn(usize, bool) -> bool,
) -> f64 {
    let c = &state.problem.c;
    let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut free, mut sum) = (0usize, 0.0);
    for t in (0..state.alpha.len()).filter(|&t| members(t)) {
        let (a, g) = (state.alpha[t], value(t));
        if a > 0.0 && a < c[t] {
            free += 1;
            sum += g;
        } else if below(t, a >= c[t]) {
            lb = lb.max(g);
        } else {
            ub = ub.min(g);
        }
    }
    if free > 0 {
        sum / free as f64
    } else {
        0.5 * (ub + lb)
    }
}
