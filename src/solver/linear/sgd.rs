//! Linear SVMs by mini-batch stochastic (sub)gradient descent on the primal (seed 004 §5.2–5.3,
//! Algorithms 1–2; notes `seeds_000_004.md` §A.5).
//!
//! The objective is 004's (5.2) with per-sample weights,
//!
//!   P(w, b) = ½‖w‖² + C Σ_i s_i ℓ(y_i (⟨w, x_i⟩ + b)),
//!
//! ℓ the hinge max(0, 1 − t) or the squared hinge max(0, 1 − t)². Each epoch shuffles the rows
//! and splits them into batches J of `batch_size` (Algorithm 2); a step moves along the stochastic
//! subgradient (5.7),
//!
//!   ĝ = [w; 0] − (N C / |J|) Σ_{j∈J} s_j (−ℓ'(m_j)) [y_j x_j; y_j],   m_j = y_j(⟨w, x_j⟩ + b),
//!
//! with 004's convention that the hinge's kink m_j = 1 counts as active. The step size follows one
//! of (5.6)'s schedules: t_k = η₀/(1 + βk) (`Inverse`; with β = η₀ this is Pegasos's 1/(k + k₀)
//! on P, whose regulariser has modulus 1), t_k = η₀ e^{−βk} (`Exponential`) or η₀·f^{⌊epoch/e⌋}
//! (`Step`, piecewise constant). η₀ is calibrated as in Bottou's `sgd` when not given: one pass
//! over a subsample for each of a few candidates, keeping the one with the lowest objective.
//!
//! w is stored as s·u so that the shrink w ← (1 − t)w costs O(1) and a step O(nnz of the
//! batch); the averaged iterate (Polyak–Ruppert, from the second epoch) is kept in the same
//! sparse-update form (`Average`), so sparse data with many features never pays O(d) per step.
//!
//! Stopping (004 leaves it open): after each epoch the exact objective of the returned iterate
//! (the average when averaging) is computed with one pass; the fit stops when it has not
//! improved by more than `tol`·|P| over the best so far for `n_iter_no_change` epochs in a row,
//! or after `max_epochs`.

use std::time::Instant;

use super::monitor::{Monitor, Progress};
use crate::data::Features;
use crate::error::{FwsvmError, Result};
use crate::parallel::map_ranges;
use crate::params::Loss;
use crate::random::SplitMix64;

/// The step-size schedule (004 (5.6)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    /// t_k = η₀ / (1 + βk).
    Inverse,
    /// t_k = η₀ · exp(−βk).
    Exponential,
    /// t_k = η₀ · factor^⌊epoch / every⌋: piecewise constant, diminishing.
    Step {
        /// Epochs between reductions.
        every: usize,
        /// Factor in (0, 1) applied at each reduction.
        factor: f64,
    },
}

/// Settings of [`fit_sgd`].
#[derive(Clone, Debug)]
pub struct SgdParams {
    /// Penalty C > 0 on the loss of 004's (5.2).
    pub c: f64,
    /// `Hinge` or `SquaredHinge`.
    pub loss: Loss,
    /// Rows per step (|J|).
    pub batch_size: usize,
    /// Most passes over the data.
    pub max_epochs: usize,
    /// The step-size schedule.
    pub schedule: Schedule,
    /// η₀; `None` calibrates it on a subsample.
    pub eta0: Option<f64>,
    /// β of the inverse and exponential schedules; `None`: β = η₀ for `Inverse` (Pegasos) and
    /// β = ln(100) / (steps in `max_epochs`) for `Exponential` (the step falls 100-fold).
    pub decay: Option<f64>,
    /// Return the average of the iterates from the second epoch on.
    pub average: bool,
    /// Relative improvement of the objective below which an epoch counts as no progress.
    pub tol: f64,
    /// Epochs without progress before stopping.
    pub n_iter_no_change: usize,
    /// Fit an unregularised bias b.
    pub fit_intercept: bool,
    /// Seed of the shuffles and the calibration sample.
    pub seed: u64,
    /// Log a line per epoch through [`Monitor::log`].
    pub verbose: bool,
}

