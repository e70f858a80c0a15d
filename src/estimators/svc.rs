//! Hyper-parameters: an unchecked builder ([`SvcParams`]), checked parameters
//! ([`SvcValidParams`]) and `fit`, which returns a [`SvcModel`] (linfa's three-type pattern).

use crate::Samples;
use std::time::Duration;

use super::FitSettings;
use crate::data::{FeatureMatrix, Features};
use crate::error::{FwsvmError, Result};
use crate::kernel::{Kernel, KernelMatrix};
use crate::model::SvcModel;
use crate::parallel::with_threads;
use crate::problem::dual::DualProblem;
use crate::problem::{BoxProblem, SimplexProblem};
use crate::solver::{
    Algorithm, Init, Monitor, SolverParams, Stopping, solve, solve_box, solve_dual,
};

/// The loss on the margin violations ξ_i = max(0, 1 − y_i f(x_i)), which decides the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Loss {
    /// C Σ ξ_i with a free bias: LIBSVM's (and scikit-learn's `SVC`) model, same C, same
    /// support vectors, solved by pairwise steps on its polytope (see [`solve_box`]). The
    /// tolerance is the maximal violation of the optimality conditions (LIBSVM's `-e`). The
    /// default: it is the model users compare with, and 1.3–6× faster to fit than the squared
    /// hinge on the benchmark suite (fewer support vectors; BENCHMARKS.md).
    #[default]
    Hinge,
    /// (C/2) Σ ξ_i² with a regularised bias: the L2-SVM of the Core Vector Machine, solved on
    /// the unit simplex by the Frank-Wolfe family (every [`Algorithm`], sampling).
    SquaredHinge,
}

impl Loss {
    /// The name used by the Python API (`"squared_hinge"`, `"hinge"`).
    pub fn name(&self) -> &'static str {
        match self {
            Loss::SquaredHinge => "squared_hinge",
            Loss::Hinge => "hinge",
        }
    }
}

impl Loss {
    /// The tolerance used when none is given: 1e-3 for the hinge loss (LIBSVM's and
    /// scikit-learn's `-e`/`tol`), a relative duality gap of 1e-2 for the squared hinge (the
    /// tolerance study in BENCHMARKS.md: tighter gaps did not change test accuracy).
    pub fn default_tol(&self) -> f64 {
        match self {
            Loss::Hinge => 1e-3,
            Loss::SquaredHinge => 1e-2,
        }
    }
}

impl std::str::FromStr for Loss {
    type Err = FwsvmError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "squared_hinge" => Ok(Loss::SquaredHinge),
            "hinge" => Ok(Loss::Hinge),
            _ => Err(FwsvmError::param(
                "loss",
                format!("unknown loss {s:?}; expected 'squared_hinge' or 'hinge'"),
            )),
        }
    }
}

/// Entry point of the SVC (hinge loss by default, or the L2-SVC of the simplex solvers): `Svc::params().c(1.0).kernel(Kernel::rbf(0.1)).fit(&x, &y)`.
///
/// Two classes give one binary model; more give one per pair of classes (one-vs-one, as
/// LIBSVM), in one [`SvcModel`] either way:
///
/// ```
/// use fwsvm::{DenseMatrix, Kernel, Svc, SvcModel};
///
/// let x = DenseMatrix::from_rows(&[
///     [0.0, 0.0], [0.2, 0.1], [3.0, 0.0], [3.1, 0.3], [0.0, 3.0], [0.2, 3.2],
/// ])
/// .unwrap();
/// let y = [1.0, 1.0, 2.0, 2.0, 3.0, 3.0];
/// let model = Svc::params().c(10.0).kernel(Kernel::rbf(0.5)).fit(&x, &y).unwrap();
/// assert_eq!(model.predict(&x).unwrap(), y.to_vec());
/// assert_eq!(model.decision_function(&x).unwrap().len(), 6 * 3); // one value per pair
///
/// // Saved models load here and in Python (`fwsvm.load_model`).
/// let path = std::env::temp_dir().join("fwsvm-doc-svc.fwm");
/// model.save(&path).unwrap();
/// assert_eq!(SvcModel::load(&path).unwrap().predict(&x).unwrap(), y.to_vec());
/// # std::fs::remove_file(&path).ok();
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Svc;

impl Svc {
    /// Default parameters: the hinge loss (LIBSVM's model), C = 1, RBF kernel with γ = 1,
    /// pairwise second-order steps, the loss's default tolerance ([`Loss::default_tol`]).
    pub fn params() -> SvcParams {
        SvcParams::default()
    }
}

