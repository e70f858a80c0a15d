//! The L2-SVR with a free tube width on 2m simplex slots (notes/seeds_000_004.md §A.13, the
//! construction of Tsang et al.'s CVR). Primal:
//!
//! ```text
//! min ½(‖w‖² + b² + C Σ (ξ_i² + ξ_i*²)) + ν ε
//! s.t. y_i − f(x_i) ≤ ε + ξ_i,   f(x_i) − y_i ≤ ε + ξ_i*
//! ```
//!
//! Slot a ↔ sample i(a) = a mod m with sign s_a = +1 (first m) or −1 (last m). With
//! β = ν β′, β′ on the simplex Δ_{2m}, the dual is max ηᵀβ′ − (ν/2) β′ᵀK̃β′ with
//! K̃_ab = s_a s_b (k + 1) + δ_ab/C and η_a = s_a y_{i(a)}; so Q = (ν/2)K̃ and b = η. The model is
//! f(x) = ν Σ_i (β′_i − β′_{i+m}) (k(x_i, x) + 1), and ε follows from the KKT conditions
//! y_i − f(x_i) = ε + ν β′_i / C on the support vectors.

use super::SimplexProblem;
use crate::error::{FwsvmError, Result};
use crate::kernel::KernelMatrix;

impl<'a> SimplexProblem<'a> {
    /// The L2-SVR with targets `y`, penalty `c` on the squared slacks and tube weight `nu`.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] for empty data or a length mismatch,
    /// [`FwsvmError::InvalidParameter`] for a bad `c` or `nu`.
    pub fn l2_svr(kernel: KernelMatrix<'a>, y: &[f64], c: f64, nu: f64) -> Result<Self> {
        let m = super::n_training_rows(&kernel)?;
        crate::data::check_targets(y, m, None)?;
        if !(c.is_finite() && c > 0.0) {
            return Err(FwsvmError::param(
                "C",
                format!("must be positive and finite, got {c}"),
            ));
        }
        if !(nu.is_finite() && nu > 0.0) {
            return Err(FwsvmError::param(
                "nu",
                format!("must be positive and finite, got {nu}"),
            ));
        }
        super::check_gram(&kernel)?;
        let sign: Vec<f64> = (0..2 * m).map(|a| if a < m { 1.0 } else { -1.0 }).collect();
        let linear: Vec<f64> = (0..2 * m).map(|a| sign[a] * y[a % m]).collect();
        Ok(SimplexProblem::from_parts(
            kernel,
            sign,
            vec![1.0 / c; 2 * m],
            linear,
            1.0,
            nu / 2.0,
        ))
    }
}
