//! Train an RBF SVM from a LIBSVM file and evaluate it on a test file.
//!
//! `cargo run --release --example train_file -- TRAIN [TEST] [C] [GAMMA] [TOL]`
//! (defaults: ../shared/data/heart_scale, no test file, C = 1, gamma = 1/n_features, the
//! default tolerance). `FWSVM_NUM_THREADS` sets the thread count, `FWSVM_ALGORITHM` the solver,
//! `FWSVM_LOSS` the loss (`hinge` or `squared_hinge`).

use std::time::Instant;

use fwsvm::data::libsvm::{ReadOptions, Source, Targets, read_libsvm_sources};
use fwsvm::{Kernel, Svc};

fn labels(t: &Targets) -> &[f64] {
    match t {
        Targets::Single(y) => y,
        Targets::Multi { .. } => panic!("multilabel files are not supported by this example"),
    }
}

fn main() -> fwsvm::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let train = args
        .first()
        .cloned()
        .unwrap_or_else(|| "../shared/data/heart_scale".into());
    let test = args.get(1).cloned();
    let c: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1.0);

    let start = Instant::now();
    let mut paths = vec![std::path::PathBuf::from(&train)];
    if let Some(t) = &test {
        paths.push(t.into());
    }
    let sources: Vec<Source<'_>> = paths.iter().map(|p| Source::Path(p)).collect();
    let data = read_libsvm_sources(&sources, &ReadOptions::default())?;
    let (x, y) = (&data[0].x, labels(&data[0].y));
    let gamma: f64 = args
        .get(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0 / x.n_cols() as f64);
    println!(
        "read {} rows x {} features ({} files) in {:.3} s",
        x.n_rows(),
        x.n_cols(),
        data.len(),
        start.elapsed().as_secs_f64()
    );

    let start = Instant::now();
    let mut params = Svc::params().c(c).kernel(Kernel::rbf(gamma));
    if let Some(tol) = args.get(4).and_then(|s| s.parse().ok()) {
        params = params.tol(tol);
    }
    if let Ok(name) = std::env::var("FWSVM_LOSS") {
        params = params.loss(name.parse()?);
    }
    if let Ok(name) = std::env::var("FWSVM_ALGORITHM") {
        params = params.algorithm(name.parse()?);
    }
    let flag = |name: &str| std::env::var(name).is_ok_and(|v| v == "1");
    params = params
        .verbose(flag("FWSVM_VERBOSE"))
        .shrinking(!flag("FWSVM_NO_SHRINKING"));
    let model = params.fit(x, y)?;
    let s = model.stats();
    println!(
        "fit in {:.3} s: {} support vectors, {} steps, {} (relative gap {:.2e})",
        start.elapsed().as_secs_f64(),
        model.n_support(),
        s.n_iter,
        s.exit_reason.name(),
        s.relative_gap
    );
    println!(
        "kernel columns computed: {}, cache hits: {}; loops: {}",
        s.columns_computed,
        s.cache_hits,
        fwsvm::simd::instruction_set()
    );
    let (xe, ye) = match data.get(1) {
        Some(d) => (&d.x, labels(&d.y)),
        None => (x, y),
    };
    let predicted = model.predict(xe)?;
    let correct = predicted.iter().zip(ye).filter(|(p, t)| p == t).count();
    println!(
        "{} accuracy: {:.4} ({correct}/{})",
        if data.len() > 1 { "test" } else { "training" },
        correct as f64 / ye.len() as f64,
        ye.len()
    );
    Ok(())
}
