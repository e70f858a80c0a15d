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
}

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

/// One round of shard k: `passes` sweeps of coordinate steps on the CoCoA+ subproblem from the
/// driver's `w` (d + 1 entries, the bias last) and the shard's weights `alpha`.
///
/// # Errors
/// [`FwsvmError::InvalidInput`] for inconsistent lengths, non-positive penalties or σ′ < 1.
pub fn local_round(
    x: &dyn LinearRows,
    y: &[f64],
    c: &[f64],
    alpha: &[f64],
    w: &[f64],
    params: &LocalParams,
) -> Result<LocalUpdate> {
    check_lengths(x, y, c, alpha, w)?;
    if !(params.sigma >= 1.0 && params.sigma.is_finite()) {
        return Err(FwsvmError::param(
            "sigma",
            format!("must be at least 1, got {}", params.sigma),
        ));
    }
    let m = x.n_rows();
    let sigma = params.sigma;
    let mut alpha = alpha.to_vec();
    // u = w + σ′ Δw: the point at which the subproblem's gradient is taken.
    let mut u = w.to_vec();
    let mut delta_w = vec![0.0; w.len()];
    let curvature: Vec<f64> = (0..m).map(|i| sigma * (x.row_sq_norm(i) + 1.0)).collect();
    let mut rng = SplitMix64::new(params.seed);
    let mut order: Vec<usize> = (0..m).collect();
    let mut steps = 0u64;
    let mut delta_alpha_sum = 0.0;
    for _ in 0..params.passes {
        rng.shuffle(&mut order);
        for &i in &order {
            let g = margin(x, i, y[i], &u) - 1.0;
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
            let next = (a - g / curvature[i]).clamp(0.0, c[i]);
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
    Ok(LocalUpdate {
        alpha,
        delta_w,
        delta_alpha_sum,
        steps,
    })
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
            let slack = 1.0 - margin(x, i, y[i], w);
            p.alpha_sum += alpha[i];
            if slack > 0.0 {
                p.loss += c[i] * slack;
                p.violations += 1;
            }
        }
        p
    });
    Ok(parts
        .into_iter()
        .fold(GapPieces::default(), |a, b| GapPieces {
            alpha_sum: a.alpha_sum + b.alpha_sum,
            loss: a.loss + b.loss,
            violations: a.violations + b.violations,
        }))
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
/// As [`local_round`], and for zero shards or more shards than rows.
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
    loop {
        let pieces = (0..k)
            .map(|s| {
                let r = bounds[s]..bounds[s + 1];
                gap_pieces(&shard(s), &y[r.clone()], &c[r.clone()], &alpha[r], &w)
            })
            .collect::<Result<Vec<_>>>()?;
        let certificate = Certificate::from_pieces(&w, &pieces);
        let rounds = steps.len();
        if certificate.relative_gap() <= tol || rounds >= max_rounds {
            return Ok((alpha, w, certificate, steps));
        }
        let mut updates = Vec::with_capacity(k);
        for s in 0..k {
            let r = bounds[s]..bounds[s + 1];
            let local = LocalParams {
                seed: local.seed.wrapping_add((rounds * k + s) as u64),
                ..*local
            };
            updates.push(local_round(
                &shard(s),
                &y[r.clone()],
                &c[r.clone()],
                &alpha[r],
                &w,
                &local,
            )?);
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
        let local = LocalParams {
            sigma: aggregation.sigma(k),
            passes: 1,
            seed: 9,
        };
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
        let p = LocalParams {
            sigma: 0.5,
            passes: 1,
            seed: 0,
        };
        assert!(local_round(&xv, &y, &[1.0; 10], &[0.0; 10], &[0.0; 3], &p).is_err());
        let p = LocalParams { sigma: 1.0, ..p };
        assert!(local_round(&xv, &y, &[1.0; 10], &[0.0; 10], &[0.0; 2], &p).is_err());
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
        let params = LocalParams {
            sigma: 2.0,
            passes: 2,
            seed: 4,
        };
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
}
