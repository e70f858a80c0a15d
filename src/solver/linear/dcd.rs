//! The linear-kernel fast path of the squared-hinge SVC: dual coordinate descent with an
//! explicit weight vector (Hsieh, Chang, Lin, Keerthi & Sundararajan, ICML 2008; LIBLINEAR's
//! `solve_l2r_l1l2_svc`), certified by the same relative duality gap as the simplex solvers.
//!
//! With z_i = y_i [x_i; 1] and Q_ij = z_i·z_j + δ_ij / C_i (the simplex problem of
//! [`SimplexProblem::l2_svc`](crate::SimplexProblem::l2_svc) for k(x, x') = ⟨x, x'⟩), the box
//! problem min_{β ≥ 0} ½βᵀQβ − Σβ_i and the simplex problem min_{α ∈ Δ} αᵀQα have the same
//! solution up to scale: α* = β*/Σβ*. The box problem separates by coordinate, and with
//! w = Σ β_i z_i kept explicitly one coordinate step costs O(nnz(x_i)) — no kernel column, no
//! cache. Samples at β_i = 0 whose gradient stays positive are shrunk from the sweeps (LIBLINEAR's
//! rule) and rejoin before the solve may stop.
//!
//! The stopping test maps β to the simplex (α = β/Σβ) and computes the Frank-Wolfe duality gap
//! there with one pass over the data: the solve ends with the certificate the other algorithms
//! give, Δ(α)/|g(α)| ≤ `tol`.

use super::monitor::Monitor;
use super::tracker::{Standing, Tracker, relative};
use super::{ExitReason, HistoryEntry, Solution, SolverParams, SolverStats, StepCounts, StepKind};
use crate::data::{Features, LinearRows};
use crate::error::{FwsvmError, Result};
use crate::parallel::map_ranges;
use crate::random::SplitMix64;

/// Rows per chunk of the certificate pass: fixed, so the sums do not depend on the threads.
pub(super) const CHUNK: usize = 4096;

/// The duality gap of α = β/Σβ on the simplex, from one pass over the data.
struct Certificate {
    /// Σβ.
    mass: f64,
    /// αᵀQα.
    quadratic: f64,
    /// Δ(α) = 2(αᵀQα − min_i (Qα)_i).
    gap: f64,
}

impl Certificate {
    fn objective(&self) -> f64 {
        -self.quadratic
    }

    fn relative_gap(&self) -> f64 {
        relative(self.gap, self.objective())
    }
}

/// The margin y_i (⟨x_i, w⟩ + w_bias) of row i, with the bias weight last in `w` (the rows
/// augmented by a constant 1, LIBLINEAR's bias).
#[inline]
pub(super) fn margin<R: LinearRows + ?Sized>(x: &R, i: usize, y: f64, w: &[f64]) -> f64 {
    let d = w.len() - 1;
    y * (x.row_dot(i, &w[..d]) + w[d])
}

/// w ← w + a·[x_i; 1].
#[inline]
pub(super) fn add_row<R: LinearRows + ?Sized>(x: &R, i: usize, a: f64, w: &mut [f64]) {
    let d = w.len() - 1;
    x.row_axpy(i, a, &mut w[..d]);
    w[d] += a;
}

/// (Qβ)_i = y_i (⟨x_i, w⟩ + w_bias) + β_i / C_i.
#[inline]
fn q_beta(x: &Features<'_>, i: usize, y: f64, w: &[f64], beta: f64, ridge: f64) -> f64 {
    margin(x, i, y, w) + beta * ridge
}

fn certificate(x: &Features<'_>, y: &[f64], ridge: &[f64], beta: &[f64], w: &[f64]) -> Certificate {
    let m = beta.len();
    let work = m.saturating_mul(w.len());
    let parts: Vec<(f64, f64, f64)> = map_ranges(m, CHUNK, work, |lo, hi| {
        let (mut mass, mut quad, mut min_q) = (0.0, 0.0, f64::INFINITY);
        for i in lo..hi {
            let q = q_beta(x, i, y[i], w, beta[i], ridge[i]);
            mass += beta[i];
            quad += beta[i] * q;
            min_q = min_q.min(q);
        }
        (mass, quad, min_q)
    });
    let (mut mass, mut quad, mut min_q) = (0.0, 0.0, f64::INFINITY);
    for (a, b, c) in parts {
        mass += a;
        quad += b;
        min_q = min_q.min(c);
    }
    if mass <= 0.0 {
        return Certificate {
            mass,
            quadratic: 0.0,
            gap: f64::INFINITY,
        };
    }
    let quadratic = quad / (mass * mass);
    Certificate {
        mass,
        quadratic,
        gap: 2.0 * (quadratic - min_q / mass),
    }
}

