//! Explicit feature maps that approximate a kernel, to feed the linear solvers when the exact
//! kernel SVM is too large (Python's `fwsvm.Nystroem` and `fwsvm.RandomFourierFeatures`):
//!
//! - [`NystroemMap`]: landmarks S, z(x) = K_SS^{−1/2} k_S(x), so that z(x)ᵀz(x′) =
//!   k_S(x)ᵀ K_SS⁺ k_S(x′), the kernel projected on the span of the landmarks;
//! - [`RandomFourierMap`] (Rahimi & Recht 2007): z(x) = √(2/D) cos(Wx + b), W_ij ~ N(0, 2γ)
//!   for exp(−γ‖x − x′‖²) and Cauchy(0, γ) for exp(−γ‖x − x′‖₁), b_j ~ U[0, 2π].
//!
//! Their random draws are NumPy's ([`LegacyRandomState`]), so a map drawn here from
//! `RandomState(seed)` is the one Python draws with `random_state=seed`.

use std::borrow::Cow;

use crate::Samples;
use std::cmp::Ordering;

use crate::data::{FeatureMatrix, Features};
use crate::error::{FwsvmError, Result, try_filled};
use crate::kernel::{Kernel, cross_kernel};
use crate::parallel::for_each_chunk;
use crate::params::{Loss, SvcParams};
use crate::random::legacy::LegacyRandomState;
use crate::solver::{NoMonitor, SolverParams};

/// The Nyström feature map of a kernel: the landmarks and K_SS^{−1/2}.
#[derive(Clone, Debug)]
pub struct NystroemMap {
    kernel: Kernel,
    components: FeatureMatrix,
    component_indices: Vec<usize>,
    normalization: Vec<f64>,
}

impl NystroemMap {
    /// The map with the rows `landmarks` of `x` as landmarks.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] for a landmark out of range or non-finite data.
    pub fn fit(kernel: Kernel, x: Features<'_>, landmarks: Vec<usize>) -> Result<Self> {
        x.check_finite("X")?;
        if let Some(&bad) = landmarks.iter().find(|&&i| i >= x.n_rows()) {
            return Err(FwsvmError::InvalidInput(format!(
                "landmark {bad} is not a row of X ({} rows)",
                x.n_rows()
            )));
        }
        let components = x.select_rows(&landmarks);
        let normalization = landmark_normalization(kernel, components.view())?;
        Ok(NystroemMap {
            kernel,
            components,
            component_indices: landmarks,
            normalization,
        })
    }

    /// The map with `n_components` landmarks drawn uniformly (all rows when X has fewer), as
    /// `Nystroem(landmarks="uniform")` draws them from `rng`.
    pub fn fit_uniform(
        kernel: Kernel,
        x: Features<'_>,
        n_components: usize,
        rng: &mut LegacyRandomState,
    ) -> Result<Self> {
        let landmarks = uniform_landmarks(x.n_rows(), n_components, rng);
        Self::fit(kernel, x, landmarks)
    }

    /// z(x) for every row of `x`: an n × m row-major array.
    pub fn transform(&self, x: Features<'_>) -> Result<Vec<f64>> {
        let m = self.component_indices.len();
        nystroem_features(
            self.kernel,
            x,
            self.components.view(),
            &self.normalization,
            m,
        )
    }

    crate::model::getters! {
        /// The kernel.
        kernel: Kernel = kernel;
        /// The landmarks, one per row.
        components: &FeatureMatrix = components;
        /// The landmarks' rows in the training data.
        component_indices: &[usize] = component_indices;
        /// K_SS^{−1/2}, m × m row-major.
        normalization: &[f64] = normalization;
    }
}

/// `k` distinct rows of `0..n` (all when n ≤ k), ascending: NumPy's
/// `sort(choice(n, min(k, n), replace=False))`.
pub fn uniform_landmarks(n: usize, k: usize, rng: &mut LegacyRandomState) -> Vec<usize> {
    let mut rows = rng.choice(n, k.min(n));
    rows.sort_unstable();
    rows
}

