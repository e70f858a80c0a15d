//! Prediction that stops on request: the query rows in blocks, a stop check between blocks.
//!
//! A decision function over 2·10⁶ rows runs for tens of seconds in one native call; Python's
//! Ctrl-C reaches it only through a flag the call polls. The blocks are sized by the time the
//! previous one took (about [`TARGET_BLOCK_SECONDS`] each), so the flag is seen within a
//! fraction of a second whatever the model's size, and each block is large enough for the
//! kernel expansion's parallel, eight-queries-per-pass evaluation. Every query row's value is
//! computed by the same code as in one call, so the results are the same.

use std::time::Instant;

use crate::data::{CsrView, DenseView, Features};
use crate::error::{FwsvmError, Result};

/// The time one block should take: the stop flag is polled at least this often (the first
/// block is sized by a guess, the rest by measurement).
pub const TARGET_BLOCK_SECONDS: f64 = 0.1;

/// Kernel operations per query row of an expansion over `vectors` (for [`by_row_blocks`]).
pub fn row_cost(vectors: &Features<'_>) -> usize {
    vectors.n_rows().saturating_mul(vectors.n_cols().max(1))
}

/// Rows of `x` from `start` to `end` as a borrowed view (a sparse block re-bases its row
/// pointers, `end − start + 1` values; the entries are not copied).
pub(crate) fn rows_view<'b>(
    x: &Features<'b>,
    start: usize,
    end: usize,
    indptr: &'b mut Vec<usize>,
) -> Result<Features<'b>> {
    Ok(match x {
        Features::Dense(d) => {
            let n_cols = d.n_cols();
            Features::Dense(DenseView::new(
                &d.as_slice()[start * n_cols..end * n_cols],
                end - start,
                n_cols,
            )?)
        }
        Features::Sparse(s) => {
            let all = s.indptr();
            let (lo, hi) = (all[start], all[end]);
            indptr.clear();
            indptr.extend(all[start..=end].iter().map(|p| p - lo));
            Features::Sparse(CsrView::new(
                indptr,
                &s.indices()[lo..hi],
                &s.data()[lo..hi],
                s.n_cols(),
            )?)
        }
    })
}

/// `values(block)` over consecutive row blocks of `x`, concatenated; each call returns
/// `per_row` values per row of its block (for example [`super::decision_values`] or
/// [`super::ovo_decision_values`] of a model on the block). `stop` is called before every
/// block and ends the work with [`FwsvmError::Interrupted`] once it returns true. `row_cost`
/// (kernel operations per row) sizes the first block; [`row_cost`] gives an expansion's.
pub fn by_row_blocks(
    x: Features<'_>,
    per_row: usize,
    row_cost: usize,
    stop: &dyn Fn() -> bool,
    mut values: impl FnMut(Features<'_>) -> Result<Vec<f64>>,
) -> Result<Vec<f64>> {
    let n = x.n_rows();
    let mut out = Vec::new();
    crate::error::try_reserve(&mut out, n.saturating_mul(per_row), "decision values")?;
    // A first block of about 2²⁴ kernel operations (milliseconds), then sized by the clock.
    let mut rows = ((1usize << 24) / row_cost.max(1)).clamp(16, 1 << 16);
    let mut start = 0;
    let mut indptr = Vec::new();
    while start < n {
        if stop() {
            return Err(FwsvmError::Interrupted);
        }
        let end = (start + rows).min(n);
        let began = Instant::now();
        let part = values(rows_view(&x, start, end, &mut indptr)?)?;
        debug_assert_eq!(part.len(), (end - start) * per_row);
        out.extend_from_slice(&part);
        let seconds = began.elapsed().as_secs_f64();
        // Toward TARGET_BLOCK_SECONDS, at most doubling or halving from one block to the next.
        let scale = (TARGET_BLOCK_SECONDS / seconds.max(1e-6)).clamp(0.5, 2.0);
        rows = ((rows as f64 * scale) as usize).max(16);
        start = end;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseMatrix;
    use crate::kernel::Kernel;
    use crate::model::{decision_values, ovo_decision_values};

    fn data(n: usize, d: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        (0..n * d)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 33) as f64 / (1u64 << 31) as f64) - 0.5
            })
            .collect()
    }

    #[test]
    fn blocks_give_the_values_of_one_call_dense_and_sparse() {
        let (n, d, n_sv) = (5000, 6, 40);
        let x = DenseMatrix::new(data(n, d, 1), n, d).unwrap();
        let sv = DenseMatrix::new(data(n_sv, d, 2), n_sv, d).unwrap();
        let sparse = x.view().to_csr();
        let sv = Features::Dense(sv.view());
        let coef = data(n_sv, 1, 3);
        let kernel = Kernel::Rbf { gamma: 0.3 };
        for x in [Features::Dense(x.view()), Features::Sparse(sparse.view())] {
            let whole = decision_values(kernel, sv, &coef, 0.25, x).unwrap();
            let cost = row_cost(&sv);
            let never = &|| false;
            let blocks = by_row_blocks(x, 1, cost, never, |rows| {
                decision_values(kernel, sv, &coef, 0.25, rows)
            })
            .unwrap();
            assert_eq!(whole, blocks);
            // One-vs-one, three classes.
            let (n_support, icpt) = ([10, 20, 10], [0.1, -0.2, 0.3]);
            let dual = data(2 * n_sv, 1, 4);
            let whole = ovo_decision_values(kernel, sv, &dual, &icpt, &n_support, x).unwrap();
            let blocks = by_row_blocks(x, 3, cost, never, |rows| {
                ovo_decision_values(kernel, sv, &dual, &icpt, &n_support, rows)
            })
            .unwrap();
            assert_eq!(whole, blocks);
        }
    }

    #[test]
    fn a_stop_request_ends_the_work_between_blocks() {
        let (n, d, n_sv) = (20_000, 16, 2000);
        let x = DenseMatrix::new(data(n, d, 1), n, d).unwrap();
        let sv = DenseMatrix::new(data(n_sv, d, 2), n_sv, d).unwrap();
        let coef = vec![1.0; n_sv];
        let calls = std::cell::Cell::new(0);
        let stop = || {
            calls.set(calls.get() + 1);
            calls.get() > 2
        };
        let sv = Features::Dense(sv.view());
        let result = by_row_blocks(Features::Dense(x.view()), 1, row_cost(&sv), &stop, |rows| {
            decision_values(Kernel::Linear, sv, &coef, 0.0, rows)
        });
        assert!(matches!(result, Err(FwsvmError::Interrupted)));
        assert_eq!(calls.get(), 3);
    }
}
