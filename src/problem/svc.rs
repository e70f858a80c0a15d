//! The binary L2-SVC of the Core Vector Machine (Tsang et al. 2005; paper 000 Eq. 5):
//!
//! ```text
//! maximise −αᵀQα on the simplex,   Q_ij = y_i y_j (k(x_i, x_j) + 1) + δ_ij / C_i
//! ```
//!
//! It is the dual of min ½(‖w‖² + b² + Σ C_i ξ_i²) − ρ s.t. y_i(⟨w, φ(x_i)⟩ + b) ≥ ρ − ξ_i,
//! with w = Σ α_i y_i φ(x_i), b = Σ α_i y_i, ρ = αᵀQα. Dividing (w, b) by ρ gives the
//! squared-hinge SVM with regularised bias and the same C (docs/guide/formulation.rst), which is how
//! [`SvcModel`](crate::model::SvcModel) scales its coefficients.

use super::SimplexProblem;
use crate::error::Result;
use crate::kernel::KernelMatrix;

impl<'a> SimplexProblem<'a> {
    /// The L2-SVC with labels `y` (each ±1) and per-sample penalties `c` (C times the
    /// sample/class weight).
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`](crate::FwsvmError::InvalidInput) for length mismatches or labels other than ±1,
    /// [`FwsvmError::InvalidParameter`](crate::FwsvmError::InvalidParameter) for a non-positive or non-finite penalty.
    pub fn l2_svc(kernel: KernelMatrix<'a>, y: &[f64], c: &[f64]) -> Result<Self> {
        super::check_svc_inputs(&kernel, y, c)?;
        let m = kernel.n_rows();
        let ridge = c.iter().map(|&ci| 1.0 / ci).collect();
        Ok(SimplexProblem::from_parts(
            kernel,
            y.to_vec(),
            ridge,
            vec![0.0; m],
            1.0,
            1.0,
        ))
    }
}
