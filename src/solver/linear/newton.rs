//! Newton rounds on the smoothed hinge for the distributed linear SVM, with the hinge loss's
//! own certificate: the second solver of `fwsvm.dask.DaskApproxSVC` (`solver="newton"`),
//! whose rounds do not grow with the shards.
//!
//! The problem is [`super::cocoa`]'s: rows z_i = [x_i; 1], labels y_i = ±1, penalties C_i,
//! P(w) = ½‖w‖² + Σ_i C_i max(0, 1 − y_i⟨w, z_i⟩), its dual D(α) = Σα_i − ½‖w(α)‖² on
//! 0 ≤ α_i ≤ C_i with w(α) = Σ_i α_i y_i z_i. CoCoA's rounds grow with the shards K (each
//! shard's step ignores the others'; BENCHMARKS.md: 11 rounds at one shard, 40–45 at 16 on
//! the checkerboard's features). Newton's method on a smooth surrogate takes the same steps
//! whatever K is — the shards only sum — so its rounds do not grow with K.
//!
//! **The surrogate.** With s = 1 − y⟨w, z⟩ the hinge max(0, s) is smoothed (Huber) as
//! ℓ_μ(s) = 0 for s ≤ 0, s²/(2μ) for 0 < s < μ, s − μ/2 for s ≥ μ, and
//! P_μ(w) = ½‖w‖² + Σ_i C_i ℓ_μ(s_i). Its gradient is ∇P_μ(w) = w − w(α(w)) with
//! α_i(w) = C_i clip(s_i/μ, 0, 1), and its generalised Hessian I + Σ_{0<s_i<μ} (C_i/μ) z_i z_iᵀ
//! (the rows in the band 0 < s < μ) is at least the identity: always positive definite.
//!
//! **The certificate.** α(w) is feasible for the hinge's dual at every w, so each round has
//! an exact lower bound D(α(w)) beside the upper bound P(w); the solver keeps the best of
//! each. At the surrogate's optimum w(α) = w and the gap P(w) − D(α) is Σ over the band of
//! C_i s_i (1 − s_i/μ) ≤ C μ |band| / 4: small once μ is. μ starts at 2 (at w = 0 every row
//! is in the band: the first step is a regularised least-squares fit) and shrinks by 0.3 a
//! round to `mu_min` (0.05), and further by the same factor whenever the gradient is small
//! and the gap is not: the gap, not μ, decides when to stop.
//!
//! **A round** (one message each way): the driver sends (w, p, μ_line, μ) — p the last Newton
//! direction (zero when there is none) — and every shard returns, in one pass over its rows,
//! the surrogate's losses Σ C_i ℓ_{μ_line}(s_i) at w + t p for the grid t ∈ {1, ½, …, 1/128},
//! and at the trial point u = w + p, with μ: the hinge loss, Σα_i, w(α) (d + 1 numbers) and
//! its band rows' Hessian (packed, (d + 1)(d + 2)/2 numbers), estimated from the band rows
//! sampled with probability `rate` (weights divided by it: unbiased; `sample` × (d + 1) rows
//! expected — the sub-sampled Newton of Roosta-Khorasani & Mahoney 2019; the gradient is
//! exact). `sample` is 100: with 30 the estimate's noise cost up to twice the rounds on 8
//! shards of the checkerboard's features (13–25 rounds against 13–14). The driver takes the grid's best t: t = 1 (the rule near the optimum) accepts u
//! with its pieces and solves (I + H) p = −∇ for the next direction; a shorter step moves w to
//! w + t p and the next round, with p = 0, brings the pieces there.

use super::dcd::{add_row, margin};
use crate::data::LinearRows;
use crate::error::{FwsvmError, Result};
use crate::kernel::dot::dense_dot as dot;
use crate::parallel::map_ranges;
use crate::random::SplitMix64;

/// The line search's steps: 1, ½, …, 1/128 (the Newton step first).
pub const GRID: [f64; 8] = [1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125];

/// Rows per chunk of a shard's pass (each chunk sums its own pieces).
const CHUNK: usize = 16_384;

