//! The Rust models in the model file: [`SvcModel`], [`SvrModel`] and [`OneClassModel`] as the
//! Python estimators `SVC`, `SVR` and `OneClassSVM` lay them out (scikit-learn's attribute
//! names), so either language loads what the other saved.

use std::path::Path;

use serde_json::{Map, Value};

use super::validate::{csr_parts, finite};
use super::{Estimator, ModelArchive, NpyArray, format_error};
use crate::data::{CsrMatrix, DenseMatrix, FeatureMatrix};
use crate::error::Result;
use crate::kernel::Kernel;
use crate::model::{OneClassModel, SingleFit, SvcModel, SvrModel};
use crate::solver::{SolverParams, SolverStats};

/// Any model a file can hold (see [`load`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    /// A classifier (`SVC`).
    Svc(SvcModel),
    /// A regression model (`SVR`).
    Svr(SvrModel),
    /// A one-class model (`OneClassSVM`).
    OneClass(OneClassModel),
}

/// Reads the model file at `path`, whatever model it holds (Python's `fwsvm.load_model`).
///
/// # Errors
/// [`FwsvmError::ModelFormat`](crate::FwsvmError::ModelFormat) for a file that is not a valid
/// model (see the [module docs](super)), [`FwsvmError::Io`](crate::FwsvmError::Io) when it
/// cannot be read.
pub fn load(path: impl AsRef<Path>) -> Result<Model> {
    let path = path.as_ref();
    from_archive(ModelArchive::read(path)?, &path.display().to_string())
}

fn from_archive(archive: ModelArchive, name: &str) -> Result<Model> {
    Ok(match archive.estimator {
        Estimator::Svc | Estimator::NuSvc => Model::Svc(svc_from(&archive, name)?),
        Estimator::Svr | Estimator::NuSvr => Model::Svr(svr_from(&archive, name)?),
        Estimator::OneClass => Model::OneClass(one_class_from(&archive, name)?),
        other => {
            return Err(format_error(
                name,
                format!(
                    "holds a {}, which has no Rust model (load it with Python's fwsvm.load_model)",
                    other.name()
                ),
            ));
        }
    })
}

/// The kernel's parameters as the file spells them (`gamma` is also the `_gamma` scalar).
pub(crate) fn kernel_params(kernel: Kernel) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("kernel".into(), kernel.name().into());
    out.insert(
        "gamma".into(),
        kernel.gamma().map_or(Value::from("scale"), Value::from),
    );
    let (degree, coef0) = match kernel {
        Kernel::Poly { coef0, degree, .. } => (degree, coef0),
        Kernel::Sigmoid { coef0, .. } => (3, coef0),
        _ => (3, 0.0),
    };
    out.insert("degree".into(), degree.into());
    out.insert("coef0".into(), coef0.into());
    out
}

/// The solver's settings as the file spells them.
pub(crate) fn solver_params(solver: &SolverParams) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("algorithm".into(), solver.algorithm.name().into());
    out.insert("tol".into(), solver.tol.into());
    out.insert("stopping".into(), solver.stopping.name().into());
    out.insert(
        "max_iter".into(),
        solver
            .max_iter
            .map_or(-1, |m| m.min(i64::MAX as u64) as i64)
            .into(),
    );
    out.insert("cache_size".into(), solver.cache_size_mb.into());
    out.insert("init".into(), solver.init.name().into());
    out.insert("random_state".into(), solver.seed.into());
    out
}

/// What `convergence_` holds for one solve (the Python estimators' keys).
fn convergence(stats: &SolverStats) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("exit_reason".into(), stats.exit_reason.name().into());
    out.insert("n_iter".into(), stats.n_iter.into());
    for (key, value) in [
        ("gap", stats.gap),
        ("relative_gap", stats.relative_gap),
        ("objective", stats.objective),
        ("quadratic", stats.quadratic),
        ("seconds", stats.seconds),
    ] {
        out.insert(key.into(), value.into());
    }
    out.insert("n_active".into(), stats.n_active.into());
    out
}