/// Solves the linear squared-hinge SVC (labels `y` ±1, penalties `c`) by dual coordinate
/// descent and returns α on the simplex, as [`solve`](super::solve) does for the kernel path.
///
/// # Errors
/// [`FwsvmError::InvalidParameter`] for a warm start of the wrong length or with negative
/// weights; whatever the monitor returns (e.g. an interrupt).
pub fn solve(
    x: Features<'_>,
    y: &[f64],
    c: &[f64],
    params: &SolverParams,
    monitor: &mut (dyn Monitor + Send),
) -> Result<Solution> {
    params.validate()?;
    let m = x.n_rows();
    let d = x.n_cols();
    let ridge: Vec<f64> = c.iter().map(|&ci| 1.0 / ci).collect();
    let diag: Vec<f64> = (0..m).map(|i| x.row_sq_norm(i) + 1.0 + ridge[i]).collect();
    let mut beta = vec![0.0; m];
    let mut w = vec![0.0; d + 1];
    if let Some(warm) = &params.warm_start {
        warm_start(&x, y, &ridge, warm, &mut beta, &mut w)?;
    }
    let mut tracker = Tracker::new(params, monitor);
    let mut history = Vec::new();
    // The last certificate's objective and gap, for progress lines (none before the first).
    let poll = |tracker: &mut Tracker<'_>,
                monitor: &mut (dyn Monitor + Send),
                steps: u64,
                last: Option<&Certificate>,
                active: usize| {
        tracker.steps_taken = steps;
        let (objective, gap) = last.map_or((f64::NAN, f64::INFINITY), |c| (c.objective(), c.gap));
        let now = Standing {
            objective,
            gap,
            coreset_size: active,
            columns: 0,
        };
        tracker.poll(monitor, now)
    };
    let mut rng = SplitMix64::new(params.seed);
    let mut order: Vec<usize> = (0..m).collect();
    let mut active = m;
    // LIBLINEAR's shrinking threshold: the largest projected gradient of the previous sweep (the
    // box has no upper bound, so the smallest plays no part).
    let mut pg_max_old = f64::INFINITY;
    // Sweeps stop for a certificate once the projected gradients span at most this; halved
    // whenever the certificate then fails (the span and the relative gap are close but not equal).
    let mut span_tol = 0.5 * params.tol;
    let mut steps: u64 = 0;
    let mut sweeps: u64 = 0;
    let mut last: Option<Certificate> = None;
    let mut recorded_at = 0u64;
    let exit = 'solve: loop {
        rng.shuffle(&mut order[..active]);
        let (mut pg_max, mut pg_min) = (f64::NEG_INFINITY, f64::INFINITY);
        let mut s = 0;
        while s < active {
            let i = order[s];
            let g = q_beta(&x, i, y[i], &w, beta[i], ridge[i]) - 1.0;
            let pg = if beta[i] == 0.0 {
                if g > pg_max_old {
                    active -= 1;
                    order.swap(s, active);
                    continue;
                }
                g.min(0.0)
            } else {
                g
            };
            pg_max = pg_max.max(pg);
            pg_min = pg_min.min(pg);
            if pg.abs() > 1e-12 {
                let old = beta[i];
                beta[i] = (old - g / diag[i]).max(0.0);
                add_row(&x, i, (beta[i] - old) * y[i], &mut w);
                steps += 1;
                if params.max_iter.is_some_and(|k| steps >= k) {
                    break 'solve ExitReason::MaxIterations;
                }
                if steps.is_multiple_of(4096)
                    && let Some(reason) = poll(&mut tracker, monitor, steps, last.as_ref(), active)?
                {
                    break 'solve reason;
                }
            }
            s += 1;
        }
        sweeps += 1;
        if let Some(reason) = poll(&mut tracker, monitor, steps, last.as_ref(), active)? {
            break reason;
        }
        let span = if active == 0 { 0.0 } else { pg_max - pg_min };
        let check = span <= span_tol && active == m;
        let rejoin = span <= span_tol && active < m;
        if rejoin {
            // Converged on the samples in play: all rejoin for a sweep before the check.
            active = m;
            pg_max_old = f64::INFINITY;
        }
        // A recorded history gets a certificate about once per m coordinate steps (one more
        // pass each: the price of the convergence plot; sweeps over a few shrunk samples are
        // not worth a pass each); otherwise it is computed only for the stopping test.
        let record = params.record_history && steps - recorded_at >= (m as u64).div_ceil(2);
        if check || record {
            recorded_at = steps;
            let cert = certificate(&x, y, &ridge, &beta, &w);
            if params.record_history {
                history.push(HistoryEntry {
                    iteration: steps,
                    objective: cert.objective(),
                    gap: cert.gap,
                    kind: StepKind::Sweep,
                    coreset_size: beta.iter().filter(|&&b| b > 0.0).count(),
                    seconds: tracker.seconds(),
                });
            }
            let rel = cert.relative_gap();
            last = Some(cert);
            if check {
                if rel <= params.tol {
                    break ExitReason::Converged;
                }
                if span_tol < 1e-15 {
                    break ExitReason::NoProgress;
                }
                span_tol *= 0.5;
            }
        }
        if !rejoin {
            pg_max_old = if pg_max <= 0.0 { f64::INFINITY } else { pg_max };
        }
    };
    let cert = certificate(&x, y, &ridge, &beta, &w);
    if !(cert.mass > 0.0) {
        return Err(FwsvmError::InvalidInput(
            "dual coordinate descent ended with all weights zero (max_iter too small?)".into(),
        ));
    }
    let alpha: Vec<f64> = beta.iter().map(|b| b / cert.mass).collect();
    let n_active = alpha.iter().filter(|&&a| a > 0.0).count();
    if params.record_history {
        history.push(HistoryEntry {
            iteration: steps,
            objective: cert.objective(),
            gap: cert.gap,
            kind: StepKind::Final,
            coreset_size: n_active,
            seconds: tracker.seconds(),
        });
    }
    let stats = SolverStats {
        exit_reason: exit,
        n_iter: steps,
        gap: cert.gap,
        relative_gap: cert.relative_gap(),
        objective: cert.objective(),
        quadratic: cert.quadratic,
        steps: StepCounts {
            coordinate: steps,
            ..StepCounts::default()
        },
        n_active,
        columns_computed: 0,
        kernel_evaluations: 0,
        cache_hits: 0,
        cache_capacity: 0,
        cache_precision: Default::default(),
        resyncs: sweeps,
        shrinks: 0,
        rejoins: 0,
        sampled_steps: 0,
        seconds: tracker.seconds(),
    };
    super::engine::finish(params, monitor, stats, alpha, history, None)
}

