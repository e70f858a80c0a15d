//! [`OneClass`]: the minimum enclosing ball of the data (SVDD with squared slacks; see
//! [`crate::problem::one_class`]) as a builder → checked parameters → [`OneClassModel`].
//!
//! As Python's `fwsvm.OneClassSVM`: C defaults to 1 / (ν · n_samples), and the threshold is
//! the ν-quantile of the training scores, so `predict` flags that fraction of the training
//! data as outliers.
//!
//! ```
//! use fwsvm::{DenseMatrix, Kernel, OneClass};
//!
//! let x = DenseMatrix::from_rows(&[[0.0, 0.1], [0.1, 0.0], [-0.1, 0.0], [0.0, -0.1], [0.05, 0.05]])
//!     .unwrap();
//! let model = OneClass::params().nu(0.2).kernel(Kernel::rbf(1.0)).fit(&x).unwrap();
//! let far = DenseMatrix::from_rows(&[[0.0, 0.0], [5.0, 5.0]]).unwrap();
//! assert_eq!(model.predict(&far).unwrap(), vec![1.0, -1.0]); // inlier, outlier
//! ```

use std::time::Duration;

use super::FitSettings;
use crate::data::Features;
use crate::error::{FwsvmError, Result};
use crate::kernel::{Kernel, KernelMatrix};
use crate::model::OneClassModel;
use crate::parallel::with_threads;
use crate::problem::SimplexProblem;
use crate::solver::{Algorithm, Init, Monitor, NoMonitor, SolverParams, Stopping, solve};
use crate::svr::check_unlabelled;

/// Entry point of the one-class model: `OneClass::params().nu(0.1).fit(&x)`.
#[derive(Debug, Clone, Copy)]
pub struct OneClass;

impl OneClass {
    /// Default parameters: ν = 0.1, C = 1 / (ν · n_samples), RBF kernel with γ = 1, `swap`
    /// steps, a relative duality gap of 1e-3.
    pub fn params() -> OneClassParams {
        OneClassParams {
            nu: 0.1,
            c: None,
            settings: FitSettings::default(),
        }
    }
}

/// Unchecked one-class hyper-parameters (a consuming builder).
#[derive(Debug, Clone, PartialEq)]
pub struct OneClassParams {
    /// Expected fraction of outliers, in (0, 1).
    nu: f64,
    /// Penalty of the squared slacks (`None`: 1 / (ν · n_samples)).
    c: Option<f64>,
    /// Kernel, solver and threads (the tolerance when unset: 1e-3).
    settings: FitSettings,
}

impl OneClassParams {
    super::setters! {
        /// The expected fraction ν ∈ (0, 1) of outliers in the training data.
        nu: f64 => nu;
        /// The penalty C > 0 of the squared slacks; `None`: 1 / (ν · n_samples).
        c: Option<f64> => c;
    }

    super::solver_setters!();

    /// Validates every parameter.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidParameter`] naming the first invalid one.
    pub fn check(&self) -> Result<OneClassValidParams> {
        if !(self.nu > 0.0 && self.nu < 1.0) {
            return Err(FwsvmError::param(
                "nu",
                format!("must be in (0, 1), got {}", self.nu),
            ));
        }
        if let Some(c) = self.c {
            super::check_positive("C", c)?;
        }
        let settings = check_unlabelled(&self.settings)?;
        if self.settings.kernel == Kernel::Precomputed {
            return Err(FwsvmError::param(
                "kernel",
                "the one-class model needs k(x, x) of new points: a precomputed kernel cannot give it",
            ));
        }
        Ok(OneClassValidParams(OneClassParams {
            settings,
            ..self.clone()
        }))
    }

    super::checked_calls! {
        /// Checks the parameters and fits; see [`OneClassValidParams::fit`].
        ///
        /// # Errors
        /// As [`Self::check`] and [`OneClassValidParams::fit`].
        fn fit['x](x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>) -> OneClassModel;
    }
}

/// Checked one-class hyper-parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct OneClassValidParams(OneClassParams);

impl OneClassValidParams {
    /// Fits the ball to `x`.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] / [`FwsvmError::NonFinite`] for bad data.
    pub fn fit<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<OneClassModel> {
        self.fit_with_monitor(x.try_into().map_err(Into::into)?, &mut NoMonitor)
    }

    /// Fits with a [`Monitor`] for progress and interrupts.
    ///
    /// # Errors
    /// As [`Self::fit`], and whatever the monitor returns.
    pub fn fit_with_monitor(
        &self,
        x: Features<'_>,
        monitor: &mut (dyn Monitor + Send),
    ) -> Result<OneClassModel> {
        let p = &self.0;
        super::check_fit_inputs(&x, None, None)?;
        let m = x.n_rows();
        let c = p.c.unwrap_or(1.0 / (p.nu * m as f64));
        let solution = with_threads(p.settings.n_threads, || {
            let problem = SimplexProblem::one_class(KernelMatrix::new(p.settings.kernel, x), c)?;
            solve(&problem, &p.settings.solver, monitor)
        })??;
        let support: Vec<usize> = (0..m).filter(|&i| solution.alpha[i] > 0.0).collect();
        let alpha: Vec<f64> = support.iter().map(|&i| solution.alpha[i]).collect();
        let (r2, score_constant) = crate::problem::one_class::ball_constants(
            solution.stats.objective,
            solution.stats.quadratic,
            &alpha,
            c,
        );
        let mut params = crate::model_file::kernel_params(p.settings.kernel);
        params.insert("nu".into(), p.nu.into());
        params.insert("C".into(), c.into());
        params.extend(crate::model_file::solver_params(&p.settings.solver));
        let mut model = OneClassModel {
            fit: p
                .settings
                .single_fit(x, support, solution.stats, solution.history),
            alpha,
            score_constant,
            radius: r2.max(0.0).sqrt(),
            offset: 0.0,
            c,
            params,
        };
        let mut scores = model.score_samples(x)?;
        model.offset = quantile(&mut scores, p.nu);
        Ok(model)
    }
}

/// NumPy's default (`linear`) quantile, computed as NumPy does it so that the threshold
/// matches Python's `OneClassSVM` bit for bit on the same scores.
fn quantile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    // NumPy: n·q + (α + q(1 − α − β)) − 1 with α = β = 1.
    let (alpha, beta) = (1.0, 1.0);
    let virtual_index = n as f64 * q + (alpha + q * (1.0 - alpha - beta)) - 1.0;
    let below = virtual_index.floor().clamp(0.0, (n - 1) as f64);
    let (lo, hi) = (below as usize, (below as usize + 1).min(n - 1));
    let t = virtual_index - below;
    let (a, b) = (values[lo], values[hi]);
    let diff = b - a;
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}
