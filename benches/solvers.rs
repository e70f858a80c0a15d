//! Criterion benchmarks of every solver on generated data with fixed seeds.
//!
//! `cargo bench --bench solvers`

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use fwsvm::random::SplitMix64;
use fwsvm::{Algorithm, DenseMatrix, Kernel, Loss, Svc};
use std::hint::black_box;

/// Two Gaussian blobs in 10 dimensions, shifted by ±1 along the first axis.
fn blobs(m: usize, seed: u64) -> (DenseMatrix, Vec<f64>) {
    let mut rng = SplitMix64::new(seed);
    let d = 10;
    let mut data = Vec::with_capacity(m * d);
    let mut y = Vec::with_capacity(m);
    for i in 0..m {
        let label = if i % 2 == 0 { 1.0 } else { -1.0 };
        for k in 0..d {
            data.push(rng.normal() + if k == 0 { label } else { 0.0 });
        }
        y.push(label);
    }
    (DenseMatrix::new(data, m, d).expect("shape matches"), y)
}

fn bench_solvers(c: &mut Criterion) {
    let mut group = c.benchmark_group("fit_rbf_blobs10");
    group.sample_size(10);
    for &m in &[1_000usize, 5_000] {
        let (x, y) = blobs(m, 3);
        for algorithm in [Algorithm::Swap, Algorithm::Swap2o, Algorithm::Mfw] {
            let params = Svc::params()
                .loss(Loss::SquaredHinge)
                .c(1.0)
                .kernel(Kernel::rbf(0.1))
                .algorithm(algorithm)
                .tol(1e-3)
                .seed(0)
                .n_threads(Some(1));
            group.bench_with_input(BenchmarkId::new(algorithm.name(), m), &m, |b, _| {
                b.iter(|| black_box(params.fit(&x, &y).expect("fit succeeds")))
            });
        }
        // Plain FW is sublinear: bench a fixed budget of steps instead of a tolerance.
        // The hinge loss (the default): pairwise second-order steps on its polytope.
        let hinge = Svc::params()
            .c(1.0)
            .kernel(Kernel::rbf(0.1))
            .seed(0)
            .n_threads(Some(1));
        group.bench_with_input(BenchmarkId::new("hinge", m), &m, |b, _| {
            b.iter(|| black_box(hinge.fit(&x, &y).expect("fit succeeds")))
        });
        let fw = Svc::params()
            .loss(Loss::SquaredHinge)
            .c(1.0)
            .kernel(Kernel::rbf(0.1))
            .algorithm(Algorithm::Fw)
            .max_iter(Some(2_000))
            .seed(0)
            .n_threads(Some(1));
        group.bench_with_input(BenchmarkId::new("fw-2000-steps", m), &m, |b, _| {
            b.iter(|| black_box(fw.fit(&x, &y).expect("fit succeeds")))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_solvers);
criterion_main!(benches);
