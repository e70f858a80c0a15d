//! LIBSVM's one-class ν-SVM, ε-SVR and ν-SVR (`-s 2`, `-s 3`, `-s 4`) as builders →
//! checked parameters → [`DualModel`], solved by the box SMO of [`crate::solver::solve_dual`].
//! (ν-SVC, `-s 1`, is [`Svc`](crate::Svc) with [`SvcParams::nu`](crate::SvcParams::nu): it
//! shares the classifier's one-vs-one layout, votes and probabilities.)
//!
//! The models, parameters and defaults are LIBSVM's and scikit-learn's (`SVR(epsilon=0.1)`,
//! `NuSVR(nu=0.5, C=1)`, `OneClassSVM(nu=0.5)`), with the same optimum: decision values agree
//! with theirs to the tolerance.
//!
//! ```
//! use fwsvm::{DenseMatrix, EpsilonSvr, Kernel, NuOneClass};
//!
//! let x = DenseMatrix::from_rows(&[[0.0], [1.0], [2.0], [3.0], [4.0]]).unwrap();
//! let y = [0.0, 1.0, 2.0, 3.0, 4.0];
//! let model = EpsilonSvr::params().c(10.0).epsilon(0.1).kernel(Kernel::Linear).fit(&x, &y).unwrap();
//! let fitted = model.predict(&x).unwrap();
//! assert!(fitted.iter().zip(&y).all(|(f, t)| (f - t).abs() <= 0.1 + 1e-3));
//!
//! let inliers = NuOneClass::params().nu(0.5).kernel(Kernel::rbf(0.5)).fit(&x, &[]).unwrap();
//! assert_eq!(inliers.predict(&x).unwrap().len(), 5);
//! ```

use crate::Samples;
use std::time::Duration;

use super::FitSettings;
use crate::data::{FeatureMatrix, Features};
use crate::error::{FwsvmError, Result};
use crate::kernel::{Kernel, KernelMatrix};
use crate::model::DualModel;
use crate::parallel::with_threads;
use crate::problem::dual::{DualKind, DualProblem};
use crate::solver::{Algorithm, Init, Monitor, SolverParams, Stopping, solve_dual};

/// Entry point of the ε-SVR: `EpsilonSvr::params().c(1.0).epsilon(0.1).fit(&x, &y)`.
#[derive(Debug, Clone, Copy)]
pub struct EpsilonSvr;

impl EpsilonSvr {
    /// LIBSVM's defaults: C = 1, ε = 0.1, RBF kernel with γ = 1, tol 1e-3.
    pub fn params() -> DualParams {
        DualParams::new(DualKind::EpsilonSvr)
    }
}

/// Entry point of the ν-SVR: `NuSvr::params().c(1.0).nu(0.5).fit(&x, &y)`.
#[derive(Debug, Clone, Copy)]
pub struct NuSvr;

impl NuSvr {
    /// scikit-learn's defaults: C = 1, ν = 0.5, RBF kernel with γ = 1, tol 1e-3.
    pub fn params() -> DualParams {
        DualParams::new(DualKind::NuSvr)
    }
}

/// Entry point of the one-class ν-SVM: `NuOneClass::params().nu(0.5).fit(&x, &[])`.
#[derive(Debug, Clone, Copy)]
pub struct NuOneClass;

impl NuOneClass {
    /// scikit-learn's defaults: ν = 0.5, RBF kernel with γ = 1, tol 1e-3.
    pub fn params() -> DualParams {
        DualParams::new(DualKind::OneClass)
    }
}

/// Unchecked hyper-parameters of a one-class ν-SVM, ε-SVR or ν-SVR (a consuming builder).
#[derive(Debug, Clone, PartialEq)]
pub struct DualParams {
    kind: DualKind,
    c: f64,
    nu: f64,
    epsilon: f64,
    settings: FitSettings,
    probability: bool,
    /// ε-SVR: a previous fit's coefficients β = α − α*, one per training row.
    warm_start: Option<Vec<f64>>,
}

impl DualParams {
    fn new(kind: DualKind) -> Self {
        DualParams {
            kind,
            c: 1.0,
            nu: 0.5,
            epsilon: 0.1,
            settings: FitSettings::default(),
            probability: false,
            warm_start: None,
        }
    }

