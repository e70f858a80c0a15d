//! Row-at-a-time linear algebra against a dense vector: what the linear solvers (dual
//! coordinate descent, SGD, CoCoA's shards) need from the data, O(nnz of the row) per call for
//! sparse rows; [`LinearRows`] also over dense `f32` rows ([`DenseF32View`]: a float32 feature
//! map, half the memory and half the bytes a sweep streams).

use super::Features;
use crate::error::{FwsvmError, Result};
use crate::kernel::dot::{dense_dot, sparse_dense_dot, sq_norm};

// The `f32` rows' loops (a float32 feature map's shard), also compiled with AVX2 / AVX-512 and
// chosen at run time (`crate::simd`): the same sums in the same order as the baseline build,
// so the same results on every machine. (The `f64` rows' loops stay baseline: a sweep over
// them is bound by memory, not by the instructions.)
crate::simd::multiversion! {
    /// ⟨a, b⟩ of an `f32` row and `f64` weights, in `f64` (the portable and AVX2 builds).
    fn dot_f32_portable(a: &[f32], b: &[f64]) -> f64 {
        crate::kernel::dot::dense_dot_f32(a, b)
    }
}

/// ⟨a, b⟩ of an `f32` row and `f64` weights, in `f64`: with AVX-512 eight values converted and
/// multiplied per instruction into one accumulator whose lanes are `dense_dot_f32`'s eight (the
/// compiler keeps that loop in 128-bit halves, converting two values at a time: 2.3× slower
/// than the `f64` rows it should beat), so the same sums in the same order.
#[inline]
fn dot_f32(a: &[f32], b: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx512() {
        // SAFETY: the CPU has AVX-512F (`simd::avx512` detected it).
        #[allow(unsafe_code)]
        return unsafe { dot_f32_avx512(a, b) };
    }
    dot_f32_portable(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[allow(unsafe_code)]
fn dot_f32_avx512(a: &[f32], b: &[f64]) -> f64 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let body = n - n % 8;
    let mut acc = _mm512_setzero_pd();
    for k in (0..body).step_by(8) {
        // SAFETY: k + 8 ≤ body ≤ the length of both slices.
        let (x, y) = unsafe {
            (
                _mm512_cvtps_pd(_mm256_loadu_ps(a.as_ptr().add(k))),
                _mm512_loadu_pd(b.as_ptr().add(k)),
            )
        };
        // Multiply, then add: no fused multiply-add, as in the portable loop.
        acc = _mm512_add_pd(acc, _mm512_mul_pd(x, y));
    }
    let mut lanes = [0.0f64; 8];
    // SAFETY: `lanes` holds eight f64.
    unsafe { _mm512_storeu_pd(lanes.as_mut_ptr(), acc) };
    let mut tail = 0.0;
    for (&x, &y) in a[body..n].iter().zip(&b[body..n]) {
        tail += f64::from(x) * y;
    }
    (lanes[0] + lanes[4])
        + (lanes[1] + lanes[5])
        + (lanes[2] + lanes[6])
        + (lanes[3] + lanes[7])
        + tail
}
crate::simd::multiversion! { avx512;
    /// ‖a‖² of an `f32` row, in `f64`.
    fn sq_norm_f32(a: &[f32]) -> f64 {
        crate::kernel::dot::sq_norm_f32(a)
    }
}
crate::simd::multiversion! { avx512;
    /// w ← w + a·x for an `f32` row, in `f64`.
    fn axpy_f32(a: f64, x: &[f32], w: &mut [f64]) {
        for (wj, &xj) in w.iter_mut().zip(x) {
            *wj += a * f64::from(xj);
        }
    }
}

/// Rows a linear solver reads one at a time against `f64` vectors (all arithmetic in `f64`).
pub trait LinearRows: Sync {
    /// Number of rows.
    fn n_rows(&self) -> usize;
    /// Number of features per row.
    fn n_cols(&self) -> usize;
    /// ⟨x_i, w⟩ with `w` at least `n_cols` long (longer entries are ignored).
    fn row_dot(&self, i: usize, w: &[f64]) -> f64;
    /// w ← w + a·x_i.
    fn row_axpy(&self, i: usize, a: f64, w: &mut [f64]);
    /// ‖x_i‖².
    fn row_sq_norm(&self, i: usize) -> f64;
    /// A hint that row i is read next (the first bytes of a dense row are prefetched); by
    /// default none.
    #[inline]
    fn prefetch_row(&self, _i: usize) {}
}

impl LinearRows for Features<'_> {
    fn n_rows(&self) -> usize {
        Features::n_rows(self)
    }
    fn n_cols(&self) -> usize {
        Features::n_cols(self)
    }
    #[inline]
    fn row_dot(&self, i: usize, w: &[f64]) -> f64 {
        Features::row_dot(self, i, w)
    }
    #[inline]
    fn row_axpy(&self, i: usize, a: f64, w: &mut [f64]) {
        Features::row_axpy(self, i, a, w);
    }
    #[inline]
    fn row_sq_norm(&self, i: usize) -> f64 {
        Features::row_sq_norm(self, i)
    }
    #[inline]
    fn prefetch_row(&self, i: usize) {
        match self {
            Features::Dense(d) => crate::simd::prefetch(d.row(i)),
            Features::Sparse(s) => {
                let (idx, val) = s.row(i);
                crate::simd::prefetch(idx);
                crate::simd::prefetch(val);
            }
        }
    }
}