impl Default for SgdParams {
    fn default() -> Self {
        SgdParams {
            c: 1.0,
            loss: Loss::Hinge,
            batch_size: 32,
            max_epochs: 50,
            schedule: Schedule::Inverse,
            eta0: None,
            decay: None,
            average: true,
            tol: 1e-3,
            n_iter_no_change: 3,
            fit_intercept: true,
            seed: 0,
            verbose: false,
        }
    }
}

/// A fitted linear model and how it was reached.
#[derive(Clone, Debug)]
pub struct SgdFit {
    /// Weights, one per feature.
    pub w: Vec<f64>,
    /// Bias.
    pub b: f64,
    /// Epochs run.
    pub epochs: usize,
    /// Steps (mini-batches) taken.
    pub steps: u64,
    /// The objective P of the returned kind of iterate after each epoch.
    pub objective: Vec<f64>,
    /// Whether the stopping rule ended the fit (rather than `max_epochs`).
    pub converged: bool,
    /// The η₀ used (given or calibrated).
    pub eta0: f64,
    /// The β used.
    pub decay: f64,
    /// Wall time in seconds.
    pub seconds: f64,
}

impl SgdParams {
    fn check(&self) -> Result<()> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(FwsvmError::param(
                "C",
                format!("must be a positive finite number, got {}", self.c),
            ));
        }
        if self.batch_size == 0 {
            return Err(FwsvmError::param("batch_size", "must be at least 1"));
        }
        if self.max_epochs == 0 {
            return Err(FwsvmError::param("max_epochs", "must be at least 1"));
        }
        if let Some(e) = self.eta0
            && !(e.is_finite() && e > 0.0)
        {
            return Err(FwsvmError::param(
                "eta0",
                format!("must be a positive finite number, got {e}"),
            ));
        }
        if let Some(b) = self.decay
            && !(b.is_finite() && b >= 0.0)
        {
            return Err(FwsvmError::param(
                "decay",
                format!("must be a finite non-negative number, got {b}"),
            ));
        }
        if let Schedule::Step { every, factor } = self.schedule
            && (every == 0 || !(factor > 0.0 && factor < 1.0))
        {
            return Err(FwsvmError::param(
                "learning_rate",
                format!(
                    "the step schedule needs every ≥ 1 epoch and a factor in (0, 1), got every={every}, factor={factor}"
                ),
            ));
        }
        if !(self.tol.is_finite() && self.tol >= 0.0) {
            return Err(FwsvmError::param(
                "tol",
                format!("must be a finite non-negative number, got {}", self.tol),
            ));
        }
        Ok(())
    }
}

/// −ℓ'(m) (≥ 0): 1{m ≤ 1} for the hinge, 2 max(0, 1 − m) for the squared hinge.
#[inline]
fn slope(loss: Loss, margin: f64) -> f64 {
    match loss {
        Loss::Hinge => {
            if margin <= 1.0 {
                1.0
            } else {
                0.0
            }
        }
        Loss::SquaredHinge => 2.0 * (1.0 - margin).max(0.0),
    }
}

#[inline]
fn loss_value(loss: Loss, margin: f64) -> f64 {
    let h = (1.0 - margin).max(0.0);
    match loss {
        Loss::Hinge => h,
        Loss::SquaredHinge => h * h,
    }
}

/// What every pass reads: X, the ±1 labels and the optional per-sample weights.
#[derive(Clone, Copy)]
pub(crate) struct Data<'a> {
    pub(crate) x: Features<'a>,
    pub(crate) y: &'a [f64],
    pub(crate) weights: Option<&'a [f64]>,
}

