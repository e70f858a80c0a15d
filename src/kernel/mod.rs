//! Kernel functions and their evaluation on training and test data.
//!
//! [`Kernel`] is the formula; [`KernelMatrix`] evaluates it on a data set (whole columns
//! k(X, x_j) in parallel, single entries, rows against a query); [`ColumnCache`] keeps recently
//! used columns within a memory budget.

mod bits;
#[cfg(target_arch = "x86_64")]
mod bits_avx512;
mod block;
mod cache;
pub(crate) mod dot;
mod exp;
mod feature_major;
mod matrix;
#[cfg(target_arch = "x86_64")]
mod tile_avx512;

pub use block::BLOCK as COLUMN_BLOCK;
pub use cache::{CachePrecision, Column, ColumnCache};
pub(crate) use matrix::Terms;
pub(crate) use matrix::cross_kernel_blocks;
pub use matrix::{KernelMatrix, QueryScratch, cross_kernel};

use crate::error::{FwsvmError, Result};
use exp::exp_nonpositive;

/// A kernel function k(x, z).
///
/// `gamma` multiplies the inner product or distance; `coef0` is the additive constant of the
/// polynomial and sigmoid kernels. The conventions are scikit-learn's and LIBSVM's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kernel {
    /// k(x, z) = ⟨x, z⟩.
    Linear,
    /// k(x, z) = exp(−γ‖x − z‖²).
    Rbf {
        /// γ > 0.
        gamma: f64,
    },
    /// k(x, z) = (γ⟨x, z⟩ + coef0)^degree.
    Poly {
        /// γ > 0.
        gamma: f64,
        /// Additive constant.
        coef0: f64,
        /// Integer degree.
        degree: u32,
    },
    /// k(x, z) = tanh(γ⟨x, z⟩ + coef0). Not positive semi-definite in general.
    Sigmoid {
        /// γ > 0.
        gamma: f64,
        /// Additive constant.
        coef0: f64,
    },
    /// k(x, z) = exp(−γ‖x − z‖₁).
    Laplacian {
        /// γ > 0.
        gamma: f64,
    },
    /// The data *is* the kernel: row i of the training matrix holds k(x_i, x_j) for all j
    /// (a square, symmetric Gram matrix). Test-time kernel values are the caller's business.
    Precomputed,
}

/// Which per-row norm a kernel needs precomputed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NormKind {
    /// None (linear, poly, sigmoid).
    None,
    /// Squared Euclidean norm (RBF).
    SquaredL2,
    /// L1 norm (Laplacian).
    L1,
}

/// The names [`Kernel::from_name`] takes: the kernel functions, then `precomputed` (a Gram
/// matrix given as the data).
pub const KERNEL_NAMES: &[&str] = &[
    "linear",
    "rbf",
    "poly",
    "sigmoid",
    "laplacian",
    "precomputed",
];

/// The kernel functions: every name in [`KERNEL_NAMES`] but the last, `precomputed`.
pub const KERNEL_FUNCTIONS: &[&str] = KERNEL_NAMES.split_at(KERNEL_NAMES.len() - 1).0;

impl Kernel {
    /// The linear kernel.
    pub fn linear() -> Self {
        Kernel::Linear
    }

    /// The Gaussian RBF kernel exp(−γ‖x − z‖²).
    pub fn rbf(gamma: f64) -> Self {
        Kernel::Rbf { gamma }
    }

    /// The polynomial kernel (γ⟨x, z⟩ + coef0)^degree.
    pub fn poly(gamma: f64, coef0: f64, degree: u32) -> Self {
        Kernel::Poly {
            gamma,
            coef0,
            degree,
        }
    }

    /// The sigmoid kernel tanh(γ⟨x, z⟩ + coef0).
    pub fn sigmoid(gamma: f64, coef0: f64) -> Self {
        Kernel::Sigmoid { gamma, coef0 }
    }

    /// The Laplacian kernel exp(−γ‖x − z‖₁).
    pub fn laplacian(gamma: f64) -> Self {
        Kernel::Laplacian { gamma }
    }

