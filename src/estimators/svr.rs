//! [`Svr`]: the L2-SVR with a learned tube width (see [`crate::problem::svr`]) as a builder
//! → checked parameters → [`SvrModel`], like [`Svc`](crate::Svc).
//!
//! As Python's `fwsvm.SVR`: targets are standardised (centred, scaled to unit variance) so
//! that C and ν do not depend on the units of y, ν defaults to 0.2 · n_samples, and the tube
//! width ε is read from the KKT conditions on the support vectors (their median).
//!
//! ```
//! use fwsvm::{DenseMatrix, Kernel, Svr};
//!
//! let rows: Vec<[f64; 1]> = (0..40).map(|i| [i as f64 / 8.0]).collect();
//! let x = DenseMatrix::from_rows(&rows).unwrap();
//! let y: Vec<f64> = rows.iter().map(|r| r[0].sin()).collect();
//! let model = Svr::params().c(10.0).kernel(Kernel::rbf(1.0)).fit(&x, &y).unwrap();
//! let predicted = model.predict(&x).unwrap();
//! let mse = predicted.iter().zip(&y).map(|(p, t)| (p - t).powi(2)).sum::<f64>() / 40.0;
//! assert!(mse < 0.05, "mean squared error {mse}");
//! println!("tube half-width {:.3}", model.epsilon());
//! ```

use std::time::Duration;

use super::FitSettings;
use crate::data::Features;
use crate::error::{FwsvmError, Result};
use crate::kernel::{Kernel, KernelMatrix};
use crate::model::SvrModel;
use crate::parallel::with_threads;
use crate::problem::SimplexProblem;
use crate::solver::{Algorithm, Init, Monitor, NoMonitor, SolverParams, Stopping, solve};

/// Entry point of the SVR: `Svr::params().c(1.0).kernel(Kernel::rbf(0.1)).fit(&x, &y)`.
#[derive(Debug, Clone, Copy)]
pub struct Svr;

impl Svr {
    /// Default parameters: C = 1, ν = 0.2 · n_samples, RBF kernel with γ = 1, `swap` steps,
    /// a relative duality gap of 1e-3.
    pub fn params() -> SvrParams {
        SvrParams {
            c: 1.0,
            nu: None,
            settings: FitSettings::default(),
        }
    }
}

/// Unchecked SVR hyper-parameters (a consuming builder).
#[derive(Debug, Clone, PartialEq)]
pub struct SvrParams {
    /// Penalty of the squared slacks (on standardised targets).
    c: f64,
    /// Price of the tube width (`None`: 0.2 · n_samples).
    nu: Option<f64>,
    /// Kernel, solver and threads (the tolerance when unset: 1e-3).
    settings: FitSettings,
}

impl SvrParams {
    super::setters! {
        /// The penalty C > 0 of the squared deviations outside the tube.
        c: f64 => c;
        /// The price ν > 0 of the tube width (larger: narrower tube); `None`: 0.2 · n_samples.
        nu: Option<f64> => nu;
    }

    super::solver_setters!();

    /// Validates every parameter.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidParameter`] naming the first invalid one.
    pub fn check(&self) -> Result<SvrValidParams> {
        super::check_positive("C", self.c)?;
        if let Some(nu) = self.nu {
            super::check_positive("nu", nu)?;
        }
        let settings = check_unlabelled(&self.settings)?;
        Ok(SvrValidParams(SvrParams {
            settings,
            ..self.clone()
        }))
    }

    super::checked_fit!(SvrValidParams -> SvrModel);
}

/// The checks the single-simplex fits (SVR, one-class) share: [`FitSettings::checked`] with a
/// default tolerance of 1e-3, and an algorithm and initialisation that need no classes.
pub(crate) fn check_unlabelled(settings: &FitSettings) -> Result<FitSettings> {
    let settings = settings.checked(1e-3)?;
    let solver = &settings.solver;
    if solver.algorithm == Algorithm::Ky {
        return Err(FwsvmError::param(
            "algorithm",
            "'ky' solves the two-class nearest-point problem only",
        ));
    }
    if solver.init == Init::ClosestPair {
        return Err(FwsvmError::param(
            "init",
            "closest_pair needs two classes; use random or farthest",
        ));
    }
    Ok(settings)
}

