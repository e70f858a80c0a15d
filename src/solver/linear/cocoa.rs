//! CoCoA+ (Ma, Smith, Jaggi, Jordan, Richtárik & Takáč, ICML 2015) for the linear hinge SVM:
//! the local subproblem one shard solves per round, the pieces of the primal–dual gap each shard
//! computes, how the driver combines the shards' updates, and the in-process solve (one shard:
//! LIBLINEAR's dual coordinate descent for the L1 loss, `solve_l2r_l1l2_svc` without shrinking).
//!
//! The problem, in LIBLINEAR's C-form with the bias a regularised constant feature (rows
//! z_i = [x_i; 1], labels y_i = ±1, penalties C_i = C × class weight):
//!
//! * primal P(w) = ½‖w‖² + Σ_i C_i max(0, 1 − y_i ⟨w, z_i⟩);
//! * dual D(α) = Σ_i α_i − ½‖w(α)‖², 0 ≤ α_i ≤ C_i, with w(α) = Σ_i α_i y_i z_i;
//! * gap P(w(α)) − D(α) = ‖w‖² − Σα_i + Σ_i C_i max(0, 1 − y_i⟨w, z_i⟩) ≥ 0, zero at the optimum.
//!
//! The rows are split into K shards. A round starts from the driver's w = w(α). Shard k
//! maximises, over the change Δα_[k] of its own weights (α_i + Δα_i ∈ [0, C_i]),
//!
//!   Σ_{i∈k} Δα_i − ⟨w, A_k Δα_[k]⟩ − (σ′/2) ‖A_k Δα_[k]‖²,  A_k Δα_[k] = Σ_{i∈k} Δα_i y_i z_i,
//!
//! and returns Δw_k = A_k Δα_[k] (one vector of d + 1 numbers) and Σ_{i∈k} Δα_i. The driver
//! combines them as one of two [`Aggregation`]s:
//!
//! * [`Aggregation::Add`], CoCoA+'s additive aggregation: σ′ = K and w ← w + Σ_k Δw_k. The
//!   subproblems' sum is a lower bound of D(α + Δα) − D(α) (‖Σ_k v_k‖² ≤ K Σ_k ‖v_k‖²), so every
//!   round increases the dual; but a weight moves at most 1/K of its own step per round, and the
//!   rounds grow about linearly in K on the hinge's dual (most weights end at a bound).
//! * [`Aggregation::LineSearch`]: σ′ = 1 (each shard takes full steps as if alone) and
//!   w ← w + γ Σ_k Δw_k, α ← α + γ Δα with γ ∈ [0, 1] maximising the dual along the combined
//!   update. The shards own disjoint coordinates, so α + γΔα stays in the box for every
//!   γ ∈ [0, 1], and D(α + γΔα) = D(α) + γ(ΣΔα_i − ⟨w, Δw⟩) − ½γ²‖Δw‖² (Δw = Σ_k Δw_k) is a
//!   concave quadratic whose coefficients the driver has from the answers: no extra
//!   communication. The dual rises every round (γ = 0 is allowed), and at least as much as with
//!   the averaging γ = 1/K of CoCoA (Jaggi et al. 2014), whose convergence proof carries over.
//!
//! With K = 1 both are the in-process dual coordinate descent. The local solver takes `passes`
//! sweeps of exact coordinate steps on the subproblem in a random order (the step for row i is
//! the Newton step of a one-dimensional quadratic with curvature σ′‖z_i‖², clipped to the box).

use super::dcd::{CHUNK, add_row, margin};
use crate::data::{Features, LinearRows};
use crate::error::{FwsvmError, Result};
use crate::parallel::map_ranges;
use crate::random::SplitMix64;

/// How the driver combines the shards' updates of a round (see the module's formulas).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregation {
    /// CoCoA+: σ′ = K, the updates added.
    Add,
    /// σ′ = 1, the summed update scaled by the exact line search of the dual on [0, 1].
    LineSearch,
}

impl Aggregation {
    /// σ′ of the local subproblems for `shards` shards.
    pub fn sigma(self, shards: usize) -> f64 {
        match self {
            Aggregation::Add => shards.max(1) as f64,
            Aggregation::LineSearch => 1.0,
        }
    }

    /// γ of the round from w, the summed Δw = Σ_k Δw_k and the summed Σ Δα_i.
    pub fn step(self, w: &[f64], delta_w: &[f64], delta_alpha_sum: f64) -> f64 {
        match self {
            Aggregation::Add => 1.0,
            Aggregation::LineSearch => line_search(w, delta_w, delta_alpha_sum),
        }
    }
}