/// Unchecked SVC hyper-parameters (a consuming builder).
#[derive(Debug, Clone, PartialEq)]
pub struct SvcParams {
    c: f64,
    loss: Loss,
    /// Kernel, solver and threads (the tolerance when unset: the loss's default).
    settings: FitSettings,
    warm_start: Option<Vec<f64>>,
    probability: bool,
    /// `Some(ν)`: the ν-SVC (C plays no part).
    nu: Option<f64>,
}

impl Default for SvcParams {
    fn default() -> Self {
        SvcParams {
            c: 1.0,
            loss: Loss::Hinge,
            settings: FitSettings::default(),
            warm_start: None,
            probability: false,
            nu: None,
        }
    }
}

impl SvcParams {
    super::setters! {
        /// The penalty C > 0 of the squared slacks (larger C: fewer margin violations).
        c: f64 => c;
        /// The loss (see [`Loss`]): the squared hinge by default.
        loss: Loss => loss;
        /// `Some(ν)`, ν ∈ (0, 1]: the ν-SVC (LIBSVM's `-s 1`, scikit-learn's `NuSVC`) instead of
        /// the C-SVC: ν bounds the fraction of margin errors from above and of support vectors
        /// from below, and C is not used. Hinge loss only.
        nu: Option<f64> => nu;
    }

    super::solver_setters!();

    super::setters! {
        /// Start the binary fit from the simplex weights α of a previous one (one entry per
        /// training row, e.g. [`SvcModel::alpha`] scattered to [`SvcModel::support`]): α stays
        /// feasible when C, γ or the kernel change, and new rows start at 0. Ignored by
        /// one-vs-one fits.
        warm_start: Option<Vec<f64>> => warm_start;
        /// Also fit class probabilities (LIBSVM's `-b 1`): Platt's sigmoid per pair of classes on
        /// 5-fold cross-validated decision values (five more fits; see
        /// [`SvcValidParams::fit_probability`]), for [`SvcModel::predict_proba`].
        probability: bool => probability;
    }

    /// Validates every parameter.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidParameter`] naming the first invalid one.
    pub fn check(&self) -> Result<SvcValidParams> {
        super::check_positive("C", self.c)?;
        self.settings.kernel.validate()?;
        self.settings.solver.validate()?;
        if let Some(nu) = self.nu {
            super::check_nu(nu)?;
            if self.loss != Loss::Hinge {
                return Err(FwsvmError::param(
                    "loss",
                    "the nu-SVC is a hinge-loss model; the squared hinge has no nu form",
                ));
            }
        }
        if self.loss == Loss::Hinge {
            if !matches!(
                self.settings.solver.algorithm,
                Algorithm::Swap | Algorithm::Swap2o
            ) {
                return Err(FwsvmError::param(
                    "algorithm",
                    format!(
                        "the hinge loss is solved by pairwise steps with second-order partners \
                         ('swap' or 'swap2o'), not '{}'",
                        self.settings.solver.algorithm
                    ),
                ));
            }
            if self.settings.solver.sample_size.is_some() {
                return Err(FwsvmError::param(
                    "sample_size",
                    "sampling applies to the squared hinge (the simplex problem) only",
                ));
            }
            if self.settings.solver.stopping != Stopping::RelativeGap {
                return Err(FwsvmError::param(
                    "stopping",
                    format!(
                        "the hinge loss stops when the largest violation of its optimality \
                         conditions is at most tol; the '{}' rule applies to the squared hinge",
                        self.settings.solver.stopping.name()
                    ),
                ));
            }
        }
        if self.settings.solver.algorithm == Algorithm::Dcd {
            let problem = if self.settings.kernel != Kernel::Linear {
                Some(format!("kernel '{}'", self.settings.kernel.name()))
            } else if self.loss == Loss::Hinge {
                Some("the hinge loss (its free bias couples the coordinates)".to_string())
            } else if self.settings.solver.sample_size.is_some() {
                Some("sample_size".to_string())
            } else if self.settings.solver.stopping != Stopping::RelativeGap {
                Some(format!(
                    "stopping '{}'",
                    self.settings.solver.stopping.name()
                ))
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(FwsvmError::param(
                    "algorithm",
                    format!(
                        "'dcd' (dual coordinate descent with an explicit w) is for the linear kernel \
                         with the squared hinge and the relative-gap rule; it does not apply with {problem}"
                    ),
                ));
            }
        }
        let settings = self.settings.checked(self.loss.default_tol())?;
        Ok(SvcValidParams(SvcParams {
            settings,
            ..self.clone()
        }))
    }

