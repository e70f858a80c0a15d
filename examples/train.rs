//! Train a binary RBF SVM on generated data and report accuracy, time and support vectors.
//!
//! `cargo run --release --example train`

use std::time::Instant;

use fwsvm::random::SplitMix64;
use fwsvm::{Algorithm, DenseMatrix, Kernel, Loss, Svc};

/// Two noisy concentric rings: not linearly separable, easy for an RBF kernel.
fn rings(m: usize, seed: u64) -> (DenseMatrix, Vec<f64>) {
    let mut rng = SplitMix64::new(seed);
    let mut rows = Vec::with_capacity(m);
    let mut y = Vec::with_capacity(m);
    for i in 0..m {
        let label = if i % 2 == 0 { 1.0 } else { -1.0 };
        let radius = if label > 0.0 { 1.0 } else { 2.0 };
        let angle = 2.0 * std::f64::consts::PI * (rng.next_u64() as f64 / u64::MAX as f64);
        rows.push([
            radius * angle.cos() + 0.25 * rng.normal(),
            radius * angle.sin() + 0.25 * rng.normal(),
        ]);
        y.push(label);
    }
    (
        DenseMatrix::from_rows(&rows).expect("rows are equally long"),
        y,
    )
}

fn main() -> fwsvm::Result<()> {
    let (x_train, y_train) = rings(5_000, 1);
    let (x_test, y_test) = rings(2_000, 2);
    // Plain `fw` converges sublinearly and needs millions of steps at this tolerance; see BENCHMARKS.md.
    for algorithm in [Algorithm::Swap, Algorithm::Swap2o, Algorithm::Mfw] {
        let start = Instant::now();
        let model = Svc::params()
            .loss(Loss::SquaredHinge)
            .c(10.0)
            .kernel(Kernel::rbf(1.0))
            .algorithm(algorithm)
            .fit(&x_train, &y_train)?;
        let seconds = start.elapsed().as_secs_f64();
        let predicted = model.predict(&x_test)?;
        let accuracy = predicted
            .iter()
            .zip(&y_test)
            .filter(|(p, t)| p == t)
            .count() as f64
            / y_test.len() as f64;
        let s = &model.stats()[0];
        println!(
            "{algorithm:>7}: accuracy {:.4}  fit {seconds:.3} s  {} support vectors  {} steps  {} ({:.1e} relative gap)",
            accuracy,
            model.n_support(),
            s.n_iter,
            s.exit_reason.name(),
            s.relative_gap
        );
    }
    Ok(())
}
