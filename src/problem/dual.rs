//! LIBSVM's other duals on the box: ν-SVC, one-class ν-SVM, ε-SVR and ν-SVR ([`DualProblem`]).
//!
//! Each is LIBSVM's quadratic programme (Chang & Lin 2011, §2)
//!
//! ```text
//! min_α  ½ αᵀQα + pᵀα    subject to  0 ≤ α_t ≤ C_t,  yᵀα = Δ  (and eᵀα = ν-constant for ν-SVC/SVR)
//! ```
//!
//! over variables t each tied to a training sample s(t) (one per sample, or two for the
//! regressions: α_i with y = +1 and α*_i with y = −1), with Q_tu = y_t y_u k(x_s(t), x_s(u)).
//! The constant Δ (and the ν-constant) are those of the feasible start each constructor builds
//! exactly as LIBSVM (and scikit-learn's weighted fork) do, so the same optimum is reached.
//! Per-sample weights W_i scale the bounds (scikit-learn's `sample_weight`).

use crate::error::{FwsvmError, Result};
use crate::kernel::KernelMatrix;

/// Which of LIBSVM's duals, with what it needs to turn α into a model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DualKind {
    /// ν-SVC (LIBSVM `-s 1`): f = Σ y α/r k + b.
    NuSvc,
    /// One-class ν-SVM (`-s 2`): f = Σ α k − ρ.
    OneClass,
    /// ε-SVR (`-s 3`): f = Σ (α − α*) k − ρ.
    EpsilonSvr,
    /// ν-SVR (`-s 4`): as ε-SVR, with ε = −r learned.
    NuSvr,
}

impl DualKind {
    /// Whether the problem has the second equality constraint (LIBSVM's `Solver_NU`).
    pub fn two_constraints(self) -> bool {
        matches!(self, DualKind::NuSvc | DualKind::NuSvr)
    }

    /// LIBSVM's name for the model type.
    pub fn name(self) -> &'static str {
        match self {
            DualKind::NuSvc => "nu-SVC",
            DualKind::OneClass => "one-class",
            DualKind::EpsilonSvr => "epsilon-SVR",
            DualKind::NuSvr => "nu-SVR",
        }
    }
}

/// One of LIBSVM's box duals on a kernel matrix (see the module documentation).
#[derive(Clone, Debug)]
pub struct DualProblem<'a> {
    pub(crate) kernel: KernelMatrix<'a>,
    pub(crate) kind: DualKind,
    /// y_t = ±1, one per variable.
    pub(crate) y: Vec<f64>,
    /// The linear term p_t.
    pub(crate) p: Vec<f64>,
    /// Upper bounds C_t > 0.
    pub(crate) c: Vec<f64>,
    /// The feasible start.
    pub(crate) alpha0: Vec<f64>,
}

fn check_nu(nu: f64) -> Result<()> {
    if !(nu > 0.0 && nu <= 1.0) {
        return Err(FwsvmError::param(
            "nu",
            format!("must be in (0, 1], got {nu}"),
        ));
    }
    Ok(())
}

fn check_weights(weights: &[f64], m: usize) -> Result<()> {
    if weights.len() != m {
        return Err(FwsvmError::InvalidInput(format!(
            "X has {m} rows but there are {} weights",
            weights.len()
        )));
    }
    super::check_bounds(weights)
}

/// Fills `alpha` greedily up to `bound` with `total` (LIBSVM's feasible starts).
fn fill(alpha: &mut [f64], bound: &[f64], total: f64) {
    let mut left = total;
    for (a, &b) in alpha.iter_mut().zip(bound) {
        if left <= 0.0 {
            break;
        }
        *a = b.min(left);
        left -= *a;
    }
}

