//! The Rust estimators end to end: one `Svc` fit for two and more classes, `Svr` and
//! `OneClass`, `ndarray` inputs, and the model file (save → load, files written by Python,
//! corrupt and crafted files).

mod common;

use common::blobs;
use fwsvm::Samples;
use fwsvm::model_file::{self, FORMAT_VERSION, HEADER_LEN, MAGIC, Model};
use fwsvm::random::SplitMix64;
use fwsvm::{
    CsrMatrix, DenseMatrix, FwsvmError, Kernel, Loss, OneClass, OneClassModel, Svc, SvcModel, Svr,
    SvrModel,
};

/// Three Gaussian blobs in 2-D, labels 10, 20, 30.
fn three_blobs(m: usize, seed: u64) -> (DenseMatrix, Vec<f64>) {
    let mut rng = SplitMix64::new(seed);
    let centres = [(0.0, 0.0), (4.0, 0.0), (0.0, 4.0)];
    let mut rows = Vec::new();
    let mut y = Vec::new();
    for i in 0..m {
        let c = i % 3;
        rows.push([centres[c].0 + rng.normal(), centres[c].1 + rng.normal()]);
        y.push(10.0 * (c + 1) as f64);
    }
    (DenseMatrix::from_rows(&rows).unwrap(), y)
}

fn accuracy(predicted: &[f64], y: &[f64]) -> f64 {
    predicted.iter().zip(y).filter(|(p, t)| p == t).count() as f64 / y.len() as f64
}

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("fwsvm-{}-{name}", std::process::id()))
}

#[test]
fn one_fit_handles_three_classes_one_vs_one() {
    let (x, y) = three_blobs(150, 1);
    for loss in [Loss::Hinge, Loss::SquaredHinge] {
        let model = Svc::params()
            .loss(loss)
            .kernel(Kernel::rbf(0.5))
            .fit(&x, &y)
            .unwrap();
        assert_eq!(model.classes(), [10.0, 20.0, 30.0]);
        assert_eq!(model.intercept().len(), 3);
        assert_eq!(model.stats().len(), 3);
        assert_eq!(model.dual_coef().len(), 2 * model.n_support());
        assert_eq!(
            model.n_support_per_class().iter().sum::<usize>(),
            model.n_support()
        );
        let values = model.decision_function(&x).unwrap();
        assert_eq!(values.len(), 150 * 3);
        assert!(accuracy(&model.predict(&x).unwrap(), &y) > 0.9, "{loss:?}");
    }
    // The model is the one the one-vs-one fit gives, laid out as LIBSVM does.
    let params = Svc::params().kernel(Kernel::rbf(0.5)).check().unwrap();
    let ovo = params
        .fit_ovo(Samples::new((&x).into(), &y), &mut fwsvm::solver::NoMonitor)
        .unwrap();
    let pair_01 = &ovo.pairs[0];
    let direct = params.fit(&x, &y).unwrap();
    assert_eq!(direct.intercept()[0], pair_01.intercept);
}

#[test]
fn a_single_class_is_refused_by_name() {
    let (x, _) = three_blobs(9, 2);
    let err = Svc::params().fit(&x, &[1.0; 9]).unwrap_err();
    assert!(matches!(err, FwsvmError::Classes(_)), "{err}");
}

#[test]
fn svr_fits_a_smooth_function() {
    let rows: Vec<[f64; 1]> = (0..60).map(|i| [i as f64 / 10.0]).collect();
    let x = DenseMatrix::from_rows(&rows).unwrap();
    let y: Vec<f64> = rows.iter().map(|r| 3.0 * r[0].sin() + 5.0).collect();
    let model = Svr::params()
        .c(10.0)
        .kernel(Kernel::rbf(1.0))
        .fit(&x, &y)
        .unwrap();
    let predicted = model.predict(&x).unwrap();
    let mse = predicted
        .iter()
        .zip(&y)
        .map(|(p, t)| (p - t).powi(2))
        .sum::<f64>()
        / 60.0;
    assert!(mse < 0.1, "mse {mse}");
    assert!(model.epsilon().is_finite());
    assert!(model.stats().is_some());
    assert!(Svr::params().c(-1.0).fit(&x, &y).is_err());
    assert!(Svr::params().nu(Some(0.0)).fit(&x, &y).is_err());
    assert!(Svr::params().fit(&x, &y[..5]).is_err());
}