/// The support vectors as arrays: dense, or CSR parts as scipy keeps them.
fn put_vectors(arrays: &mut std::collections::BTreeMap<String, NpyArray>, vectors: &FeatureMatrix) {
    match vectors {
        FeatureMatrix::Dense(d) => {
            arrays.insert(
                "support_vectors_".into(),
                NpyArray::from_f64(vec![d.n_rows(), d.n_cols()], d.view().as_slice()),
            );
        }
        FeatureMatrix::Sparse(s) => {
            let view = s.view();
            let indices: Vec<usize> = view.indices().iter().map(|&i| i as usize).collect();
            arrays.insert(
                "support_vectors_.csr.data".into(),
                NpyArray::from_f64(vec![view.nnz()], view.data()),
            );
            arrays.insert(
                "support_vectors_.csr.indices".into(),
                NpyArray::from_indices(&indices),
            );
            arrays.insert(
                "support_vectors_.csr.indptr".into(),
                NpyArray::from_indices(view.indptr()),
            );
            arrays.insert(
                "support_vectors_.csr.shape".into(),
                NpyArray::from_i64(vec![2], &[s.n_rows() as i64, s.n_cols() as i64]),
            );
        }
    }
}

fn n_features(vectors: &FeatureMatrix) -> usize {
    vectors.view().n_cols()
}

/// The archive every model starts from: its class, parameters and support vectors.
fn archive_of(
    estimator: Estimator,
    params: &Map<String, Value>,
    kernel: Kernel,
    vectors: &FeatureMatrix,
    support: &[usize],
) -> ModelArchive {
    let mut arrays = std::collections::BTreeMap::new();
    put_vectors(&mut arrays, vectors);
    arrays.insert("support_".into(), NpyArray::from_indices(support));
    let mut scalars = Map::new();
    scalars.insert("n_features_in_".into(), n_features(vectors).into());
    scalars.insert("_gamma".into(), kernel.gamma().unwrap_or(0.0).into());
    ModelArchive {
        estimator,
        fwsvm_version: env!("CARGO_PKG_VERSION").into(),
        params: params.clone(),
        scalars,
        arrays,
    }
}

fn svc_archive(model: &SvcModel, mut archive: ModelArchive) -> ModelArchive {
    let k = model.classes.len();
    let n_sv = model.support.len();
    let arrays = &mut archive.arrays;
    arrays.insert(
        "classes_".into(),
        NpyArray::from_f64(vec![k], &model.classes),
    );
    arrays.insert(
        "dual_coef_".into(),
        NpyArray::from_f64(vec![k - 1, n_sv], &model.dual_coef),
    );
    arrays.insert(
        "intercept_".into(),
        NpyArray::from_f64(vec![model.intercept.len()], &model.intercept),
    );
    arrays.insert(
        "n_support_".into(),
        NpyArray::from_indices(&model.n_support),
    );
    for (key, values) in [("probA_", &model.prob_a), ("probB_", &model.prob_b)] {
        arrays.insert(key.into(), NpyArray::from_f64(vec![values.len()], values));
    }
    if !model.label_order.is_empty() {
        arrays.insert(
            "_label_order".into(),
            NpyArray::from_indices(&model.label_order),
        );
    }
    if k == 2 && model.alpha.len() == n_sv {
        arrays.insert(
            "_alpha".into(),
            NpyArray::from_f64(vec![n_sv], &model.alpha),
        );
    }
    let scalars = &mut archive.scalars;
    if !model.stats.is_empty() {
        let n_iter: Vec<i64> = model
            .stats
            .iter()
            .map(|s| s.n_iter.min(i64::MAX as u64) as i64)
            .collect();
        arrays.insert(
            "n_iter_".into(),
            NpyArray::from_i64(vec![n_iter.len()], &n_iter),
        );
        let converged = model
            .stats
            .iter()
            .all(|s| s.exit_reason == crate::solver::ExitReason::Converged);
        scalars.insert("fit_status_".into(), i64::from(!converged).into());
        let mut summary = convergence(&model.stats[0]);
        if model.stats.len() > 1 {
            let worst = model
                .stats
                .iter()
                .find(|s| s.exit_reason != crate::solver::ExitReason::Converged);
            summary = Map::new();
            summary.insert(
                "exit_reason".into(),
                worst.map_or("converged", |s| s.exit_reason.name()).into(),
            );
            summary.insert(
                "n_iter".into(),
                model.stats.iter().map(|s| s.n_iter).sum::<u64>().into(),
            );
            let max_gap = model
                .stats
                .iter()
                .map(|s| s.relative_gap)
                .fold(f64::NAN, f64::max);
            summary.insert("relative_gap".into(), max_gap.into());
            summary.insert(
                "seconds".into(),
                model.stats.iter().map(|s| s.seconds).sum::<f64>().into(),
            );
        }
        scalars.insert("convergence_".into(), Value::Object(summary));
    }
    archive
}

