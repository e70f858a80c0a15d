//! Shared helpers for the Rust integration tests: data generators and an exact reference
//! solver for small simplex QPs that uses a different method from every fwsvm solver.

#![allow(dead_code)]

use fwsvm::kernel::KernelMatrix;
use fwsvm::random::SplitMix64;
use fwsvm::{DenseMatrix, Features, Kernel, Loss, SimplexProblem, Svc, SvcParams};

/// Two overlapping Gaussian blobs in `d` dimensions, labels ±1.
pub fn blobs(m: usize, d: usize, separation: f64, seed: u64) -> (DenseMatrix, Vec<f64>) {
    let mut rng = SplitMix64::new(seed);
    let mut rows = Vec::with_capacity(m);
    let mut y = Vec::with_capacity(m);
    for i in 0..m {
        let label = if i % 2 == 0 { 1.0 } else { -1.0 };
        let row: Vec<f64> = (0..d)
            .map(|k| {
                rng.normal()
                    + if k == 0 {
                        label * separation / 2.0
                    } else {
                        0.0
                    }
            })
            .collect();
        rows.push(row);
        y.push(label);
    }
    (DenseMatrix::from_rows(&rows).unwrap(), y)
}

/// The hinge-loss SVC (LIBSVM's model) with an RBF kernel: the set-up of the fits that vary
/// one more setting.
pub fn hinge_rbf(c: f64, gamma: f64) -> SvcParams {
    Svc::params()
        .loss(Loss::Hinge)
        .c(c)
        .kernel(Kernel::rbf(gamma))
}

/// [`blobs`] with one penalty C for every row: the data an L2-SVM problem borrows.
pub struct BlobsSvc {
    pub x: DenseMatrix,
    pub y: Vec<f64>,
    pub cs: Vec<f64>,
}

impl BlobsSvc {
    /// `blobs(m, d, separation, seed)`, every row's penalty `c`.
    pub fn new(m: usize, d: usize, separation: f64, seed: u64, c: f64) -> Self {
        let (x, y) = blobs(m, d, separation, seed);
        Self {
            x,
            y,
            cs: vec![c; m],
        }
    }

    /// The L2-SVM problem of these rows under `kernel`.
    pub fn l2_svc(&self, kernel: Kernel) -> SimplexProblem<'_> {
        SimplexProblem::l2_svc(
            KernelMatrix::new(kernel, Features::from(&self.x)),
            &self.y,
            &self.cs,
        )
        .unwrap()
    }
}

/// The dense Q and b of a problem (small m only).
pub fn dense_q(problem: &SimplexProblem<'_>) -> (Vec<f64>, Vec<f64>) {
    let n = problem.n_slots();
    let mut q = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            q[a * n + b] = problem.q_entry(a, b);
        }
    }
    (q, problem.linear().to_vec())
}

/// The dense Q and b of a problem and its optimum g* from [`reference_optimum`].
pub fn dense_q_and_optimum(problem: &SimplexProblem<'_>) -> (Vec<f64>, Vec<f64>, f64) {
    let (q, b) = dense_q(problem);
    let (_, best) = reference_optimum(&q, &b);
    (q, b, best)
}

/// g(α) = bᵀα − αᵀQα, the gradient-cache-free duality gap max ∇g − αᵀ∇g.
pub fn objective_and_gap(q: &[f64], b: &[f64], alpha: &[f64]) -> (f64, f64) {
    let n = b.len();
    let qa: Vec<f64> = (0..n)
        .map(|r| (0..n).map(|c| q[r * n + c] * alpha[c]).sum())
        .collect();
    let quad: f64 = alpha.iter().zip(&qa).map(|(a, g)| a * g).sum();
    let lin: f64 = alpha.iter().zip(b).map(|(a, b)| a * b).sum();
    let grad: Vec<f64> = (0..n).map(|r| b[r] - 2.0 * qa[r]).collect();
    let ag: f64 = alpha.iter().zip(&grad).map(|(a, g)| a * g).sum();
    let max = grad.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    (lin - quad, max - ag)
}

/// Euclidean projection onto the unit simplex (Held, Wolfe & Crowder; sort-based).
fn project_simplex(v: &[f64]) -> Vec<f64> {
    let mut u = v.to_vec();
    u.sort_by(|a, b| b.total_cmp(a));
    let mut css = 0.0;
    let mut theta = 0.0;
    for (k, &uk) in u.iter().enumerate() {
        css += uk;
        let t = (css - 1.0) / (k as f64 + 1.0);
        if uk - t > 0.0 {
            theta = t;
        }
    }
    v.iter().map(|&x| (x - theta).max(0.0)).collect()
}

/// Solves max bᵀα − αᵀQα on the simplex by accelerated projected gradient (FISTA with
/// restarts), then polishes on the identified support with a KKT linear solve. Returns the
/// optimal α and objective. A different method from every solver in the crate.
pub fn reference_optimum(q: &[f64], b: &[f64]) -> (Vec<f64>, f64) {
    reference_optimum_blocks(q, b, &vec![0; b.len()])
}