impl Data<'_> {
    /// The weight of sample `i` (1 without weights).
    #[inline]
    fn weight(&self, i: usize) -> f64 {
        self.weights.map_or(1.0, |sw| sw[i])
    }
}

/// P(w, b) over `rows` with penalty `c` per unit weight; fixed chunks, so the sum does not
/// depend on the number of threads.
pub(crate) fn objective(
    data: Data<'_>,
    loss: Loss,
    c: f64,
    w: &[f64],
    b: f64,
    rows: &[usize],
) -> f64 {
    let Data { x, y, .. } = data;
    const CHUNK: usize = 4096;
    let work = rows.len().saturating_mul(w.len());
    let parts: Vec<f64> = map_ranges(rows.len(), CHUNK, work, |lo, hi| {
        rows[lo..hi]
            .iter()
            .map(|&i| data.weight(i) * loss_value(loss, y[i] * (x.row_dot(i, w) + b)))
            .sum::<f64>()
    });
    0.5 * w.iter().map(|v| v * v).sum::<f64>() + c * parts.iter().sum::<f64>()
}

/// w = scale·u with the averaged iterate ā = (S·u − r)/K (see the module docs):
/// a shrink is O(1), an update O(nnz).
struct Iterate {
    u: Vec<f64>,
    scale: f64,
    b: f64,
    /// Averaging state: S = Σ scale_k, r = Σ c_j S_{j−1} g_j, K, and Σ b_k.
    averaging: bool,
    sum_scale: f64,
    r: Vec<f64>,
    count: f64,
    sum_b: f64,
}

impl Iterate {
    fn new(d: usize) -> Self {
        Iterate {
            u: vec![0.0; d],
            scale: 1.0,
            b: 0.0,
            averaging: false,
            sum_scale: 0.0,
            r: vec![0.0; d],
            count: 0.0,
            sum_b: 0.0,
        }
    }

    fn start_averaging(&mut self) {
        self.averaging = true;
        self.sum_scale = 0.0;
        self.r.iter_mut().for_each(|v| *v = 0.0);
        self.count = 0.0;
        self.sum_b = 0.0;
    }

    /// w ← (1 − t)w + t·Σ_j coef_j x_j, b ← b + t_b·Σ_j coef_j.
    fn step(&mut self, x: &Features<'_>, batch: &[(usize, f64)], t: f64, t_b: f64) {
        self.scale *= 1.0 - t;
        if self.scale < 1e-9 {
            // Fold the scale into u; S·u is unchanged with S ← S/scale.
            let s = self.scale;
            self.u.iter_mut().for_each(|v| *v *= s);
            self.sum_scale /= s;
            self.scale = 1.0;
        }
        let c = t / self.scale;
        let rc = c * self.sum_scale;
        for &(i, coef) in batch {
            x.row_axpy(i, c * coef, &mut self.u);
            if self.averaging && rc != 0.0 {
                x.row_axpy(i, rc * coef, &mut self.r);
            }
            self.b += t_b * coef;
        }
        if self.averaging {
            self.sum_scale += self.scale;
            self.count += 1.0;
            self.sum_b += self.b;
        }
    }

    fn current(&self) -> (Vec<f64>, f64) {
        (self.u.iter().map(|v| v * self.scale).collect(), self.b)
    }

    fn averaged(&self) -> (Vec<f64>, f64) {
        if !self.averaging || self.count == 0.0 {
            return self.current();
        }
        let w = self
            .u
            .iter()
            .zip(&self.r)
            .map(|(u, r)| (self.sum_scale * u - r) / self.count)
            .collect();
        (w, self.sum_b / self.count)
    }
}

/// The step size of step k (0-based) in epoch `epoch`, capped at ½ so that the shrink factor
/// 1 − t stays positive.
fn step_size(schedule: Schedule, eta0: f64, decay: f64, k: u64, epoch: usize) -> f64 {
    let t = match schedule {
        Schedule::Inverse => eta0 / (1.0 + decay * k as f64),
        Schedule::Exponential => eta0 * (-decay * k as f64).exp(),
        Schedule::Step { every, factor } => eta0 * factor.powi((epoch / every) as i32),
    };
    t.min(0.5)
}

