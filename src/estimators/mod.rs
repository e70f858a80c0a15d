//! The estimators: builder → checked parameters → fitted model (linfa's shape), on top of the
//! solvers and the models.
//!
//! - [`svc`]: [`Svc`](crate::Svc) → [`SvcModel`](crate::SvcModel), two classes or one-vs-one
//!   ([`multiclass`]), with Platt's probabilities ([`cross_validation`]);
//! - [`svr`]: [`Svr`](crate::Svr) → [`SvrModel`](crate::SvrModel);
//! - [`one_class`]: [`OneClass`](crate::OneClass) → [`OneClassModel`](crate::OneClassModel);
//! - [`libsvm_models`]: LIBSVM's one-class ν-SVM, ε-SVR and ν-SVR ([`EpsilonSvr`](crate::EpsilonSvr),
//!   [`NuSvr`](crate::NuSvr), [`NuOneClass`](crate::NuOneClass)) → [`DualModel`](crate::DualModel);
//!   ν-SVC is [`Svc`](crate::Svc) with [`SvcParams::nu`](crate::SvcParams::nu);
//! - [`sgd`]: `SGDSVC`'s mini-batch SGD for two or more classes (one-vs-rest);
//! - [`labels`]: class labels of any ordered type (integers, `bool`, `String`, …) for
//!   [`Svc`](crate::Svc), from slices or `ndarray::ArrayView1`
//!   ([`SvcParams::fit_labels`](crate::SvcParams::fit_labels)).
//!
//! They are also reachable under their earlier paths (`fwsvm::params`, `fwsvm::svr`,
//! `fwsvm::one_class`, `fwsvm::multiclass`, `fwsvm::cross_validation`).

/// Consuming builder setters `name(value) -> Self` that store `value` in a field (a path under
/// `self`), each with its doc comment.
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty => $($field:ident).+;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, $name: $ty) -> Self {
                self.$($field).+ = $name;
                self
            }
        )*
    };
}
pub(crate) use setters;

/// Builder methods that check the parameters and hand the call to the checked parameters'
/// method of the same name (generics in brackets), each with its doc comment.
macro_rules! checked_calls {
    ($($(#[$doc:meta])* fn $name:ident[$($generics:tt)*]($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $name<$($generics)*>(&self, $($arg: $ty),*) -> Result<$ret> {
                self.check()?.$name($($arg),*)
            }
        )*
    };
}
pub(crate) use checked_calls;

/// A builder's `fit(x, y)`: checks the parameters and calls the checked parameters' `fit`.
macro_rules! checked_fit {
    ($valid:ident -> $model:ty) => {
        #[doc = concat!("Checks the parameters and fits; see [`", stringify!($valid), "::fit`].")]
        ///
        /// # Errors
        #[doc = concat!("As [`Self::check`] and [`", stringify!($valid), "::fit`].")]
        pub fn fit<'x>(
            &self,
            x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
            y: &[f64],
        ) -> Result<$model> {
            self.check()?.fit(x, y)
        }
    };
}
pub(crate) use checked_fit;

