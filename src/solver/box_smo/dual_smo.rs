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
use super::smo::{
    Extremes, Gain, add_training_expansion, pair_step, partner_with_gain, pass, step_kind,
};
use super::tracker::{Standing, Tracker};
use super::{ExitReason, HistoryEntry, SolverParams, SolverStats, StepCounts};
use crate::error::Result;
use crate::kernel::{CachePrecision, Column, Kernel, KernelMatrix, Terms};
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

/// A run of variables t ∈ `vars` on the samples `first_sample..` (t − vars.start + first_sample),
/// in one constraint `class` (always 0 with one equality constraint; the ν forms' classes are
/// 0 and 1). The regressions have two segments on the same samples (α, then α*); a ν-SVC's
/// variables come sorted by class.
#[derive(Clone, Debug)]
struct Segment {
    vars: std::ops::Range<usize>,
    first_sample: usize,
    class: usize,
}

impl Segment {
    fn samples(&self) -> std::ops::Range<usize> {
        self.first_sample..self.first_sample + self.vars.len()
    }
}

/// The segments of a problem (see [`Segment`]).
fn segments(problem: &DualProblem<'_>) -> Vec<Segment> {
    let (m, n, y) = (problem.n_samples(), problem.n_vars(), &problem.y);
    let two = problem.kind.two_constraints();
    if n == 2 * m {
        return vec![
            Segment {
                vars: 0..m,
                first_sample: 0,
                class: 0,
            },
            Segment {
                vars: m..n,
                first_sample: 0,
                class: usize::from(two),
            },
        ];
    }
    // One sample per variable; the ν-SVC's classes are contiguous (DualProblem::nu_svc).
    let split = if two {
        (1..n).find(|&t| y[t] != y[0]).unwrap_or(n)
    } else {
        n
    };
    let mut out = vec![Segment {
        vars: 0..split,
        first_sample: 0,
        class: 0,
    }];
    if split < n {
        out.push(Segment {
            vars: split..n,
            first_sample: split,
            class: 1,
        });
    }
    out
}

/// The state of one solve.
struct State<'p, 'a> {
    problem: &'p DualProblem<'a>,
    m: usize,
    segments: Vec<Segment>,
    alpha: Vec<f64>,
    v: Vec<f64>,
    /// 0 for a variable in I_up, −∞ else.
    up: Vec<f64>,
    /// 0 for a variable in I_low, +∞ else.
    low: Vec<f64>,
    /// Per class: the largest v over I_up (with where) and the smallest over I_low, as of the
    /// last pass.
    ext: [Extremes; 2],
}

impl<'p, 'a> State<'p, 'a> {
    /// The state of `problem` at α and v (extremes from one pass).
    fn new(problem: &'p DualProblem<'a>, alpha: Vec<f64>, v: Vec<f64>) -> Self {
        let n = alpha.len();
        let mut state = State {
            problem,
            m: problem.n_samples(),
            segments: segments(problem),
            alpha,
            v,
            up: vec![0.0; n],
            low: vec![0.0; n],
            ext: [Extremes::empty(), Extremes::empty()],
        };
        for t in 0..n {
            state.set_membership(t);
        }
        state.pass(None);
        state
    }

    /// The samples one of whose variables the next steps could choose (see [`run`]).
    fn kept_samples(&self) -> Vec<usize> {
        let mut keep = vec![false; self.m];
        for seg in &self.segments {
            let e = &self.ext[seg.class];
            for t in seg.vars.clone() {
                let (up, low) = (self.up[t] == 0.0, self.low[t] == 0.0);
                let stays =
                    (up && (low || self.v[t] >= e.low_val)) || (low && self.v[t] <= e.up_val);
                if stays {
                    keep[t % self.m] = true;
                }
            }
        }
        (0..self.m).filter(|&s| keep[s]).collect()
    }

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

