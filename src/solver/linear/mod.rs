//! The linear solvers, which keep w explicitly: dual coordinate descent for the squared hinge
//! ([`dcd`], LIBLINEAR's method), mini-batch SGD on the primal ([`sgd`]), and the CoCoA+
//! rounds of the distributed linear hinge SVM ([`cocoa`]).

// The solver's items and the other families, for these files' `super::` paths.
#[allow(unused_imports)]
use super::*;

// CoCoA's rounds run on Dask: only the Python bindings (and its unit tests) call them.
#[cfg_attr(not(feature = "python"), allow(dead_code))]
pub(crate) mod cocoa;
pub(crate) mod dcd;
#[cfg_attr(not(feature = "python"), allow(dead_code))]
pub(crate) mod newton;
pub(crate) mod sgd;