/// The values of a dense row-major view a linear solver reads (`f32`; `u16` holding IEEE
/// `binary16` bit patterns, see `rows_f16`): its row loops, all arithmetic in `f64`.
pub trait RowElement: Copy + Sync {
    /// ⟨row, w⟩ (`w` exactly as long as the row).
    fn dot(row: &[Self], w: &[f64]) -> f64;
    /// w ← w + a·row.
    fn axpy(a: f64, row: &[Self], w: &mut [f64]);
    /// ‖row‖².
    fn sq_norm(row: &[Self]) -> f64;
    /// Whether the value is neither NaN nor infinite.
    fn is_finite(self) -> bool;
}

impl RowElement for f32 {
    #[inline]
    fn dot(row: &[f32], w: &[f64]) -> f64 {
        dot_f32(row, w)
    }
    #[inline]
    fn axpy(a: f64, row: &[f32], w: &mut [f64]) {
        axpy_f32(a, row, w);
    }
    #[inline]
    fn sq_norm(row: &[f32]) -> f64 {
        sq_norm_f32(row)
    }
    #[inline]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
}

/// A borrowed dense row-major matrix of [`RowElement`] values (a feature map's block).
#[derive(Clone, Copy, Debug)]
pub struct DenseRowsView<'a, T> {
    data: &'a [T],
    n_rows: usize,
    n_cols: usize,
}

/// `f32` rows (a float32 feature map's block).
pub type DenseF32View<'a> = DenseRowsView<'a, f32>;

impl<'a, T: RowElement> DenseRowsView<'a, T> {
    /// `n_rows` × `n_cols` values, row-major (not checked for NaN, as [`super::DenseView`]:
    /// see [`Self::check_finite`]).
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the length differs from `n_rows · n_cols`.
    pub fn new(data: &'a [T], n_rows: usize, n_cols: usize) -> Result<Self> {
        super::dense::check_shape(data.len(), n_rows, n_cols)?;
        Ok(DenseRowsView {
            data,
            n_rows,
            n_cols,
        })
    }

    /// `Err` naming the first row with a NaN or infinite value.
    ///
    /// # Errors
    /// [`FwsvmError::NonFinite`].
    pub fn check_finite(&self) -> Result<()> {
        match self.data.iter().position(|v| !v.is_finite()) {
            Some(k) => Err(FwsvmError::NonFinite {
                what: "X",
                row: k / self.n_cols.max(1),
            }),
            None => Ok(()),
        }
    }

    /// Row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &'a [T] {
        &self.data[i * self.n_cols..(i + 1) * self.n_cols]
    }
}

impl<T: RowElement> LinearRows for DenseRowsView<'_, T> {
    fn n_rows(&self) -> usize {
        self.n_rows
    }
    fn n_cols(&self) -> usize {
        self.n_cols
    }
    #[inline]
    fn row_dot(&self, i: usize, w: &[f64]) -> f64 {
        T::dot(self.row(i), &w[..self.n_cols])
    }
    #[inline]
    fn row_axpy(&self, i: usize, a: f64, w: &mut [f64]) {
        T::axpy(a, self.row(i), w);
    }
    #[inline]
    fn row_sq_norm(&self, i: usize) -> f64 {
        T::sq_norm(self.row(i))
    }
    #[inline]
    fn prefetch_row(&self, i: usize) {
        crate::simd::prefetch(self.row(i));
    }
}

impl Features<'_> {
    /// ⟨x_i, w⟩ with `w` at least `n_cols` long (longer entries are ignored).
    #[inline]
    pub(crate) fn row_dot(&self, i: usize, w: &[f64]) -> f64 {
        match self {
            Features::Dense(d) => {
                let row = d.row(i);
                dense_dot(row, &w[..row.len()])
            }
            Features::Sparse(s) => {
                let (idx, val) = s.row(i);
                sparse_dense_dot(idx, val, w)
            }
        }
    }

    /// w ← w + a·x_i.
    #[inline]
    pub(crate) fn row_axpy(&self, i: usize, a: f64, w: &mut [f64]) {
        match self {
            Features::Dense(d) => {
                for (wj, &xj) in w.iter_mut().zip(d.row(i)) {
                    *wj += a * xj;
                }
            }
            Features::Sparse(s) => {
                let (idx, val) = s.row(i);
                for (&j, &v) in idx.iter().zip(val) {
                    w[j as usize] += a * v;
                }
            }
        }
    }

    /// ‖x_i‖².
    #[inline]
    pub(crate) fn row_sq_norm(&self, i: usize) -> f64 {
        match self {
            Features::Dense(d) => sq_norm(d.row(i)),
            Features::Sparse(s) => sq_norm(s.row(i).1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dispatched `f32` inner product (AVX-512 where the CPU has it) sums in the portable
    /// loop's order: the same bits, at every length (whole blocks of eight and tails).
    #[test]
    fn the_f32_inner_product_is_the_portable_one_bit_for_bit() {
        let mut rng = crate::random::SplitMix64::new(9);
        for n in [0, 1, 7, 8, 9, 100, 1003] {
            let a: Vec<f32> = (0..n).map(|_| rng.normal() as f32).collect();
            let b: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
            let want = crate::kernel::dot::dense_dot_f32(&a, &b);
            assert_eq!(dot_f32(&a, &b).to_bits(), want.to_bits(), "length {n}");
            assert_eq!(
                sq_norm_f32(&a).to_bits(),
                crate::kernel::dot::sq_norm_f32(&a).to_bits()
            );
        }
    }
}
