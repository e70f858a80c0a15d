//! LIBSVM's one-class ν-SVM, ε-SVR, ν-SVR and ν-SVC from Rust: the certificate (the largest
//! violation of the optimality conditions, recomputed here from the model on every training
//! row) within tol, shrinking changing nothing but the speed, and LIBSVM model files both ways.

use fwsvm::{DenseMatrix, DualModel, EpsilonSvr, Kernel, NuOneClass, NuSvr, Svc, SvcModel};

/// A deterministic data set: `m` rows of `d` features in [−1, 1] and a smooth target.
fn data(m: usize, d: usize) -> (DenseMatrix, Vec<f64>) {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let x: Vec<f64> = (0..m * d).map(|_| next()).collect();
    let y = (0..m)
        .map(|i| (3.0 * x[i * d]).sin() + x[i * d + 1] + 0.1 * next())
        .collect();
    (DenseMatrix::new(x, m, d).unwrap(), y)
}

fn rbf(a: &[f64], b: &[f64], gamma: f64) -> f64 {
    (-gamma * a.iter().zip(b).map(|(p, q)| (p - q) * (p - q)).sum::<f64>()).exp()
}

/// Σ coef k(sv, x_t) for every training row, computed directly.
fn expansion(x: &DenseMatrix, model: &DualModel, gamma: f64) -> Vec<f64> {
    let (m, d) = (x.n_rows(), x.n_cols());
    let rows: Vec<&[f64]> = (0..m).map(|i| &x.as_slice()[i * d..(i + 1) * d]).collect();
    (0..m)
        .map(|t| {
            model
                .support()
                .iter()
                .zip(model.dual_coef())
                .map(|(&s, &c)| c * rbf(rows[t], rows[s], gamma))
                .sum()
        })
        .collect()
}

#[test]
fn epsilon_svr_certificate_holds_on_every_row() {
    let (x, y) = data(2500, 4);
    let (c, eps, gamma, tol) = (4.0, 0.1, 0.8, 1e-5);
    for shrinking in [true, false] {
        let model = EpsilonSvr::params()
            .c(c)
            .epsilon(eps)
            .kernel(Kernel::rbf(gamma))
            .tol(tol)
            .shrinking(shrinking)
            .fit(&x, &y)
            .unwrap();
        let f = expansion(&x, &model, gamma);
        let mut beta = vec![0.0; y.len()];
        for (&s, &b) in model.support().iter().zip(model.dual_coef()) {
            beta[s] = b;
        }
        // v of α_t (y = +1) is z − ε − f, of α*_t (y = −1) z + ε − f (up to the common ρ).
        let (mut up, mut low) = (f64::NEG_INFINITY, f64::INFINITY);
        for t in 0..y.len() {
            let (a, a_star) = (beta[t].max(0.0), (-beta[t]).max(0.0));
            let (vp, vm) = (y[t] - eps - f[t], y[t] + eps - f[t]);
            if a < c {
                up = up.max(vp);
            }
            if a > 0.0 {
                low = low.min(vp);
            }
            if a_star > 0.0 {
                up = up.max(vm);
            }
            if a_star < c {
                low = low.min(vm);
            }
        }
        assert!(
            up - low <= tol * 1.001,
            "violation {} (shrinking {shrinking})",
            up - low
        );
        let stats = model.stats().unwrap();
        assert!(stats.gap <= tol);
        if shrinking {
            assert!(stats.shrinks > 0, "2,500 rows are shrunk");
        }
    }
}

#[test]
fn shrinking_changes_nothing_but_the_path() {
    let (x, y) = data(3000, 3);
    let fit = |shrinking| {
        NuSvr::params()
            .c(2.0)
            .nu(0.4)
            .kernel(Kernel::rbf(1.0))
            .tol(1e-7)
            .shrinking(shrinking)
            .fit(&x, &y)
            .unwrap()
    };
    let (a, b) = (fit(true), fit(false));
    let (fa, fb) = (a.predict(&x).unwrap(), b.predict(&x).unwrap());
    let worst = fa
        .iter()
        .zip(&fb)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-5, "{worst}");
    assert!(a.support().len().abs_diff(b.support().len()) <= 3);
}

#[test]
fn one_class_and_nu_svc_through_libsvm_model_files() {
    let (x, y) = data(600, 3);
    let dir = std::env::temp_dir();
    let one = NuOneClass::params()
        .nu(0.2)
        .kernel(Kernel::rbf(0.5))
        .fit(&x, &[])
        .unwrap();
    let inliers = one.predict(&x).unwrap();
    let share = inliers.iter().filter(|&&p| p < 0.0).count() as f64 / 600.0;
    assert!(
        share <= 0.2 + 0.02,
        "ν bounds the outlier fraction: {share}"
    );
    let path = dir.join("fwsvm-test-one-class.model");
    one.save_libsvm(&path).unwrap();
    assert_eq!(
        DualModel::load_libsvm(&path).unwrap().predict(&x).unwrap(),
        inliers
    );

    let labels: Vec<f64> = y.iter().map(|&v| if v > 0.0 { 1.0 } else { 2.0 }).collect();
    let nu = Svc::params()
        .nu(Some(0.3))
        .kernel(Kernel::rbf(0.5))
        .fit(&x, &labels)
        .unwrap();
    let file = nu.to_libsvm().unwrap();
    assert_eq!(file.svm_type.name(), "nu_svc");
    let back = SvcModel::from_libsvm(&file).unwrap();
    assert_eq!(back.predict(&x).unwrap(), nu.predict(&x).unwrap());
    std::fs::remove_file(&path).ok();
}

#[test]
fn epsilon_svr_warm_start_along_c_reaches_the_same_model_in_fewer_steps() {
    let (x, y) = data(600, 4);
    let fit = |c: f64, warm: Option<Vec<f64>>| {
        EpsilonSvr::params()
            .c(c)
            .epsilon(0.05)
            .kernel(Kernel::rbf(0.5))
            .tol(1e-6)
            .warm_start(warm)
            .fit(x.view(), &y)
            .unwrap()
    };
    // A step of a fine C path (4 → 5; a step of 2 or 4 gains nothing: measured 1 → 2, 1 → 4).
    let first = fit(4.0, None);
    // β of the first fit on every training row, scaled to the next C (bounds and Σβ = 0 hold).
    let mut beta = vec![0.0; y.len()];
    for (&s, &b) in first.support().iter().zip(first.dual_coef()) {
        beta[s] = 1.25 * b;
    }
    let cold = fit(5.0, None);
    let warm = fit(5.0, Some(beta));
    let (f_cold, f_warm) = (
        cold.decision_function(x.view()).unwrap(),
        warm.decision_function(x.view()).unwrap(),
    );
    let scale = f_cold.iter().fold(0.0f64, |a, f| a.max(f.abs()));
    for (a, b) in f_cold.iter().zip(&f_warm) {
        assert!((a - b).abs() <= 1e-4 * scale, "{a} vs {b}");
    }
    let steps = |m: &DualModel| m.stats().unwrap().n_iter;
    assert!(
        steps(&warm) < steps(&cold),
        "warm {} vs cold {}",
        steps(&warm),
        steps(&cold)
    );
    // A start that is not feasible (Σβ ≠ 0) is not used: the cold fit's steps exactly.
    let mut off = vec![0.0; y.len()];
    off[0] = 0.5;
    assert_eq!(steps(&fit(5.0, Some(off))), steps(&cold));
    // Only the ε-SVR has the warm start.
    assert!(
        NuSvr::params()
            .warm_start(Some(vec![0.0; 3]))
            .check()
            .is_err()
    );
}