/// `k` landmarks (ascending rows of `x`) from the Frank-Wolfe coreset, as
/// `Nystroem(landmarks="coreset")` chooses them: the support vectors of an L2-SVM fit (`svc`:
/// the squared hinge, its kernel, C and threads; its seed is drawn from `rng` as Python's
/// `SVC(random_state=rng.randint(2**31 - 1))` seeds it) on a uniform subsample of `size` rows
/// (`y`: class labels), the `k` with the largest Σ|dual coefficient|, topped up uniformly when
/// the coreset is smaller. `None` when the subsample holds a single class.
///
/// # Errors
/// Whatever the fit returns.
pub fn coreset_landmarks(
    svc: SvcParams,
    x: Features<'_>,
    y: &[f64],
    k: usize,
    size: usize,
    rng: &mut LegacyRandomState,
) -> Result<Option<Vec<usize>>> {
    let n = x.n_rows();
    let k = k.min(n);
    let sample = uniform_landmarks(n, size, rng);
    let labels: Vec<f64> = sample.iter().map(|&i| y[i]).collect();
    if labels.iter().all(|&c| c == labels[0]) {
        return Ok(None);
    }
    // Python's seed for an int random_state: RandomState(seed).randint(2**31 - 1).
    let seed = rng.interval((1 << 31) - 2) as u32;
    let seed = LegacyRandomState::new(seed).interval((1 << 31) - 2);
    let solver = SolverParams {
        tol: Loss::SquaredHinge.default_tol(),
        seed,
        ..SolverParams::default()
    };
    let svc = svc.loss(Loss::SquaredHinge).solver(solver).check()?;
    let rows = x.select_rows(&sample);
    let model = svc.fit_weighted(Samples::new(rows.view(), &labels), &mut NoMonitor)?;
    let n_sv = model.support.len();
    let weight: Vec<f64> = (0..n_sv)
        .map(|j| {
            model
                .dual_coef
                .iter()
                .skip(j)
                .step_by(n_sv)
                .map(|v| v.abs())
                .sum()
        })
        .collect();
    let mut order: Vec<usize> = (0..n_sv).collect();
    order.sort_by(|&a, &b| weight[b].partial_cmp(&weight[a]).unwrap_or(Ordering::Equal));
    let mut chosen: Vec<usize> = order
        .iter()
        .take(k)
        .map(|&j| sample[model.support[j]])
        .collect();
    if chosen.len() < k {
        let mut taken = vec![false; n];
        chosen.iter().for_each(|&i| taken[i] = true);
        let rest: Vec<usize> = (0..n).filter(|&i| !taken[i]).collect();
        let extra = rng.choice(rest.len(), k - chosen.len());
        chosen.extend(extra.iter().map(|&j| rest[j]));
    }
    chosen.sort_unstable();
    Ok(Some(chosen))
}

/// K_SS^{−1/2} of the landmarks `components` (see [`inverse_sqrt`]).
pub fn landmark_normalization(kernel: Kernel, components: Features<'_>) -> Result<Vec<f64>> {
    let k = cross_kernel(kernel, components, components)?;
    Ok(inverse_sqrt(&k, components.n_rows()))
}

/// z(x) = k(x, S)·N for every row of `x`: `components` S (m rows), `normalization` N
/// (m × `width`, row-major); an n × `width` row-major array of `T`, `f64` or `f32`
/// ([`MapValue`]). The product skips the zero columns at either end of N's row blocks: an
/// upper-triangular N (the inverse of a Cholesky factor, z = L⁻¹k) costs half a full one.
///
/// # Errors
/// [`FwsvmError::InvalidInput`] for a normalization of the wrong size or `x` with another
/// feature count than S, [`FwsvmError::NonFinite`] for NaN or infinite rows.
pub fn nystroem_features<T: MapValue>(
    kernel: Kernel,
    x: Features<'_>,
    components: Features<'_>,
    normalization: &[f64],
    width: usize,
) -> Result<Vec<T>> {
    let m = components.n_rows();
    if normalization.len() != m * width {
        return Err(FwsvmError::InvalidInput(format!(
            "the normalization has {} entries, not {m} × {width} for {m} landmarks",
            normalization.len()
        )));
    }
    let mut out = try_filled(
        x.n_rows().saturating_mul(width),
        T::default(),
        "feature map",
    )?;
    if m == 0 || width == 0 {
        return Ok(out);
    }
    let (n, blocks) = (
        T::matrix(normalization),
        row_blocks(normalization, m, width),
    );
    // 4,096 rows at a time (in parallel where it pays): their kernel values, then out = k·N
    // by N's row blocks, each into the columns it reaches (one call of the matrix product per
    // block: each packs only its own columns of k, and allocates its own packing buffers).
    let multiply = |k: &[f64], rows: &mut [T], buffer: &mut Vec<T>| {
        gemm_blocks(T::GEMM, T::rounded(k, buffer), &n, rows, m, width, &blocks);
    };
    crate::kernel::cross_kernel_blocks(kernel, x, components, &mut out, width, 4096, multiply)?;
    Ok(out)
}