/// One epoch of Algorithm 2 over `rows` (shuffled in place). `scale_n` is N in (5.7)'s N·C/|J|.
#[allow(clippy::too_many_arguments)]
fn epoch(
    data: Data<'_>,
    p: &SgdParams,
    scale_n: f64,
    rows: &mut [usize],
    it: &mut Iterate,
    rng: &mut SplitMix64,
    eta0: f64,
    decay: f64,
    k: &mut u64,
    epoch_index: usize,
) {
    let Data { x, y, .. } = data;
    rng.shuffle(rows);
    // A batch holds at most all rows: `batch_size` may be far larger (one batch an epoch).
    let mut batch: Vec<(usize, f64)> = Vec::with_capacity(p.batch_size.min(rows.len()));
    for chunk in rows.chunks(p.batch_size) {
        let factor = scale_n * p.c / chunk.len() as f64;
        batch.clear();
        for &i in chunk {
            let margin = y[i] * (it.scale * x.row_dot(i, &it.u) + it.b);
            let a = slope(p.loss, margin) * data.weight(i);
            if a > 0.0 {
                batch.push((i, factor * a * y[i]));
            }
        }
        let t = step_size(p.schedule, eta0, decay, *k, epoch_index);
        let t_b = if p.fit_intercept { t } else { 0.0 };
        it.step(&x, &batch, t, t_b);
        *k += 1;
    }
}