/// The smoothed hinge ℓ_μ(s).
#[inline]
pub fn smoothed_hinge(s: f64, mu: f64) -> f64 {
    if s <= 0.0 {
        0.0
    } else if s < mu {
        s * s / (2.0 * mu)
    } else {
        s - 0.5 * mu
    }
}

/// What the driver asks of every shard in a round.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The current point (d + 1 numbers, the bias last).
    pub w: Vec<f64>,
    /// The direction (zero: none; the trial point is w).
    pub p: Vec<f64>,
    /// μ of the line search's losses along p.
    pub mu_line: f64,
    /// μ of the pieces at the trial point w + p.
    pub mu: f64,
    /// Probability that a band row enters the Hessian's estimate (in (0, 1]).
    pub rate: f64,
    /// Seed of that sampling (each row's draw hashes it with the row's index).
    pub seed: u64,
}

/// One shard's answer (or, summed, every shard's: [`Pieces::add`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Pieces {
    /// Σ C_i ℓ_{μ_line}(s_i) at w + t p, for t in [`GRID`].
    pub line: Vec<f64>,
    /// Σ C_i max(0, s_i) at the trial point u.
    pub loss: f64,
    /// Σ α_i at u (α_i = C_i clip(s_i/μ, 0, 1)).
    pub alpha_sum: f64,
    /// Rows with s_i > 0 at u.
    pub violations: usize,
    /// w(α) = Σ α_i y_i z_i at u.
    pub w_alpha: Vec<f64>,
    /// The band's Hessian estimate Σ (C_i/(μ·rate)) z_i z_iᵀ over the sampled band rows,
    /// packed upper triangle by rows.
    pub hessian: Vec<f64>,
    /// Rows in the band 0 < s_i < μ at u.
    pub band: usize,
    /// Band rows sampled into the Hessian.
    pub sampled: usize,
}

impl Pieces {
    /// Zero pieces for d + 1 = `width` weights.
    pub fn zero(width: usize) -> Pieces {
        Pieces {
            line: vec![0.0; GRID.len()],
            loss: 0.0,
            alpha_sum: 0.0,
            violations: 0,
            w_alpha: vec![0.0; width],
            hessian: vec![0.0; packed_len(width)],
            band: 0,
            sampled: 0,
        }
    }

    /// Adds another shard's pieces (the same width).
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] when the widths differ.
    pub fn add(&mut self, other: &Pieces) -> Result<()> {
        if other.w_alpha.len() != self.w_alpha.len()
            || other.hessian.len() != self.hessian.len()
            || other.line.len() != self.line.len()
        {
            return Err(FwsvmError::InvalidInput(format!(
                "a shard answered for {} weights, the others for {}",
                other.w_alpha.len(),
                self.w_alpha.len()
            )));
        }
        add_into(&mut self.line, &other.line);
        add_into(&mut self.w_alpha, &other.w_alpha);
        add_into(&mut self.hessian, &other.hessian);
        self.loss += other.loss;
        self.alpha_sum += other.alpha_sum;
        self.violations += other.violations;
        self.band += other.band;
        self.sampled += other.sampled;
        Ok(())
    }
}

/// a ← a + b, entry by entry.
fn add_into(a: &mut [f64], b: &[f64]) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
}

/// Entries of a packed upper triangle of an n × n matrix.
pub fn packed_len(n: usize) -> usize {
    n * (n + 1) / 2
}