/// One call of the Nyström product: N's rows `lo..hi` times the kernel values' columns
/// `lo..hi`, into the product's columns `start..end` (see [`nystroem_features`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowBlock {
    lo: usize,
    hi: usize,
    start: usize,
    end: usize,
}

/// N's rows per [`RowBlock`] (a half of one call's depth): 128. A call multiplies a pair of
/// halves (256 rows: `matrixmultiply`'s own depth of a packed panel, for sgemm and dgemm) over
/// the columns both reach, and each half alone over the columns only it reaches — an
/// upper-triangular N's diagonal blocks cost what 128-row calls would waste, the rest is
/// multiplied 256 rows deep. 100,000 rows onto 2,000 (1,000) landmarks in float32, one thread:
/// 6.1–6.2 s (2.0 s) paired, 6.6–8.2 s (2.0 s) with plain 256-row calls, 7.6–7.9 s
/// (2.2–2.3 s) by 128-column blocks before; plain calls of 64, 128 and 512 rows took 8.1–8.4,
/// 7.0–7.1 and 6.9–7.0 s at 2,000 (BENCHMARKS, seventh stop).
const ROW_BLOCK: usize = 128;

/// The calls of the product by N: N's rows in [`ROW_BLOCK`]s with the columns each reaches
/// (the others are zero in every row of the block), paired (see [`ROW_BLOCK`]); one call of
/// all rows and columns when every block reaches them all (a full N).
fn row_blocks(n: &[f64], m: usize, width: usize) -> Vec<RowBlock> {
    let halves: Vec<RowBlock> = (0..m)
        .step_by(ROW_BLOCK)
        .map(|lo| {
            let hi = (lo + ROW_BLOCK).min(m);
            let rows = || (lo..hi).map(|l| &n[l * width..(l + 1) * width]);
            let start = rows()
                .filter_map(|row| row.iter().position(|&v| v != 0.0))
                .min()
                .unwrap_or(width);
            let end = rows()
                .filter_map(|row| row.iter().rposition(|&v| v != 0.0))
                .max()
                .map_or(start, |j| j + 1);
            RowBlock { lo, hi, start, end }
        })
        .collect();
    if halves.iter().all(|b| b.start == 0 && b.end == width) {
        return vec![RowBlock {
            lo: 0,
            hi: m,
            start: 0,
            end: width,
        }];
    }
    let mut calls = Vec::with_capacity(halves.len() * 3 / 2 + 1);
    for pair in halves.chunks(2) {
        let (first, last) = (pair[0], pair[pair.len() - 1]);
        // the columns both halves may reach, then each half's own columns before them
        let shared = first.start.max(last.start);
        let end = first.end.max(last.end);
        calls.push(RowBlock {
            lo: first.lo,
            hi: last.hi,
            start: shared,
            end,
        });
        for half in pair {
            let own_end = shared.min(half.end);
            if half.start < own_end {
                calls.push(RowBlock {
                    start: half.start,
                    end: own_end,
                    ..*half
                });
            }
        }
    }
    calls
}