impl<'a> DualProblem<'a> {
    /// ν-SVC on labels `y` (±1, grouped: one class, then the other) with per-sample bounds `w`
    /// (the weights: C plays no part):
    /// Q = yyᵀ∘K, p = 0, 0 ≤ α ≤ w, yᵀα = 0, eᵀα = ν Σw; the start fills each class with
    /// ν Σw / 2 in row order.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidParameter`] for ν outside (0, 1] or infeasible for these classes
    /// (ν Σw / 2 > the smaller class's Σw: LIBSVM's "specified nu is infeasible").
    pub fn nu_svc(kernel: KernelMatrix<'a>, y: &[f64], w: &[f64], nu: f64) -> Result<Self> {
        check_nu(nu)?;
        super::check_svc_inputs(&kernel, y, w)?;
        if let Some(t) = (1..y.len()).find(|&t| y[t] != y[t - 1])
            && y[t..].iter().any(|&v| v != y[t])
        {
            return Err(FwsvmError::InvalidInput(
                "the nu-SVC's samples must come grouped by class (one class, then the other)"
                    .into(),
            ));
        }
        let (pos, neg) = super::class_totals(y, w);
        let half = nu * (pos + neg) / 2.0;
        if half > pos.min(neg) * (1.0 + 1e-12) {
            return Err(FwsvmError::param(
                "nu",
                format!(
                    "{nu} is infeasible for these classes: nu·(n₊ + n₋)/2 = {half} exceeds the smaller \
                     class's {} samples (weighted); use nu ≤ {}",
                    pos.min(neg),
                    2.0 * pos.min(neg) / (pos + neg)
                ),
            ));
        }
        let m = y.len();
        let mut alpha = vec![0.0; m];
        let (mut left_pos, mut left_neg) = (half, half);
        for t in 0..m {
            let left = if y[t] > 0.0 {
                &mut left_pos
            } else {
                &mut left_neg
            };
            alpha[t] = w[t].min(left.max(0.0));
            *left -= alpha[t];
        }
        Ok(DualProblem {
            kernel,
            kind: DualKind::NuSvc,
            y: y.to_vec(),
            p: vec![0.0; m],
            c: w.to_vec(),
            alpha0: alpha,
        })
    }

    /// One-class ν-SVM (Schölkopf et al. 2001) with per-sample bounds `w`: Q = K, p = 0,
    /// 0 ≤ α ≤ w, eᵀα = ν Σw; the start fills the first rows.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidParameter`] for ν outside (0, 1] or non-positive weights.
    pub fn one_class(kernel: KernelMatrix<'a>, w: &[f64], nu: f64) -> Result<Self> {
        check_nu(nu)?;
        let m = super::n_training_rows(&kernel)?;
        check_weights(w, m)?;
        super::check_gram(&kernel)?;
        let mut alpha = vec![0.0; m];
        fill(&mut alpha, w, nu * w.iter().sum::<f64>());
        Ok(DualProblem {
            kernel,
            kind: DualKind::OneClass,
            y: vec![1.0; m],
            p: vec![0.0; m],
            c: w.to_vec(),
            alpha0: alpha,
        })
    }

    /// ε-SVR on targets `z` with per-sample bounds `c` (C times the weights): variables α
    /// (y = +1, p = ε − z) then α* (y = −1, p = ε + z), 0 ≤ α, α* ≤ c, Σα − Σα* = 0; the start
    /// is 0.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidParameter`] for a negative or non-finite ε or non-positive bounds,
    /// [`FwsvmError::NonFinite`] for a non-finite target.
    pub fn epsilon_svr(
        kernel: KernelMatrix<'a>,
        z: &[f64],
        c: &[f64],
        epsilon: f64,
    ) -> Result<Self> {
        if !(epsilon.is_finite() && epsilon >= 0.0) {
            return Err(FwsvmError::param(
                "epsilon",
                format!("must be a non-negative finite number, got {epsilon}"),
            ));
        }
        let (y, c2) = Self::regression_inputs(&kernel, z, c)?;
        let p = z
            .iter()
            .map(|&zi| epsilon - zi)
            .chain(z.iter().map(|&zi| epsilon + zi))
            .collect();
        let n = y.len();
        Ok(DualProblem {
            kernel,
            kind: DualKind::EpsilonSvr,
            y,
            p,
            c: c2,
            alpha0: vec![0.0; n],
        })
    }