/// Whether row `i` enters the Hessian's sample (a hash of the seed and the index: the same
/// rows whatever the chunking or the threads).
#[inline]
fn sampled(seed: u64, i: usize, rate: f64) -> bool {
    rate >= 1.0
        || SplitMix64::new(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_f64() < rate
}

/// One shard's pieces for `request` (see the module's round): one pass over the rows, then
/// the sampled band rows' Hessian.
///
/// # Errors
/// [`FwsvmError::InvalidInput`] for inconsistent lengths or non-positive penalties;
/// [`FwsvmError::InvalidParameter`] for μ or the rate out of range.
pub fn shard_pieces(x: &dyn LinearRows, y: &[f64], c: &[f64], request: &Request) -> Result<Pieces> {
    let (m, width) = (x.n_rows(), x.n_cols() + 1);
    if y.len() != m || c.len() != m {
        return Err(FwsvmError::InvalidInput(format!(
            "the shard has {m} rows but {} labels and {} penalties",
            y.len(),
            c.len()
        )));
    }
    if request.w.len() != width || request.p.len() != width {
        return Err(FwsvmError::InvalidInput(format!(
            "w and p have {} and {} entries; the rows have {} features (w holds one more: the bias)",
            request.w.len(),
            request.p.len(),
            width - 1
        )));
    }
    if let Some(i) = c.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
        return Err(FwsvmError::InvalidInput(format!(
            "penalty {} of row {i} is not positive and finite",
            c[i]
        )));
    }
    for (name, v) in [("mu", request.mu), ("mu_line", request.mu_line)] {
        if !(v.is_finite() && v > 0.0) {
            return Err(FwsvmError::param(
                name,
                format!("must be positive and finite, got {v}"),
            ));
        }
    }
    if !(request.rate > 0.0 && request.rate <= 1.0) {
        return Err(FwsvmError::param(
            "rate",
            format!("must be in (0, 1], got {}", request.rate),
        ));
    }
    let (w, p, mu, mu_line) = (&request.w, &request.p, request.mu, request.mu_line);
    let has_p = p.iter().any(|v| *v != 0.0);
    // The pass: chunk pieces (all but the Hessian) and each chunk's sampled band rows.
    let parts = map_ranges(m, CHUNK, m.saturating_mul(width), |lo, hi| {
        let mut part = Pieces {
            hessian: Vec::new(),
            ..Pieces::zero(width)
        };
        let mut rows: Vec<(usize, f64)> = Vec::new();
        for i in lo..hi {
            let at_w = margin(x, i, y[i], w);
            let along = if has_p { margin(x, i, y[i], p) } else { 0.0 };
            if has_p {
                for (l, t) in part.line.iter_mut().zip(GRID) {
                    *l += c[i] * smoothed_hinge(1.0 - at_w - t * along, mu_line);
                }
            }
            let s = 1.0 - at_w - along;
            if s <= 0.0 {
                continue;
            }
            part.loss += c[i] * s;
            part.violations += 1;
            let alpha = c[i] * (s / mu).min(1.0);
            part.alpha_sum += alpha;
            add_row(x, i, alpha * y[i], &mut part.w_alpha);
            if s < mu {
                part.band += 1;
                if sampled(request.seed, i, request.rate) {
                    rows.push((i, c[i] / (mu * request.rate)));
                }
            }
        }
        (part, rows)
    });
    let mut pieces = Pieces {
        hessian: Vec::new(),
        ..Pieces::zero(width)
    };
    let mut rows = Vec::new();
    for (part, r) in parts {
        pieces.add(&part)?;
        rows.extend(r);
    }
    // (No direction: the line stays zero, and the driver takes the trial point, w itself.)
    pieces.sampled = rows.len();
    pieces.hessian = band_hessian(x, &rows, width);
    Ok(pieces)
}

/// Σ weight_i z_i z_iᵀ over `rows` (index, weight), packed upper triangle by rows: each row
/// made dense once, then a rank-one update of the triangle (contiguous inner loops).
fn band_hessian(x: &dyn LinearRows, rows: &[(usize, f64)], width: usize) -> Vec<f64> {
    let chunk = rows.len().div_ceil(2).max(64);
    let parts = map_ranges(
        rows.len(),
        chunk,
        rows.len().saturating_mul(width * width),
        |lo, hi| {
            let mut h = vec![0.0; packed_len(width)];
            let mut z = vec![0.0; width];
            for &(i, weight) in &rows[lo..hi] {
                z.iter_mut().for_each(|v| *v = 0.0);
                add_row(x, i, 1.0, &mut z);
                let mut at = 0;
                for a in 0..width {
                    let za = weight * z[a];
                    let row = &mut h[at..at + width - a];
                    if za != 0.0 {
                        row.iter_mut()
                            .zip(&z[a..])
                            .for_each(|(h, zb)| *h += za * zb);
                    }
                    at += width - a;
                }
            }
            h
        },
    );
    let mut h = vec![0.0; packed_len(width)];
    for part in parts {
        add_into(&mut h, &part);
    }
    h
}