/// The model's arrays and scalars, read from a checked archive.
struct Reader<'a> {
    archive: &'a ModelArchive,
    name: &'a str,
}

impl Reader<'_> {
    fn fail(&self, why: impl std::fmt::Display) -> crate::FwsvmError {
        format_error(self.name, why)
    }

    fn floats(&self, key: &str) -> Result<Vec<f64>> {
        self.archive
            .arrays
            .get(key)
            .and_then(NpyArray::to_f64)
            .ok_or_else(|| self.fail(format!("{key} is missing or not numeric")))
    }

    fn indices(&self, key: &str) -> Result<Vec<usize>> {
        self.archive
            .arrays
            .get(key)
            .and_then(NpyArray::to_i64)
            .and_then(|v| v.into_iter().map(|i| usize::try_from(i).ok()).collect())
            .ok_or_else(|| self.fail(format!("{key} is missing or not non-negative integers")))
    }

    fn number(&self, key: &str) -> Result<f64> {
        self.archive
            .scalars
            .get(key)
            .and_then(finite)
            .ok_or_else(|| self.fail(format!("{key} is missing")))
    }

    fn kernel(&self) -> Result<Kernel> {
        // The fit's kernel settings when the file has them (parameters may have been changed
        // after the fit), else the parameters.
        let params = match self.archive.scalars.get("_kernel_fit_") {
            Some(Value::Object(fitted)) => fitted,
            _ => &self.archive.params,
        };
        let kernel = params
            .get("kernel")
            .and_then(Value::as_str)
            .unwrap_or("rbf");
        if kernel == "precomputed" {
            return Err(self.fail(
                "a precomputed-kernel model holds no support vectors; Rust models need them \
                 (load it in Python)",
            ));
        }
        let gamma = match self.archive.scalars.get("_gamma").and_then(finite) {
            Some(g) => g,
            None => params.get("gamma").and_then(finite).unwrap_or(0.0),
        };
        let degree = params.get("degree").and_then(Value::as_i64).unwrap_or(3);
        let coef0 = params.get("coef0").and_then(finite).unwrap_or(0.0);
        Kernel::from_name(kernel, gamma, degree, coef0).map_err(|e| self.fail(e))
    }

    /// The kernel expansion every model holds: kernel, support vectors and their indices.
    fn expansion(&self) -> Result<(Kernel, FeatureMatrix, Vec<usize>)> {
        Ok((self.kernel()?, self.vectors()?, self.indices("support_")?))
    }

    /// A single-solve model's kernel and support vectors (no solver statistics in a file).
    fn single_fit(&self) -> Result<SingleFit> {
        let (kernel, vectors, support) = self.expansion()?;
        Ok(SingleFit {
            kernel,
            vectors,
            support,
            stats: None,
            history: Vec::new(),
        })
    }

    fn vectors(&self) -> Result<FeatureMatrix> {
        if let Some((indptr, indices, data, [_, n_cols])) =
            csr_parts(self.archive, "support_vectors_").map_err(|e| self.fail(e))?
        {
            return Ok(FeatureMatrix::Sparse(
                CsrMatrix::new(indptr, indices, data, n_cols).map_err(|e| self.fail(e))?,
            ));
        }
        let array = self
            .archive
            .arrays
            .get("support_vectors_")
            .ok_or_else(|| self.fail("support_vectors_ is missing"))?;
        let values = array
            .to_f64()
            .ok_or_else(|| self.fail("support_vectors_ is not numeric"))?;
        if values.iter().any(|v| !v.is_finite()) {
            return Err(self.fail("support_vectors_ holds a non-finite value"));
        }
        let (rows, cols) = (array.shape()[0], array.shape()[1]);
        Ok(FeatureMatrix::Dense(
            DenseMatrix::new(values, rows, cols).map_err(|e| self.fail(e))?,
        ))
    }
}