/// `fit(x, y)`, with its doc comment: the checked parameters' `fit_weighted` without weights or
/// a monitor, for any `x` that converts to [`Features`].
macro_rules! fit_unweighted {
    ($(#[$doc:meta])* -> $model:ty) => {
        $(#[$doc])*
        pub fn fit<'x>(
            &self,
            x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
            y: &[f64],
        ) -> Result<$model> {
            let x = x.try_into().map_err(Into::into)?;
            self.fit_weighted($crate::Samples::new(x, y), &mut $crate::solver::NoMonitor)
        }
    };
}
pub(crate) use fit_unweighted;

/// The builder methods every estimator shares: the kernel and the solver's settings, for a
/// builder with a field `settings: FitSettings`.
macro_rules! solver_setters {
    () => {
        $crate::estimators::setters! {
            /// The kernel.
            kernel: Kernel => settings.kernel;
            /// The Frank-Wolfe variant.
            algorithm: Algorithm => settings.solver.algorithm;
            /// The stopping rule.
            stopping: Stopping => settings.solver.stopping;
            /// Maximum number of solver steps (`None`: no limit).
            max_iter: Option<u64> => settings.solver.max_iter;
            /// Wall-clock limit of the solve.
            time_limit: Option<Duration> => settings.solver.time_limit;
            /// Kernel-column cache budget in MB.
            cache_size_mb: f64 => settings.solver.cache_size_mb;
            /// Initialisation.
            init: Init => settings.solver.init;
            /// Seed for the random initialisation.
            seed: u64 => settings.solver.seed;
            /// Progress lines on stderr.
            verbose: bool => settings.solver.verbose;
            /// Shrinking (see [`SolverParams::shrinking`]): on by default.
            shrinking: bool => settings.solver.shrinking;
            /// The hinge loss's working set (see [`SolverParams::working_set`]): `None` (the
            /// default) chooses by the data, `Some(0)` takes per-step pairs, `Some(q)` blocked
            /// working sets of q samples.
            working_set: Option<usize> => settings.solver.working_set;
            /// Keep a per-step history in the model.
            record_history: bool => settings.solver.record_history;
            /// Threads for this fit (`None`: `FWSVM_NUM_THREADS`, else all cores).
            n_threads: Option<usize> => settings.n_threads;
        }

        /// Tolerance of the stopping rule.
        pub fn tol(mut self, tol: f64) -> Self {
            self.settings.tol = Some(tol);
            self
        }

        /// Replace all solver settings at once.
        pub fn solver(mut self, solver: SolverParams) -> Self {
            self.settings.tol = Some(solver.tol);
            self.settings.solver = solver;
            self
        }
    };
}
pub(crate) use solver_setters;

pub mod cross_validation;
pub mod labels;
pub mod libsvm_models;
pub mod multiclass;
pub mod one_class;
pub mod sgd;
pub mod svc;
pub mod svr;

use crate::data::Features;
use crate::error::{FwsvmError, Result};
use crate::kernel::Kernel;
use crate::model::SingleFit;
use crate::solver::{HistoryEntry, SolverParams, SolverStats};

/// Training data as the estimators' `fit_weighted` takes it: the samples, one target each
/// (class labels, regression targets; one-class fits ignore them) and optional per-sample
/// weights (a sample's penalty is C·w_i; weight 0 leaves it out, as scikit-learn does).
#[derive(Clone, Copy, Debug)]
pub struct Samples<'a> {
    /// One sample per row.
    pub x: Features<'a>,
    /// One target per row (empty for one-class).
    pub y: &'a [f64],
    /// One weight per row; `None`: all 1.
    pub weights: Option<&'a [f64]>,
}

impl<'a> Samples<'a> {
    /// `x` with targets `y`, unweighted.
    pub fn new(x: Features<'a>, y: &'a [f64]) -> Self {
        Samples {
            x,
            y,
            weights: None,
        }
    }

    /// The same samples with per-sample `weights` (`None`: unweighted).
    #[must_use]
    pub fn weighted(self, weights: Option<&'a [f64]>) -> Self {
        Samples { weights, ..self }
    }
}

/// The settings every builder has: the kernel, the solver's settings and the fit's threads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FitSettings {
    /// The tolerance when set explicitly (`None`: the estimator's default).
    pub(crate) tol: Option<f64>,
    pub(crate) kernel: Kernel,
    pub(crate) solver: SolverParams,
    /// Threads for the fit (`None`: `FWSVM_NUM_THREADS`, else all cores).
    pub(crate) n_threads: Option<usize>,
}

impl Default for FitSettings {
    /// RBF kernel with γ = 1, the solver's defaults, the estimator's tolerance, all threads.
    fn default() -> Self {
        FitSettings {
            tol: None,
            kernel: Kernel::rbf(1.0),
            solver: SolverParams::default(),
            n_threads: None,
        }
    }
}