/// Solves (I + H) p = −g for H given as a packed upper triangle (positive semi-definite, so
/// I + H is positive definite: Cholesky without pivoting).
fn newton_direction(hessian: &[f64], g: &[f64]) -> Vec<f64> {
    let n = g.len();
    // The lower factor L of I + H = L Lᵀ, row-major n × n, filled from the triangle.
    let mut l = vec![0.0; n * n];
    let mut at = 0;
    for a in 0..n {
        for b in a..n {
            l[b * n + a] = hessian[at] + if a == b { 1.0 } else { 0.0 };
            at += 1;
        }
    }
    for j in 0..n {
        let (_, rows) = l.split_at_mut(j * n);
        let rj = &mut rows[..n];
        // I + H ⪰ I: the pivot is at least 1 up to rounding.
        rj[j] = (rj[j] - dot(&rj[..j], &rj[..j])).max(1e-12).sqrt();
        for i in (j + 1)..n {
            let (upper, lower) = l.split_at_mut(i * n);
            let (rj, ri) = (&upper[j * n..(j + 1) * n], &mut lower[..n]);
            ri[j] = (ri[j] - dot(&ri[..j], &rj[..j])) / rj[j];
        }
    }
    // L v = −g, then Lᵀ p = v.
    let mut v: Vec<f64> = g.iter().map(|x| -x).collect();
    for i in 0..n {
        v[i] = (v[i] - dot(&l[i * n..i * n + i], &v[..i])) / l[i * n + i];
    }
    for i in (0..n).rev() {
        let s: f64 = ((i + 1)..n).map(|k| l[k * n + i] * v[k]).sum();
        v[i] = (v[i] - s) / l[i * n + i];
    }
    v
}

/// Rows lo..hi of another set of rows (the in-process shards: no copies).
struct RowRange<'a> {
    x: &'a dyn LinearRows,
    lo: usize,
    hi: usize,
}

impl LinearRows for RowRange<'_> {
    fn n_rows(&self) -> usize {
        self.hi - self.lo
    }
    fn n_cols(&self) -> usize {
        self.x.n_cols()
    }
    fn row_dot(&self, i: usize, w: &[f64]) -> f64 {
        self.x.row_dot(self.lo + i, w)
    }
    fn row_axpy(&self, i: usize, a: f64, w: &mut [f64]) {
        self.x.row_axpy(self.lo + i, a, w);
    }
    fn row_sq_norm(&self, i: usize) -> f64 {
        self.x.row_sq_norm(self.lo + i)
    }
}

/// The schedule and sampling of the Newton rounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonParams {
    /// μ of the first round (2: every row of w = 0 in the band).
    pub mu0: f64,
    /// μ's factor per round while above `mu_min` (0.3).
    pub shrink: f64,
    /// The smallest μ of the schedule (0.05); lower only when the gradient is small and the
    /// gap is not.
    pub mu_min: f64,
    /// Band rows sampled into the Hessian per weight ((d + 1) × `sample` expected; 100).
    pub sample: f64,
    /// The relative gap to stop at.
    pub tol: f64,
    /// Rounds at most.
    pub max_rounds: usize,
    /// Seed of the Hessian's sampling.
    pub seed: u64,
}

impl NewtonParams {
    /// The defaults above with `tol`, `max_rounds` and `seed`.
    pub fn new(tol: f64, max_rounds: usize, seed: u64) -> NewtonParams {
        NewtonParams {
            mu0: 2.0,
            shrink: 0.3,
            mu_min: 0.05,
            sample: 100.0,
            tol,
            max_rounds,
            seed,
        }
    }
}