    super::checked_fit!(SvcValidParams -> SvcModel);
}

/// Checked SVC hyper-parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SvcValidParams(SvcParams);

impl SvcValidParams {
    crate::model::getters! {
        /// C.
        c: f64 = 0.c;
        /// The loss.
        loss: Loss = 0.loss;
        /// The kernel.
        kernel: Kernel = 0.settings.kernel;
        /// The solver settings.
        solver: &SolverParams = 0.settings.solver;
        /// Threads for the fit.
        n_threads: Option<usize> = 0.settings.n_threads;
        /// Whether fits also compute class probabilities.
        probability: bool = 0.probability;
        /// ν of a ν-SVC (`None`: the C-SVC).
        nu: Option<f64> = 0.nu;
    }

    /// These parameters without probabilities or a warm start (the cross-validation fits').
    pub(crate) fn without_probability(&self) -> SvcValidParams {
        SvcValidParams(SvcParams {
            probability: false,
            warm_start: None,
            ..self.0.clone()
        })
    }

    super::fit_unweighted! {
        /// Fits on `x` with labels `y`: two classes give one binary model, more give one per
        /// pair of classes (one-vs-one, LIBSVM's scheme; see [`SvcModel`]).
        ///
        /// # Errors
        /// [`FwsvmError::InvalidInput`] / [`FwsvmError::NonFinite`] for bad data,
        /// [`FwsvmError::Classes`] if `y` has a single class.
        -> SvcModel
    }

    /// Fits with optional per-sample weights (each sample's penalty is C·w_i; samples with
    /// weight 0 are left out) and a [`Monitor`] for progress and interrupts. More than two
    /// classes are fitted one-vs-one ([`Self::fit_ovo`]); the warm start applies to two.
    ///
    /// # Errors
    /// As [`Self::fit`], plus [`FwsvmError::InvalidInput`] for negative or non-finite weights and
    /// whatever the monitor returns.
    pub fn fit_weighted(
        &self,
        data: Samples<'_>,
        monitor: &mut (dyn Monitor + Send),
    ) -> Result<SvcModel> {
        let Samples {
            x,
            y,
            weights: sample_weight,
        } = data;
        super::check_fit_inputs(&x, Some((y, "labels")), sample_weight)?;
        let rows = super::weighted_rows(x.n_rows(), sample_weight);
        let classes = super::sorted_classes(rows.iter().map(|&i| y[i]));
        let mut model = match classes[..] {
            [] => {
                return Err(FwsvmError::Classes(
                    "y is empty (every sample has zero weight)".into(),
                ));
            }
            [single] => {
                return Err(FwsvmError::Classes(format!(
                    "y contains a single class ({single}); a classifier needs two"
                )));
            }
            [negative, positive] => {
                self.fit_two_classes(x, y, [negative, positive], &rows, sample_weight, monitor)?
            }
            _ => self.fit_ovo(data, monitor)?.into_model(x, y, self)?,
        };
        if self.0.probability {
            let (a, b) = with_threads(self.0.settings.n_threads, || {
                self.fit_probability(data, 5, monitor)
            })??;
            model.prob_a = a;
            model.prob_b = b;
        }
        Ok(model)
    }

    /// The model of two classes (ascending) on `rows`, those of positive weight.
    fn fit_two_classes(
        &self,
        x: Features<'_>,
        y: &[f64],
        classes: [f64; 2],
        rows: &[usize],
        sample_weight: Option<&[f64]>,
        monitor: &mut (dyn Monitor + Send),
    ) -> Result<SvcModel> {
        let m = x.n_rows();
        let params = &self.0;
        let y_pm: Vec<f64> = rows
            .iter()
            .map(|&i| if y[i] == classes[1] { 1.0 } else { -1.0 })
            .collect();
        let c = super::penalties(params.c, rows, sample_weight);
        if let Some(w) = &params.warm_start
            && w.len() != m
        {
            return Err(FwsvmError::param(
                "warm_start",
                format!("has {} weights but X has {m} rows", w.len()),
            ));
        }
        with_threads(params.settings.n_threads, || {
            let fit = self.fit_binary(x, rows, &y_pm, &c, params.warm_start.as_deref(), monitor)?;
            build_model(x, fit, &y_pm, classes, self)
        })?
    }
}