/// The value type of a Nyström map: `f64`, or `f32` (half the memory; the product in single
/// precision: the kernel values are computed in `f64`, rounded, and multiplied by N rounded to
/// `f32`. N = K_SS^{−1/2} of nearby landmarks has large entries of both signs, so the product
/// loses digits to cancellation: values differ from the `f64` map's by up to about 1e-4 of the
/// largest — measured on coreset landmarks; 1e-6 on well-spread ones —, far below the
/// Nyström approximation's own error).
pub trait MapValue: Copy + Default + Send + Sync + From<u8> + 'static {
    /// N in this type (borrowed when it already is).
    fn matrix(normalization: &[f64]) -> Cow<'_, [Self]>;
    /// Kernel values in this type: `k` itself, or `k` rounded into `buffer` (kept by the
    /// caller across blocks of rows: no fresh allocation per block).
    fn rounded<'a>(k: &'a [f64], buffer: &'a mut Vec<Self>) -> &'a [Self];
    /// `matrixmultiply`'s product in this type (dgemm or sgemm).
    #[doc(hidden)]
    const GEMM: RawGemm<Self>;
}

impl MapValue for f64 {
    fn matrix(normalization: &[f64]) -> Cow<'_, [f64]> {
        Cow::Borrowed(normalization)
    }
    fn rounded<'a>(k: &'a [f64], _: &'a mut Vec<f64>) -> &'a [f64] {
        k
    }
    const GEMM: RawGemm<f64> = matrixmultiply::dgemm;
}

impl MapValue for f32 {
    fn matrix(normalization: &[f64]) -> Cow<'_, [f32]> {
        Cow::Owned(normalization.iter().map(|&v| v as f32).collect())
    }
    fn rounded<'a>(k: &'a [f64], buffer: &'a mut Vec<f32>) -> &'a [f32] {
        buffer.clear();
        buffer.extend(k.iter().map(|&v| v as f32));
        buffer
    }
    const GEMM: RawGemm<f32> = matrixmultiply::sgemm;
}

/// `matrixmultiply`'s dgemm or sgemm: (m, k, n, α, A, row and column strides, B, strides, β,
/// C, strides).
type RawGemm<T> = unsafe fn(
    usize,
    usize,
    usize,
    T,
    *const T,
    isize,
    isize,
    *const T,
    isize,
    isize,
    T,
    *mut T,
    isize,
    isize,
);

/// C = A·B for row-major A (C's rows × `k`), B (`k` × `n`) and C, by `matrixmultiply`'s
/// `raw` (dgemm or sgemm: blocked, with the CPU's vector instructions), by B's row `blocks`:
/// C's columns `start..end` += A's columns `lo..hi` · B's rows `lo..hi` there (C zeroed first;
/// one block of everything writes C directly).
fn gemm_blocks<T: Copy + From<u8>>(
    raw: RawGemm<T>,
    a: &[T],
    b: &[T],
    c: &mut [T],
    k: usize,
    n: usize,
    blocks: &[RowBlock],
) {
    if n == 0 {
        return;
    }
    let rows = c.len() / n;
    assert!(a.len() == rows * k && b.len() == k * n && c.len() == rows * n);
    let (one, zero) = (T::from(1), T::from(0));
    let whole = blocks.len() == 1 && blocks[0].start == 0 && blocks[0].end == n;
    if !whole {
        c.fill(zero);
    }
    let beta = if whole { zero } else { one };
    for block in blocks {
        assert!(
            block.lo <= block.hi && block.hi <= k && block.start <= block.end && block.end <= n
        );
        if block.lo == block.hi || block.start == block.end {
            continue;
        }
        #[allow(unsafe_code)]
        // SAFETY: A's columns lo..hi (row stride k), B's rows lo..hi and columns start..end
        // (row stride n) and C's columns start..end (row stride n) lie inside the three slices
        // (the dimensions are checked above); `c` is borrowed mutably, apart from both.
        unsafe {
            raw(
                rows,
                block.hi - block.lo,
                block.end - block.start,
                one,
                a.as_ptr().add(block.lo),
                k as isize,
                1,
                b.as_ptr().add(block.lo * n + block.start),
                n as isize,
                1,
                beta,
                c.as_mut_ptr().add(block.start),
                n as isize,
                1,
            );
        }
    }
}

/// A rows × cols row-major matrix transposed.
fn transpose(a: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    (0..cols * rows)
        .map(|t| a[(t % rows) * cols + t / rows])
        .collect()
}

