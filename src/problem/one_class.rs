//! Support vector data description (SVDD) with squared slacks: the minimum enclosing ball of
//! the points augmented by e_i/√C (paper 000 §2 with labels dropped; docs/guide/formulation.rst):
//!
//! ```text
//! maximise bᵀα − αᵀQα on the simplex,   Q = K + I/C,   b = diag(Q)
//! ```
//!
//! At the optimum g(α) is the squared radius R̃² of the augmented ball, the centre is
//! c = Σ α_i φ(x_i), and support vectors sit at ‖φ(x_i) − c‖² = R² + 2α_i/C with
//! R² = R̃² − (1 + ‖α‖²)/C, the radius a point with zero weight would have. The
//! model's decision function is R² − ‖φ(x) − c‖².

use super::SimplexProblem;
use crate::error::{FwsvmError, Result};
use crate::kernel::KernelMatrix;

impl<'a> SimplexProblem<'a> {
    /// The SVDD/MEB problem with penalty `c` (> 0) on the squared slacks.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] for empty data, [`FwsvmError::InvalidParameter`] for a bad `c`.
    pub fn one_class(kernel: KernelMatrix<'a>, c: f64) -> Result<Self> {
        let m = super::n_training_rows(&kernel)?;
        if !(c.is_finite() && c > 0.0) {
            return Err(FwsvmError::param(
                "C",
                format!("must be positive and finite, got {c}"),
            ));
        }
        super::check_gram(&kernel)?;
        let ridge = vec![1.0 / c; m];
        let linear = kernel.diagonal().iter().map(|&k| k + 1.0 / c).collect();
        Ok(SimplexProblem::from_parts(
            kernel,
            vec![1.0; m],
            ridge,
            linear,
            0.0,
            1.0,
        ))
    }
}

/// (R², the score constant R² − αᵀKα) of a solved ball with objective g(α) = R̃², quadratic
/// αᵀQα and weights `alpha` (its non-zero entries suffice) at penalty `c`: by the KKT
/// conditions above R² = R̃² − (1 + ‖α‖²)/C, and αᵀKα = αᵀQα − ‖α‖²/C. A point's score
/// R² − ‖φ(x) − c‖² is then `score constant + 2 Σ α_i k(x_i, x) − k(x, x)`.
pub fn ball_constants(objective: f64, quadratic: f64, alpha: &[f64], c: f64) -> (f64, f64) {
    let alpha_sq: f64 = alpha.iter().map(|a| a * a).sum();
    let r2 = objective - (1.0 + alpha_sq) / c;
    (r2, r2 - (quadratic - alpha_sq / c))
}