/// Projection onto a product of unit simplices, one per distinct `group` value.
fn project_blocks(v: &[f64], group: &[usize], n_groups: usize) -> Vec<f64> {
    let mut out = vec![0.0; v.len()];
    for g in 0..n_groups {
        let idx: Vec<usize> = (0..v.len()).filter(|&i| group[i] == g).collect();
        let part: Vec<f64> = idx.iter().map(|&i| v[i]).collect();
        for (&i, p) in idx.iter().zip(project_simplex(&part)) {
            out[i] = p;
        }
    }
    out
}

/// As [`reference_optimum`] on a product of unit simplices: coordinate i belongs to simplex
/// `group[i]` (groups numbered 0..G, each non-empty). The nearest-point problem of `ky` is the
/// two-group case with b = 0.
pub fn reference_optimum_blocks(q: &[f64], b: &[f64], group: &[usize]) -> (Vec<f64>, f64) {
    let n = b.len();
    let n_groups = group.iter().max().map_or(0, |&g| g + 1);
    // Lipschitz constant of the gradient 2Qα: 2·λ_max(Q) ≤ 2·max row sum of |Q|.
    let lip = 2.0
        * (0..n)
            .map(|r| (0..n).map(|c| q[r * n + c].abs()).sum::<f64>())
            .fold(0.0, f64::max);
    let step = 1.0 / lip;
    let sizes: Vec<usize> = (0..n_groups)
        .map(|g| group.iter().filter(|&&h| h == g).count())
        .collect();
    let mut x: Vec<f64> = group.iter().map(|&g| 1.0 / sizes[g] as f64).collect();
    let mut y = x.clone();
    let mut t = 1.0f64;
    let f = |a: &[f64]| objective_and_gap(q, b, a).0;
    for _ in 0..200_000 {
        let grad: Vec<f64> = (0..n)
            .map(|r| b[r] - 2.0 * (0..n).map(|c| q[r * n + c] * y[c]).sum::<f64>())
            .collect();
        let z: Vec<f64> = (0..n).map(|r| y[r] + step * grad[r]).collect();
        let x_new = project_blocks(&z, group, n_groups);
        if f(&x_new) < f(&x) {
            // Restart momentum when the objective goes down.
            t = 1.0;
            y = x.clone();
            continue;
        }
        let t_new = (1.0 + (1.0 + 4.0 * t * t).sqrt()) / 2.0;
        y = (0..n)
            .map(|r| x_new[r] + (t - 1.0) / t_new * (x_new[r] - x[r]))
            .collect();
        let done = x_new
            .iter()
            .zip(&x)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
            < 1e-15;
        x = x_new;
        t = t_new;
        if done {
            break;
        }
    }
    // Polish: on the support S, solve [2Q_SS E; Eᵀ 0][α_S; μ] = [b_S; 1] with one multiplier
    // per simplex (stationarity of the Lagrangian, signs folded into μ).
    let support: Vec<usize> = (0..n).filter(|&i| x[i] > 1e-10).collect();
    let s = support.len();
    let dim = s + n_groups;
    let mut mat = vec![0.0; dim * dim];
    let mut rhs = vec![0.0; dim];
    for (r, &i) in support.iter().enumerate() {
        for (c, &j) in support.iter().enumerate() {
            mat[r * dim + c] = 2.0 * q[i * n + j];
        }
        mat[r * dim + s + group[i]] = 1.0;
        mat[(s + group[i]) * dim + r] = 1.0;
        rhs[r] = b[i];
    }
    for g in 0..n_groups {
        rhs[s + g] = 1.0;
    }
    if let Some(sol) = gauss_solve(&mut mat, &mut rhs, dim) {
        let mut polished = vec![0.0; n];
        for (r, &i) in support.iter().enumerate() {
            polished[i] = sol[r];
        }
        if polished.iter().all(|&v| v >= 0.0) && f(&polished) >= f(&x) {
            x = polished;
        }
    }
    let val = f(&x);
    (x, val)
}

fn gauss_solve(a: &mut [f64], b: &mut [f64], n: usize) -> Option<Vec<f64>> {
    for col in 0..n {
        let piv =
            (col..n).max_by(|&r, &s| a[r * n + col].abs().total_cmp(&a[s * n + col].abs()))?;
        if a[piv * n + col].abs() < 1e-300 {
            return None;
        }
        for k in 0..n {
            a.swap(col * n + k, piv * n + k);
        }
        b.swap(col, piv);
        for r in 0..n {
            if r != col {
                let factor = a[r * n + col] / a[col * n + col];
                for k in col..n {
                    a[r * n + k] -= factor * a[col * n + k];
                }
                b[r] -= factor * b[col];
            }
        }
    }
    Some((0..n).map(|r| b[r] / a[r * n + r]).collect())
}
