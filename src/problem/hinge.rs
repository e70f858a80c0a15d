//! The hinge-loss (L1) SVC of LIBSVM and scikit-learn's `SVC` (paper 004 §4; paper 000 App. A,
//! (37)/(40)):
//!
//! ```text
//! minimise ½ αᵀQα − Σ α_i   subject to  0 ≤ α_i ≤ C_i,  yᵀα = 0,   Q_ij = y_i y_j k(x_i, x_j)
//! ```
//!
//! the dual of min ½‖w‖² + Σ C_i max(0, 1 − y_i(⟨w, φ(x_i)⟩ + b)) with an unregularised bias b.
//! Its feasible set is a polytope (a box cut by a hyperplane), not the simplex, so it has its own
//! problem type; the solver is the pairwise (swap) step with exact line search and second-order
//! partner selection, clipped to the box (the `smo` module of the solver).

use crate::error::Result;
use crate::kernel::KernelMatrix;

/// The hinge-loss SVC dual: labels y_i = ±1, per-sample bounds C_i (C times the sample/class
/// weight) and the kernel.
#[derive(Debug, Clone)]
pub struct BoxProblem<'a> {
    kernel: KernelMatrix<'a>,
    y: Vec<f64>,
    c: Vec<f64>,
}

impl<'a> BoxProblem<'a> {
    /// The hinge-loss SVC with labels `y` (each ±1) and per-sample penalties `c`.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`](crate::FwsvmError::InvalidInput) for length mismatches or labels other than ±1,
    /// [`FwsvmError::InvalidParameter`](crate::FwsvmError::InvalidParameter) for a non-positive or non-finite penalty.
    pub fn hinge_svc(kernel: KernelMatrix<'a>, y: &[f64], c: &[f64]) -> Result<Self> {
        super::check_svc_inputs(&kernel, y, c)?;
        Ok(BoxProblem {
            kernel,
            y: y.to_vec(),
            c: c.to_vec(),
        })
    }

    /// Number of training samples m (one variable each).
    pub fn n_samples(&self) -> usize {
        self.y.len()
    }

    /// The kernel bound to the training data.
    pub fn kernel(&self) -> &KernelMatrix<'a> {
        &self.kernel
    }

    /// The labels y_i = ±1.
    pub fn labels(&self) -> &[f64] {
        &self.y
    }

    /// The upper bounds C_i.
    pub fn bounds(&self) -> &[f64] {
        &self.c
    }
}