    super::setters! {
        /// The penalty C > 0 of the regressions (one-class has none).
        c: f64 => c;
        /// ν ∈ (0, 1] of ν-SVR and one-class: a bound on the fraction of margin errors and of
        /// support vectors.
        nu: f64 => nu;
        /// ε ≥ 0 of the ε-SVR: the half-width of the tube without loss.
        epsilon: f64 => epsilon;
        /// Regressions: also fit the Laplace scale of the residuals on 5-fold cross-validation
        /// (LIBSVM's `-b 1`, its `probA`).
        probability: bool => probability;
        /// ε-SVR: start from a previous fit's coefficients β_i = α_i − α*_i, one per training row
        /// (0 off its support; rows appended since start at 0), already scaled to this fit's C (a
        /// fit at C′ gives β·C/C′: bounds and Σβ = 0 hold, LIBSVM's warm start along a C path). The
        /// start α_i = max(β_i, 0), α*_i = max(−β_i, 0) is used when it is feasible for this fit
        /// (within the bounds, Σβ = 0); otherwise the fit starts from 0, as without it. The
        /// optimum is the same; only the number of steps changes.
        warm_start: Option<Vec<f64>> => warm_start;
    }

    super::solver_setters!();

    /// Validates every parameter.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidParameter`] naming the first invalid one.
    pub fn check(&self) -> Result<DualValidParams> {
        if self.warm_start.is_some() && self.kind != DualKind::EpsilonSvr {
            return Err(FwsvmError::param(
                "warm_start",
                "applies to the epsilon-SVR (its feasible set does not move with C or epsilon)",
            ));
        }
        if let Some(b) = self
            .warm_start
            .as_ref()
            .and_then(|w| w.iter().find(|b| !b.is_finite()))
        {
            return Err(FwsvmError::param(
                "warm_start",
                format!("holds a non-finite coefficient ({b})"),
            ));
        }
        super::check_positive("C", self.c)?;
        if self.kind != DualKind::EpsilonSvr {
            super::check_nu(self.nu)?;
        }
        if !(self.epsilon.is_finite() && self.epsilon >= 0.0) {
            return Err(FwsvmError::param(
                "epsilon",
                format!("must be a non-negative finite number, got {}", self.epsilon),
            ));
        }
        if self.probability && self.kind == DualKind::OneClass {
            return Err(FwsvmError::param(
                "probability",
                "applies to the regressions (LIBSVM's Laplace scale), not to one-class",
            ));
        }
        let mut checked = self.clone();
        checked.settings = self.settings.checked(1e-3)?;
        Ok(DualValidParams(checked))
    }

    super::checked_fit!(DualValidParams -> DualModel);
}

/// Checked hyper-parameters of a one-class ν-SVM, ε-SVR or ν-SVR.
#[derive(Debug, Clone, PartialEq)]
pub struct DualValidParams(DualParams);

impl DualValidParams {
    crate::model::getters! {
        /// The solver settings.
        solver: &SolverParams = 0.settings.solver;
        /// Which model.
        kind: DualKind = 0.kind;
        /// The kernel.
        kernel: Kernel = 0.settings.kernel;
    }

    /// Fits with optional per-sample weights (bounds C·w_i, or w_i for one-class; samples of
    /// weight 0 are left out, as scikit-learn does) and a [`Monitor`].
    ///
    /// # Errors
    /// As [`Self::fit`], plus whatever the monitor returns.
    pub fn fit_weighted(
        &self,
        data: Samples<'_>,
        monitor: &mut (dyn Monitor + Send),
    ) -> Result<DualModel> {
        let regression = self.0.kind != DualKind::OneClass;
        let targets = regression.then_some((data.y, "targets"));
        super::check_fit_inputs(&data.x, targets, data.weights)?;
        let rows = super::weighted_rows(data.x.n_rows(), data.weights);
        if rows.is_empty() {
            return Err(FwsvmError::InvalidInput(
                "every sample has zero weight".into(),
            ));
        }
        let mut model = with_threads(self.0.settings.n_threads, || {
            self.fit_rows(data, &rows, monitor)
        })??;
        if self.0.probability && regression {
            model.sigma = Some(with_threads(self.0.settings.n_threads, || {
                self.laplace_scale(&rows, data, monitor)
            })??);
        }
        Ok(model)
    }

    super::fit_unweighted! {
        /// Fits on `x` (and targets `y` for the regressions; one-class ignores it).
        ///
        /// # Errors
        /// [`FwsvmError::InvalidInput`] / [`FwsvmError::NonFinite`] for bad data.
        -> DualModel
    }