/// argmax over γ ∈ [0, 1] of γ(ΣΔα_i − ⟨w, Δw⟩) − ½γ²‖Δw‖²: the dual's rise along α + γΔα.
pub fn line_search(w: &[f64], delta_w: &[f64], delta_alpha_sum: f64) -> f64 {
    let slope = delta_alpha_sum - w.iter().zip(delta_w).map(|(a, b)| a * b).sum::<f64>();
    let curvature: f64 = delta_w.iter().map(|v| v * v).sum();
    if slope <= 0.0 {
        0.0
    } else if slope >= curvature {
        1.0
    } else {
        slope / curvature
    }
}

/// How a shard solves its subproblem in one round.
#[derive(Clone, Copy, Debug)]
pub struct LocalParams {
    /// σ′ of the subproblem's quadratic term ([`Aggregation::sigma`]).
    pub sigma: f64,
    /// Sweeps over the shard's rows (each in a fresh random order).
    pub passes: usize,
    /// Seed of the sweeps' order.
    pub seed: u64,
    /// How far a sweep is expected to move a row's gradient g_i = y_i⟨u, z_i⟩ − 1 (the
    /// shard's last [`LocalUpdate::next_reach`]); `f64::INFINITY`: every row is visited. A
    /// sweep first reads every row once in storage order (g_i at the sweep's start, the rows
    /// streaming from memory), then visits in a random order only the rows whose step can be
    /// non-zero while their gradient moves less than `reach`: a row with its weight at a bound
    /// and g_i beyond `reach` on that bound's side (α_i = 0 and g_i > reach, or α_i = C_i and
    /// g_i < −reach) is skipped — LIBLINEAR's shrinking, with the threshold measured on the
    /// shard's own last sweep. A row that moves further than that is stepped in the next
    /// round; the certificate, computed on every row, stays exact.
    pub reach: f64,
}

/// What a shard sends back after a round.
#[derive(Clone, Debug)]
pub struct LocalUpdate {
    /// The shard's new weights α_[k] + Δα_[k] (they stay on the shard).
    pub alpha: Vec<f64>,
    /// Δw_k = Σ_{i∈k} Δα_i y_i [x_i; 1]: d + 1 numbers, the bias last.
    pub delta_w: Vec<f64>,
    /// Σ_{i∈k} Δα_i (the line search's slope needs it).
    pub delta_alpha_sum: f64,
    /// Coordinate steps taken (those that moved a weight).
    pub steps: u64,
    /// The `reach` for the shard's next round: [`REACH_FRACTION`] × the largest move of a
    /// visited row's gradient between the screening and its visit.
    pub next_reach: f64,
}

/// The next round's reach as a fraction of the largest gradient move the last sweep saw (an
/// outlier's). On 10⁶ rows of 1,000 Nyström features, one thread (BENCHMARKS.md, "Screened
/// rounds"), fractions 0.03–0.5 took 10–12 rounds to a relative gap of 10⁻² (11 unscreened) at
/// 0.46–0.67 s a round against 1.07 s; fractions 1 and 2 skipped fewer rows (0.76, 0.95 s). A
/// skipped row that moves further is stepped in the next round.
pub const REACH_FRACTION: f64 = 0.1;

/// One shard's share of the duality gap at w (see the module's formulas).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GapPieces {
    /// Σ_{i∈k} α_i.
    pub alpha_sum: f64,
    /// Σ_{i∈k} C_i max(0, 1 − y_i⟨w, z_i⟩).
    pub loss: f64,
    /// Rows of the shard with a positive margin violation (1 − y_i⟨w, z_i⟩ > 0).
    pub violations: usize,
}

impl GapPieces {
    /// Adds a row with weight `alpha`, penalty `c` and margin y_i⟨w, z_i⟩.
    #[inline]
    fn add(&mut self, alpha: f64, c: f64, margin: f64) {
        let slack = 1.0 - margin;
        self.alpha_sum += alpha;
        if slack > 0.0 {
            self.loss += c * slack;
            self.violations += 1;
        }
    }

    fn merge(self, other: GapPieces) -> GapPieces {
        GapPieces {
            alpha_sum: self.alpha_sum + other.alpha_sum,
            loss: self.loss + other.loss,
            violations: self.violations + other.violations,
        }
    }
}