/// K^{−1/2} of a symmetric positive semi-definite m × m matrix (row-major; symmetrised first):
/// V diag(λ^{−1/2}) Vᵀ over the eigenvalues λ above 1e-12 of the largest (a pseudo-inverse;
/// zero when none is positive). Exactly symmetric. Unblocked O(m³) (EISPACK's algorithm, no
/// LAPACK): 0.18 s at m = 500, 2.1 s at 1,000 and 62 s at 2,000 on one core, against 0.04,
/// 0.24 and 2.1 s for NumPy's `eigh`, which the Python package uses for this reason.
pub fn inverse_sqrt(k: &[f64], m: usize) -> Vec<f64> {
    let mut a: Vec<f64> = (0..m * m)
        .map(|t| 0.5 * (k[t] + k[(t % m) * m + t / m]))
        .collect();
    let (values, vectors) = symmetric_eigen(&mut a, m);
    let top = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut out = vec![0.0; m * m];
    if !(top > 0.0) {
        return out;
    }
    for (j, &lambda) in values.iter().enumerate() {
        if lambda > 1e-12 * top {
            let v = &vectors[j * m..(j + 1) * m];
            let s = lambda.sqrt();
            for a in 0..m {
                let va = v[a] / s;
                for b in a..m {
                    out[a * m + b] += va * v[b];
                }
            }
        }
    }
    for a in 0..m {
        for b in 0..a {
            out[a * m + b] = out[b * m + a];
        }
    }
    out
}

