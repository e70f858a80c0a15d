//! # fwsvm — kernel SVMs trained by Frank-Wolfe methods on the unit simplex
//!
//! Two models, one engine of kernel columns, caches and fused passes:
//!
//! - the **hinge loss** (the default, [`Loss::Hinge`]): LIBSVM's and scikit-learn's SVC, same C
//!   and same model, solved by pairwise (swap) steps with second-order partners on its
//!   polytope {0 ≤ α ≤ C, yᵀα = 0}, with shrinking and block kernel columns
//!   ([`solver::solve_box`]);
//! - the **squared hinge** ([`Loss::SquaredHinge`]): the L2-SVM of the Core Vector Machine.
//!   With `Q_ij = y_i y_j (k(x_i, x_j) + 1) + δ_ij / C` it maximises −αᵀQα over the unit
//!   simplex {α ≥ 0, Σα = 1} (the minimum enclosing ball of the augmented points) with
//!   Frank-Wolfe variants (FW, MFW, SWAP, SWAP-2o, BC, KY) that touch one or two kernel columns
//!   per step; the solution is the squared-hinge SVM with a regularised bias and the same C.
//!
//! The estimators are builders → checked parameters → fitted models (linfa's shape):
//! [`Svc`] (two classes, or more one-vs-one) → [`SvcModel`], [`Svr`] → [`SvrModel`],
//! [`OneClass`] → [`OneClassModel`]; each model has `predict`, `decision_function` and
//! `save`/`load` in the versioned model format that Python reads and writes too
//! ([`model_file`]). Inputs are this crate's dense and CSR matrices or, with the `ndarray`
//! feature (on by default), row-major `ndarray::ArrayView2<f64>`.
//!
//! Data flows one way through the modules:
//! [`data`] (dense / CSR features) → [`kernel`] (columns, cache) → [`problem`] (Q and b on the
//! simplex) → [`solver`] (the Frank-Wolfe engine) → [`model`] (support vectors, prediction,
//! probabilities) → [`model_file`] (the `.fwm` format and LIBSVM model files) →
//! [`estimators`] (builders, checked parameters, one-vs-one, cross-validation) → [`cli`] (the
//! command line: `fwsvm train | predict | scale | grid`) and the Python bindings.
//!
//! LIBSVM's files both ways, from Rust alone: a training and a test file read together, so
//! that their feature columns agree (a feature only the test file has is a column of zeros in
//! training), a model evaluated on the test file, written for LIBSVM's `svm-predict` and read
//! back.
//!
//! ```
//! use fwsvm::data::libsvm::{read_libsvm_sources, ReadOptions, Source, Targets};
//! use fwsvm::model_file::LibsvmModel;
//! use fwsvm::{Kernel, Svc, SvcModel};
//!
//! let dir = std::env::temp_dir().join(format!("fwsvm-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let (train, test, model_file) = (dir.join("train.svm"), dir.join("test.svm"), dir.join("m.model"));
//! std::fs::write(&train, "+1 1:0.9 2:0.8\n+1 1:1 2:1.1\n+1 1:0.8 2:1.2\n+1 1:1.1 2:0.9\n+1 1:1.2 2:1\n\
//!                          -1 1:-0.9 2:-1\n-1 1:-1.1 2:-0.8\n-1 1:-1 2:-1.2\n-1 1:-0.8 2:-0.9\n-1 1:-1.2 2:-1.1\n")?;
//! std::fs::write(&test, "+1 1:0.95 2:1 3:0.2\n-1 1:-1 2:-0.9 3:0.1\n+1 1:1.2 2:0.7\n-1 2:-1.1\n")?;
//!
//! // Train and test files read together: both have the test file's third feature.
//! let parts = read_libsvm_sources(
//!     &[Source::Path(&train), Source::Path(&test)],
//!     &ReadOptions::default(),
//! )?;
//! assert_eq!((parts[0].x.n_cols(), parts[1].x.n_cols()), (3, 3));
//! let labels = |t: &Targets| match t {
//!     Targets::Single(y) => Ok(y.clone()),
//!     Targets::Multi { .. } => Err(fwsvm::FwsvmError::InvalidInput("multilabel".into())),
//! };
//! let (y, y_test) = (labels(&parts[0].y)?, labels(&parts[1].y)?);
//! let model = Svc::params()
//!     .c(1.0)
//!     .kernel(Kernel::rbf(0.5))
//!     .probability(true)
//!     .fit(parts[0].x.view(), &y)?;
//! let predicted = model.predict(parts[1].x.view())?;
//! let accuracy = predicted.iter().zip(&y_test).filter(|(p, t)| p == t).count() as f64
//!     / y_test.len() as f64;
//! println!("accuracy {accuracy:.4}, {} support vectors", model.n_support());
//! assert_eq!(accuracy, 1.0);
//! let probabilities = model.predict_proba(parts[1].x.view())?; // n × 2, rows sum to 1
//! assert_eq!(probabilities.len(), 2 * y_test.len());
//! model.to_libsvm()?.write(&model_file)?; // svm-predict reads it
//! let back = SvcModel::from_libsvm(&LibsvmModel::read(&model_file)?)?;
//! assert_eq!((back.n_support(), back.classes()), (model.n_support(), model.classes()));
//!
//! // Labels of any ordered type (integers, bool, String, …): see `estimators::labels`.
//! let names: Vec<&str> = y.iter().map(|&v| if v > 0.0 { "spam" } else { "ham" }).collect();
//! let named = Svc::params().kernel(Kernel::rbf(0.5)).fit_labels(parts[0].x.view(), &names)?;
//! println!("{:?}", named.predict(parts[1].x.view())?); // ["spam", "ham", "spam", "ham"]
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ```
//! use fwsvm::{DenseMatrix, Kernel, Svc};
//!
//! let x = DenseMatrix::from_rows(&[[0.0, 0.0], [0.1, 0.2], [1.0, 1.0], [0.9, 1.1]]).unwrap();
//! let y = [-1.0, -1.0, 1.0, 1.0];
//! let model = Svc::params().c(10.0).kernel(Kernel::rbf(1.0)).fit(&x, &y).unwrap();
//! assert_eq!(model.predict(&x).unwrap(), y.to_vec());
//! println!("{} support vectors, stopped: {:?}", model.n_support(), model.stats()[0].exit_reason);
//! ```

