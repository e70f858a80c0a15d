//! Evaluating f(x) = Σ_s coef_s k(x_s, x) + intercept, in parallel over test rows.

use crate::data::{FeatureMatrix, Features};
use crate::error::{FwsvmError, Result, try_filled};
use crate::kernel::{Kernel, KernelMatrix, Terms};

/// A kernel expansion over owned support vectors.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelExpansion {
    kernel: Kernel,
    vectors: FeatureMatrix,
    coef: Vec<f64>,
    intercept: f64,
}

impl KernelExpansion {
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if `coef` and `vectors` disagree in length.
    pub fn new(
        kernel: Kernel,
        vectors: FeatureMatrix,
        coef: Vec<f64>,
        intercept: f64,
    ) -> Result<Self> {
        if vectors.view().n_rows() != coef.len() {
            return Err(FwsvmError::InvalidInput(format!(
                "{} support vectors but {} coefficients",
                vectors.view().n_rows(),
                coef.len()
            )));
        }
        Ok(KernelExpansion {
            kernel,
            vectors,
            coef,
            intercept,
        })
    }

    /// The kernel.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The support vectors, one per row.
    pub fn vectors(&self) -> &FeatureMatrix {
        &self.vectors
    }

    /// The coefficients, one per support vector.
    pub fn coef(&self) -> &[f64] {
        &self.coef
    }

    /// The constant term.
    pub fn intercept(&self) -> f64 {
        self.intercept
    }

    /// f(x) for every row of `x`.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if `x` has a different number of features.
    pub fn decision_function<'x>(&self, x: impl Into<Features<'x>>) -> Result<Vec<f64>> {
        decision_values(
            self.kernel,
            self.vectors.view(),
            &self.coef,
            self.intercept,
            x.into(),
        )
    }
}

/// f(x) = Σ_s coef_s k(v_s, x) + intercept for every row x of `x`, with borrowed vectors `v`
/// (the Python binding calls this on NumPy/SciPy arrays without copying them).
///
/// # Errors
/// [`FwsvmError::InvalidInput`] for mismatched lengths or feature counts.
pub fn decision_values(
    kernel: Kernel,
    vectors: Features<'_>,
    coef: &[f64],
    intercept: f64,
    x: Features<'_>,
) -> Result<Vec<f64>> {
    if vectors.n_rows() != coef.len() {
        return Err(FwsvmError::InvalidInput(format!(
            "{} support vectors but {} coefficients",
            vectors.n_rows(),
            coef.len()
        )));
    }
    check_query_features(&x, &vectors)?;
    kernel.validate()?;
    let mut out = try_filled(x.n_rows(), intercept, "decision values")?;
    if kernel != Kernel::Precomputed {
        // f(x_t) = b + Σ_s coef_s k(x_t, sv_s): a kernel expansion over the support vectors
        // evaluated on the test rows, which runs eight support vectors per pass over the test
        // data where that pays (mnist 0-vs-rest, 10,000 × 5,416: 4.1 → see BENCHMARKS.md).
        let support: Vec<usize> = (0..coef.len()).collect();
        KernelMatrix::new(kernel, x).add_expansion(Terms::new(&vectors, &support, coef), &mut out);
        return Ok(out);
    }
    // The support vectors of a precomputed kernel are rows of the training Gram matrix; a
    // query's kernel values are columns of a test Gram matrix, which only the model's
    // training indices can select (SvcModel::decision_function does).
    Err(FwsvmError::InvalidInput(
        "a precomputed kernel has no feature vectors to evaluate: pass the kernel values \
         against the training rows to the model's decision_function"
            .into(),
    ))
}

/// Refuses test data whose feature count differs from the support vectors'.
pub(crate) fn check_query_features(x: &Features<'_>, vectors: &Features<'_>) -> Result<()> {
    if x.n_cols() != vectors.n_cols() {
        return Err(FwsvmError::InvalidInput(format!(
            "X has {} features, but the model was trained with {}",
            x.n_cols(),
            vectors.n_cols()
        )));
    }
    Ok(())
}