/// Eigenvalues and eigenvectors (row j of the second, row-major) of the symmetric m × m
/// matrix `a` (overwritten): Householder tridiagonalisation and the implicit QL method
/// (EISPACK's tred2 and tql2, as in JAMA).
fn symmetric_eigen(a: &mut [f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    let v = a;
    let (mut d, mut e) = (vec![0.0; n], vec![0.0; n]);
    // tred2: V holds the accumulated transformations afterwards.
    d.copy_from_slice(&v[(n - 1) * n..]);
    for i in (1..n).rev() {
        let scale: f64 = d[..i].iter().map(|x| x.abs()).sum();
        let mut h = 0.0;
        if scale == 0.0 {
            e[i] = d[i - 1];
            for j in 0..i {
                d[j] = v[(i - 1) * n + j];
                v[i * n + j] = 0.0;
                v[j * n + i] = 0.0;
            }
        } else {
            for dk in &mut d[..i] {
                *dk /= scale;
                h += *dk * *dk;
            }
            let mut f = d[i - 1];
            let mut g = if f > 0.0 { -h.sqrt() } else { h.sqrt() };
            e[i] = scale * g;
            h -= f * g;
            d[i - 1] = f - g;
            e[..i].iter_mut().for_each(|x| *x = 0.0);
            for j in 0..i {
                f = d[j];
                v[j * n + i] = f;
                g = e[j] + v[j * n + j] * f;
                for k in j + 1..i {
                    g += v[k * n + j] * d[k];
                    e[k] += v[k * n + j] * f;
                }
                e[j] = g;
            }
            f = 0.0;
            for j in 0..i {
                e[j] /= h;
                f += e[j] * d[j];
            }
            let hh = f / (h + h);
            for j in 0..i {
                e[j] -= hh * d[j];
            }
            for j in 0..i {
                let (f, g) = (d[j], e[j]);
                for k in j..i {
                    v[k * n + j] -= f * e[k] + g * d[k];
                }
                d[j] = v[(i - 1) * n + j];
                v[i * n + j] = 0.0;
            }
        }
        d[i] = h;
    }
    for i in 0..n - 1 {
        v[(n - 1) * n + i] = v[i * n + i];
        v[i * n + i] = 1.0;
        let h = d[i + 1];
        if h != 0.0 {
            for k in 0..=i {
                d[k] = v[k * n + i + 1] / h;
            }
            for j in 0..=i {
                let g: f64 = (0..=i).map(|k| v[k * n + i + 1] * v[k * n + j]).sum();
                for k in 0..=i {
                    v[k * n + j] -= g * d[k];
                }
            }
        }
        for k in 0..=i {
            v[k * n + i + 1] = 0.0;
        }
    }
    for j in 0..n {
        d[j] = v[(n - 1) * n + j];
        v[(n - 1) * n + j] = 0.0;
    }
    v[(n - 1) * n + n - 1] = 1.0;
    e[0] = 0.0;
    // tql2 on the eigenvectors as rows (z[j]: column j of V), so rotations touch contiguous rows.
    let mut z = transpose(v, n, n);
    for i in 1..n {
        e[i - 1] = e[i];
    }
    e[n - 1] = 0.0;
    let (mut f, mut tst1) = (0.0f64, 0.0f64);
    let eps = f64::EPSILON;
    for l in 0..n {
        tst1 = tst1.max(d[l].abs() + e[l].abs());
        let mut m = l;
        while m < n - 1 && e[m].abs() > eps * tst1 {
            m += 1;
        }
        if m > l {
            loop {
                let g = d[l];
                let mut p = (d[l + 1] - g) / (2.0 * e[l]);
                let mut r = p.hypot(1.0);
                if p < 0.0 {
                    r = -r;
                }
                d[l] = e[l] / (p + r);
                d[l + 1] = e[l] * (p + r);
                let dl1 = d[l + 1];
                let h = g - d[l];
                for di in &mut d[l + 2..] {
                    *di -= h;
                }
                f += h;
                p = d[m];
                let (mut c, mut c2, mut c3) = (1.0, 1.0, 1.0);
                let el1 = e[l + 1];
                let (mut s, mut s2) = (0.0, 0.0);
                for i in (l..m).rev() {
                    c3 = c2;
                    c2 = c;
                    s2 = s;
                    let g = c * e[i];
                    let h = c * p;
                    r = p.hypot(e[i]);
                    e[i + 1] = s * r;
                    s = e[i] / r;
                    c = p / r;
                    p = c * d[i] - s * g;
                    d[i + 1] = h + s * (c * g + s * d[i]);
                    let (lo, hi) = z.split_at_mut((i + 1) * n);
                    for (zi, zi1) in lo[i * n..].iter_mut().zip(&mut hi[..n]) {
                        let h = *zi1;
                        *zi1 = s * *zi + c * h;
                        *zi = c * *zi - s * h;
                    }
                }
                p = -s * s2 * c3 * el1 * e[l] / dl1;
                e[l] = s * p;
                d[l] = c * p;
                if e[l].abs() <= eps * tst1 {
                    break;
                }
            }
        }
        d[l] += f;
        e[l] = 0.0;
    }
    (d, z)
}

/// The kernels random Fourier features approximate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FourierKernel {
    /// exp(−γ‖x − x′‖²): W ~ N(0, 2γ).
    Rbf,
    /// exp(−γ‖x − x′‖₁): W ~ Cauchy(0, γ).
    Laplacian,
}

/// Random Fourier features: W (features × D) and b (D).
#[derive(Clone, Debug, PartialEq)]
pub struct RandomFourierMap {
    weights: Vec<f64>,
    offset: Vec<f64>,
}

impl RandomFourierMap {
    /// Draws W and b from `rng` as `RandomFourierFeatures.fit` does (W row by row, then b).
    pub fn draw(
        kernel: FourierKernel,
        gamma: f64,
        n_features: usize,
        n_components: usize,
        rng: &mut LegacyRandomState,
    ) -> Result<Self> {
        if !(gamma.is_finite() && gamma > 0.0) {
            return Err(FwsvmError::param(
                "gamma",
                format!("must be a positive finite number, got {gamma}"),
            ));
        }
        let size = n_features * n_components;
        let weights = match kernel {
            FourierKernel::Rbf => rng.normal(0.0, (2.0 * gamma).sqrt(), size),
            FourierKernel::Laplacian => {
                let mut w = rng.standard_cauchy(size);
                w.iter_mut().for_each(|v| *v *= gamma);
                w
            }
        };
        let offset = rng.uniform(0.0, 2.0 * std::f64::consts::PI, n_components);
        Ok(RandomFourierMap { weights, offset })
    }