    /// One pass over every segment: v updated by `update` (columns over all samples), and the
    /// extremes of each class.
    fn pass(&mut self, update: Option<(Column<'_>, Column<'_>, f64, f64)>) {
        self.ext = [Extremes::empty(), Extremes::empty()];
        for seg in &self.segments {
            let r = seg.vars.clone();
            let upd = update
                .map(|(ci, cj, wi, wj)| (ci.slice(seg.samples()), cj.slice(seg.samples()), wi, wj));
            let mut e = pass(
                &mut self.v[r.clone()],
                &self.up[r.clone()],
                &self.low[r],
                upd,
            );
            if e.up_idx != usize::MAX {
                e.up_idx += seg.vars.start;
            }
            self.ext[seg.class].merge(e);
        }
    }

    fn classes(&self) -> usize {
        if self.problem.kind.two_constraints() {
            2
        } else {
            1
        }
    }

    /// The violation of class `k` as of the last pass.
    fn class_violation(&self, k: usize) -> f64 {
        let e = &self.ext[k];
        if e.up_idx == usize::MAX {
            0.0
        } else {
            e.up_val - e.low_val
        }
    }

    /// The largest violation over the classes as of the last pass.
    fn violation(&self) -> f64 {
        (0..self.classes())
            .map(|k| self.class_violation(k))
            .fold(0.0, f64::max)
    }

    /// The second-order partner of i (largest v of class `k`, `gmax`) among the variables of
    /// class k: (j, gain).
    fn partner(
        &self,
        k: usize,
        col_i: Column<'_>,
        diag: &[f64],
        kii: f64,
    ) -> Option<(usize, Gain)> {
        let gmax = self.ext[k].up_val;
        let mut best: Option<(usize, Gain)> = None;
        for seg in self.segments.iter().filter(|s| s.class == k) {
            let r = seg.vars.clone();
            let found = partner_with_gain(
                col_i.slice(seg.samples()),
                &self.v[r.clone()],
                &self.low[r],
                &diag[seg.samples()],
                kii,
                gmax,
            );
            if let Some((j, g)) = found
                && best.is_none_or(|(_, b)| g.0 * b.1 > b.0 * g.1)
            {
                best = Some((seg.vars.start + j, g));
            }
        }
        best
    }

    /// v computed exactly (`f64`, no cache) from α: −y∘p − Σ α y k; then a pass.
    fn recompute(&mut self) -> u64 {
        let (y, p, m) = (&self.problem.y, &self.problem.p, self.m);
        let mut coef = vec![0.0; m];
        for t in 0..self.alpha.len() {
            coef[t % m] -= self.alpha[t] * y[t];
        }
        let support: Vec<usize> = (0..m).filter(|&s| coef[s] != 0.0).collect();
        let weights: Vec<f64> = support.iter().map(|&s| coef[s]).collect();
        let mut f = vec![0.0; m];
        add_training_expansion(&self.problem.kernel, &support, &weights, &mut f);
        for t in 0..self.v.len() {
            self.v[t] = -y[t] * p[t] + f[t % m];
        }
        self.pass(None);
        (m * support.len()) as u64
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
    let (m, n) = (problem.n_samples(), problem.n_vars());
    params.validate()?;
    let kernel: &KernelMatrix<'_> = &problem.kernel;
    let mut state = State::new(problem, problem.alpha0.clone(), vec![0.0; n]);
    let mut ctx = Ctx {
        params,
        tracker: Tracker::new(params, monitor),
        monitor,
        steps: StepCounts::default(),
        totals: Totals::default(),
        // As LIBSVM, problems of any size shrink (heart_scale's ε-SVR at C 10, 540 variables
        // and 1,735 steps: the solve 3.63 → 3.16 ms; the passes over every variable were half
        // the time).
        shrinks_left: if params.shrinking && kernel.kernel() != Kernel::Precomputed {
            MAX_DEPTH
        } else {
            0
        },
        shrinks: 0,
        rejoins: 0,
    };
    ctx.totals.evaluations += state.recompute();
    let rounded = params.column_cache(m).precision() == CachePrecision::Float32;
    let mut refinements = 0;
    let exit = loop {
        let exit = run(&mut state, &mut ctx)?;
        // Converged on v: exact when the columns are f64; else certified on an exact v.
        if exit != ExitReason::Converged || !rounded || refinements >= MAX_REFINEMENTS {
            break exit;
        }
        refinements += 1;
        ctx.totals.resyncs += 1;
        ctx.totals.evaluations += state.recompute();
        if state.violation() <= params.tol {
            break exit;
        }
    };
    let Ctx {
        mut tracker,
        monitor,
        steps,
        totals,
        shrinks,
        rejoins,
        ..
    } = ctx;
    let (rho, r) = rho(&state);
    let objective = dual_objective(&state);
    let quadratic = quadratic(&state);
    let gap = state.violation();
    let n_active = state.alpha.iter().filter(|&&a| a > 0.0).count();
    tracker.close(objective, gap, n_active);
    let mut stats = tracker.stats(exit, objective, gap, quadratic, steps, n_active, &totals);
    stats.shrinks = shrinks;
    stats.rejoins = rejoins;
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
        r,
        stats,
        history: tracker.history,
    })
}

