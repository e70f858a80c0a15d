//! One-vs-one decision values and votes in LIBSVM's layout.

use crate::data::Features;
use crate::error::{FwsvmError, Result, try_filled};
use crate::kernel::{Kernel, KernelMatrix, QueryScratch};
use crate::parallel::for_each_chunk;

/// One-vs-one decision values in LIBSVM's layout: support vectors grouped by class
/// (`n_support[c]` of class c, in class order), `dual_coef` a (K−1)×n_SV row-major matrix where
/// pair (i, j) reads class-i coefficients from row j−1 and class-j coefficients from row i, and
/// one intercept per pair in the order (0,1), (0,2), …. Returns an n×K(K−1)/2 row-major matrix;
/// positive values favour the pair's first class.
///
/// # Errors
/// [`FwsvmError::InvalidInput`] for inconsistent shapes or feature counts.
pub fn ovo_decision_values(
    kernel: Kernel,
    vectors: Features<'_>,
    dual_coef: &[f64],
    intercepts: &[f64],
    n_support: &[usize],
    x: Features<'_>,
) -> Result<Vec<f64>> {
    let k = n_support.len();
    let n_sv: usize = n_support.iter().sum();
    let n_pairs = k * k.saturating_sub(1) / 2;
    if k < 2
        || vectors.n_rows() != n_sv
        || dual_coef.len() != (k - 1) * n_sv
        || intercepts.len() != n_pairs
    {
        return Err(FwsvmError::InvalidInput(format!(
            "inconsistent one-vs-one model: {k} classes, {} support vectors (n_support sums to {n_sv}), {} dual coefficients, {} intercepts",
            vectors.n_rows(),
            dual_coef.len(),
            intercepts.len()
        )));
    }
    super::check_query_features(&x, &vectors)?;
    kernel.validate()?;
    let km = KernelMatrix::new(kernel, vectors);
    let starts: Vec<usize> = std::iter::once(0)
        .chain(n_support.iter().scan(0, |acc, &n| {
            *acc += n;
            Some(*acc)
        }))
        .collect();
    let len = x.n_rows().saturating_mul(n_pairs);
    let mut out = try_filled(len, 0.0, "one-vs-one decision values (rows × class pairs)")?;
    let work = x.n_rows() * n_sv * vectors.n_cols().max(1);
    for_each_chunk(&mut out, 64 * n_pairs.max(1), work, |lo, chunk| {
        let mut krow = vec![0.0; n_sv];
        let mut scratch = QueryScratch::new();
        for (r, values) in chunk.chunks_mut(n_pairs).enumerate() {
            let t = lo / n_pairs + r;
            if km.query_row(&x, t, &mut krow, &mut scratch).is_err() {
                continue; // feature counts were checked above
            }
            let mut p = 0;
            for i in 0..k {
                for j in (i + 1)..k {
                    let block = |class: usize, row: usize| -> f64 {
                        let (a, b) = (starts[class], starts[class + 1]);
                        let coef = &dual_coef[row * n_sv + a..row * n_sv + b];
                        coef.iter().zip(&krow[a..b]).map(|(c, kv)| c * kv).sum()
                    };
                    values[p] = block(i, j - 1) + block(j, i) + intercepts[p];
                    p += 1;
                }
            }
        }
    });
    Ok(out)
}

/// The class index each row's one-vs-one `values` (rows × K(K−1)/2, from
/// [`ovo_decision_values`]) votes for: each pair (i, j) votes for i where its value is ≥ 0, else
/// for j; ties go to the class listed first in `order` (LIBSVM's rule over its label order;
/// empty: the lower class index).
pub fn ovo_votes(values: &[f64], n_classes: usize, order: &[usize]) -> Vec<usize> {
    let n_pairs = n_classes * n_classes.saturating_sub(1) / 2;
    let at = |p: usize| if order.is_empty() { p } else { order[p] };
    let mut votes = vec![0usize; n_classes];
    values
        .chunks(n_pairs.max(1))
        .map(|row| {
            votes.iter_mut().for_each(|v| *v = 0);
            let mut p = 0;
            for i in 0..n_classes {
                for j in (i + 1)..n_classes {
                    votes[if row[p] >= 0.0 { i } else { j }] += 1;
                    p += 1;
                }
            }
            // The first maximum in `order`.
            let best = (0..n_classes).fold(0, |best, p| {
                if votes[at(p)] > votes[at(best)] {
                    p
                } else {
                    best
                }
            });
            at(best)
        })
        .collect()
}
