//! The linear solvers, which keep w explicitly: dual coordinate descent for the squared hinge
//! ([`dcd`], LIBLINEAR's method), mini-batch SGD on the primal ([`sgd`]), and the CoCoA+
//! rounds of the distributed linear hinge SVM ([`cocoa`]).

// The solver's items and the other families, for these files' `super::` paths.
#[allow(unused_imports)]
use super::*;

pub(crate) mod cocoa;
pub(crate) mod dcd;
pub(crate) mod sgd;
