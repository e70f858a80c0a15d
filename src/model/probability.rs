//! Class probabilities of a classifier, as LIBSVM computes them: Platt's sigmoid per pair of
//! classes, fitted to cross-validated decision values by the Newton method with backtracking of
//! Lin, Lin & Weng (2007, "A note on Platt's probabilistic outputs"; LIBSVM's
//! `sigmoid_train`), and pairwise coupling by method 2 of Wu, Lin & Weng (2004, "Probability
//! estimates for multi-class classification by pairwise coupling"; LIBSVM's
//! `multiclass_probability`).
//!
//! Convention: a pair's value `f` is positive for its first class i, and
//! P(i | f) = 1 / (1 + exp(A f + B)).

/// Pairwise probabilities are clipped to [MIN_PROB, 1 − MIN_PROB] before coupling (LIBSVM's).
const MIN_PROB: f64 = 1e-7;

/// `1 / (1 + exp(A f + B))` without overflow.
pub fn sigmoid_predict(f: f64, a: f64, b: f64) -> f64 {
    let t = f * a + b;
    if t >= 0.0 {
        let e = (-t).exp();
        e / (1.0 + e)
    } else {
        1.0 / (1.0 + t.exp())
    }
}

/// Platt's (A, B) for decision values `dec` whose rows are of the pair's first class where
/// `positive` is true, with Platt's regularised targets; LIBSVM's `sigmoid_train` step for step.
pub fn sigmoid_train(dec: &[f64], positive: &[bool]) -> (f64, f64) {
    let prior1 = positive.iter().filter(|&&p| p).count() as f64;
    let prior0 = dec.len() as f64 - prior1;
    let (hi, lo) = ((prior1 + 1.0) / (prior1 + 2.0), 1.0 / (prior0 + 2.0));
    let t: Vec<f64> = positive.iter().map(|&p| if p { hi } else { lo }).collect();
    let (max_iter, min_step, sigma, eps) = (100, 1e-10, 1e-12, 1e-5);
    let objective = |a: f64, b: f64| -> f64 {
        dec.iter()
            .zip(&t)
            .map(|(&d, &ti)| {
                let f = d * a + b;
                // t·f + log(1 + e^{−f}) for f ≥ 0, (t − 1)·f + log(1 + e^{f}) otherwise.
                if f >= 0.0 {
                    ti * f + (-f).exp().ln_1p()
                } else {
                    (ti - 1.0) * f + f.exp().ln_1p()
                }
            })
            .sum()
    };
    let (mut a, mut b) = (0.0, ((prior0 + 1.0) / (prior1 + 1.0)).ln());
    let mut fval = objective(a, b);
    for _ in 0..max_iter {
        let (mut h11, mut h22, mut h21, mut g1, mut g2) = (sigma, sigma, 0.0, 0.0, 0.0);
        for (&d, &ti) in dec.iter().zip(&t) {
            let f = d * a + b;
            let (p, q) = if f >= 0.0 {
                let e = (-f).exp();
                (e / (1.0 + e), 1.0 / (1.0 + e))
            } else {
                let e = f.exp();
                (1.0 / (1.0 + e), e / (1.0 + e))
            };
            let d2 = p * q;
            h11 += d * d * d2;
            h22 += d2;
            h21 += d * d2;
            let d1 = ti - p;
            g1 += d * d1;
            g2 += d1;
        }
        if g1.abs() < eps && g2.abs() < eps {
            break;
        }
        let det = h11 * h22 - h21 * h21;
        let da = -(h22 * g1 - h21 * g2) / det;
        let db = -(-h21 * g1 + h11 * g2) / det;
        let gd = g1 * da + g2 * db;
        let mut step = 1.0;
        while step >= min_step {
            let (na, nb) = (a + step * da, b + step * db);
            let nf = objective(na, nb);
            if nf < fval + 1e-4 * step * gd {
                (a, b, fval) = (na, nb, nf);
                break;
            }
            step /= 2.0;
        }
        if step < min_step {
            break; // the line search failed: keep the last (A, B), as LIBSVM does
        }
    }
    (a, b)
}

