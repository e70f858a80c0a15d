//! Criterion benchmarks of kernel column evaluation k(X, x_j) on generated dense and sparse data.
//!
//! `cargo bench --bench kernel_columns`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fwsvm::kernel::{KernelMatrix, QueryScratch};
use fwsvm::random::SplitMix64;
use fwsvm::{CsrMatrix, DenseMatrix, Features, Kernel};
use std::hint::black_box;

fn dense(m: usize, d: usize) -> DenseMatrix {
    let mut rng = SplitMix64::new(1);
    let data = (0..m * d).map(|_| rng.next_f64()).collect();
    DenseMatrix::new(data, m, d).expect("shape matches")
}

/// a9a-like: `d` features, about `nnz` non-zeros per row, all ones.
fn sparse(m: usize, d: usize, nnz: usize) -> CsrMatrix {
    let mut rng = SplitMix64::new(2);
    let (mut indptr, mut indices, mut data) = (vec![0], Vec::new(), Vec::new());
    for _ in 0..m {
        let mut row = rng.sample_distinct(d, nnz);
        row.sort_unstable();
        indices.extend(row.iter().map(|&c| c as u32));
        data.extend(std::iter::repeat_n(1.0, nnz));
        indptr.push(indices.len());
    }
    CsrMatrix::new(indptr, indices, data, d).expect("valid CSR")
}

fn bench_columns(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel_column");
    for &m in &[2_000usize, 20_000, 32_561] {
        group.throughput(Throughput::Elements(m as u64));
        let x = dense(m, 32);
        for kernel in [Kernel::linear(), Kernel::rbf(0.1), Kernel::laplacian(0.1)] {
            let km = KernelMatrix::new(kernel, Features::from(&x));
            let mut out = vec![0.0; m];
            let mut scratch = QueryScratch::new();
            group.bench_with_input(
                BenchmarkId::new(format!("dense32-{}", kernel.name()), m),
                &m,
                |b, _| b.iter(|| km.column(black_box(7), &mut out, &mut scratch)),
            );
        }
        let s = sparse(m, 123, 14);
        let km = KernelMatrix::new(Kernel::rbf(0.05), Features::from(&s));
        let mut out = vec![0.0; m];
        let mut scratch = QueryScratch::new();
        group.bench_with_input(BenchmarkId::new("sparse123x14-rbf", m), &m, |b, _| {
            b.iter(|| km.column(black_box(7), &mut out, &mut scratch))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_columns);
criterion_main!(benches);