/// The primal and dual objectives and their gap from the shards' pieces and w.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Certificate {
    /// P(w).
    pub primal: f64,
    /// D(α).
    pub dual: f64,
    /// P(w) − D(α) ≥ 0.
    pub gap: f64,
}

impl Certificate {
    /// Combines every shard's pieces at the common w = w(α).
    pub fn from_pieces(w: &[f64], pieces: &[GapPieces]) -> Certificate {
        let norm2: f64 = w.iter().map(|v| v * v).sum();
        let alpha_sum: f64 = pieces.iter().map(|p| p.alpha_sum).sum();
        let loss: f64 = pieces.iter().map(|p| p.loss).sum();
        let primal = 0.5 * norm2 + loss;
        let dual = alpha_sum - 0.5 * norm2;
        Certificate {
            primal,
            dual,
            gap: primal - dual,
        }
    }

    /// The gap relative to the primal objective (the solvers' `relative_gap`).
    pub fn relative_gap(&self) -> f64 {
        super::tracker::relative(self.gap, self.primal)
    }
}

fn check_lengths(x: &dyn LinearRows, y: &[f64], c: &[f64], alpha: &[f64], w: &[f64]) -> Result<()> {
    let m = x.n_rows();
    if y.len() != m || c.len() != m || alpha.len() != m {
        return Err(FwsvmError::InvalidInput(format!(
            "the shard has {m} rows but {} labels, {} penalties and {} weights",
            y.len(),
            c.len(),
            alpha.len()
        )));
    }
    if w.len() != x.n_cols() + 1 {
        return Err(FwsvmError::InvalidInput(format!(
            "w has {} entries; the rows have {} features (w holds one more: the bias)",
            w.len(),
            x.n_cols()
        )));
    }
    if let Some(i) = c.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
        return Err(FwsvmError::InvalidInput(format!(
            "penalty {} of row {i} is not positive and finite",
            c[i]
        )));
    }
    Ok(())
}

/// One round of shard k, and its pieces of the gap at the driver's `w` (d + 1 entries, the
/// bias last): `passes` sweeps of coordinate steps on the CoCoA+ subproblem from `start` (w,
/// or w plus σ′ times the update of the shard's blocks swept before this one) and the shard's
/// weights `alpha`. The sweep that screens the rows for the round (at w, see
/// [`LocalParams::reach`]) also sums the gap's pieces, in [`gap_pieces`]' order (the same
/// numbers): a round reads the rows once in storage order, not twice.
///
/// # Errors
/// [`FwsvmError::InvalidInput`] for inconsistent lengths (`start` included) or non-positive
/// penalties; [`FwsvmError::InvalidParameter`] for σ′ < 1 or a negative reach.
pub fn gap_and_round(
    x: &dyn LinearRows,
    y: &[f64],
    c: &[f64],
    alpha: &[f64],
    w: &[f64],
    start: &[f64],
    params: &LocalParams,
) -> Result<(GapPieces, LocalUpdate)> {
    check_lengths(x, y, c, alpha, w)?;
    if start.len() != w.len() {
        return Err(FwsvmError::InvalidInput(format!(
            "the round's start has {} entries, w {}",
            start.len(),
            w.len()
        )));
    }
    if !(params.sigma >= 1.0 && params.sigma.is_finite()) {
        return Err(FwsvmError::param(
            "sigma",
            format!("must be at least 1, got {}", params.sigma),
        ));
    }
    if params.reach.is_nan() || params.reach < 0.0 {
        return Err(FwsvmError::param(
            "reach",
            format!("must be non-negative, got {}", params.reach),
        ));
    }
    let m = x.n_rows();
    let sigma = params.sigma;
    let mut alpha = alpha.to_vec();
    // u = start + σ′ Δw: the point at which the subproblem's gradient is taken.
    let mut u = start.to_vec();
    let mut delta_w = vec![0.0; w.len()];
    // g_i when the sweep starts (at w for the first: the gap's margins).
    let mut screen = vec![0.0; m];
    let mut pieces = GapPieces::default();
    let mut rng = SplitMix64::new(params.seed);
    let mut order: Vec<usize> = Vec::with_capacity(m);
    let mut steps = 0u64;
    let mut delta_alpha_sum = 0.0;
    let mut moved = 0.0f64;
    for pass in 0..params.passes {
        // The screening sweep, in storage order, by the chunks of `gap_pieces`.
        for lo in (0..m).step_by(CHUNK) {
            let mut chunk = GapPieces::default();
            for i in lo..(lo + CHUNK).min(m) {
                if pass == 0 {
                    let at_w = margin(x, i, y[i], w);
                    chunk.add(alpha[i], c[i], at_w);
                    screen[i] = at_w - 1.0;
                } else {
                    screen[i] = margin(x, i, y[i], &u) - 1.0;
                }
            }
            if pass == 0 {
                pieces = pieces.merge(chunk);
            }
        }
        if pass == 0 || params.reach.is_finite() {
            let reach = params.reach;
            order.clear();
            order.extend((0..m).filter(|&i| {
                let (a, g) = (alpha[i], screen[i]);
                !((a <= 0.0 && g > reach) || (a >= c[i] && g < -reach))
            }));
        }
        rng.shuffle(&mut order);
        for (k, &i) in order.iter().enumerate() {
            // The next row towards the core while this one is worked on: the random order
            // defeats the hardware's prefetcher at every row's start.
            if let Some(&next) = order.get(k + 1) {
                x.prefetch_row(next);
            }
            let g = margin(x, i, y[i], &u) - 1.0;
            moved = moved.max((g - screen[i]).abs());
            let a = alpha[i];
            let pg = if a <= 0.0 {
                g.min(0.0)
            } else if a >= c[i] {
                g.max(0.0)
            } else {
                g
            };
            if pg.abs() <= 1e-12 {
                continue;
            }
            // The curvature σ′‖z_i‖², ‖z_i‖² = ‖x_i‖² + 1 (the bias feature), read when the row
            // steps rather than for every row the round screens: on 200,000 rows of 1,000
            // float32 features those norms took a quarter of a late round (65 → 48 ms), whose
            // sweep visits 4% of the rows.
            let next = (a - g / (sigma * (x.row_sq_norm(i) + 1.0))).clamp(0.0, c[i]);
            let delta = next - a;
            if delta == 0.0 {
                continue;
            }
            alpha[i] = next;
            delta_alpha_sum += delta;
            add_row(x, i, delta * y[i], &mut delta_w);
            add_row(x, i, sigma * delta * y[i], &mut u);
            steps += 1;
        }
    }
    let update = LocalUpdate {
        alpha,
        delta_w,
        delta_alpha_sum,
        steps,
        next_reach: REACH_FRACTION * moved,
    };
    Ok((pieces, update))
}