    /// The fit on `rows` of `x` (original indices in the model's support).
    fn fit_rows(
        &self,
        data: Samples<'_>,
        rows: &[usize],
        monitor: &mut (dyn Monitor + Send),
    ) -> Result<DualModel> {
        let (p, x, y, weights) = (&self.0, data.x, data.y, data.weights);
        let kept = crate::cross_validation::row_subset(x, p.settings.kernel, rows);
        let x_used = kept.as_ref().map_or(x, FeatureMatrix::view);
        let w = super::penalties(1.0, rows, weights);
        let km = KernelMatrix::new(p.settings.kernel, x_used);
        let problem = match p.kind {
            DualKind::OneClass => DualProblem::one_class(km, &w, p.nu)?,
            DualKind::EpsilonSvr | DualKind::NuSvr => {
                let z: Vec<f64> = rows.iter().map(|&i| y[i]).collect();
                let c = super::penalties(p.c, rows, weights);
                if p.kind == DualKind::EpsilonSvr {
                    let mut problem = DualProblem::epsilon_svr(km, &z, &c, p.epsilon)?;
                    if let Some(start) = p
                        .warm_start
                        .as_ref()
                        .and_then(|beta| warm_alpha(beta, rows, &c, x.n_rows()))
                    {
                        problem.alpha0 = start;
                    }
                    problem
                } else {
                    DualProblem::nu_svr(km, &z, &c, p.nu)?
                }
            }
            DualKind::NuSvc => unreachable!("nu-SVC is fitted by Svc"),
        };
        let solution = solve_dual(&problem, &p.settings.solver, monitor)?;
        let n = rows.len();
        let a = &solution.alpha;
        let beta: Vec<f64> = if a.len() == 2 * n {
            (0..n).map(|i| a[i] - a[i + n]).collect()
        } else {
            a.clone()
        };
        let local: Vec<usize> = (0..n).filter(|&i| beta[i] != 0.0).collect();
        let support: Vec<usize> = local.iter().map(|&i| rows[i]).collect();
        Ok(DualModel {
            kind: p.kind,
            coef: local.iter().map(|&i| beta[i]).collect(),
            fit: p
                .settings
                .single_fit(x, support, solution.stats, solution.history),
            rho: solution.rho,
            epsilon: match p.kind {
                DualKind::EpsilonSvr => p.epsilon,
                DualKind::NuSvr => -solution.r,
                _ => 0.0,
            },
            sigma: None,
        })
    }

    /// LIBSVM's `svm_svr_probability`: the mean absolute residual of 5-fold cross-validated
    /// predictions, without the residuals beyond 5√2 times the first mean.
    fn laplace_scale(
        &self,
        rows: &[usize],
        data: Samples<'_>,
        monitor: &mut (dyn Monitor + Send),
    ) -> Result<f64> {
        let folds =
            crate::cross_validation::shuffled_folds(rows.len(), 5, self.0.settings.solver.seed);
        let inner = DualValidParams(DualParams {
            probability: false,
            warm_start: None,
            settings: FitSettings {
                solver: SolverParams {
                    verbose: false,
                    record_history: false,
                    ..self.0.settings.solver.clone()
                },
                ..self.0.settings.clone()
            },
            ..self.0.clone()
        });
        let mut residual = vec![0.0; rows.len()];
        for k in 0..5 {
            let (train, test): (Vec<usize>, Vec<usize>) =
                (0..rows.len()).partition(|&t| folds[t] != k);
            if test.is_empty() || train.is_empty() {
                continue;
            }
            let train_rows: Vec<usize> = train.iter().map(|&t| rows[t]).collect();
            let test_rows: Vec<usize> = test.iter().map(|&t| rows[t]).collect();
            let model = inner.fit_rows(data, &train_rows, monitor)?;
            // With a precomputed kernel the held-out rows are their kernel values against
            // every training row, as the model's decision function reads them.
            let values = model.decision_function(data.x.select_rows(&test_rows).view())?;
            for (&t, &f) in test.iter().zip(&values) {
                residual[t] = data.y[rows[t]] - f;
            }
        }
        let n = residual.len() as f64;
        let mae = residual.iter().map(|r| r.abs()).sum::<f64>() / n;
        let std = (2.0 * mae * mae).sqrt();
        let kept: Vec<f64> = residual
            .iter()
            .map(|r| r.abs())
            .filter(|&r| r <= 5.0 * std)
            .collect();
        Ok(kept.iter().sum::<f64>() / kept.len().max(1) as f64)
    }
}

/// The ε-SVR start (α, α*) on `rows` from coefficients `beta` (one per training row of
/// `n_rows`): α_i = max(β_i, 0), α*_i = max(−β_i, 0); `None` unless it is feasible for the
/// bounds `c` (within 1e-12 relative) with Σ(α − α*) = 0 (to rounding).
fn warm_alpha(beta: &[f64], rows: &[usize], c: &[f64], n_rows: usize) -> Option<Vec<f64>> {
    if beta.len() > n_rows {
        return None;
    }
    let n = rows.len();
    let mut alpha = vec![0.0; 2 * n];
    let (mut sum, mut scale) = (0.0, 0.0);
    for (i, &row) in rows.iter().enumerate() {
        let b = beta.get(row).copied().unwrap_or(0.0);
        if b.abs() > c[i] * (1.0 + 1e-12) {
            return None;
        }
        let b = b.clamp(-c[i], c[i]);
        alpha[i] = b.max(0.0);
        alpha[i + n] = (-b).max(0.0);
        sum += b;
        scale += b.abs();
    }
    (sum.abs() <= 1e-10 * scale.max(f64::MIN_POSITIVE)).then_some(alpha)
}