/// Checked SVR hyper-parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SvrValidParams(SvrParams);

impl SvrValidParams {
    /// Fits on `x` with targets `y`.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] / [`FwsvmError::NonFinite`] for bad data (or targets whose
    /// mean or spread overflows).
    pub fn fit<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
        y: &[f64],
    ) -> Result<SvrModel> {
        self.fit_with_monitor(x.try_into().map_err(Into::into)?, y, &mut NoMonitor)
    }

    /// Fits with a [`Monitor`] for progress and interrupts.
    ///
    /// # Errors
    /// As [`Self::fit`], and whatever the monitor returns.
    pub fn fit_with_monitor(
        &self,
        x: Features<'_>,
        y: &[f64],
        monitor: &mut (dyn Monitor + Send),
    ) -> Result<SvrModel> {
        let p = &self.0;
        super::check_fit_inputs(&x, Some((y, "targets")), None)?;
        let m = x.n_rows();
        let mean = y.iter().sum::<f64>() / m as f64;
        let spread = (y.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / m as f64).sqrt();
        if !(mean.is_finite() && spread.is_finite()) {
            return Err(FwsvmError::InvalidInput(
                "y is too large to standardise: its mean or standard deviation overflows; \
                 rescale the targets"
                    .into(),
            ));
        }
        let scale = if spread > 0.0 { spread } else { 1.0 };
        let y_std: Vec<f64> = y.iter().map(|v| (v - mean) / scale).collect();
        let nu = p.nu.unwrap_or(0.2 * m as f64);
        let solution = with_threads(p.settings.n_threads, || {
            let problem =
                SimplexProblem::l2_svr(KernelMatrix::new(p.settings.kernel, x), &y_std, p.c, nu)?;
            solve(&problem, &p.settings.solver, monitor)
        })??;
        let a = &solution.alpha;
        let support: Vec<usize> = (0..m).filter(|&i| a[i] > 0.0 || a[i + m] > 0.0).collect();
        let dual_coef: Vec<f64> = support.iter().map(|&i| nu * (a[i] - a[i + m])).collect();
        // f(x) = Σ coef (k + 1): the "+1" is the regularised bias.
        let intercept = dual_coef.iter().sum();
        let mut params = crate::model_file::kernel_params(p.settings.kernel);
        params.insert("C".into(), p.c.into());
        params.insert("nu".into(), nu.into());
        params.extend(crate::model_file::solver_params(&p.settings.solver));
        let mut model = SvrModel {
            fit: p
                .settings
                .single_fit(x, support, solution.stats, solution.history),
            dual_coef,
            intercept,
            y_mean: mean,
            y_scale: scale,
            epsilon: 0.0,
            nu,
            params,
        };
        // KKT: on a support slot, y − f = ε + νβ′/C (upper) or f − y = ε + νβ′/C (lower).
        let f_sv = model.decision_function(model.fit.vectors.view())?;
        let mut eps = Vec::new();
        for (k, &i) in model.fit.support.iter().enumerate() {
            if a[i] > 0.0 {
                eps.push(y_std[i] - f_sv[k] - nu * a[i] / p.c);
            }
        }
        for (k, &i) in model.fit.support.iter().enumerate() {
            if a[i + m] > 0.0 {
                eps.push(f_sv[k] - y_std[i] - nu * a[i + m] / p.c);
            }
        }
        model.epsilon = median(&mut eps).map_or(0.0, |e| e * scale);
        Ok(model)
    }
}

/// The median (the mean of the middle two for an even count), `None` when empty.
fn median(values: &mut [f64]) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}
