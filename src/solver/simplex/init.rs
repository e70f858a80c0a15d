//! Initial iterates: [`Init`] (`SolverParams::init`, Python's `init=`); CVM's random subset is paper 003 §5.

use super::subproblem::solve_dense;
use super::{Init, SolverParams};
use crate::error::{FwsvmError, Result};
use crate::problem::SimplexProblem;
use crate::random::SplitMix64;

/// Points in CVM's random initial subset (paper 003 §5).
const RANDOM_SUBSET: usize = 20;
/// Per-class sample cap for the closest-pair search (keeps it O(4·10⁶) kernel evaluations).
const CLOSEST_PAIR_CAP: usize = 2000;

/// The support and weights of a warm start rescaled to sum to one within each group
/// (`group(a)` ∈ {0, 1}); `None` when there is none or a group would be empty.
///
/// # Errors
/// [`FwsvmError::InvalidParameter`] when its length is not the number of slots.
pub(crate) fn warm_iterate(
    problem: &SimplexProblem<'_>,
    params: &SolverParams,
    group: impl Fn(usize) -> usize,
    n_groups: usize,
) -> Result<Option<(Vec<usize>, Vec<f64>)>> {
    let Some(w) = &params.warm_start else {
        return Ok(None);
    };
    if w.len() != problem.n_slots() {
        return Err(FwsvmError::param(
            "warm_start",
            format!(
                "has {} weights but the problem has {} slots",
                w.len(),
                problem.n_slots()
            ),
        ));
    }
    let mut mass = vec![0.0; n_groups];
    for (a, &v) in w.iter().enumerate() {
        mass[group(a)] += v;
    }
    if mass.iter().any(|&t| !(t > 0.0)) {
        return Ok(None);
    }
    Ok(Some(
        (0..w.len())
            .filter(|&a| w[a] > 0.0)
            .map(|a| (a, w[a] / mass[group(a)]))
            .unzip(),
    ))
}

/// Returns the support and weights of the initial iterate (the warm start, if any).
pub(crate) fn initial_iterate(
    problem: &SimplexProblem<'_>,
    params: &SolverParams,
) -> Result<(Vec<usize>, Vec<f64>)> {
    if let Some(start) = warm_iterate(problem, params, |_| 0, 1)? {
        return Ok(start);
    }
    let n = problem.n_slots();
    let mut rng = SplitMix64::new(params.seed);
    let support = match params.init {
        Init::Random => rng.sample_distinct(n, RANDOM_SUBSET),
        Init::Farthest => {
            let s = rng.below(n);
            let t = (0..n)
                .map(|t| (t, squared_distance(problem, s, t)))
                .fold((s, f64::NEG_INFINITY), |best, cur| {
                    if cur.1 > best.1 { cur } else { best }
                })
                .0;
            if t == s { vec![s] } else { vec![s, t] }
        }
        Init::ClosestPair => closest_opposite_pair(problem, &mut rng)?,
    };
    Ok(solve_on(problem, support))
}

/// ‖z_s − z_t‖² = Q_ss + Q_tt − 2Q_st in the problem's feature space.
fn squared_distance(problem: &SimplexProblem<'_>, s: usize, t: usize) -> f64 {
    if s == t {
        return 0.0;
    }
    problem.q_diag(s) + problem.q_diag(t) - 2.0 * problem.q_entry(s, t)
}

/// Solves the problem restricted to `support` exactly and drops zero weights.
fn solve_on(problem: &SimplexProblem<'_>, support: Vec<usize>) -> (Vec<usize>, Vec<f64>) {
    let p = support.len();
    let mut q = vec![0.0; p * p];
    for r in 0..p {
        for c in r..p {
            let v = problem.q_entry(support[r], support[c]);
            q[r * p + c] = v;
            q[c * p + r] = v;
        }
    }
    let b: Vec<f64> = support.iter().map(|&a| problem.linear()[a]).collect();
    let scale = (0..p).map(|r| q[r * p + r].abs()).fold(1e-300, f64::max);
    let alpha = solve_dense(&q, &b, 1e-13 * scale, 100_000);
    support
        .into_iter()
        .zip(alpha)
        .filter(|&(_, v)| v > 0.0)
        .unzip()
}

/// The closest pair (in the base kernel's feature space) of points with opposite signs
/// (paper 000 §3.3.1: for the SVC, the largest initial ball).
fn closest_opposite_pair(problem: &SimplexProblem<'_>, rng: &mut SplitMix64) -> Result<Vec<usize>> {
    let signs = problem.signs();
    let pos: Vec<usize> = (0..problem.n_slots()).filter(|&a| signs[a] > 0.0).collect();
    let neg: Vec<usize> = (0..problem.n_slots()).filter(|&a| signs[a] < 0.0).collect();
    if pos.is_empty() || neg.is_empty() {
        return Err(FwsvmError::param(
            "init",
            "closest_pair needs points of both signs (classes)",
        ));
    }
    let subset = |v: Vec<usize>, rng: &mut SplitMix64| -> Vec<usize> {
        if v.len() <= CLOSEST_PAIR_CAP {
            v
        } else {
            let mut s: Vec<usize> = rng
                .sample_distinct(v.len(), CLOSEST_PAIR_CAP)
                .into_iter()
                .map(|k| v[k])
                .collect();
            s.sort_unstable();
            s
        }
    };
    let (pos, neg) = (subset(pos, rng), subset(neg, rng));
    let kernel = problem.kernel();
    let kd = kernel.diagonal();
    let mut best = (pos[0], neg[0], f64::INFINITY);
    for &p in &pos {
        let sp = problem.sample(p);
        for &q in &neg {
            let sq = problem.sample(q);
            let d = kd[sp] + kd[sq] - 2.0 * kernel.entry(sp, sq);
            if d < best.2 {
                best = (p, q, d);
            }
        }
    }
    Ok(vec![best.0, best.1])
}
