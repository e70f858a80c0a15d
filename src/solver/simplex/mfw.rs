//! `mfw`: Frank-Wolfe with Wolfe away steps; paper 000, paper 003 Alg. 3.
//!
//! Errata applied (notes D.4): the away step is clipped with **min**(λ, α_j/(1−α_j)) and is a
//! drop exactly when that bound binds; an away step adds nothing to the coreset. The away
//! line search runs on [0, α_j/(1−α_j)], which may exceed 1 (notes F.8).

use super::engine::Step;
use super::fw::toward_search;
use super::line_search::exact;
use super::scan::Vertices;
use super::state::State;
use crate::problem::SimplexProblem;

/// Toward or away, whichever has the larger first-order gain ∇gᵀd.
pub(crate) fn select(problem: &SimplexProblem<'_>, state: &State, v: &Vertices) -> Step {
    let ag = state.alpha_dot_grad();
    let toward_slope = v.toward_grad - ag;
    let toward = Step::Toward {
        i: v.toward,
        lambda: toward_search(problem, state, v).lambda,
    };
    let Some(j) = v.away else { return toward };
    let away_slope = ag - v.away_grad;
    let alpha_j = state.alpha[j];
    // α_j = 1 means a single active point: d_A = 0, no away step exists (notes B.2).
    if toward_slope >= away_slope || alpha_j >= 1.0 {
        return toward;
    }
    let lambda_max = alpha_j / (1.0 - alpha_j);
    let curvature = state.quad - 2.0 * state.grad_q[j] + problem.q_diag(j);
    let ls = exact(away_slope, curvature, lambda_max);
    Step::Away {
        j,
        lambda: ls.lambda,
        drop: ls.at_bound,
    }
}
