//! The Frank-Wolfe family on the unit simplex (docs/guide/solvers.rst; compared in docs/SOLVERS.md): the squared-hinge SVC (the MEB of the
//! CVM), the one-class ball and the L2-SVR.
//!
//! One engine ([`engine::solve`]) keeps the state shared by all variants — α, the active set
//! (coreset), the gradient cache G = Qα and the scalars bᵀα, αᵀQα ([`state`]) — and runs the
//! loop: stopping test on the duality gap, step selection (one file per algorithm: [`fw`],
//! [`mfw`], [`swap`], [`bc`]; [`ky`] has its own loop), and the fused pass ([`scan`]) that
//! applies the step to G and finds the next toward/away vertices. Around it: initial iterates
//! ([`init`], [`subproblem`]), coreset rounds ([`rounds`]), sampling ([`sampled`]) and
//! shrinking ([`shrink`]). Papers: 000 (MFW report), 002 (SWAP, Allende et al.), 003 (Frandi et
//! al.); formulas and errata in `notes/seeds_001_002.md`.

// The solver's items and the other families, for these files' `super::` paths.
#[allow(unused_imports)]
use super::*;

pub(crate) mod bc;
pub(crate) mod engine;
pub(crate) mod fw;
pub(crate) mod init;
pub(crate) mod ky;
pub(crate) mod line_search;
pub(crate) mod mfw;
pub(crate) mod rounds;
pub(crate) mod sampled;
pub(crate) mod scan;
pub(crate) mod shrink;
pub(crate) mod state;
pub(crate) mod subproblem;
pub(crate) mod swap;
