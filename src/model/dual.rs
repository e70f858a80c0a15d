//! [`DualModel`]: a fitted one-class ν-SVM, ε-SVR or ν-SVR (LIBSVM's `-s 2`, `-s 3`, `-s 4`):
//! f(x) = Σ_s coef_s k(x_s, x) − ρ.

use super::{SingleFit, decision_values};
use crate::data::{FeatureMatrix, Features};
use crate::error::{FwsvmError, Result};
use crate::kernel::Kernel;
use crate::model_file::{LibsvmModel, SvmType};
use crate::problem::dual::DualKind;
use crate::solver::{HistoryEntry, SolverStats};

/// A fitted model of LIBSVM's family other than the classifiers.
///
/// - one-class: `coef` = α (in [0, 1] per unit weight, Σα = ν Σw), `predict` is +1 where
///   f(x) > 0 (an inlier) and −1 elsewhere, `score_samples` is f(x) + ρ;
/// - ε-SVR and ν-SVR: `coef` = α − α*, `predict` is f(x).
///
/// A model read from a LIBSVM file has the support `0..n`; the solver statistics' `gap` is the
/// exact maximal violation at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct DualModel {
    pub(crate) kind: DualKind,
    pub(crate) fit: SingleFit,
    pub(crate) coef: Vec<f64>,
    pub(crate) rho: f64,
    /// ε: given (ε-SVR) or learned, −r (ν-SVR); 0 for one-class.
    pub(crate) epsilon: f64,
    /// The Laplace scale σ of the regression residuals (LIBSVM's `-b 1` for SVR).
    pub(crate) sigma: Option<f64>,
}

impl DualModel {
    super::single_fit_getters!();

    super::getters! {
        /// Which model.
        kind: DualKind = kind;
        /// The coefficients (α for one-class, α − α* for the regressions).
        dual_coef: &[f64] = coef;
        /// LIBSVM's ρ.
        rho: f64 = rho;
    }

    /// The constant term −ρ (scikit-learn's `intercept_`).
    pub fn intercept(&self) -> f64 {
        -self.rho
    }

    super::getters! {
        /// The tube half-width: ε-SVR's parameter, ν-SVR's learned one (−r); 0 for one-class.
        epsilon: f64 = epsilon;
        /// The Laplace scale σ of the residuals when fitted with probabilities (regressions).
        sigma: Option<f64> = sigma;
    }

    /// f(x) = Σ coef k(x_s, x) − ρ for every row. With a precomputed kernel, `x` holds the
    /// kernel values against the training rows.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] for a different number of features, NaN or infinity.
    pub fn decision_function<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        let x = super::query(x)?;
        if self.fit.kernel == Kernel::Precomputed {
            let unit = FeatureMatrix::Sparse(super::unit_vectors(&self.fit.support, x.n_cols())?);
            return decision_values(Kernel::Linear, unit.view(), &self.coef, -self.rho, x);
        }
        let vectors = super::widened(self.fit.vectors.view(), x.n_cols())?;
        decision_values(self.fit.kernel, vectors, &self.coef, -self.rho, x)
    }

    /// Regressions: f(x). One-class: +1 where f(x) > 0, else −1 (LIBSVM's rule).
    ///
    /// # Errors
    /// As [`Self::decision_function`].
    pub fn predict<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        let mut values = self.decision_function(x)?;
        if self.kind == DualKind::OneClass {
            for v in &mut values {
                *v = if *v > 0.0 { 1.0 } else { -1.0 };
            }
        }
        Ok(values)
    }

    /// One-class: f(x) + ρ = Σ α k(x_s, x) (scikit-learn's `score_samples`).
    ///
    /// # Errors
    /// As [`Self::decision_function`].
    pub fn score_samples<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        let values = self.decision_function(x)?;
        Ok(values.into_iter().map(|v| v + self.rho).collect())
    }

    /// The model as a LIBSVM model file's content.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] for a kernel LIBSVM does not have.
    pub fn to_libsvm(&self) -> Result<LibsvmModel> {
        let svm_type = match self.kind {
            DualKind::OneClass => SvmType::OneClass,
            DualKind::EpsilonSvr => SvmType::EpsilonSvr,
            DualKind::NuSvr => SvmType::NuSvr,
            DualKind::NuSvc => {
                return Err(FwsvmError::InvalidInput(
                    "a nu-SVC is an SvcModel (SvcModel::to_libsvm)".into(),
                ));
            }
        };
        Ok(LibsvmModel {
            svm_type,
            kernel: self.fit.kernel,
            labels: Vec::new(),
            rho: vec![self.rho],
            prob_a: self.sigma.into_iter().collect(),
            prob_b: Vec::new(),
            prob_density_marks: Vec::new(),
            n_support: Vec::new(),
            sv_coef: self.coef.clone(),
            vectors: self.fit.vectors.view().to_csr(),
        })
    }

    /// A one-class or regression model read from a LIBSVM model file (`support()` is
    /// `0..n_SV`).
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] for a classifier's file.
    pub fn from_libsvm(file: &LibsvmModel) -> Result<DualModel> {
        let kind = match file.svm_type {
            SvmType::OneClass => DualKind::OneClass,
            SvmType::EpsilonSvr => DualKind::EpsilonSvr,
            SvmType::NuSvr => DualKind::NuSvr,
            t => {
                return Err(FwsvmError::InvalidInput(format!(
                    "a {} model is a classifier (SvcModel::from_libsvm)",
                    t.name()
                )));
            }
        };
        file.check()?;
        let n = file.n_support_vectors();
        Ok(DualModel {
            kind,
            fit: SingleFit {
                kernel: file.kernel,
                vectors: FeatureMatrix::Sparse(file.vectors.clone()),
                support: (0..n).collect(),
                stats: None,
                history: Vec::new(),
            },
            coef: file.sv_coef.clone(),
            rho: file.rho[0],
            epsilon: 0.0,
            sigma: file.prob_a.first().copied(),
        })
    }

    /// Writes the model as a LIBSVM model file (written to a temporary file and renamed into
    /// place); `svm-predict` reads it.
    ///
    /// # Errors
    /// As [`Self::to_libsvm`], and I/O errors.
    pub fn save_libsvm(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        self.to_libsvm()?.write(path)
    }

    /// Reads a LIBSVM model file of a one-class or regression model.
    ///
    /// # Errors
    /// [`FwsvmError::LibsvmModel`] naming the line for a malformed file; as
    /// [`Self::from_libsvm`].
    pub fn load_libsvm(path: impl AsRef<std::path::Path>) -> Result<DualModel> {
        Self::from_libsvm(&LibsvmModel::read(path)?)
    }
}