#[cfg(unix)]
pub mod cli;
pub mod data;
pub mod error;
pub mod estimators;
mod format;
pub mod kernel;
#[cfg(feature = "linfa")]
pub mod linfa_traits;
mod memory;
pub mod model;
pub mod model_file;
pub mod parallel;
pub mod problem;
pub mod progress;
pub mod random;
pub mod simd;
pub mod solver;

#[cfg(feature = "python")]
mod python;

// The estimators under their earlier paths.
pub use estimators::svc as params;
pub use estimators::{cross_validation, multiclass, one_class, svr};

pub use data::{CsrMatrix, CsrView, DenseMatrix, DenseView, FeatureMatrix, Features};
pub use error::{FwsvmError, Result};
pub use estimators::Samples;
pub use estimators::labels::{Classes, LabeledSvcModel};
pub use estimators::libsvm_models::{DualParams, DualValidParams, EpsilonSvr, NuOneClass, NuSvr};
pub use kernel::Kernel;
pub use model::{DualModel, KernelExpansion, OneClassModel, SvcModel, SvrModel};
pub use one_class::{OneClass, OneClassParams, OneClassValidParams};
pub use params::{Loss, Svc, SvcParams, SvcValidParams};
pub use problem::dual::DualKind;
pub use problem::{BoxProblem, SimplexProblem};
pub use solver::{Algorithm, ExitReason, Init, SolverParams, SolverStats, StepKind, Stopping};
pub use svr::{Svr, SvrParams, SvrValidParams};
