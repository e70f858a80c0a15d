//! Problems on the unit simplex: maximise g(α) = bᵀα − αᵀQα subject to Σα = 1, α ≥ 0.
//!
//! Every problem fwsvm solves with the single-simplex engine has the same structure
//!
//! ```text
//! Q_ab = σ · ( s_a s_b (k(x_{i(a)}, x_{i(b)}) + κ) + δ_ab d_a ),     b_a = linear term
//! ```
//!
//! over simplex *slots* a, each tied to a training sample i(a) (one slot per sample, or two for
//! the L2-SVR), with signs s_a = ±1, a kernel shift κ (1 folds a regularised bias into the
//! kernel), a per-slot ridge d_a = 1/C_a on the diagonal (by training index only; it never
//! appears at prediction time) and a scale σ. [`SimplexProblem`] holds these pieces; the
//! constructors for each SVM live in their own files ([`svc`]). Q is never formed: columns come
//! from the base kernel through a [`ColumnCache`](crate::kernel::ColumnCache) and the signs,
//! shift and ridge are applied on the fly.

pub mod dual;
pub mod hinge;
pub mod one_class;
pub mod svc;
pub mod svr;

pub use hinge::BoxProblem;

use crate::kernel::{Column, KernelMatrix};

/// A concave quadratic on the unit simplex in the structured form above.
#[derive(Debug, Clone)]
pub struct SimplexProblem<'a> {
    kernel: KernelMatrix<'a>,
    copies: usize,
    sign: Vec<f64>,
    ridge: Vec<f64>,
    linear: Vec<f64>,
    /// `Some(b)` when every linear term equals b (0 for the SVC), so the pass need not read them.
    linear_constant: Option<f64>,
    shift: f64,
    scale: f64,
    meb: MebForm,
}

/// How (and whether) the problem is a minimum enclosing ball, decided once at construction.
#[derive(Debug, Clone, Copy, PartialEq)]
enum MebForm {
    /// Constant diagonal D and b = 0: R² = D − αᵀQα.
    ConstantDiagonal(f64),
    /// b = diag Q: R² = g(α).
    LinearIsDiagonal,
    /// Not an MEB.
    None,
}

/// The inputs of a binary SVC problem (hinge or squared hinge): samples, labels ±1 and positive
/// finite per-sample penalties, one each per row; then [`check_gram`].
pub(crate) fn check_svc_inputs(
    kernel: &KernelMatrix<'_>,
    y: &[f64],
    c: &[f64],
) -> crate::error::Result<()> {
    use crate::error::FwsvmError;
    let m = n_training_rows(kernel)?;
    if y.len() != m || c.len() != m {
        return Err(FwsvmError::InvalidInput(format!(
            "X has {m} rows but y has {} and the penalties {}",
            y.len(),
            c.len()
        )));
    }
    if let Some(i) = y.iter().position(|&v| v != 1.0 && v != -1.0) {
        return Err(FwsvmError::InvalidInput(format!(
            "labels must be +1 or -1, got {} at row {i}",
            y[i]
        )));
    }
    check_bounds(c)?;
    check_gram(kernel)
}

/// Per-sample bounds C_i (after sample and class weights) must be positive and finite.
pub(crate) fn check_bounds(c: &[f64]) -> crate::error::Result<()> {
    if let Some(i) = c.iter().position(|&v| !(v.is_finite() && v > 0.0)) {
        return Err(crate::error::FwsvmError::param(
            "C",
            format!(
                "every bound must be positive and finite (after sample/class weights), got {} at row {i}",
                c[i]
            ),
        ));
    }
    Ok(())
}

/// The kernel's training rows, of which there must be some.
pub(crate) fn n_training_rows(kernel: &KernelMatrix<'_>) -> crate::error::Result<usize> {
    match kernel.n_rows() {
        0 => Err(crate::error::FwsvmError::InvalidInput(
            "no training samples".into(),
        )),
        m => Ok(m),
    }
}

/// The total weight of the positive and of the negative class: (Σ_{y_i > 0} w_i, Σ_{y_i ≤ 0} w_i).
pub(crate) fn class_totals(y: &[f64], w: &[f64]) -> (f64, f64) {
    let (mut pos, mut neg) = (0.0, 0.0);
    for (&yi, &wi) in y.iter().zip(w) {
        if yi > 0.0 {
            pos += wi;
        } else {
            neg += wi;
        }
    }
    (pos, neg)
}

/// A precomputed kernel's training matrix must be the square Gram matrix, and k(x, x) must be
/// finite on every training row: a kernel that overflows for its parameters (poly with
/// degree 10⁶ gave k = ∞, then NaN decision values or a constant predictor) is refused, naming
/// the row. Off the diagonal |k(x, z)| ≤ √(k(x, x) k(z, z)) for the positive semi-definite
/// kernels, and the sigmoid is bounded.
pub(crate) fn check_gram(kernel: &KernelMatrix<'_>) -> crate::error::Result<()> {
    let data = kernel.data();
    if kernel.kernel() == crate::kernel::Kernel::Precomputed && data.n_rows() != data.n_cols() {
        return Err(crate::error::FwsvmError::InvalidInput(format!(
            "a precomputed kernel needs the square Gram matrix of the training samples, got shape ({}, {})",
            data.n_rows(),
            data.n_cols()
        )));
    }
    if let Some(i) = kernel.diagonal().iter().position(|k| !k.is_finite()) {
        return Err(crate::error::FwsvmError::param(
            "kernel",
            format!(
                "k(x, x) is {} for training row {i}: the {:?} kernel overflows for these \
                 parameters (lower the degree or gamma, or scale the data)",
                kernel.diagonal()[i],
                kernel.kernel()
            ),
        ));
    }
    Ok(())
}