/// Fits a linear SVM by mini-batch SGD. `y` holds ±1 labels; `sample_weight` scales each
/// sample's loss.
///
/// # Errors
/// [`FwsvmError::InvalidInput`] for empty or mismatched inputs, non-finite values or labels
/// other than ±1; [`FwsvmError::InvalidParameter`] for invalid settings; whatever the monitor
/// returns (e.g. an interrupt), checked after each epoch.
pub fn fit_sgd(
    x: Features<'_>,
    y: &[f64],
    sample_weight: Option<&[f64]>,
    params: &SgdParams,
    monitor: &mut (dyn Monitor + Send),
) -> Result<SgdFit> {
    params.check()?;
    let start = Instant::now();
    let m = x.n_rows();
    if m == 0 || x.n_cols() == 0 {
        return Err(FwsvmError::InvalidInput(format!(
            "X must have at least one row and one column, got {m}×{}",
            x.n_cols()
        )));
    }
    if y.len() != m {
        return Err(FwsvmError::InvalidInput(format!(
            "X has {m} rows but y has {} labels",
            y.len()
        )));
    }
    x.check_finite("X")?;
    if let Some(row) = y.iter().position(|&v| v != 1.0 && v != -1.0) {
        return Err(FwsvmError::InvalidInput(format!(
            "labels must be ±1, got {} at row {row}",
            y[row]
        )));
    }
    if let Some(sw) = sample_weight {
        crate::data::check_sample_weight(sw, m)?;
    }
    let d = x.n_cols();
    let mut rng = SplitMix64::new(params.seed);
    let all: Vec<usize> = (0..m).collect();
    let steps_per_epoch = m.div_ceil(params.batch_size) as u64;
    let decay_for = |eta0: f64| match (params.decay, params.schedule) {
        (Some(b), _) => b,
        (None, Schedule::Inverse) => eta0,
        (None, Schedule::Exponential) => {
            100f64.ln() / (steps_per_epoch * params.max_epochs as u64) as f64
        }
        (None, Schedule::Step { .. }) => 0.0,
    };
    let data = Data {
        x,
        y,
        weights: sample_weight,
    };
    let eta0 = match params.eta0 {
        Some(e) => e,
        None => calibrate(data, params, m as f64, &mut rng, &decay_for),
    };
    let decay = decay_for(eta0);
    let mut it = Iterate::new(d);
    let mut rows = all.clone();
    let mut k = 0u64;
    let mut history = Vec::new();
    let mut best = f64::INFINITY;
    let mut stale = 0;
    let mut converged = false;
    for e in 0..params.max_epochs {
        if params.average && e == 1 {
            it.start_averaging();
        }
        epoch(
            data, params, m as f64, &mut rows, &mut it, &mut rng, eta0, decay, &mut k, e,
        );
        let (w, b) = if params.average {
            it.averaged()
        } else {
            it.current()
        };
        let p = objective(data, params.loss, params.c, &w, b, &all);
        if !p.is_finite() {
            return Err(FwsvmError::InvalidInput(format!(
                "SGD diverged in epoch {} (objective {p}); set a smaller eta0",
                e + 1
            )));
        }
        history.push(p);
        let seconds = start.elapsed().as_secs_f64();
        if params.verbose {
            monitor.log(&format!(
                "sgd epoch {:>4}: objective {p:.8e}  step {:.3e}  {seconds:.2}s",
                e + 1,
                step_size(params.schedule, eta0, decay, k, e)
            ));
        }
        monitor.progress(&Progress {
            iteration: k,
            objective: p,
            gap: f64::NAN,
            relative_gap: f64::NAN,
            coreset_size: 0,
            seconds,
            task: None,
        })?;
        if p < best - params.tol * best.abs() {
            stale = 0;
        } else {
            stale += 1;
        }
        best = best.min(p);
        // The first epoch of an averaged fit only warms up; its objective is not the average's.
        if stale >= params.n_iter_no_change && !(params.average && e < 2) {
            converged = true;
            break;
        }
    }
    let (w, b) = if params.average {
        it.averaged()
    } else {
        it.current()
    };
    Ok(SgdFit {
        w,
        b,
        epochs: history.len(),
        steps: k,
        objective: history,
        converged,
        eta0,
        decay,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Bottou's calibration: one epoch on a subsample of at most 1,000 rows for η₀ = 2^j·η_ref,
/// j = −6…3 with η_ref = (N·C·s̄)^{−3/4} (the Pegasos/`optimal` scale; s̄ the mean sample weight), scaled as if the sample
/// were the whole data (N in (5.7) stays N); the η₀ with the lowest sample objective wins.
fn calibrate(
    data: Data<'_>,
    p: &SgdParams,
    n: f64,
    rng: &mut SplitMix64,
    decay_for: &dyn Fn(f64) -> f64,
) -> f64 {
    let (x, weights) = (data.x, data.weights);
    let m = x.n_rows();
    let sample = rng.sample_distinct(m, 1000);
    let c_sample = p.c * n / sample.len() as f64;
    // The average penalty per row sets the gradient's scale.
    let mean_weight = weights.map_or(1.0, |w| w.iter().sum::<f64>() / w.len() as f64);
    let reference = (n * p.c * mean_weight.max(f64::MIN_POSITIVE))
        .powf(-0.75)
        .min(0.5);
    let mut best = (f64::INFINITY, reference);
    for j in -6..=3 {
        let eta0 = reference * 2f64.powi(j);
        let mut it = Iterate::new(x.n_cols());
        let mut rows = sample.clone();
        let mut trial_rng = SplitMix64::new(p.seed ^ 0x5eed);
        let mut k = 0;
        let trial = SgdParams {
            c: c_sample,
            ..p.clone()
        };
        epoch(
            data,
            &trial,
            sample.len() as f64,
            &mut rows,
            &mut it,
            &mut trial_rng,
            eta0,
            decay_for(eta0),
            &mut k,
            0,
        );
        let (w, b) = it.current();
        let value = objective(data, p.loss, c_sample, &w, b, &sample);
        if value.is_finite() && value < best.0 {
            best = (value, eta0);
        }
    }
    best.1
}
