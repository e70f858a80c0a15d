//! Criterion benchmark of the LIBSVM parser (throughput in MB/s) on generated a9a-like text,
//! and on `../shared/data/a9a` when it is present.
//!
//! `cargo bench --bench libsvm_parse`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fwsvm::data::libsvm::{ReadOptions, Source, read_libsvm_sources};
use fwsvm::random::SplitMix64;
use std::fmt::Write;
use std::hint::black_box;

fn generated(rows: usize) -> Vec<u8> {
    let mut rng = SplitMix64::new(3);
    let mut text = String::new();
    for _ in 0..rows {
        text.push_str(if rng.below(2) == 0 { "+1" } else { "-1" });
        let mut idx = rng.sample_distinct(123, 14);
        idx.sort_unstable();
        for i in idx {
            let _ = write!(text, " {}:{}", i + 1, (rng.below(1000) as f64) / 997.0);
        }
        text.push('\n');
    }
    text.into_bytes()
}

fn bench_parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("libsvm_parse");
    group.sample_size(20);
    let text = generated(50_000);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("generated-50k-rows", |b| {
        b.iter(|| {
            read_libsvm_sources(
                &[Source::Bytes {
                    name: "generated",
                    bytes: black_box(&text),
                }],
                &ReadOptions::default(),
            )
            .expect("valid")
        })
    });
    let a9a = std::path::Path::new("../shared/data/a9a");
    if let Ok(bytes) = std::fs::read(a9a) {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("a9a-file", |b| {
            b.iter(|| {
                read_libsvm_sources(&[Source::Path(a9a)], &ReadOptions::default()).expect("valid")
            })
        });
    } else {
        eprintln!("../shared/data/a9a not found: skipping the file benchmark");
    }
    group.finish();
}

criterion_group!(benches, bench_parse);
criterion_main!(benches);