#[test]
fn one_class_flags_about_nu_of_the_training_data() {
    let (x, _) = blobs(200, 2, 0.0, 3);
    let model = OneClass::params()
        .nu(0.1)
        .kernel(Kernel::rbf(0.5))
        .fit(&x)
        .unwrap();
    let predicted = model.predict(&x).unwrap();
    let outliers = predicted.iter().filter(|&&p| p < 0.0).count();
    assert!((15..=25).contains(&outliers), "{outliers} outliers");
    let far = DenseMatrix::from_rows(&[[50.0, 50.0]]).unwrap();
    assert_eq!(model.predict(&far).unwrap(), vec![-1.0]);
    assert!(OneClass::params().nu(1.5).fit(&x).is_err());
    assert!(
        OneClass::params()
            .kernel(Kernel::Precomputed)
            .fit(&x)
            .is_err()
    );
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_views_are_inputs() {
    let (x, y) = three_blobs(60, 4);
    let array = ndarray::Array2::from_shape_vec((60, 2), x.view().as_slice().to_vec()).unwrap();
    let from_array = Svc::params().fit(array.view(), &y).unwrap();
    let from_matrix = Svc::params().fit(&x, &y).unwrap();
    assert_eq!(from_array.dual_coef(), from_matrix.dual_coef());
    assert_eq!(from_array.support(), from_matrix.support());
    assert_eq!(
        from_array.predict(&array).unwrap(),
        from_matrix.predict(&x).unwrap()
    );
    // A column-major array is not row-major: refused with a pointer to the fix, not copied.
    let fortran = array.t().as_standard_layout().into_owned().reversed_axes();
    let err = from_array.predict(fortran.view()).unwrap_err();
    assert!(err.to_string().contains("as_standard_layout"), "{err}");
    let fixed = fortran.as_standard_layout();
    assert_eq!(
        from_array.predict(fixed.view()).unwrap(),
        from_matrix.predict(&x).unwrap()
    );
}

#[test]
fn models_round_trip_through_the_file() {
    let (x, y) = three_blobs(90, 5);
    let svc = Svc::params().kernel(Kernel::rbf(0.5)).fit(&x, &y).unwrap();
    let path = temp_path("svc.fwm");
    svc.save(&path).unwrap();
    let back = SvcModel::load(&path).unwrap();
    assert_eq!(back.predict(&x).unwrap(), svc.predict(&x).unwrap());
    assert_eq!(
        back.decision_function(&x).unwrap(),
        svc.decision_function(&x).unwrap()
    );
    assert!(matches!(model_file::load(&path).unwrap(), Model::Svc(_)));
    // Same model, same bytes.
    assert_eq!(svc.to_bytes().unwrap(), std::fs::read(&path).unwrap());
    let err = SvrModel::load(&path).unwrap_err();
    assert!(err.to_string().contains("not a SVR"), "{err}");

    let (xb, yb) = blobs(80, 3, 2.0, 6);
    let binary = Svc::params()
        .loss(Loss::SquaredHinge)
        .kernel(Kernel::poly(0.5, 1.0, 2))
        .fit(&xb, &yb)
        .unwrap();
    let back = SvcModel::from_bytes(&binary.to_bytes().unwrap()).unwrap();
    assert_eq!(
        back.decision_function(&xb).unwrap(),
        binary.decision_function(&xb).unwrap()
    );
    assert_eq!(back.alpha(), binary.alpha());

    let svr = Svr::params()
        .kernel(Kernel::laplacian(0.3))
        .fit(
            &xb,
            &xb.view()
                .as_slice()
                .iter()
                .step_by(3)
                .copied()
                .collect::<Vec<_>>(),
        )
        .unwrap();
    let back = SvrModel::from_bytes(&svr.to_bytes().unwrap()).unwrap();
    assert_eq!(back.predict(&xb).unwrap(), svr.predict(&xb).unwrap());

    let one = OneClass::params()
        .kernel(Kernel::linear())
        .fit(&xb)
        .unwrap();
    let back = OneClassModel::from_bytes(&one.to_bytes().unwrap()).unwrap();
    assert_eq!(
        back.decision_function(&xb).unwrap(),
        one.decision_function(&xb).unwrap()
    );

    // Sparse support vectors stay sparse.
    let rows: Vec<Vec<f64>> = (0..40)
        .map(|i| {
            (0..5)
                .map(|k| {
                    if (i + k) % 3 == 0 {
                        (i % 7) as f64 / 7.0
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    let (mut indptr, mut indices, mut data) = (vec![0], Vec::new(), Vec::new());
    for row in &rows {
        for (k, &v) in row.iter().enumerate().filter(|(_, v)| **v != 0.0) {
            indices.push(k as u32);
            data.push(v);
        }
        indptr.push(data.len());
    }
    let sparse = CsrMatrix::new(indptr, indices, data, 5).unwrap();
    let labels: Vec<f64> = (0..40).map(|i| (i % 3) as f64).collect();
    let model = Svc::params().fit(&sparse, &labels).unwrap();
    let back = SvcModel::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert_eq!(
        back.predict(&sparse).unwrap(),
        model.predict(&sparse).unwrap()
    );
    assert!(matches!(
        back.support_vectors(),
        fwsvm::FeatureMatrix::Sparse(_)
    ));
    std::fs::remove_file(&path).ok();

    // A precomputed kernel's model holds kernel values, not vectors: refused by name.
    let gram = DenseMatrix::new(
        (0..80 * 80)
            .map(|k| if k / 80 == k % 80 { 1.0 } else { 0.1 })
            .collect(),
        80,
        80,
    )
    .unwrap();
    let precomputed = Svc::params()
        .kernel(Kernel::Precomputed)
        .fit(&gram, &yb)
        .unwrap();
    let err = precomputed.to_bytes().unwrap_err();
    assert!(err.to_string().contains("precomputed"), "{err}");
}

#[test]
fn files_written_by_python_load_and_crafted_ones_are_refused() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus");
    let (mut loaded, mut python_only) = (0, 0);
    for entry in std::fs::read_dir(corpus.join("fwm")).unwrap() {
        let path = entry.unwrap().path();
        // CrammerSingerSVC, SGDSVC, Nystroem and RandomFourierFeatures have no Rust model: their
        // files pass the same checks and are refused by name.
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if ["crammer_singer", "sgd_", "nystroem", "fourier"]
            .iter()
            .any(|p| name.starts_with(p))
        {
            let err = model_file::load(&path).unwrap_err();
            assert!(
                err.to_string().contains("has no Rust model"),
                "{name}: {err}"
            );
            python_only += 1;
            continue;
        }
        let model = model_file::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let n_features = match &model {
            Model::Svc(m) => m.support_vectors().view().n_cols(),
            Model::Svr(m) => m.support_vectors().view().n_cols(),
            Model::OneClass(m) => m.support_vectors().view().n_cols(),
        };
        let x = DenseMatrix::new(vec![0.25; 3 * n_features], 3, n_features).unwrap();
        let n = match &model {
            Model::Svc(m) => m.predict(&x).unwrap().len(),
            Model::Svr(m) => m.predict(&x).unwrap().len(),
            Model::OneClass(m) => m.predict(&x).unwrap().len(),
        };
        assert_eq!(n, 3);
        loaded += 1;
    }
    assert!(loaded >= 8 && python_only >= 6, "{loaded} {python_only}");
    for entry in std::fs::read_dir(corpus.join("regressions")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "fwm") {
            let err = model_file::load(&path).unwrap_err();
            assert!(
                matches!(err, FwsvmError::ModelFormat(_)),
                "{}: {err}",
                path.display()
            );
        }
    }
}

#[test]
fn damaged_headers_and_payloads_are_refused_by_name() {
    let (x, y) = blobs(40, 2, 2.0, 7);
    let blob = Svc::params().fit(&x, &y).unwrap().to_bytes().unwrap();
    assert_eq!(&blob[..8], MAGIC);
    let refuse = |bytes: &[u8], what: &str| {
        let err = SvcModel::from_bytes(bytes).unwrap_err();
        assert!(matches!(err, FwsvmError::ModelFormat(_)));
        assert!(err.to_string().contains(what), "{what}: {err}");
    };
    for cut in [0, 10, HEADER_LEN, blob.len() / 2, blob.len() - 1] {
        refuse(&blob[..cut], "truncated");
    }
    let mut flipped = blob.clone();
    flipped[blob.len() / 2] ^= 0xFF;
    refuse(&flipped, "corrupted");
    let mut newer = blob.clone();
    newer[8..10].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    refuse(&newer, "newer");
    let mut reserved = blob.clone();
    reserved[10] = 1;
    refuse(&reserved, "reserved");
    // A header claiming an enormous payload allocates nothing: it is simply truncated.
    let mut huge = blob.clone();
    huge[12..20].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    refuse(&huge, "truncated");
    refuse(
        b"this is not a model at all, just text",
        "not an fwsvm model",
    );
    // A valid checksum over garbage.
    let mut garbage = blob[..HEADER_LEN].to_vec();
    let payload = vec![7u8; 100];
    garbage[12..20].copy_from_slice(&100u64.to_le_bytes());
    garbage[20..24].copy_from_slice(&crc32fast_hash(&payload).to_le_bytes());
    garbage.extend_from_slice(&payload);
    refuse(&garbage, "unreadable payload");
}

/// CRC-32 (zlib's), bit by bit: independent of the implementation under test.
fn crc32fast_hash(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