fn svc_from(archive: &ModelArchive, name: &str) -> Result<SvcModel> {
    let r = Reader { archive, name };
    let classes = r.floats("classes_").map_err(|_| {
        r.fail(
            "the class labels are not numbers; Rust models hold numeric labels (load it in Python)",
        )
    })?;
    let (kernel, vectors, support) = r.expansion()?;
    let model = SvcModel {
        kernel,
        vectors,
        support,
        n_support: r.indices("n_support_")?,
        dual_coef: r.floats("dual_coef_")?,
        intercept: r.floats("intercept_")?,
        alpha: r.floats("_alpha").unwrap_or_default(),
        prob_a: r.floats("probA_").unwrap_or_default(),
        prob_b: r.floats("probB_").unwrap_or_default(),
        label_order: r.indices("_label_order").unwrap_or_default(),
        stats: Vec::new(),
        history: Vec::new(),
        classes,
        params: archive.params.clone(),
    };
    model.check().map_err(|e| r.fail(e))?;
    Ok(model)
}

fn svr_archive(model: &SvrModel, mut archive: ModelArchive) -> ModelArchive {
    let intercept = NpyArray::from_f64(vec![1], &[model.intercept]);
    archive.arrays.insert("intercept_".into(), intercept);
    let values = [model.y_mean, model.y_scale, model.epsilon, model.nu];
    let names = ["y_mean_", "y_scale_", "epsilon_", "_nu"];
    let scalars = names.into_iter().zip(values);
    put_single_solve(&mut archive, &model.fit, &model.dual_coef, scalars);
    archive
}

fn svr_from(archive: &ModelArchive, name: &str) -> Result<SvrModel> {
    let r = Reader { archive, name };
    let intercept = r.floats("intercept_")?;
    Ok(SvrModel {
        fit: r.single_fit()?,
        dual_coef: r.floats("dual_coef_")?,
        intercept: intercept.first().copied().unwrap_or(0.0),
        y_mean: r.number("y_mean_")?,
        y_scale: r.number("y_scale_")?,
        epsilon: r.number("epsilon_").unwrap_or(0.0),
        nu: r.number("_nu").unwrap_or(f64::NAN),
        params: archive.params.clone(),
    })
}

fn one_class_archive(model: &OneClassModel, mut archive: ModelArchive) -> ModelArchive {
    let values = [model.c, model.score_constant, model.radius, model.offset];
    let names = ["_C", "_score_constant", "radius_", "offset_"];
    let scalars = names.into_iter().zip(values);
    put_single_solve(&mut archive, &model.fit, &model.alpha, scalars);
    archive
}

/// What a single-solve model (SVR, one-class) adds: its coefficients (a 1 × n_SV `dual_coef_`),
/// the numbers it keeps as scalars and, for a fitted (not loaded) model, its solver's step count
/// and `convergence_`.
fn put_single_solve<'a>(
    archive: &mut ModelArchive,
    fit: &SingleFit,
    dual_coef: &[f64],
    values: impl IntoIterator<Item = (&'a str, f64)>,
) {
    archive.arrays.insert(
        "dual_coef_".into(),
        NpyArray::from_f64(vec![1, dual_coef.len()], dual_coef),
    );
    let scalars = &mut archive.scalars;
    for (key, value) in values {
        scalars.insert(key.into(), value.into());
    }
    if let Some(stats) = &fit.stats {
        scalars.insert("n_iter_".into(), stats.n_iter.into());
        scalars.insert("convergence_".into(), Value::Object(convergence(stats)));
    }
}