/// Class probabilities of one row from its pairwise ones: `pairwise[p]` is P(i | i or j) for
/// pair p = (i, j), i < j, in LIBSVM's order over `k` classes. `order` lists the classes in the
/// order LIBSVM iterates them (a LIBSVM file's label order; empty: 0..k), which the coupling's
/// sweeps follow, so results match LIBSVM's to its tolerance. `out` (k values) receives the
/// probabilities, indexed by class. Two classes: the pair's probability itself.
pub fn couple(pairwise: &[f64], k: usize, order: &[usize], out: &mut [f64]) {
    let clip = |r: f64| r.clamp(MIN_PROB, 1.0 - MIN_PROB);
    if k == 2 {
        out[0] = clip(pairwise[0]);
        out[1] = 1.0 - out[0];
        return;
    }
    let at = |p: usize| if order.is_empty() { p } else { order[p] };
    // r[a][b] over LIBSVM's positions a, b: P(class at a | a or b).
    let mut r = vec![0.0; k * k];
    let mut pair = 0;
    for i in 0..k {
        for j in (i + 1)..k {
            r[i * k + j] = clip(pairwise[pair]);
            r[j * k + i] = 1.0 - r[i * k + j];
            pair += 1;
        }
    }
    let rp = |a: usize, b: usize| r[at(a) * k + at(b)];
    // Q[t][t] = Σ_{j≠t} r_jt², Q[t][j] = −r_jt r_tj (positions).
    let mut q = vec![0.0; k * k];
    for t in 0..k {
        for j in 0..k {
            if j != t {
                q[t * k + t] += rp(j, t) * rp(j, t);
                q[t * k + j] = -rp(j, t) * rp(t, j);
            }
        }
    }
    let mut p = vec![1.0 / k as f64; k];
    let mut qp = vec![0.0; k];
    let eps = 0.005 / k as f64;
    for _ in 0..k.max(100) {
        let mut pqp = 0.0;
        for t in 0..k {
            qp[t] = (0..k).map(|j| q[t * k + j] * p[j]).sum();
            pqp += p[t] * qp[t];
        }
        if qp.iter().all(|&v| (v - pqp).abs() < eps) {
            break;
        }
        for t in 0..k {
            let diff = (-qp[t] + pqp) / q[t * k + t];
            p[t] += diff;
            pqp = (pqp + diff * (diff * q[t * k + t] + 2.0 * qp[t])) / (1.0 + diff) / (1.0 + diff);
            for j in 0..k {
                qp[j] = (qp[j] + diff * q[t * k + j]) / (1.0 + diff);
                p[j] /= 1.0 + diff;
            }
        }
    }
    for (pos, &v) in p.iter().enumerate() {
        out[at(pos)] = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sigmoid_fits_separated_values_steeply_and_predicts_without_overflow() {
        let dec = [-3.0, -2.0, -1.5, 1.0, 2.0, 2.5];
        let positive = [false, false, false, true, true, true];
        let (a, b) = sigmoid_train(&dec, &positive);
        // Platt's regularised targets keep six points from a step function (A = −0.652).
        assert!(a < -0.5, "{a} {b}");
        assert!(sigmoid_predict(3.0, a, b) > 0.85);
        assert!(sigmoid_predict(-3.0, a, b) < 0.15);
        assert_eq!(sigmoid_predict(1e308, -1e10, 0.0), 1.0);
        assert_eq!(sigmoid_predict(1e308, 1e10, 0.0), 0.0);
    }

    #[test]
    fn coupling_sums_to_one_and_follows_the_majority() {
        // Three classes, class 1 beats both others.
        let pairwise = [0.2, 0.6, 0.9]; // (0,1), (0,2), (1,2)
        let mut out = [0.0; 3];
        couple(&pairwise, 3, &[], &mut out);
        assert!((out.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{out:?}");
        assert!(out[1] > out[0] && out[1] > out[2], "{out:?}");
        // The same in another iteration order: the same probabilities to the tolerance.
        let mut other = [0.0; 3];
        couple(&pairwise, 3, &[2, 0, 1], &mut other);
        for (a, b) in out.iter().zip(&other) {
            assert!((a - b).abs() < 0.01, "{out:?} {other:?}");
        }
    }
}