    /// The kernel's name as used by scikit-learn and the Python API.
    pub fn name(&self) -> &'static str {
        match self {
            Kernel::Linear => "linear",
            Kernel::Rbf { .. } => "rbf",
            Kernel::Poly { .. } => "poly",
            Kernel::Sigmoid { .. } => "sigmoid",
            Kernel::Laplacian { .. } => "laplacian",
            Kernel::Precomputed => "precomputed",
        }
    }

    /// The kernel named `name` (scikit-learn's names) with scikit-learn's parameters; those a
    /// kernel does not use are ignored.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidParameter`] for an unknown name, a negative or too large `degree`
    /// and whatever [`Self::validate`] refuses.
    pub fn from_name(name: &str, gamma: f64, degree: i64, coef0: f64) -> Result<Self> {
        let kernel = match name {
            "linear" => Kernel::Linear,
            "rbf" => Kernel::rbf(gamma),
            "laplacian" => Kernel::laplacian(gamma),
            "sigmoid" => Kernel::sigmoid(gamma, coef0),
            "precomputed" => Kernel::Precomputed,
            "poly" => {
                let degree = u32::try_from(degree).map_err(|_| {
                    FwsvmError::param(
                        "degree",
                        format!("must be a non-negative integer, got {degree}"),
                    )
                })?;
                Kernel::poly(gamma, coef0, degree)
            }
            other => {
                return Err(FwsvmError::param(
                    "kernel",
                    format!(
                        "unknown kernel {other:?}; expected linear, rbf, poly, sigmoid or laplacian"
                    ),
                ));
            }
        };
        kernel.validate()?;
        Ok(kernel)
    }

    /// γ, for the kernels that have one.
    pub fn gamma(&self) -> Option<f64> {
        match *self {
            Kernel::Rbf { gamma }
            | Kernel::Laplacian { gamma }
            | Kernel::Poly { gamma, .. }
            | Kernel::Sigmoid { gamma, .. } => Some(gamma),
            Kernel::Linear | Kernel::Precomputed => None,
        }
    }

    /// Checks γ > 0 and finite constants.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidParameter`] naming `gamma` or `coef0`.
    pub fn validate(&self) -> Result<()> {
        let gamma = match *self {
            Kernel::Linear | Kernel::Precomputed => return Ok(()),
            Kernel::Rbf { gamma } | Kernel::Laplacian { gamma } => gamma,
            Kernel::Poly { gamma, coef0, .. } | Kernel::Sigmoid { gamma, coef0 } => {
                if !coef0.is_finite() {
                    return Err(FwsvmError::param(
                        "coef0",
                        format!("must be finite, got {coef0}"),
                    ));
                }
                gamma
            }
        };
        if !(gamma.is_finite() && gamma > 0.0) {
            return Err(FwsvmError::param(
                "gamma",
                format!("must be a positive finite number, got {gamma}"),
            ));
        }
        Ok(())
    }

    /// Whether k(x, x) is the same for every x (RBF, Laplacian). Only then is the L2-SVC a
    /// minimum enclosing ball problem and the CVM (1+ε) stopping rule meaningful.
    pub fn has_constant_diagonal(&self) -> bool {
        matches!(self, Kernel::Rbf { .. } | Kernel::Laplacian { .. })
    }

    pub(crate) fn norm_kind(&self) -> NormKind {
        match self {
            Kernel::Rbf { .. } => NormKind::SquaredL2,
            Kernel::Laplacian { .. } => NormKind::L1,
            _ => NormKind::None,
        }
    }

    /// k from an inner product (and, for RBF, the two squared norms).
    #[inline(always)]
    pub(crate) fn of_dot(&self, dot: f64, norm_x: f64, norm_z: f64) -> f64 {
        match *self {
            // Precomputed kernels never reach here (they are read from the Gram matrix).
            Kernel::Linear | Kernel::Precomputed => dot,
            Kernel::Rbf { gamma } => {
                exp_nonpositive(-gamma * (norm_x + norm_z - 2.0 * dot).max(0.0))
            }
            Kernel::Poly {
                gamma,
                coef0,
                degree,
            } => (gamma * dot + coef0).powi(degree as i32),
            Kernel::Sigmoid { gamma, coef0 } => (gamma * dot + coef0).tanh(),
            Kernel::Laplacian { .. } => {
                unreachable!("the Laplacian kernel is evaluated from L1 distances")
            }
        }
    }

    /// k from an L1 distance (Laplacian only).
    #[inline(always)]
    pub(crate) fn of_l1(&self, l1: f64) -> f64 {
        match *self {
            Kernel::Laplacian { gamma } => exp_nonpositive(-gamma * l1.max(0.0)),
            _ => unreachable!("only the Laplacian kernel uses L1 distances"),
        }
    }
}