/// How a round ended for the driver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Status {
    /// The best primal value seen (the model's).
    pub primal: f64,
    /// The best dual value seen.
    pub dual: f64,
    /// (primal − dual) relative to the primal.
    pub relative_gap: f64,
    /// The step the round's line search took (1: the Newton step).
    pub step: f64,
    /// μ of the round's pieces.
    pub mu: f64,
    /// Band rows at the trial point.
    pub band: usize,
    /// Whether the relative gap is at most `tol`.
    pub converged: bool,
}

/// The driver's side of the rounds: the point, the direction, μ and the best bounds.
#[derive(Clone, Debug)]
pub struct Driver {
    params: NewtonParams,
    w: Vec<f64>,
    p: Vec<f64>,
    mu_line: f64,
    mu: f64,
    mu_min: f64,
    band: usize,
    rounds: usize,
    best_w: Vec<f64>,
    best_primal: f64,
    best_dual: f64,
}

impl Driver {
    /// The driver for d + 1 = `width` weights over `rows` rows, from w = 0.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidParameter`] for a schedule out of range.
    pub fn new(width: usize, rows: usize, params: NewtonParams) -> Result<Driver> {
        let checks = [
            ("mu0", params.mu0 > 0.0 && params.mu0.is_finite()),
            ("shrink", params.shrink > 0.0 && params.shrink < 1.0),
            ("mu_min", params.mu_min > 0.0 && params.mu_min <= params.mu0),
            ("sample", params.sample > 0.0 && params.sample.is_finite()),
            ("tol", params.tol > 0.0 && params.tol.is_finite()),
        ];
        if let Some((name, _)) = checks.iter().find(|(_, ok)| !ok) {
            return Err(FwsvmError::param(
                name,
                format!("is out of range in {params:?}"),
            ));
        }
        Ok(Driver {
            params,
            w: vec![0.0; width],
            p: vec![0.0; width],
            mu_line: params.mu0,
            mu: params.mu0,
            mu_min: params.mu_min,
            // At w = 0 every row has s = 1: in the band when μ > 1.
            band: if params.mu0 > 1.0 { rows } else { 0 },
            rounds: 0,
            best_w: vec![0.0; width],
            best_primal: f64::INFINITY,
            best_dual: f64::NEG_INFINITY,
        })
    }

    /// The next round's request.
    pub fn request(&self) -> Request {
        let wanted = self.params.sample * self.w.len() as f64;
        Request {
            w: self.w.clone(),
            p: self.p.clone(),
            mu_line: self.mu_line,
            mu: self.mu,
            rate: if self.band as f64 <= wanted {
                1.0
            } else {
                (wanted / self.band as f64).max(f64::MIN_POSITIVE)
            },
            seed: self.params.seed.wrapping_add(self.rounds as u64),
        }
    }

    /// The best point seen (the model) and its primal value.
    pub fn best(&self) -> (&[f64], f64) {
        (&self.best_w, self.best_primal)
    }