/// A solved binary problem on a subset of rows: support vectors (as original row indices,
/// negative class first), coefficients y α / ρ, bias and statistics.
#[derive(Clone, Debug)]
pub(crate) struct BinaryFit {
    /// Positions in the `rows` passed to the fit (local indices), in output order.
    pub local_support: Vec<usize>,
    /// Original row indices of the support vectors.
    pub support: Vec<usize>,
    pub coef: Vec<f64>,
    pub alpha: Vec<f64>,
    pub intercept: f64,
    pub solution_stats: crate::solver::SolverStats,
    pub history: Vec<crate::solver::HistoryEntry>,
}

impl BinaryFit {
    /// The hinge-loss solution as a fit: f = Σ y_i α_i k(x_i, ·) + b, no rescaling.
    /// The fit from the weights `alpha` (one per local row): support vectors in scikit-learn's
    /// order (negative class first, ascending index within a class), coefficients
    /// y_i α_i · scale and the intercept, both from `scale_and_intercept` of the ordered
    /// support (so each formulation states only its own scaling).
    fn from_alpha(
        rows: &[usize],
        y_pm: &[f64],
        alpha: &[f64],
        scale_and_intercept: impl FnOnce(&[usize]) -> (f64, f64),
        solution_stats: crate::solver::SolverStats,
        history: Vec<crate::solver::HistoryEntry>,
    ) -> Self {
        let mut local: Vec<usize> = (0..y_pm.len()).filter(|&i| alpha[i] > 0.0).collect();
        local.sort_by_key(|&i| (y_pm[i] > 0.0, i));
        let (scale, intercept) = scale_and_intercept(&local);
        BinaryFit {
            support: local.iter().map(|&i| rows[i]).collect(),
            coef: local.iter().map(|&i| y_pm[i] * alpha[i] * scale).collect(),
            alpha: local.iter().map(|&i| alpha[i]).collect(),
            intercept,
            local_support: local,
            solution_stats,
            history,
        }
    }
}

impl SvcValidParams {
    /// Solves the L2-SVC on `rows` of `x` with labels `y_pm` (±1) and penalties `c` (both
    /// indexed like `rows`), optionally warm-started from `warm` (one weight per row of `x`).
    /// Copies the rows only when they are a strict subset.
    pub(crate) fn fit_binary(
        &self,
        x: Features<'_>,
        rows: &[usize],
        y_pm: &[f64],
        c: &[f64],
        warm: Option<&[f64]>,
        monitor: &mut (dyn Monitor + Send),
    ) -> Result<BinaryFit> {
        let params = &self.0;
        let kept = crate::cross_validation::row_subset(x, params.settings.kernel, rows);
        let x_used = kept.as_ref().map_or(x, FeatureMatrix::view);
        // The solver settings, with the warm start's weights for these rows.
        let warm_solver;
        let solver = match warm {
            Some(w) => {
                warm_solver = SolverParams {
                    warm_start: Some(rows.iter().map(|&r| w[r]).collect()),
                    ..params.settings.solver.clone()
                };
                &warm_solver
            }
            None => &params.settings.solver,
        };
        if let Some(nu) = params.nu {
            return self.fit_nu(x, rows, y_pm, c, nu, solver, monitor);
        }
        if params.loss == Loss::Hinge {
            // f = Σ y α k + b as solved: no rescaling.
            let problem =
                BoxProblem::hinge_svc(KernelMatrix::new(params.settings.kernel, x_used), y_pm, c)?;
            let solution = solve_box(&problem, solver, monitor)?;
            let bias = solution.bias;
            return Ok(BinaryFit::from_alpha(
                rows,
                y_pm,
                &solution.alpha,
                |_| (1.0, bias),
                solution.stats,
                solution.history,
            ));
        }
        // The linear path reads the rows directly: no kernel matrix (its norms, bit tables or
        // feature-major copy) is built for it.
        let solution = if solver.algorithm == Algorithm::Dcd {
            crate::solver::solve_linear(x_used, y_pm, c, solver, monitor)?
        } else {
            let problem =
                SimplexProblem::l2_svc(KernelMatrix::new(params.settings.kernel, x_used), y_pm, c)?;
            solve(&problem, solver, monitor)?
        };
        let quadratic = solution.stats.quadratic;
        let alpha = &solution.alpha;
        // Canonical scaling (margin 1). CVM form: f = Σ y α (k + 1) / ρ with ρ = αᵀQα. `ky`
        // (nearest point, threshold γ): f = (2/W)(Σ y α k − γ) with W = αᵀQα (see the `ky`
        // module). A non-positive αᵀQα (indefinite sigmoid kernel) keeps the unscaled expansion.
        let positive = quadratic.is_finite() && quadratic > 0.0;
        let threshold = solution.threshold;
        Ok(BinaryFit::from_alpha(
            rows,
            y_pm,
            alpha,
            |local| match threshold {
                Some(gamma) => {
                    let s = if positive { 2.0 / quadratic } else { 1.0 };
                    (s, -gamma * s)
                }
                None => {
                    let s = if positive { 1.0 / quadratic } else { 1.0 };
                    let bias: f64 = local.iter().map(|&i| y_pm[i] * alpha[i]).sum();
                    (s, bias * s)
                }
            },
            solution.stats,
            solution.history,
        ))
    }
}