    /// The map of W (features × D, row-major) and b (D).
    pub fn from_parts(weights: Vec<f64>, offset: Vec<f64>) -> Result<Self> {
        if offset.is_empty() || !weights.len().is_multiple_of(offset.len()) {
            return Err(FwsvmError::InvalidInput(format!(
                "W has {} entries, not a multiple of the {} offsets",
                weights.len(),
                offset.len()
            )));
        }
        Ok(RandomFourierMap { weights, offset })
    }

    /// z(x) for every row of `x`: an n × D row-major array.
    pub fn transform(&self, x: Features<'_>) -> Result<Vec<f64>> {
        random_fourier_features(x, &self.weights, &self.offset)
    }

    crate::model::getters! {
        /// W, features × D row-major.
        weights: &[f64] = weights;
        /// b, one per output feature.
        offset: &[f64] = offset;
    }
}

/// z(x) = √(2/D) cos(xW + b) for every row of `x`: `weights` W (X's width × D, row-major),
/// `offset` b (D); an n × D row-major array.
pub fn random_fourier_features(
    x: Features<'_>,
    weights: &[f64],
    offset: &[f64],
) -> Result<Vec<f64>> {
    let (d, width) = (x.n_cols(), offset.len());
    if weights.len() != d * width {
        return Err(FwsvmError::InvalidInput(format!(
            "X has {d} features, but W has {} entries for {width} offsets",
            weights.len()
        )));
    }
    let mut out = try_filled(x.n_rows().saturating_mul(width), 0.0, "feature map")?;
    if width == 0 {
        return Ok(out);
    }
    let scale = (2.0 / width as f64).sqrt();
    let work = out.len().saturating_mul(d.max(1));
    for_each_chunk(&mut out, 64 * width, work, |lo, rows| {
        for (r, z) in rows.chunks_mut(width).enumerate() {
            // z = x_i W, one row of W per non-zero of x_i.
            let mut add = |f: usize, v: f64| {
                for (zc, wc) in z.iter_mut().zip(&weights[f * width..(f + 1) * width]) {
                    *zc += v * wc;
                }
            };
            match x {
                Features::Dense(m) => m
                    .row(lo / width + r)
                    .iter()
                    .enumerate()
                    .for_each(|(f, &v)| add(f, v)),
                Features::Sparse(m) => {
                    let (idx, val) = m.row(lo / width + r);
                    idx.iter().zip(val).for_each(|(&f, &v)| add(f as usize, v));
                }
            }
            for (zc, b) in z.iter_mut().zip(offset) {
                *zc = (*zc + b).cos() * scale;
            }
        }
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseView;

    /// K^{−1/2} K K^{−1/2} is the identity on a positive definite kernel matrix.
    #[test]
    fn inverse_sqrt_whitens() {
        let mut rng = crate::random::SplitMix64::new(3);
        let (n, d) = (30, 4);
        let data: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
        let x = Features::Dense(DenseView::new(&data, n, d).unwrap());
        let kernel = Kernel::rbf(0.3);
        let k = cross_kernel(kernel, x, x).unwrap();
        let w = inverse_sqrt(&k, n);
        for i in 0..n {
            for j in 0..n {
                let wkw: f64 = (0..n)
                    .flat_map(|a| (0..n).map(move |b| (a, b)))
                    .map(|(a, b)| w[i * n + a] * k[a * n + b] * w[b * n + j])
                    .sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((wkw - want).abs() < 1e-6, "{i} {j}: {wkw}");
            }
        }
        let map = NystroemMap::fit(kernel, x, (0..n).collect()).unwrap();
        let z = map.transform(x).unwrap();
        for i in 0..n {
            for j in 0..n {
                let zz: f64 = (0..n).map(|c| z[i * n + c] * z[j * n + c]).sum();
                assert!((zz - k[i * n + j]).abs() < 1e-8);
            }
        }
    }

    /// n × d standard normal values, row-major.
    fn normal_rows(seed: u64, n: usize, d: usize) -> Vec<f64> {
        let mut rng = crate::random::SplitMix64::new(seed);
        (0..n * d).map(|_| rng.normal()).collect()
    }

    /// The first n rows of `data` (d values each) as features.
    fn rows(data: &[f64], n: usize, d: usize) -> Features<'_> {
        Features::Dense(DenseView::new(&data[..n * d], n, d).unwrap())
    }

    /// The float32 map is the float64 map rounded: each value within 1e-5 of it (relative to
    /// the row's largest), on landmarks that are not the rows themselves.
    #[test]
    fn the_float32_map_is_the_float64_map_rounded() {
        let (n, d, k) = (300, 6, 40);
        let data = normal_rows(5, n, d);
        let (x, landmarks) = (rows(&data, n, d), rows(&data, k, d));
        let kernel = Kernel::rbf(0.2);
        let normalization = landmark_normalization(kernel, landmarks).unwrap();
        let z64: Vec<f64> = nystroem_features(kernel, x, landmarks, &normalization, k).unwrap();
        let z32: Vec<f32> = nystroem_features(kernel, x, landmarks, &normalization, k).unwrap();
        assert_eq!(z64.len(), z32.len());
        for (r64, r32) in z64.chunks(k).zip(z32.chunks(k)) {
            let scale = r64.iter().fold(1e-12_f64, |m, v| m.max(v.abs()));
            for (a, &b) in r64.iter().zip(r32) {
                assert!((a - f64::from(b)).abs() <= 1e-5 * scale, "{a} vs {b}");
            }
        }
        assert!(nystroem_features::<f32>(kernel, x, landmarks, &normalization[1..], k).is_err());
    }

    /// A normalization with zero columns at either end of its rows (an upper-triangular one
    /// whose last columns are zero) maps as the full product does, to rounding, in float64 and
    /// float32; the blocks skip the zero columns.
    #[test]
    fn triangular_normalizations_take_the_blocked_product() {
        let (n, d, m) = (300, 5, 290);
        let mut upper = normal_rows(9, m, m);
        for l in 0..m {
            for j in 0..m {
                if l > j || j >= m - 20 {
                    upper[l * m + j] = 0.0;
                }
            }
        }
        let data = normal_rows(8, n, d);
        let (x, landmarks) = (rows(&data, n, d), rows(&data, m, d));
        let kernel = Kernel::rbf(0.3);
        let blocks = row_blocks(&upper, m, m);
        // rows 0..256 over columns 128..270 and rows 0..128 over 0..128; rows 256..290 over
        // 256..270 (rows 270.. are zero)
        assert_eq!(
            blocks
                .iter()
                .map(|b| (b.lo, b.hi, b.start, b.end))
                .collect::<Vec<_>>(),
            vec![(0, 256, 128, 270), (0, 128, 0, 128), (256, 290, 256, 270)]
        );
        let full_n = normal_rows(3, m, m);
        assert_eq!(row_blocks(&full_n, m, m).len(), 1);
        // and rows whose nonzero columns begin and end anywhere (a half may begin after the
        // other, or reach nothing)
        let mut ragged = normal_rows(4, m, m);
        let mut rng = crate::random::SplitMix64::new(5);
        for l in 0..m {
            let (a, b) = (rng.below(m), rng.below(m));
            let (lo, hi) = if l % 97 == 5 {
                (0, 0)
            } else {
                (a.min(b), a.max(b) + 1)
            };
            for j in (0..m).filter(|j| !(lo..hi).contains(j)) {
                ragged[l * m + j] = 0.0;
            }
        }
        let k = cross_kernel(kernel, x, landmarks).unwrap();
        let whole = [RowBlock {
            lo: 0,
            hi: m,
            start: 0,
            end: m,
        }];
        for normalization in [&upper, &ragged] {
            let mut full = vec![0.0; n * m];
            gemm_blocks(
                matrixmultiply::dgemm,
                &k,
                normalization,
                &mut full,
                m,
                m,
                &whole,
            );
            let z64: Vec<f64> = nystroem_features(kernel, x, landmarks, normalization, m).unwrap();
            let z32: Vec<f32> = nystroem_features(kernel, x, landmarks, normalization, m).unwrap();
            let top = full.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            for ((a, b), c) in full.iter().zip(&z64).zip(&z32) {
                assert!((a - b).abs() <= 1e-12 * top, "{a} {b}");
                assert!((a - f64::from(*c)).abs() <= 1e-5 * top, "{a} {c}");
            }
        }
    }
}