/// Shard k's pieces of the gap at the common `w` (one pass over its rows, in fixed chunks).
///
/// # Errors
/// [`FwsvmError::InvalidInput`] for inconsistent lengths or non-positive penalties.
pub fn gap_pieces(
    x: &dyn LinearRows,
    y: &[f64],
    c: &[f64],
    alpha: &[f64],
    w: &[f64],
) -> Result<GapPieces> {
    check_lengths(x, y, c, alpha, w)?;
    let m = x.n_rows();
    let parts = map_ranges(m, CHUNK, m.saturating_mul(w.len()), |lo, hi| {
        let mut p = GapPieces::default();
        for i in lo..hi {
            p.add(alpha[i], c[i], margin(x, i, y[i], w));
        }
        p
    });
    Ok(parts
        .into_iter()
        .fold(GapPieces::default(), GapPieces::merge))
}

/// A_k α_[k] = Σ_{i∈k} α_i y_i [x_i; 1]: the shard's share of w(α) (w is recomputed from the
/// shards after a lost one restarts from α = 0).
pub fn shard_weights(x: &dyn LinearRows, y: &[f64], alpha: &[f64]) -> Vec<f64> {
    let mut w = vec![0.0; x.n_cols() + 1];
    for (i, (&a, &yi)) in alpha.iter().zip(y).enumerate() {
        if a != 0.0 {
            add_row(x, i, a * yi, &mut w);
        }
    }
    w
}

/// What [`solve_in_process`] returns: (α, w, the last certificate, γ of every round).
pub type Solution = (Vec<f64>, Vec<f64>, Certificate, Vec<f64>);

