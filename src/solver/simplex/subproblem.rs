//! Exact solution of a small dense simplex QP: the random-subset initialisation (CVM's p = 20
//! points) and, later, the fully corrective (`bc`) inner solves.

use super::line_search::transfer;

/// Maximises bᵀα − αᵀQα over the unit simplex for a small dense `q` (row-major p×p) by
/// pairwise (SMO-style) steps with second-order working-set selection (Fan, Chen & Lin 2005),
/// until max_i ∇g_i − min_{j: α_j>0} ∇g_j ≤ `tol` or `max_iter` steps.
///
/// This maximal-violating-pair criterion is stronger than the duality gap, so the result is
/// optimal to `tol` in the gap too. Coordinates that leave the support are exactly zero.
pub fn solve_dense(q: &[f64], b: &[f64], tol: f64, max_iter: usize) -> Vec<f64> {
    let p = b.len();
    debug_assert_eq!(q.len(), p * p);
    let mut alpha = vec![0.0; p];
    if p == 0 {
        return alpha;
    }
    // Start at the best vertex.
    let start = (0..p)
        .max_by(|&x, &y| {
            (b[x] - q[x * p + x])
                .total_cmp(&(b[y] - q[y * p + y]))
                .then(y.cmp(&x))
        })
        .unwrap_or(0);
    alpha[start] = 1.0;
    let mut g: Vec<f64> = (0..p).map(|r| q[r * p + start]).collect();
    for iter in 0..max_iter {
        if iter % 64 == 63 {
            for r in 0..p {
                g[r] = (0..p)
                    .filter(|&c| alpha[c] > 0.0)
                    .map(|c| q[r * p + c] * alpha[c])
                    .sum();
            }
        }
        let grad = |r: usize, g: &[f64]| b[r] - 2.0 * g[r];
        let mut i = 0;
        for r in 1..p {
            if grad(r, &g) > grad(i, &g) {
                i = r;
            }
        }
        let gi = grad(i, &g);
        let min_active = (0..p)
            .filter(|&r| alpha[r] > 0.0)
            .map(|r| grad(r, &g))
            .fold(f64::INFINITY, f64::min);
        if gi - min_active <= tol {
            break;
        }
        // Second-order choice of j among active points with a lower gradient.
        let mut best: Option<(usize, f64, f64, f64)> = None;
        for j in 0..p {
            if j == i || alpha[j] <= 0.0 {
                continue;
            }
            let a = gi - grad(j, &g);
            if a <= 0.0 {
                continue;
            }
            let c = q[i * p + i] - 2.0 * q[i * p + j] + q[j * p + j];
            let gain = if c > 0.0 {
                a * a / (4.0 * c)
            } else {
                f64::INFINITY
            };
            if best.is_none_or(|(_, bg, _, _)| gain > bg) {
                best = Some((j, gain, a, c));
            }
        }
        let Some((j, _, a, c)) = best else { break };
        let Some(lambda) = transfer(&mut alpha, i, j, a, c) else {
            break;
        };
        for r in 0..p {
            g[r] += lambda * (q[r * p + i] - q[r * p + j]);
        }
    }
    // Renormalise away the last ulps of drift.
    let s: f64 = alpha.iter().sum();
    alpha.iter_mut().for_each(|v| *v /= s);
    alpha
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_point_closed_form() {
        // maximise −αᵀQα with Q = diag(1, 3): α = (3/4, 1/4).
        let q = [1.0, 0.0, 0.0, 3.0];
        let a = solve_dense(&q, &[0.0, 0.0], 1e-14, 1000);
        assert!((a[0] - 0.75).abs() < 1e-12 && (a[1] - 0.25).abs() < 1e-12);
    }

    #[test]
    fn vertex_optimum_has_exact_zeros() {
        // Q = [[1, 1.5], [1.5, 4]]: moving from e_0 toward e_1 has slope 2·(1 − 1.5) < 0.
        let q = [1.0, 1.5, 1.5, 4.0];
        let a = solve_dense(&q, &[0.0, 0.0], 1e-14, 1000);
        assert_eq!(a, vec![1.0, 0.0]);
    }
}