    /// Rounds taken.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// Takes the summed pieces of the round [`Driver::request`] asked for: updates the bounds,
    /// then the point, the direction and μ for the next round.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] for pieces of another width.
    pub fn advance(&mut self, pieces: &Pieces) -> Result<Status> {
        let width = self.w.len();
        if pieces.w_alpha.len() != width
            || pieces.hessian.len() != packed_len(width)
            || pieces.line.len() != GRID.len()
        {
            return Err(FwsvmError::InvalidInput(format!(
                "the pieces are for {} weights and {} steps, the driver has {width} and {}",
                pieces.w_alpha.len(),
                pieces.line.len(),
                GRID.len()
            )));
        }
        self.rounds += 1;
        let norm2 = |v: &[f64]| v.iter().map(|a| a * a).sum::<f64>();
        let trial: Vec<f64> = self.w.iter().zip(&self.p).map(|(a, b)| a + b).collect();
        // The bounds at the trial point (valid whichever step the search takes).
        let primal = 0.5 * norm2(&trial) + pieces.loss;
        let dual = pieces.alpha_sum - 0.5 * norm2(&pieces.w_alpha);
        if primal < self.best_primal {
            self.best_primal = primal;
            self.best_w.clone_from(&trial);
        }
        self.best_dual = self.best_dual.max(dual);
        let relative_gap =
            super::tracker::relative(self.best_primal - self.best_dual, self.best_primal);
        let converged = relative_gap <= self.params.tol;
        // The line search along p (P_μ = ½‖w + t p‖² + the shards' losses).
        let step = if self.p.iter().all(|v| *v == 0.0) {
            1.0
        } else {
            let value = |k: usize| {
                let t = GRID[k];
                0.5 * self
                    .w
                    .iter()
                    .zip(&self.p)
                    .map(|(a, b)| (a + t * b) * (a + t * b))
                    .sum::<f64>()
                    + pieces.line[k]
            };
            let best = (0..GRID.len())
                .min_by(|&a, &b| value(a).total_cmp(&value(b)))
                .unwrap_or(0);
            GRID[best]
        };
        let status = Status {
            primal: self.best_primal,
            dual: self.best_dual,
            relative_gap,
            step,
            mu: self.mu,
            band: pieces.band,
            converged,
        };
        if converged {
            return Ok(status);
        }
        if step < 1.0 {
            // A shorter step: the pieces there come next round.
            self.w
                .iter_mut()
                .zip(&self.p)
                .for_each(|(a, b)| *a += step * b);
            self.p.iter_mut().for_each(|v| *v = 0.0);
            self.band = pieces.band;
            return Ok(status);
        }
        self.w = trial;
        let gradient: Vec<f64> = self
            .w
            .iter()
            .zip(&pieces.w_alpha)
            .map(|(a, b)| a - b)
            .collect();
        self.p = newton_direction(&pieces.hessian, &gradient);
        self.mu_line = self.mu;
        // μ's schedule; below mu_min only when the surrogate is solved but the hinge's gap is
        // not closed (the gap at the surrogate's optimum is at most C μ |band| / 4).
        let small = norm2(&gradient).sqrt() <= 1e-3 * norm2(&self.w).sqrt().max(1.0);
        if self.mu <= self.mu_min && small {
            self.mu_min *= self.params.shrink;
        }
        let next = (self.mu * self.params.shrink).max(self.mu_min);
        self.band = ((pieces.band as f64) * next / self.mu).ceil() as usize;
        self.mu = next;
        Ok(status)
    }
}

