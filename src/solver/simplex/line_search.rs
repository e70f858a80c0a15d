//! Exact line search for a quadratic along a direction d.
//!
//! Along α + λd the objective changes by φ(λ) = λ·a − λ²·c with a = ∇g(α)ᵀd (the slope) and
//! c = dᵀQd (the curvature). Every step of every algorithm reduces to this one formula
//! (paper 002 eqs. 25–28 are its special cases); using the true c with the actual Q_ii makes it
//! valid for kernels with a non-constant diagonal (the models: docs/guide/formulation.rst).

/// Result of an exact line search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LineSearch {
    /// The step size taken.
    pub lambda: f64,
    /// The objective increase φ(λ).
    pub gain: f64,
    /// Whether λ stopped at the upper bound (a drop, for away and swap steps).
    pub at_bound: bool,
}

/// Maximises λa − λ²c over [0, λ_max].
///
/// With c ≤ 0 (an indefinite kernel such as the sigmoid, or round-off on duplicate points) the
/// objective is convex or linear along d, and the best step is the bound whenever a > 0.
#[inline]
pub(crate) fn exact(slope: f64, curvature: f64, lambda_max: f64) -> LineSearch {
    if !(slope > 0.0) || !(lambda_max > 0.0) {
        return LineSearch {
            lambda: 0.0,
            gain: 0.0,
            at_bound: false,
        };
    }
    let unconstrained = if curvature > 0.0 {
        slope / (2.0 * curvature)
    } else {
        f64::INFINITY
    };
    let (lambda, at_bound) = if unconstrained >= lambda_max {
        (lambda_max, true)
    } else {
        (unconstrained, false)
    };
    LineSearch {
        lambda,
        gain: lambda * slope - lambda * lambda * curvature,
        at_bound,
    }
}

/// The pairwise step along e_up − e_down of the coreset solvers: λ = min(slope / (2·curvature),
/// α_down) moved from α_down to α_up (α_down set to exactly 0 when λ is clipped), or `None`
/// (α unchanged) when λ is not positive.
#[inline]
pub(crate) fn transfer(
    alpha: &mut [f64],
    up: usize,
    down: usize,
    slope: f64,
    curvature: f64,
) -> Option<f64> {
    let unclipped = if curvature > 0.0 {
        slope / (2.0 * curvature)
    } else {
        f64::INFINITY
    };
    let lambda = unclipped.min(alpha[down]);
    if !(lambda > 0.0) {
        return None;
    }
    alpha[up] += lambda;
    if unclipped >= alpha[down] {
        alpha[down] = 0.0;
    } else {
        alpha[down] -= lambda;
    }
    Some(lambda)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interior_and_clipped_steps() {
        let s = exact(2.0, 1.0, 10.0);
        assert_eq!(s.lambda, 1.0);
        assert_eq!(s.gain, 1.0);
        assert!(!s.at_bound);
        let s = exact(2.0, 1.0, 0.5);
        assert_eq!(s.lambda, 0.5);
        assert!(s.at_bound);
        assert_eq!(s.gain, 0.75);
        assert_eq!(exact(-1.0, 1.0, 1.0).lambda, 0.0);
        assert_eq!(exact(1.0, -1.0, 0.3).lambda, 0.3);
    }
}