impl SvcValidParams {
    /// The ν-SVC on `rows` (LIBSVM's `solve_nu_svc`): the bounds are the weights (c / C), the
    /// variables go to the solver sorted by class (its two constraints are per class; the
    /// feasible start fills each class in row order either way), and f = Σ y α/r k − ρ/r.
    #[allow(clippy::too_many_arguments)]
    fn fit_nu(
        &self,
        x: Features<'_>,
        rows: &[usize],
        y_pm: &[f64],
        c: &[f64],
        nu: f64,
        solver: &SolverParams,
        monitor: &mut (dyn Monitor + Send),
    ) -> Result<BinaryFit> {
        let params = &self.0;
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by_key(|&k| y_pm[k] < 0.0);
        let sorted_rows: Vec<usize> = order.iter().map(|&k| rows[k]).collect();
        let data = crate::cross_validation::training_part(x, params.settings.kernel, &sorted_rows);
        let y_sorted: Vec<f64> = order.iter().map(|&k| y_pm[k]).collect();
        let w: Vec<f64> = order.iter().map(|&k| c[k] / params.c).collect();
        let problem = DualProblem::nu_svc(
            KernelMatrix::new(params.settings.kernel, data.view()),
            &y_sorted,
            &w,
            nu,
        )?;
        let solution = solve_dual(&problem, solver, monitor)?;
        let mut alpha = vec![0.0; rows.len()];
        for (p, &k) in order.iter().enumerate() {
            alpha[k] = solution.alpha[p];
        }
        let (rho, r) = (solution.rho, solution.r);
        Ok(BinaryFit::from_alpha(
            rows,
            y_pm,
            &alpha,
            |_| (1.0 / r, -rho / r),
            solution.stats,
            solution.history,
        ))
    }
}

/// Wraps a binary fit (rows of `x`) as a [`SvcModel`].
fn build_model(
    x: Features<'_>,
    fit: BinaryFit,
    y_pm_rows: &[f64],
    classes: [f64; 2],
    params: &SvcValidParams,
) -> Result<SvcModel> {
    let n_neg = fit
        .local_support
        .iter()
        .filter(|&&i| y_pm_rows[i] < 0.0)
        .count();
    let model = SvcModel {
        classes: classes.to_vec(),
        kernel: params.kernel(),
        vectors: x.select_rows(&fit.support),
        n_support: vec![n_neg, fit.support.len() - n_neg],
        support: fit.support,
        dual_coef: fit.coef,
        intercept: vec![fit.intercept],
        alpha: fit.alpha,
        prob_a: Vec::new(),
        prob_b: Vec::new(),
        label_order: Vec::new(),
        stats: vec![fit.solution_stats],
        history: vec![fit.history],
        params: params.file_params(),
    };
    model.check()?;
    Ok(model)
}

impl SvcValidParams {
    /// The parameters as the model file (and Python's `SVC`) spells them.
    pub(crate) fn file_params(&self) -> serde_json::Map<String, serde_json::Value> {
        let p = &self.0;
        let mut out = crate::model_file::kernel_params(p.settings.kernel);
        out.insert("C".into(), p.c.into());
        out.insert("loss".into(), p.loss.name().into());
        out.insert("probability".into(), p.probability.into());
        if let Some(nu) = p.nu {
            out.insert("nu".into(), nu.into());
        }
        out.extend(crate::model_file::solver_params(&p.settings.solver));
        out
    }
}