impl<'a> SimplexProblem<'a> {
    /// Assembles a problem from its parts (`sign`, `ridge`, `linear` have one entry per slot;
    /// the number of slots must be a multiple of the number of samples). Used by the
    /// per-problem constructors, which validate their inputs.
    pub(crate) fn from_parts(
        kernel: KernelMatrix<'a>,
        sign: Vec<f64>,
        ridge: Vec<f64>,
        linear: Vec<f64>,
        shift: f64,
        scale: f64,
    ) -> Self {
        let m = kernel.n_rows();
        let n = sign.len();
        debug_assert!(m > 0 && n.is_multiple_of(m) && ridge.len() == n && linear.len() == n);
        let diag0 = kernel.diagonal().first().copied().unwrap_or(0.0)
            + shift
            + ridge.first().copied().unwrap_or(0.0);
        let constant_kernel_diag = kernel.kernel().has_constant_diagonal();
        let constant_ridge = ridge.iter().all(|&d| d == ridge[0]);
        let linear_constant = linear
            .first()
            .copied()
            .filter(|&b0| linear.iter().all(|&b| b == b0));
        let mut problem = SimplexProblem {
            kernel,
            copies: n / m,
            sign,
            ridge,
            linear,
            linear_constant,
            shift,
            scale,
            meb: MebForm::None,
        };
        problem.meb =
            if constant_kernel_diag && constant_ridge && problem.linear.iter().all(|&b| b == 0.0) {
                MebForm::ConstantDiagonal(scale * diag0)
            } else if (0..n).all(|a| {
                let d = problem.q_diag(a);
                (problem.linear[a] - d).abs() <= 1e-12 * d.abs().max(1.0)
            }) {
                MebForm::LinearIsDiagonal
            } else {
                MebForm::None
            };
        problem
    }

    /// Number of simplex coordinates (slots).
    #[inline]
    pub fn n_slots(&self) -> usize {
        self.sign.len()
    }

    /// Number of training samples m.
    #[inline]
    pub fn n_samples(&self) -> usize {
        self.kernel.n_rows()
    }

    /// How many slots share each sample (1, or 2 for the SVR).
    #[inline]
    pub fn copies(&self) -> usize {
        self.copies
    }

    /// The training sample behind slot `a`.
    #[inline]
    pub fn sample(&self, a: usize) -> usize {
        a % self.n_samples()
    }

    /// The kernel bound to the training data.
    pub fn kernel(&self) -> &KernelMatrix<'a> {
        &self.kernel
    }

    /// The linear term when it is the same for every slot.
    #[inline]
    pub(crate) fn linear_constant(&self) -> Option<f64> {
        self.linear_constant
    }

    /// Signs s_a (labels for the SVC).
    #[inline]
    pub fn signs(&self) -> &[f64] {
        &self.sign
    }

    /// Linear term b.
    #[inline]
    pub fn linear(&self) -> &[f64] {
        &self.linear
    }

    /// The ridge d_a = 1/C_a of slot `a`.
    #[inline]
    pub fn ridge(&self, a: usize) -> f64 {
        self.ridge[a]
    }

    /// Kernel shift κ.
    #[inline]
    pub fn shift(&self) -> f64 {
        self.shift
    }

    /// Scale σ.
    #[inline]
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Q_aa.
    #[inline]
    pub fn q_diag(&self, a: usize) -> f64 {
        self.scale * (self.kernel.diagonal()[self.sample(a)] + self.shift + self.ridge[a])
    }

    /// Q_ab computed from scratch (one kernel evaluation).
    pub fn q_entry(&self, a: usize, b: usize) -> f64 {
        if a == b {
            return self.q_diag(a);
        }
        let k = self.kernel.entry(self.sample(a), self.sample(b));
        self.scale * self.sign[a] * self.sign[b] * (k + self.shift)
    }

    /// Q_ab given the base-kernel column of slot b's sample.
    #[inline]
    pub fn q_entry_from_column(&self, a: usize, b: usize, column_of_b: Column<'_>) -> f64 {
        let off = if a == b { self.ridge[a] } else { 0.0 };
        self.scale
            * (self.sign[a] * self.sign[b] * (column_of_b.get(self.sample(a)) + self.shift) + off)
    }

    /// For a minimum-enclosing-ball problem (constant diagonal, b = 0), the squared radius of the
    /// current ball, diag − αᵀQα; `None` when the problem is not an MEB (non-constant diagonal:
    /// linear/poly kernels or per-sample weights), where the CVM (1+ε) rule has no meaning.
    pub fn meb_squared_radius(&self, lin: f64, quad: f64) -> Option<f64> {
        match self.meb {
            MebForm::ConstantDiagonal(d) => Some(d - quad),
            MebForm::LinearIsDiagonal => Some(lin - quad),
            MebForm::None => None,
        }
    }

    /// What the relative-gap rule divides the duality gap by: αᵀQα for a minimum-enclosing-ball
    /// problem (b = 0 or b = diag Q: the SVC, where it equals |g(α)|, and the one-class ball,
    /// whose g(α) = bᵀα − αᵀQα carries the constant 1 + 1/C that made a relative gap of 1e-3
    /// stop the fit after ~2,000 steps whatever the size), |g(α)| otherwise.
    pub fn gap_reference(&self, lin: f64, quad: f64) -> f64 {
        if self.is_meb() {
            quad.abs()
        } else {
            (lin - quad).abs()
        }
    }

    /// Whether the CVM/MEB stopping rule applies (see [`Self::meb_squared_radius`]).
    pub fn is_meb(&self) -> bool {
        self.meb != MebForm::None
    }
}
