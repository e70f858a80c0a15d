//! `fw`: plain Frank-Wolfe (Gilbert's algorithm); paper 003 Alg. 2, paper 002 Alg. 1.

use super::engine::Step;
use super::line_search::{LineSearch, exact};
use super::scan::Vertices;
use super::state::State;
use crate::problem::SimplexProblem;

/// Exact line search toward e_i, i the toward vertex: d = e_i − α,
/// slope ∇g_i − αᵀ∇g (the duality gap), curvature Q_ii − 2G_i + αᵀQα = ‖z_i − Zα‖², λ ∈ [0, 1].
pub(crate) fn toward_search(
    problem: &SimplexProblem<'_>,
    state: &State,
    v: &Vertices,
) -> LineSearch {
    let i = v.toward;
    let slope = v.toward_grad - state.alpha_dot_grad();
    let curvature = problem.q_diag(i) - 2.0 * state.grad_q[i] + state.quad;
    exact(slope, curvature, 1.0)
}

/// Always a toward step.
pub(crate) fn select(problem: &SimplexProblem<'_>, state: &State, v: &Vertices) -> Step {
    Step::Toward {
        i: v.toward,
        lambda: toward_search(problem, state, v).lambda,
    }
}