    /// ν-SVR on targets `z` with per-sample bounds `c`: as ε-SVR with p = (−z, z) and the second
    /// constraint Σα + Σα* = ν Σc; the start puts min(c_i, what is left of ν Σc / 2) on both α_i
    /// and α*_i in row order.
    ///
    /// # Errors
    /// As [`Self::epsilon_svr`], and ν outside (0, 1].
    pub fn nu_svr(kernel: KernelMatrix<'a>, z: &[f64], c: &[f64], nu: f64) -> Result<Self> {
        check_nu(nu)?;
        let (y, c2) = Self::regression_inputs(&kernel, z, c)?;
        let m = z.len();
        let mut alpha = vec![0.0; 2 * m];
        let mut left = nu * c.iter().sum::<f64>() / 2.0;
        for i in 0..m {
            let a = c[i].min(left.max(0.0));
            alpha[i] = a;
            alpha[i + m] = a;
            left -= a;
        }
        let p = z.iter().map(|&zi| -zi).chain(z.iter().copied()).collect();
        Ok(DualProblem {
            kernel,
            kind: DualKind::NuSvr,
            y,
            p,
            c: c2,
            alpha0: alpha,
        })
    }

    /// Checks a regression's inputs; returns the variables' y (+1 then −1) and bounds.
    fn regression_inputs(
        kernel: &KernelMatrix<'_>,
        z: &[f64],
        c: &[f64],
    ) -> Result<(Vec<f64>, Vec<f64>)> {
        let m = super::n_training_rows(kernel)?;
        crate::data::check_targets(z, m, None)?;
        check_weights(c, m)?;
        super::check_gram(kernel)?;
        let y = std::iter::repeat_n(1.0, m)
            .chain(std::iter::repeat_n(-1.0, m))
            .collect();
        let c2 = c.iter().chain(c).copied().collect();
        Ok((y, c2))
    }

    /// The kernel bound to the training data.
    pub fn kernel(&self) -> &KernelMatrix<'a> {
        &self.kernel
    }

    /// Which dual.
    pub fn kind(&self) -> DualKind {
        self.kind
    }

    /// Number of training samples m.
    pub fn n_samples(&self) -> usize {
        self.kernel.n_rows()
    }

    /// Number of variables (m, or 2m for the regressions).
    pub fn n_vars(&self) -> usize {
        self.y.len()
    }

    /// The labels y_t = ±1 of the variables.
    pub fn labels(&self) -> &[f64] {
        &self.y
    }

    /// The linear term p.
    pub fn linear(&self) -> &[f64] {
        &self.p
    }

    /// The upper bounds C_t.
    pub fn bounds(&self) -> &[f64] {
        &self.c
    }

    /// The feasible start.
    pub fn start(&self) -> &[f64] {
        &self.alpha0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseMatrix;
    use crate::kernel::Kernel;

    #[test]
    fn starts_are_feasible() {
        let x = DenseMatrix::new(vec![0.0, 1.0, 2.0, 3.0], 4, 1).unwrap();
        let km = || KernelMatrix::new(Kernel::rbf(1.0), x.view().into());
        let y = [1.0, 1.0, -1.0, -1.0];
        let w = [1.0; 4];
        let p = DualProblem::nu_svc(km(), &y, &w, 0.5).unwrap();
        let s: f64 = p.start().iter().zip(&y).map(|(a, b)| a * b).sum();
        assert!(s.abs() < 1e-15);
        assert!((p.start().iter().sum::<f64>() - 2.0).abs() < 1e-15);
        assert!(
            DualProblem::nu_svc(km(), &[1.0, 1.0, 1.0, -1.0], &w, 0.9).is_err()
                && DualProblem::nu_svc(km(), &[1.0, -1.0, 1.0, -1.0], &w, 0.5).is_err()
        );
        let p = DualProblem::one_class(km(), &w, 0.3).unwrap();
        assert!((p.start()[1] - 0.2).abs() < 1e-12 && p.start()[0] == 1.0 && p.start()[2] == 0.0);
        let p = DualProblem::nu_svr(km(), &[0.0, 1.0, 2.0, 3.0], &w, 0.5).unwrap();
        assert_eq!(p.n_vars(), 8);
        assert!((p.start().iter().sum::<f64>() - 2.0).abs() < 1e-15);
        assert!(DualProblem::epsilon_svr(km(), &[0.0; 4], &w, -1.0).is_err());
    }
}