/// The rounds run in one process on `shards` contiguous parts of the rows (no copies; the
/// shards' pieces summed as the driver sums them, shard s's sample seeded `seed + 7919 s` as
/// on Dask): (w, the last status, rounds).
///
/// # Errors
/// As [`shard_pieces`] and [`Driver::new`], and for zero shards or more shards than rows.
pub fn solve_in_process(
    x: &dyn LinearRows,
    y: &[f64],
    c: &[f64],
    shards: usize,
    params: NewtonParams,
) -> Result<(Vec<f64>, Status, usize)> {
    let m = x.n_rows();
    if shards == 0 || shards > m.max(1) {
        return Err(FwsvmError::param(
            "shards",
            format!("must be between 1 and the {m} rows, got {shards}"),
        ));
    }
    let width = x.n_cols() + 1;
    let mut driver = Driver::new(width, m, params)?;
    let bounds: Vec<usize> = (0..=shards).map(|s| s * m / shards).collect();
    loop {
        let request = driver.request();
        let mut total = Pieces::zero(width);
        for s in 0..shards {
            let part = RowRange {
                x,
                lo: bounds[s],
                hi: bounds[s + 1],
            };
            let r = bounds[s]..bounds[s + 1];
            // Each shard's sample seeded apart, as `DaskApproxSVC`'s shards are.
            let own = Request {
                seed: request.seed.wrapping_add(7919 * s as u64),
                ..request.clone()
            };
            total.add(&shard_pieces(&part, &y[r.clone()], &c[r], &own)?)?;
        }
        let status = driver.advance(&total)?;
        if status.converged || driver.rounds() >= params.max_rounds {
            return Ok((driver.best().0.to_vec(), status, driver.rounds()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::cocoa::{self, Aggregation, LocalParams};
    use super::*;
    use crate::data::{DenseMatrix, Features};

    /// `m` rows of `d` uniform features, labels of a noisy linear rule.
    fn data(m: usize, d: usize, seed: u64) -> (DenseMatrix, Vec<f64>) {
        let mut rng = SplitMix64::new(seed);
        let mut x = Vec::with_capacity(m * d);
        let mut y = Vec::with_capacity(m);
        for _ in 0..m {
            let row: Vec<f64> = (0..d).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
            let s = row[0] + 0.5 * row[1] - 0.1 + 0.3 * (rng.next_f64() - 0.5);
            y.push(if s > 0.0 { 1.0 } else { -1.0 });
            x.extend(row);
        }
        (DenseMatrix::new(x, m, d).unwrap(), y)
    }

    /// The hinge optimum by dual coordinate descent (a certified relative gap of 1e-9).
    fn optimum(x: &Features<'_>, y: &[f64], c: &[f64]) -> f64 {
        let local = LocalParams {
            sigma: 1.0,
            passes: 1,
            seed: 3,
            reach: f64::INFINITY,
        };
        let (_, _, cert, _) =
            cocoa::solve_in_process(x, y, c, 1, Aggregation::Add, &local, 1e-9, 1_000_000).unwrap();
        cert.primal
    }

    #[test]
    fn the_smoothed_hinge_is_continuous_and_below_the_hinge() {
        let mu = 0.3;
        for s in [-1.0, 0.0, 0.1, 0.3, 0.5, 2.0] {
            let v = smoothed_hinge(s, mu);
            assert!(
                v <= s.max(0.0) + 1e-15 && v >= s.max(0.0) - mu / 2.0 - 1e-15,
                "{s} {v}"
            );
        }
        assert!((smoothed_hinge(mu, mu) - mu / 2.0).abs() < 1e-15);
        assert!((smoothed_hinge(mu - 1e-12, mu) - mu / 2.0).abs() < 1e-11);
    }

    /// The packed band Hessian is the sum of the weighted outer products of [x_i; 1], and the
    /// Cholesky solve returns p with (I + H) p = −g.
    #[test]
    fn the_hessian_and_the_newton_system_are_exact() {
        let (x, _) = data(30, 4, 5);
        let xv: Features<'_> = x.view().into();
        let rows = [(0, 0.5), (3, 2.0), (17, 1.5), (29, 0.25)];
        let h = band_hessian(&xv, &rows, 5);
        let mut full = [[0.0; 5]; 5];
        for &(i, weight) in &rows {
            let mut z = vec![0.0; 5];
            add_row(&xv, i, 1.0, &mut z);
            for a in 0..5 {
                for b in 0..5 {
                    full[a][b] += weight * z[a] * z[b];
                }
            }
        }
        let mut at = 0;
        for a in 0..5 {
            for b in a..5 {
                assert!((h[at] - full[a][b]).abs() < 1e-12, "({a}, {b})");
                at += 1;
            }
        }
        let g = [0.3, -1.0, 2.0, 0.5, -0.25];
        let p = newton_direction(&h, &g);
        for a in 0..5 {
            let row: f64 = (0..5)
                .map(|b| (full[a][b] + f64::from(a == b)) * p[b])
                .sum();
            assert!(
                (row + g[a]).abs() < 1e-10,
                "row {a}: {row} against {}",
                -g[a]
            );
        }
    }

    /// The rounds reach the hinge optimum: the certified bounds bracket dual coordinate
    /// descent's optimum, and the primal is within the gap of it (a relative 1e-4: the
    /// surrogate's μ then shrinks below `mu_min`).
    #[test]
    fn newton_rounds_reach_the_hinge_optimum() {
        let (x, y) = data(600, 6, 11);
        let xv: Features<'_> = x.view().into();
        for c in [0.5, 4.0] {
            let cs = vec![c; 600];
            let best = optimum(&xv, &y, &cs);
            let (w, status, rounds) =
                solve_in_process(&xv, &y, &cs, 1, NewtonParams::new(1e-4, 500, 1)).unwrap();
            assert!(status.converged, "C {c}: {status:?} after {rounds} rounds");
            assert!(
                status.dual <= best * (1.0 + 1e-9) && best <= status.primal * (1.0 + 1e-9),
                "C {c}: {best} {status:?}"
            );
            // The model's primal value, recomputed from w.
            let loss: f64 = (0..600)
                .map(|i| cs[i] * (1.0 - margin(&xv, i, y[i], &w)).max(0.0))
                .sum();
            let primal = 0.5 * w.iter().map(|v| v * v).sum::<f64>() + loss;
            assert!(
                (primal - status.primal).abs() <= 1e-9 * primal,
                "{primal} {status:?}"
            );
            assert!(
                primal - best <= 1e-4 * primal,
                "C {c}: {primal} against {best}"
            );
        }
    }

    /// With every band row in the Hessian (no sampling) the shards only sum: the same rounds
    /// and the same w on 1, 3 and 7 shards.
    #[test]
    fn rounds_do_not_depend_on_the_shards() {
        let (x, y) = data(700, 5, 2);
        let xv: Features<'_> = x.view().into();
        let c = vec![1.0; 700];
        let params = NewtonParams {
            sample: 1e9,
            ..NewtonParams::new(1e-5, 500, 4)
        };
        let (w1, s1, r1) = solve_in_process(&xv, &y, &c, 1, params).unwrap();
        for k in [3, 7] {
            let (wk, sk, rk) = solve_in_process(&xv, &y, &c, k, params).unwrap();
            assert_eq!(rk, r1, "{k} shards");
            assert!(sk.converged && s1.converged);
            for (a, b) in w1.iter().zip(&wk) {
                assert!(
                    (a - b).abs() <= 1e-9 * (1.0 + a.abs()),
                    "{k} shards: {a} {b}"
                );
            }
        }
    }

    /// A sampled Hessian (a tenth of the band rows) still converges, in a few more rounds.
    #[test]
    fn a_sampled_hessian_converges() {
        let (x, y) = data(3000, 5, 8);
        let xv: Features<'_> = x.view().into();
        let c = vec![1.0; 3000];
        let best = optimum(&xv, &y, &c);
        let params = NewtonParams {
            sample: 2.0,
            ..NewtonParams::new(1e-4, 500, 4)
        };
        let (_, status, _) = solve_in_process(&xv, &y, &c, 4, params).unwrap();
        assert!(
            status.converged
                && status.dual <= best * (1.0 + 1e-9)
                && best <= status.primal * (1.0 + 1e-9)
        );
    }

    #[test]
    fn bad_input_is_refused() {
        let (x, y) = data(20, 3, 1);
        let xv: Features<'_> = x.view().into();
        let c = vec![1.0; 20];
        let ok = Driver::new(4, 20, NewtonParams::new(1e-3, 10, 0))
            .unwrap()
            .request();
        assert!(shard_pieces(&xv, &y, &c, &ok).is_ok());
        let cases = [
            Request {
                w: vec![0.0; 3],
                ..ok.clone()
            },
            Request {
                mu: 0.0,
                ..ok.clone()
            },
            Request {
                mu_line: f64::NAN,
                ..ok.clone()
            },
            Request {
                rate: 0.0,
                ..ok.clone()
            },
        ];
        for r in &cases {
            assert!(shard_pieces(&xv, &y, &c, r).is_err(), "{r:?}");
        }
        assert!(shard_pieces(&xv, &y[..19], &c, &ok).is_err());
        assert!(shard_pieces(&xv, &y, &[-1.0; 20], &ok).is_err());
        let bad = NewtonParams {
            shrink: 1.0,
            ..NewtonParams::new(1e-3, 10, 0)
        };
        assert!(Driver::new(4, 20, bad).is_err());
        let mut driver = Driver::new(4, 20, NewtonParams::new(1e-3, 10, 0)).unwrap();
        assert!(driver.advance(&Pieces::zero(5)).is_err());
        let short = Pieces {
            line: vec![0.0; 3],
            ..Pieces::zero(4)
        };
        assert!(driver.advance(&short).is_err());
        assert!(solve_in_process(&xv, &y, &c, 0, NewtonParams::new(1e-3, 10, 0)).is_err());
    }
}
