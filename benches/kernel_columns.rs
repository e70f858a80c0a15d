//! Criterion benchmarks of kernel column evaluation k(X, x_j) on generated dense and sparse data,
//! and of the register tile that computes eight columns of low-dimensional dense data at once.
//!
//! `cargo bench --bench kernel_columns` (the tile alone: `-- tile`)
//!
//! The `tile_products` group runs the linear kernel, so the time is the tile's inner products:
//! its throughput counts floating-point operations (2·m·d·8 a call: a multiply and an add per
//! value), "elem/s" being flop/s, to compare with the core's peak (16 f64 flops a cycle for
//! two 512-bit ports without FMA, which the tile does not use so that it stays bit-identical
//! to the one-column path). `tile_rbf` counts kernel values (m·8 a call) with the `f32` exp of
//! the cache's columns included; `single_rbf` is the same values one column at a time.

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

fn bench_tile(c: &mut Criterion) {
    let m = 20_000;
    let js: Vec<usize> = (0..8).map(|k| 7 + 1_000 * k).collect();
    let mut products = c.benchmark_group("tile_products");
    for d in [2usize, 8, 20, 64] {
        let x = dense(m, d);
        let km = KernelMatrix::new(Kernel::linear(), Features::from(&x));
        let mut columns = vec![vec![0.0f32; m]; 8];
        let mut scratch = QueryScratch::new();
        products.throughput(Throughput::Elements((2 * m * d * 8) as u64));
        products.bench_with_input(BenchmarkId::new("flops", d), &d, |b, _| {
            b.iter(|| {
                let mut outs: Vec<&mut [f32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
                km.columns(black_box(&js), &mut outs, &mut scratch)
            })
        });
    }
    products.finish();
    for (group, tiled) in [("tile_rbf", true), ("single_rbf", false)] {
        let mut values = c.benchmark_group(group);
        for d in [2usize, 8, 20, 64] {
            let x = dense(m, d);
            let km = KernelMatrix::new(Kernel::rbf(0.5 / d as f64), Features::from(&x));
            let mut columns = vec![vec![0.0f32; m]; 8];
            let mut scratch = QueryScratch::new();
            values.throughput(Throughput::Elements((m * 8) as u64));
            values.bench_with_input(BenchmarkId::new("values", d), &d, |b, _| {
                b.iter(|| {
                    if tiled {
                        let mut outs: Vec<&mut [f32]> =
                            columns.iter_mut().map(|c| &mut c[..]).collect();
                        km.columns(black_box(&js), &mut outs, &mut scratch)
                    } else {
                        for (&j, out) in js.iter().zip(columns.iter_mut()) {
                            km.column_f32(black_box(j), out, &mut scratch);
                        }
                    }
                })
            });
        }
        values.finish();
    }
}

criterion_group!(benches, bench_columns, bench_tile);
criterion_main!(benches);
