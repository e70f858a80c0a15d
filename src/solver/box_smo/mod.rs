//! The box SMO: LIBSVM's hinge-loss SVC on the polytope {0 ≤ α ≤ C, yᵀα = 0} by pairwise steps
//! with second-order partners and shrinking ([`smo`]), and its blocked working sets (ThunderSVM's
//! rounds, [`smo_blocked`]). It borrows the simplex engine's tracker and certificate pieces.

// The solver's items and the other families, for these files' `super::` paths.
#[allow(unused_imports)]
use super::*;

pub(crate) mod dual_smo;
pub(crate) mod smo;
pub(crate) mod smo_blocked;