/// Steps between two shrinking checks, at most (LIBSVM's min(l, 1000): the number of variables
/// when fewer).
const SHRINK_EVERY: u64 = 1000;

/// Smaller problems nested inside one another, at most.
const MAX_DEPTH: usize = 10;

/// What the levels of one solve share.
struct Ctx<'p, 'm> {
    params: &'p SolverParams,
    tracker: Tracker<'p>,
    monitor: &'m mut (dyn Monitor + Send),
    steps: StepCounts,
    totals: Totals,
    shrinks_left: usize,
    shrinks: u64,
    rejoins: u64,
}

/// The pairwise steps on one level (the whole problem, or the samples kept by shrinking),
/// from `state` (whose v includes the contribution of variables outside the level), until
/// the level's violation is at most `tol` or a limit is hit. Every [`SHRINK_EVERY`] steps the
/// samples none of whose variables can be chosen by the next steps (LIBSVM's rule: at a
/// bound, in I_up only with v below the class's min over I_low, or in I_low only with v
/// above its max over I_up) leave once they are a quarter of the level: the kept samples are
/// solved as a smaller problem ([`solve_kept`]) and the level goes on from the exact v.
fn run(state: &mut State<'_, '_>, ctx: &mut Ctx<'_, '_>) -> Result<ExitReason> {
    let problem = state.problem;
    let params = ctx.params;
    let m = state.m;
    let kernel = &problem.kernel;
    let diag = kernel.diagonal();
    let mut cache = params.column_cache(m);
    let mut objective = 0.0;
    let mut n_sv = 0;
    let every = SHRINK_EVERY.min(state.alpha.len() as u64);
    let mut next_shrink = ctx.tracker.steps_taken + every;
    let exit = loop {
        if ctx.tracker.steps_taken.is_multiple_of(64) {
            objective = dual_objective(state);
            n_sv = state.alpha.iter().filter(|&&a| a > 0.0).count();
        }
        // The pair: per class for the ν forms, the best partner's class wins.
        let violation = state.violation();
        let mut pick: Option<(usize, usize, Gain)> = None;
        for k in 0..state.classes() {
            if state.class_violation(k) <= params.tol {
                continue;
            }
            let i = state.ext[k].up_idx;
            let si = cache.fetch(kernel, i % m, None);
            if let Some((j, gain)) = state.partner(k, cache.column(si), diag, diag[i % m])
                && pick.is_none_or(|(_, _, g)| gain.0 * g.1 > g.0 * gain.1)
            {
                pick = Some((i, j, gain));
            }
        }
        let Some((i, j, _)) = pick else {
            break ExitReason::Converged;
        };
        let now = Standing {
            objective,
            gap: violation,
            coreset_size: n_sv,
            columns: cache.columns_computed(),
        };
        if let Some(reason) = ctx.tracker.checkpoint(ctx.monitor, now)? {
            break reason;
        }
        if ctx.shrinks_left > 0 && ctx.tracker.steps_taken >= next_shrink {
            next_shrink = ctx.tracker.steps_taken + every;
            let kept = state.kept_samples();
            if kept.len() * 4 <= 3 * m {
                ctx.totals.merge(&Totals::of(&cache, m, 0));
                // One cache at a time: this level's columns go before the smaller one fills.
                cache = params.column_cache(m);
                ctx.shrinks += 1;
                ctx.shrinks_left -= 1;
                if params.verbose {
                    ctx.monitor
                        .log(&format!("shrinking to {} of {m} samples", kept.len()));
                }
                let reason = solve_kept(state, &kept, ctx);
                ctx.shrinks_left += 1;
                let reason = reason?;
                if reason != ExitReason::Converged {
                    break reason;
                }
                if state.violation() > params.tol {
                    ctx.rejoins += 1;
                }
                continue;
            }
        }
        // i's column (a ν fit may have fetched the other class's since), then j's with i's
        // kept.
        let si = match cache.lookup(i % m) {
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
        let ((new_i, new_j), (wi, wj)) = pair_step(
            (y[i], y[j]),
            diag[i % m] + diag[j % m] - 2.0 * kij,
            (-y[i] * state.v[i], -y[j] * state.v[j]),
            (state.alpha[i], state.alpha[j]),
            (c[i], c[j]),
        );
        if wi == 0.0 && wj == 0.0 {
            break ExitReason::NoProgress;
        }
        state.alpha[i] = new_i;
        state.alpha[j] = new_j;
        state.set_membership(i);
        state.set_membership(j);
        state.pass(Some((ci, cj, wi, wj)));
        let kind = step_kind(new_i, c[i], new_j, c[j]);
        ctx.steps.count(kind);
        ctx.tracker
            .record(ctx.monitor, &state.alpha, objective, violation, kind, 0);
    };
    ctx.totals.merge(&Totals::of(&cache, m, 0));
    Ok(exit)
}

/// Solves the problem restricted to the samples `kept` (the others keep their α), then brings
/// v of the left-out samples up to date exactly (one kernel expansion over the kept samples
/// whose coefficient moved) and refreshes the level's extremes.
fn solve_kept(
    state: &mut State<'_, '_>,
    kept: &[usize],
    ctx: &mut Ctx<'_, '_>,
) -> Result<ExitReason> {
    let problem = state.problem;
    let m = state.m;
    let copies = state.alpha.len() / m;
    let data = problem.kernel.data();
    let kept_data = data.select_rows(kept);
    let vars: Vec<usize> = (0..copies)
        .flat_map(|c| kept.iter().map(move |&s| c * m + s))
        .collect();
    let pick = |a: &[f64]| vars.iter().map(|&t| a[t]).collect::<Vec<f64>>();
    let sub = DualProblem {
        kernel: KernelMatrix::new(problem.kernel.kernel(), kept_data.view()),
        kind: problem.kind,
        y: pick(&problem.y),
        p: pick(&problem.p),
        c: pick(&problem.c),
        alpha0: Vec::new(),
    };
    let mut sub_state = State::new(&sub, pick(&state.alpha), pick(&state.v));
    let reason = run(&mut sub_state, ctx)?;
    // Coefficient change per kept sample: −Σ over its variables of Δα y.
    let mut moved = Vec::new();
    let mut coef = Vec::new();
    for (k, _) in kept.iter().enumerate() {
        let mut delta = 0.0;
        for c in 0..copies {
            let (t, u) = (c * m + kept[k], c * kept.len() + k);
            delta -= (sub_state.alpha[u] - state.alpha[t]) * problem.y[t];
            state.alpha[t] = sub_state.alpha[u];
            state.v[t] = sub_state.v[u];
        }
        if delta != 0.0 {
            moved.push(k);
            coef.push(delta);
        }
    }
    let mut inside = vec![false; m];
    kept.iter().for_each(|&s| inside[s] = true);
    let left: Vec<usize> = (0..m).filter(|&s| !inside[s]).collect();
    if !moved.is_empty() && !left.is_empty() {
        let left_data = data.select_rows(&left);
        let mut f = vec![0.0; left.len()];
        let queries = kept_data.view();
        KernelMatrix::new(problem.kernel.kernel(), left_data.view())
            .add_expansion(Terms::new(&queries, &moved, &coef), &mut f);
        ctx.totals.evaluations += (left.len() * moved.len()) as u64;
        for (r, &s) in left.iter().enumerate() {
            for c in 0..copies {
                state.v[c * m + s] += f[r];
            }
        }
    }
    for t in 0..state.alpha.len() {
        state.set_membership(t);
    }
    state.pass(None);
    Ok(reason)
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