/// The distributed rounds simulated in one process: the rows cut into `shards` contiguous
/// shards (copied), each round the shards' gap pieces at w and their local rounds (`local`,
/// σ′ as given — [`Aggregation::sigma`] for the scheme's —, round r of shard s seeded
/// `local.seed + r·K + s`) combined by `aggregation`, until the relative gap is at most `tol`
/// or `max_rounds` rounds. With one shard, σ′ = 1 and one pass it is the hinge loss's dual
/// coordinate descent.
///
/// Returns (α, w, the last certificate — at w, before that round's update —, γ of every
/// round: as many as rounds).
///
/// # Errors
/// As [`gap_and_round`], and for zero shards or more shards than rows.
pub fn solve_in_process(
    x: &Features<'_>,
    y: &[f64],
    c: &[f64],
    shards: usize,
    aggregation: Aggregation,
    local: &LocalParams,
    tol: f64,
    max_rounds: usize,
) -> Result<Solution> {
    let (m, k) = (x.n_rows(), shards);
    if k == 0 || k > m.max(1) {
        return Err(FwsvmError::param(
            "shards",
            format!("must be between 1 and the {m} rows, got {k}"),
        ));
    }
    let bounds: Vec<usize> = (0..=k).map(|s| s * m / k).collect();
    let cut: Vec<_> = (0..k)
        .map(|s| (k > 1).then(|| x.select_rows(&(bounds[s]..bounds[s + 1]).collect::<Vec<_>>())))
        .collect();
    let shard = |s: usize| cut[s].as_ref().map_or(*x, |part| part.view());
    let mut alpha = vec![0.0; m];
    let mut w = vec![0.0; x.n_cols() + 1];
    let mut steps = Vec::new();
    // Each shard's reach: `local.reach` in the first round, then its last round's next_reach.
    let mut reach = vec![local.reach; k];
    loop {
        // Each shard's gap pieces at w and its round, in one sweep of its rows.
        let rounds = steps.len();
        let mut pieces = Vec::with_capacity(k);
        let mut updates = Vec::with_capacity(k);
        for s in 0..k {
            let r = bounds[s]..bounds[s + 1];
            let local = LocalParams {
                seed: local.seed.wrapping_add((rounds * k + s) as u64),
                reach: reach[s],
                ..*local
            };
            let (p, u) = gap_and_round(
                &shard(s),
                &y[r.clone()],
                &c[r.clone()],
                &alpha[r],
                &w,
                &w,
                &local,
            )?;
            pieces.push(p);
            updates.push(u);
        }
        let certificate = Certificate::from_pieces(&w, &pieces);
        if certificate.relative_gap() <= tol || rounds >= max_rounds {
            return Ok((alpha, w, certificate, steps));
        }
        let mut delta_w = vec![0.0; w.len()];
        for u in &updates {
            delta_w
                .iter_mut()
                .zip(&u.delta_w)
                .for_each(|(a, b)| *a += b);
        }
        let grow: f64 = updates.iter().map(|u| u.delta_alpha_sum).sum();
        let gamma = aggregation.step(&w, &delta_w, grow);
        w.iter_mut()
            .zip(&delta_w)
            .for_each(|(a, b)| *a += gamma * b);
        for (s, u) in updates.into_iter().enumerate() {
            reach[s] = u.next_reach;
            let old = &mut alpha[bounds[s]..bounds[s + 1]];
            if gamma == 1.0 {
                old.copy_from_slice(&u.alpha);
            } else {
                old.iter_mut()
                    .zip(&u.alpha)
                    .for_each(|(a, b)| *a += gamma * (b - *a));
            }
        }
        steps.push(gamma);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseMatrix;

    /// σ′, passes and seed; every row visited.
    fn sweeps(sigma: f64, passes: usize, seed: u64) -> LocalParams {
        LocalParams {
            sigma,
            passes,
            seed,
            reach: f64::INFINITY,
        }
    }

    /// A round from w.
    fn local_round(
        x: &dyn LinearRows,
        y: &[f64],
        c: &[f64],
        alpha: &[f64],
        w: &[f64],
        params: &LocalParams,
    ) -> Result<LocalUpdate> {
        Ok(gap_and_round(x, y, c, alpha, w, w, params)?.1)
    }

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

    fn rows(x: &DenseMatrix, lo: usize, hi: usize) -> DenseMatrix {
        x.view().select_rows(&(lo..hi).collect::<Vec<_>>())
    }

    type Solved = (
        DenseMatrix,
        Vec<f64>,
        Vec<f64>,
        Vec<f64>,
        Vec<f64>,
        Certificate,
        Vec<f64>,
    );

    /// The in-process solve on `k` shards with one sweep a round and σ′ of the aggregation.
    fn solve(
        x: &Features<'_>,
        y: &[f64],
        c: &[f64],
        k: usize,
        aggregation: Aggregation,
        tol: f64,
        rounds: usize,
    ) -> Result<Solution> {
        let local = sweeps(aggregation.sigma(k), 1, 9);
        solve_in_process(x, y, c, k, aggregation, &local, tol, rounds)
    }

    /// `m` rows of `d` features with penalty `c`, solved in process on one shard to `tol`:
    /// the rows, labels, penalties, α, w, the certificate and the rounds' γ.
    fn solved(m: usize, d: usize, seed: u64, c: f64, tol: f64) -> Solved {
        let (x, y) = data(m, d, seed);
        let c = vec![c; m];
        let (alpha, w, cert, steps) =
            solve(&x.view().into(), &y, &c, 1, Aggregation::Add, tol, 100_000).unwrap();
        (x, y, c, alpha, w, cert, steps)
    }

    /// With one shard the local solver is dual coordinate descent: it reaches the optimum (a
    /// certified relative gap of 1e-8) and the dual rises every round. Its w is the one
    /// LIBLINEAR's optimality conditions give: the KKT conditions hold at α.
    #[test]
    fn one_shard_is_dcd_and_reaches_the_optimum() {
        let (x, y, c, alpha, w, cert, steps) = solved(400, 4, 1, 2.0, 1e-8);
        let xv: Features<'_> = x.view().into();
        assert!(cert.relative_gap() <= 1e-8, "{cert:?}");
        for (a, b) in shard_weights(&xv, &y, &alpha).iter().zip(&w) {
            assert!((a - b).abs() < 1e-9);
        }
        for i in 0..400 {
            let g = margin(&xv, i, y[i], &w) - 1.0;
            if alpha[i] > 1e-9 && alpha[i] < c[i] - 1e-9 {
                assert!(g.abs() < 1e-3, "free row {i}: gradient {g}");
            }
        }
        assert!(steps.iter().all(|&g| g == 1.0));
    }

    /// K = 1, 2 and 4 shards reach the same optimum under both aggregations: the objectives
    /// agree within the certified gaps; the line search takes fewer rounds than CoCoA+'s σ′ = K
    /// at 4 shards.
    #[test]
    fn shards_reach_the_in_process_optimum() {
        let (x, y) = data(600, 3, 2);
        let c: Vec<f64> = y.iter().map(|&v| if v > 0.0 { 1.0 } else { 3.0 }).collect();
        let xv: Features<'_> = x.view().into();
        let reference = solve(&xv, &y, &c, 1, Aggregation::Add, 1e-9, 100_000)
            .unwrap()
            .2;
        let mut rounds = Vec::new();
        for aggregation in [Aggregation::Add, Aggregation::LineSearch] {
            for k in [2, 4] {
                let (alpha, w, cert, steps) =
                    solve(&xv, &y, &c, k, aggregation, 1e-7, 100_000).unwrap();
                assert!(cert.relative_gap() <= 1e-7 && !steps.is_empty());
                assert!(
                    (cert.primal - reference.primal).abs()
                        <= cert.gap + reference.gap + 1e-9 * reference.primal,
                    "{aggregation:?}, K = {k}: {cert:?} vs {reference:?}"
                );
                for (a, b) in shard_weights(&xv, &y, &alpha).iter().zip(&w) {
                    assert!((a - b).abs() < 1e-8);
                }
                rounds.push(steps.len());
            }
        }
        assert!(
            rounds[3] < rounds[1],
            "rounds (Add 2, 4; LineSearch 2, 4): {rounds:?}"
        );
    }

    /// Under the line search the dual rises every round (γ = 0 is allowed) and γ ∈ [0, 1].
    #[test]
    fn line_search_rounds_raise_the_dual() {
        let (x, y) = data(500, 4, 6);
        let c = vec![1.5; 500];
        let xv: Features<'_> = x.view().into();
        let mut last = f64::NEG_INFINITY;
        for r in 0..25 {
            let (_, _, cert, steps) =
                solve(&xv, &y, &c, 5, Aggregation::LineSearch, 0.0, r).unwrap();
            assert!(cert.dual >= last - 1e-9 * last.abs().max(1.0), "round {r}");
            assert!(cert.gap >= -1e-9);
            assert!(steps.iter().all(|g| (0.0..=1.0).contains(g)));
            last = cert.dual;
        }
    }

    /// γ maximises the dual's rise γ·slope − ½γ²‖Δw‖² on [0, 1]: clipped at both ends.
    #[test]
    fn line_search_is_the_maximiser_on_the_unit_interval() {
        let w = [1.0, -2.0];
        let dw = [0.5, 0.5];
        // slope = s − ⟨w, Δw⟩ = s + 0.5, curvature 0.5
        assert_eq!(line_search(&w, &dw, -1.0), 0.0);
        assert_eq!(line_search(&w, &dw, 1.0), 1.0);
        assert!((line_search(&w, &dw, -0.25) - 0.5).abs() < 1e-15);
        assert_eq!(line_search(&w, &[0.0, 0.0], 1.0), 1.0);
        assert_eq!(Aggregation::Add.step(&w, &dw, -1.0), 1.0);
        assert_eq!(Aggregation::Add.sigma(4), 4.0);
        assert_eq!(Aggregation::LineSearch.sigma(4), 1.0);
    }

    /// The shards' gap pieces at a common w sum to the pieces of the whole data, and the
    /// shards' weights to w(α).
    #[test]
    fn gap_pieces_sum_to_the_in_process_gap() {
        let (x, y, c, alpha, w, _, _) = solved(333, 5, 4, 0.7, 1e-3);
        let (alpha, w) = (&alpha, &w);
        let xv: Features<'_> = x.view().into();
        let whole = gap_pieces(&xv, &y, &c, alpha, w).unwrap();
        let cuts = [0, 100, 101, 250, 333];
        let mut pieces = Vec::new();
        let mut wsum = [0.0; 6];
        for s in 0..4 {
            let (lo, hi) = (cuts[s], cuts[s + 1]);
            let part = rows(&x, lo, hi);
            let pv: Features<'_> = part.view().into();
            pieces.push(gap_pieces(&pv, &y[lo..hi], &c[lo..hi], &alpha[lo..hi], w).unwrap());
            let ws = shard_weights(&pv, &y[lo..hi], &alpha[lo..hi]);
            wsum.iter_mut().zip(&ws).for_each(|(a, b)| *a += b);
        }
        let split = Certificate::from_pieces(w, &pieces);
        let direct = Certificate::from_pieces(w, &[whole]);
        assert!((split.gap - direct.gap).abs() <= 1e-9 * direct.primal.abs().max(1.0));
        assert_eq!(
            pieces.iter().map(|p| p.violations).sum::<usize>(),
            whole.violations
        );
        for (a, b) in wsum.iter().zip(w) {
            assert!((a - b).abs() < 1e-9);
        }
    }

    #[test]
    fn bad_input_is_refused() {
        let (x, y) = data(10, 2, 0);
        let xv: Features<'_> = x.view().into();
        let p = sweeps(0.5, 1, 0);
        assert!(local_round(&xv, &y, &[1.0; 10], &[0.0; 10], &[0.0; 3], &p).is_err());
        let p = LocalParams { sigma: 1.0, ..p };
        assert!(local_round(&xv, &y, &[1.0; 10], &[0.0; 10], &[0.0; 2], &p).is_err());
        let p = LocalParams { reach: -1.0, ..p };
        assert!(local_round(&xv, &y, &[1.0; 10], &[0.0; 10], &[0.0; 3], &p).is_err());
        assert!(gap_pieces(&xv, &y, &[0.0; 10], &[0.0; 10], &[0.0; 3]).is_err());
        for k in [0, 11] {
            assert!(solve(&xv, &y, &[1.0; 10], k, Aggregation::LineSearch, 1e-3, 9).is_err());
        }
    }

    /// A shard of float32 rows gives the updates, gap pieces and weights of the same values in
    /// float64, bit for bit (the arithmetic is float64 either way, in the same order).
    #[test]
    fn float32_rows_give_the_float64_rows_results() {
        let (x, y) = data(500, 13, 21);
        let single: Vec<f32> = x.as_slice().iter().map(|&v| v as f32).collect();
        let double: Vec<f64> = single.iter().map(|&v| f64::from(v)).collect();
        let rows32 = crate::data::DenseF32View::new(&single, 500, 13).unwrap();
        let rows64 = Features::Dense(crate::data::DenseView::new(&double, 500, 13).unwrap());
        let c = vec![0.7; 500];
        let alpha = vec![0.0; 500];
        let w = vec![0.0; 14];
        let params = sweeps(2.0, 2, 4);
        let a = local_round(&rows32, &y, &c, &alpha, &w, &params).unwrap();
        let b = local_round(&rows64, &y, &c, &alpha, &w, &params).unwrap();
        assert_eq!(
            (&a.alpha, &a.delta_w, a.steps),
            (&b.alpha, &b.delta_w, b.steps)
        );
        let at = a.delta_w.clone();
        assert_eq!(
            gap_pieces(&rows32, &y, &c, &a.alpha, &at).unwrap(),
            gap_pieces(&rows64, &y, &c, &a.alpha, &at).unwrap()
        );
        assert_eq!(
            shard_weights(&rows32, &y, &a.alpha),
            shard_weights(&rows64, &y, &a.alpha)
        );
        let mut bad = single.clone();
        bad[13 * 7 + 2] = f32::NAN;
        let bad = crate::data::DenseF32View::new(&bad, 500, 13).unwrap();
        assert!(matches!(
            bad.check_finite(),
            Err(FwsvmError::NonFinite { row: 7, .. })
        ));
        assert!(rows32.check_finite().is_ok());
        assert!(crate::data::DenseF32View::new(&single, 499, 13).is_err());
    }

    /// Screening changes which rows a sweep visits, not the steps it takes: with a reach no
    /// row can exceed, a sweep equals the unscreened one bit for bit; a zero reach still
    /// steps; and the in-process solve (each round with the last one's `next_reach`) ends at
    /// the optimum the unscreened rounds end at.
    #[test]
    fn screened_sweeps_skip_rows_that_cannot_move() {
        let (x, y) = data(2000, 6, 5);
        let xv: Features<'_> = x.view().into();
        let c = vec![1.0; 2000];
        let plain = sweeps(1.0, 1, 3);
        // A point part of the way: three unscreened rounds.
        let (mut alpha, mut w) = (vec![0.0; 2000], vec![0.0; 7]);
        for r in 0..3 {
            let u =
                local_round(&xv, &y, &c, &alpha, &w, &LocalParams { seed: r, ..plain }).unwrap();
            w.iter_mut().zip(&u.delta_w).for_each(|(a, b)| *a += b);
            alpha = u.alpha;
        }
        let wide = LocalParams {
            reach: 1e300,
            ..plain
        };
        let (a, b) = (
            local_round(&xv, &y, &c, &alpha, &w, &plain).unwrap(),
            local_round(&xv, &y, &c, &alpha, &w, &wide).unwrap(),
        );
        assert_eq!(
            (&a.alpha, &a.delta_w, a.steps),
            (&b.alpha, &b.delta_w, b.steps)
        );
        // The round's sweep sums gap_pieces' numbers.
        let (pieces, _) = gap_and_round(&xv, &y, &c, &alpha, &w, &w, &plain).unwrap();
        assert_eq!(pieces, gap_pieces(&xv, &y, &c, &alpha, &w).unwrap());
        // A zero reach still visits the rows whose step is not zero at w.
        let zero = LocalParams {
            reach: 0.0,
            ..plain
        };
        let screened = local_round(&xv, &y, &c, &alpha, &w, &zero).unwrap();
        assert!(screened.steps > 0 && a.next_reach > 0.0);
        // The in-process solve screens from its second round on.
        let (_, w_s, cert, _) = solve(&xv, &y, &c, 1, Aggregation::Add, 1e-8, 100_000).unwrap();
        assert!(cert.relative_gap() <= 1e-8);
        let mut unscreened = (vec![0.0; 2000], vec![0.0; 7]);
        for r in 0..100_000u64 {
            let p = gap_pieces(&xv, &y, &c, &unscreened.0, &unscreened.1).unwrap();
            if Certificate::from_pieces(&unscreened.1, &[p]).relative_gap() <= 1e-8 {
                break;
            }
            let u = local_round(
                &xv,
                &y,
                &c,
                &unscreened.0,
                &unscreened.1,
                &LocalParams { seed: r, ..plain },
            )
            .unwrap();
            unscreened
                .1
                .iter_mut()
                .zip(&u.delta_w)
                .for_each(|(a, b)| *a += b);
            unscreened.0 = u.alpha;
        }
        let primal = |w: &[f64]| {
            let p = gap_pieces(&xv, &y, &c, &vec![0.0; 2000], w).unwrap();
            0.5 * w.iter().map(|v| v * v).sum::<f64>() + p.loss
        };
        let (ps, pu) = (primal(&w_s), primal(&unscreened.1));
        assert!((ps - pu).abs() <= 2e-8 * pu, "{ps} vs {pu}");
    }
}
