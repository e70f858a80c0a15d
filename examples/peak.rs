//! What this machine can do on one core: f64 dot products in L1 (GFLOP/s) and streaming
//! axpy over a large array (GB/s). The ceilings against which the kernel-column and scan
//! loops are judged in BENCHMARKS.md.
//!
//! `cargo run --release --example peak`

use std::hint::black_box;
use std::time::Instant;

/// Dot product with 8 independent accumulators (vectorisable, no FMA chain dependency).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    acc.iter().sum()
}

fn axpy(y: &mut [f64], a: f64, x: &[f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// GB/s of `passes` axpy passes over two arrays of `n` f64 (24 bytes moved per element).
fn axpy_gbs(n: usize, passes: usize) -> f64 {
    let x = vec![1.0f64; n];
    let mut y = vec![0.5f64; n];
    let start = Instant::now();
    for p in 0..passes {
        axpy(black_box(&mut y), 1e-9 * p as f64, black_box(&x));
    }
    let secs = start.elapsed().as_secs_f64();
    black_box(&y);
    24.0 * n as f64 * passes as f64 / secs / 1e9
}

fn main() {
    // In-cache compute: 2 × 2 KB vectors, many repetitions.
    let a: Vec<f64> = (0..256).map(|i| i as f64 * 1e-3).collect();
    let b: Vec<f64> = (0..256).map(|i| 1.0 - i as f64 * 1e-3).collect();
    let reps = 4_000_000;
    let start = Instant::now();
    let mut s = 0.0;
    for _ in 0..reps {
        s += dot(black_box(&a), black_box(&b));
    }
    let secs = start.elapsed().as_secs_f64();
    black_box(s);
    let gflops = 2.0 * 256.0 * reps as f64 / secs / 1e9;
    println!("dot, 256 f64 in L1:        {gflops:6.2} GFLOP/s (one core)");

    // Streaming: 2 × 64 MB arrays, y += a·x reads 16 B and writes 8 B per element.
    let gbs = axpy_gbs(8 << 20, 20);
    println!("axpy, 2 × 64 MB (DRAM):    {gbs:6.2} GB/s (one core, 24 bytes per element)");
    // A 32k-element G pass (a9a's m) fits in L2: the scan's realistic ceiling.
    let gbs = axpy_gbs(32_768, 20_000);
    println!("axpy, 2 × 256 KB (L2):     {gbs:6.2} GB/s (one core)");
}