/// β and w from simplex weights: β = tα with the t that minimises the box objective along α,
/// t = Σα / αᵀQα.
fn warm_start(
    x: &Features<'_>,
    y: &[f64],
    ridge: &[f64],
    warm: &[f64],
    beta: &mut [f64],
    w: &mut [f64],
) -> Result<()> {
    let m = beta.len();
    if warm.len() != m {
        return Err(FwsvmError::param(
            "warm_start",
            format!("has {} weights but the problem has {m} samples", warm.len()),
        ));
    }
    if let Some(i) = warm.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
        return Err(FwsvmError::param(
            "warm_start",
            format!(
                "weights must be finite and non-negative, got {} at {i}",
                warm[i]
            ),
        ));
    }
    for (i, &a) in warm.iter().enumerate() {
        if a > 0.0 {
            add_row(x, i, a * y[i], w);
        }
    }
    let sum: f64 = warm.iter().sum();
    let quad: f64 = w.iter().map(|v| v * v).sum::<f64>()
        + warm.iter().zip(ridge).map(|(a, r)| a * a * r).sum::<f64>();
    if !(sum > 0.0 && quad > 0.0) {
        w.iter_mut().for_each(|v| *v = 0.0);
        return Ok(());
    }
    let t = sum / quad;
    for (b, &a) in beta.iter_mut().zip(warm) {
        *b = t * a;
    }
    w.iter_mut().for_each(|v| *v *= t);
    Ok(())
}