fn one_class_from(archive: &ModelArchive, name: &str) -> Result<OneClassModel> {
    let r = Reader { archive, name };
    if archive.params.get("loss").and_then(|l| l.as_str()) == Some("hinge") {
        return Err(super::format_error(
            name,
            "holds LIBSVM's one-class nu-SVM (loss 'hinge'), which Python's fwsvm.load_model \
             reads; OneClassModel is the enclosing ball",
        ));
    }
    Ok(OneClassModel {
        fit: r.single_fit()?,
        alpha: r.floats("dual_coef_")?,
        score_constant: r.number("_score_constant")?,
        radius: r.number("radius_").unwrap_or(f64::NAN),
        offset: r.number("offset_")?,
        c: r.number("_C").unwrap_or(f64::NAN),
        params: archive.params.clone(),
    })
}

/// A precomputed kernel's "support vectors" are rows of the training Gram matrix, which the
/// file (as scikit-learn) does not keep: such a model cannot be saved from Rust.
fn savable(kernel: Kernel, name: &str) -> Result<()> {
    if kernel == Kernel::Precomputed {
        return Err(format_error(
            name,
            "a model with a precomputed kernel cannot be saved from Rust (its support vectors \
             are kernel values, which the format does not keep); use a kernel function",
        ));
    }
    Ok(())
}

/// `save`, `load`, `to_bytes` and `from_bytes` for a model type.
macro_rules! file_methods {
    ($model:ty, $variant:ident, $to:ident, $what:literal) => {
        impl $model {
            #[doc = concat!("Writes this ", $what, " to `path` in the versioned model format ")]
            /// ([`crate::model_file`]), which Python's `fwsvm.load_model` reads too.
            ///
            /// # Errors
            /// [`FwsvmError::Io`](crate::FwsvmError::Io) when the file cannot be written,
            /// [`FwsvmError::ModelFormat`](crate::FwsvmError::ModelFormat) for a model the
            /// format cannot hold (a precomputed kernel, over 4 GiB).
            pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
                savable(self.kernel(), &path.as_ref().display().to_string())?;
                self.archive().write(path.as_ref())
            }

            /// The bytes [`Self::save`] writes.
            ///
            /// # Errors
            /// As [`Self::save`], without the I/O.
            pub fn to_bytes(&self) -> Result<Vec<u8>> {
                savable(self.kernel(), "<bytes>")?;
                self.archive().to_bytes("<bytes>")
            }

            #[doc = concat!("Reads a ", $what, " written by `save` (here or by Python's `est.save`).")]
            ///
            /// # Errors
            /// [`FwsvmError::ModelFormat`](crate::FwsvmError::ModelFormat) for a file that is
            /// not a valid model of this kind, [`FwsvmError::Io`](crate::FwsvmError::Io) when
            /// it cannot be read.
            pub fn load(path: impl AsRef<Path>) -> Result<Self> {
                let path = path.as_ref();
                let name = path.display().to_string();
                Self::from_model(from_archive(ModelArchive::read(path)?, &name)?, &name)
            }

            /// Reads a model from the bytes of a model file.
            ///
            /// # Errors
            /// As [`Self::load`], without the I/O.
            pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
                let archive = ModelArchive::from_bytes(bytes, "<bytes>")?;
                Self::from_model(from_archive(archive, "<bytes>")?, "<bytes>")
            }

            /// The archive: what every model keeps (parameters, kernel, support vectors) and
            /// what this kind adds.
            fn archive(&self) -> ModelArchive {
                let base = archive_of(
                    Estimator::$variant,
                    &self.params,
                    self.kernel(),
                    self.support_vectors(),
                    self.support(),
                );
                $to(self, base)
            }

            fn from_model(model: Model, name: &str) -> Result<Self> {
                match model {
                    Model::$variant(m) => Ok(m),
                    other => Err(format_error(
                        name,
                        format!("holds a {}, not a {}", other.class_name(), $what),
                    )),
                }
            }
        }
    };
}

impl Model {
    fn class_name(&self) -> &'static str {
        match self {
            Model::Svc(_) => "SVC",
            Model::Svr(_) => "SVR",
            Model::OneClass(_) => "OneClassSVM",
        }
    }
}

file_methods!(SvcModel, Svc, svc_archive, "SVC");
file_methods!(SvrModel, Svr, svr_archive, "SVR");
file_methods!(OneClassModel, OneClass, one_class_archive, "OneClassSVM");