impl FitSettings {
    /// The settings with the tolerance resolved (`default_tol` when unset), after checking the
    /// kernel, the thread count and the solver.
    pub(crate) fn checked(&self, default_tol: f64) -> Result<FitSettings> {
        self.kernel.validate()?;
        check_threads(self.n_threads)?;
        let solver = SolverParams {
            tol: self.tol.unwrap_or(default_tol),
            ..self.solver.clone()
        };
        solver.validate()?;
        Ok(FitSettings {
            solver,
            ..self.clone()
        })
    }

    /// The [`SingleFit`] of a solve with these settings on `x` with support vectors `support`.
    pub(crate) fn single_fit(
        &self,
        x: Features<'_>,
        support: Vec<usize>,
        stats: SolverStats,
        history: Vec<HistoryEntry>,
    ) -> SingleFit {
        SingleFit {
            kernel: self.kernel,
            vectors: x.select_rows(&support),
            support,
            stats: Some(stats),
            history,
        }
    }
}

/// `Err` naming parameter `name` unless `value` is positive and finite.
pub(crate) fn check_positive(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        return Ok(());
    }
    Err(FwsvmError::param(
        name,
        format!("must be a positive finite number, got {value}"),
    ))
}

/// `Err` naming `nu` unless it is in (0, 1] (the ν-SVC's, ν-SVR's and one-class ν-SVM's range).
pub(crate) fn check_nu(nu: f64) -> Result<()> {
    if nu > 0.0 && nu <= 1.0 {
        return Ok(());
    }
    Err(FwsvmError::param(
        "nu",
        format!("must be in (0, 1], got {nu}"),
    ))
}

/// `Err` naming `n_jobs` for a thread count of 0.
pub(crate) fn check_threads(n_threads: Option<usize>) -> Result<()> {
    if n_threads == Some(0) {
        return Err(FwsvmError::param(
            "n_jobs",
            "must be a positive number of threads",
        ));
    }
    Ok(())
}

/// The rows that take part in a fit: every row, or those of positive weight (samples of
/// weight 0 are left out, scikit-learn's convention).
pub(crate) fn weighted_rows(m: usize, sample_weight: Option<&[f64]>) -> Vec<usize> {
    (0..m)
        .filter(|&i| sample_weight.is_none_or(|w| w[i] > 0.0))
        .collect()
}

/// The penalties C·w_i of `rows` (C each without weights).
pub(crate) fn penalties(c: f64, rows: &[usize], sample_weight: Option<&[f64]>) -> Vec<f64> {
    rows.iter()
        .map(|&i| c * sample_weight.map_or(1.0, |w| w[i]))
        .collect()
}

/// The distinct class labels among `labels`, ascending.
pub(crate) fn sorted_classes(labels: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut classes: Vec<f64> = labels.into_iter().collect();
    classes.sort_by(f64::total_cmp);
    classes.dedup();
    classes
}

/// The checks every fit makes of its inputs: rows and columns, finite X, one target (labels or
/// targets, `what`) per row when given, finite and non-negative sample weights one per row.
pub(crate) fn check_fit_inputs(
    x: &Features<'_>,
    y: Option<(&[f64], &str)>,
    sample_weight: Option<&[f64]>,
) -> Result<()> {
    let m = x.n_rows();
    if m == 0 {
        return Err(FwsvmError::InvalidInput("X has no rows (0 samples)".into()));
    }
    if x.n_cols() == 0 {
        return Err(FwsvmError::InvalidInput(
            "X has no columns (0 features)".into(),
        ));
    }
    if let Some((y, what)) = y {
        crate::data::check_targets(y, m, Some(what))?;
    }
    if let Some(w) = sample_weight {
        crate::data::check_sample_weight(w, m)?;
    }
    x.check_finite("X")
}
