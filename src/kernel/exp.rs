//! A vectorisable exp for the rbf and laplacian kernels.
//!
//! libm's `exp` is a scalar call with table look-ups, which the compiler cannot vectorise; on a9a
//! and w8a it was a fifth of the whole fit (BENCHMARKS.md, "Where the time goes"). The kernels only
//! need exp on (−∞, 0], so this is the classic branch-free scheme: Cody–Waite range reduction x =
//! n·ln 2 + r with |r| ≤ ln 2 / 2, a degree-13 Taylor polynomial for e^r (truncation error below
//! 5·10⁻¹⁸, evaluated by Estrin's scheme) and the scale 2ⁿ built directly in the exponent bits.
//! Every operation is an f64 multiply/add or a 64-bit integer shift/add, so loops over slices
//! vectorise with the baseline SSE2. Alone in a tight loop it is about as fast as libm (≈ 9 ns per
//! value on this project's 2 GHz Xeon), but inside whole rbf columns of a9a and w8a it took 10–20%
//! less time than the libm version, and it is deterministic across machines and libm versions. The
//! relative error is a few ulp (tested against libm below). No fused multiply-add is used, so the
//! scalar and vector code give bit-identical results on every x86-64 machine.
//!
//! AVX2 and AVX-512 builds of the kernel's outer function (`KernelMatrix::outer`, run-time
//! selection in [`crate::simd`]) evaluate it four or eight values at a time. On the Intel Xeon of
//! 2026-11-22 AVX builds of whole column loops were no faster (the wide instructions lowered the
//! clock for the scalar gather loop too); on the AMD Zen 4 of 2026-11-24, with the inner products
//! vectorised separately, the AVX2 build made a shuttle fit 1.46× faster and AVX-512 another
//! 1.2× (BENCHMARKS.md).

/// The scheme both precisions share, as an expression: x clamped to [`$flush`, 0]; adding the
/// shifter to x·log₂e rounds n = round(x·log₂e) into the low mantissa bits of t; r = x − n·ln 2
/// with ln 2 split as `$hi` plus `$lo` (Cody–Waite); e^r from `$poly`; 2ⁿ as n plus `$bias`
/// shifted by `$mant` bits into the exponent; 0 below `$flush`. A macro rather than a generic
/// function so each precision keeps its own plain float code in the vectorised loops.
macro_rules! cody_waite {
    ($x:expr, $float:ty, $flush:expr, $log2_e:expr, $shifter:expr, $hi:expr, $lo:expr,
     $poly:expr, $mant:literal, $bias:literal) => {{
        let x: $float = $x;
        let clamped = x.clamp($flush, 0.0);
        let t = clamped * $log2_e + $shifter;
        let n = t - $shifter;
        let r = (clamped - n * $hi) - n * $lo;
        let scale = <$float>::from_bits((t.to_bits() << $mant).wrapping_add($bias << $mant));
        let y = $poly(r) * scale;
        if x < $flush { 0.0 } else { y }
    }};
}

/// Below this, e^x < 2.3·10⁻³⁰⁸: the result is flushed to zero instead of building a subnormal.
const FLUSH_BELOW: f64 = -708.0;

/// e^x for x ≤ 0 (larger x is clamped to 0, giving 1; NaN gives NaN).
#[inline(always)]
pub(crate) fn exp_nonpositive(x: f64) -> f64 {
    const LOG2_E: f64 = std::f64::consts::LOG2_E;
    // 1.5·2⁵²: adding it rounds to an integer held in the low mantissa bits.
    const SHIFTER: f64 = 6_755_399_441_055_744.0;
    // ln 2 split so that n·LN2_HI is exact for |n| < 2¹¹ (fdlibm's constants).
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    // 1/k! for k = 0, ..., 13.
    const C: [f64; 14] = [
        1.0,
        1.0,
        0.5,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5_040.0,
        1.0 / 40_320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
        1.0 / 6_227_020_800.0,
    ];
    // Estrin's scheme: a dependency chain of 8 operations instead of Horner's 26, so the
    // out-of-order core keeps the vector units busy.
    let poly = |r: f64| {
        let r2 = r * r;
        let r4 = r2 * r2;
        let r8 = r4 * r4;
        let q = |k: usize| C[k] + C[k + 1] * r;
        let s0 = q(0) + q(2) * r2;
        let s1 = q(4) + q(6) * r2;
        let s2 = q(8) + q(10) * r2;
        let s3 = q(12);
        (s0 + s1 * r4) + (s2 + s3 * r4) * r8
    };
    // The low 12 bits of t's mantissa are n (two's complement); n + 1023 is in [1, 1023].
    cody_waite!(
        x,
        f64,
        FLUSH_BELOW,
        LOG2_E,
        SHIFTER,
        LN2_HI,
        LN2_LO,
        poly,
        52,
        1023
    )
}

/// xs[i] ← exp(xs[i]) for a slice of non-positive values (a loop the compiler vectorises).
#[inline]
pub(crate) fn exp_in_place(xs: &mut [f64]) {
    for x in xs.iter_mut() {
        *x = exp_nonpositive(*x);
    }
}

/// Below this, e^x < 1.2·10⁻³⁸ (f32's smallest normal): flushed to zero.
const FLUSH_BELOW_F32: f32 = -87.0;

/// The bound on |exp_nonpositive_f32(a as f32) − e^a| for a ≤ 0 in units of 2⁻²⁴ (absolute:
/// e^a ≤ 1): the argument's rounding to f32 (≤ |a|·e^a·2⁻²⁴ ≤ 0.37·2⁻²⁴), the reduction, the
/// polynomial's truncation (< 2⁻²⁷) and f32 arithmetic. Measured worst case 1.75 (the test
/// below); the cache's rounding bound charges this, not the half ulp of a rounded f64 value.
pub(crate) const F32_EXP_ERROR: f64 = 2.5;

/// e^x for x ≤ 0 to f32 accuracy, in f32 arithmetic: sixteen values per AVX-512 instruction
/// where [`exp_nonpositive`] has eight and needs twice the polynomial. The same scheme: x =
/// n·ln 2 + r with |r| ≤ ln 2 / 2 (Cody–Waite, Cephes' split of ln 2 so that n·LN2_HI is
/// exact), Taylor to degree 7 by Estrin's scheme (truncation below 5.2·10⁻⁹ relative), 2ⁿ in
/// the exponent bits. No fused multiply-add: every build gives the same bits. Larger x is
/// clamped to 0 (giving 1), x below −87 gives 0, NaN gives NaN.
#[inline(always)]
pub(crate) fn exp_nonpositive_f32(x: f32) -> f32 {
    const LOG2_E: f32 = std::f32::consts::LOG2_E;
    // 1.5·2²³: adding it rounds to an integer held in the low mantissa bits.
    const SHIFTER: f32 = 12_582_912.0;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let poly = |r: f32| {
        let r2 = r * r;
        let r4 = r2 * r2;
        let s0 = (1.0 + r) + (0.5 + r * (1.0 / 6.0)) * r2;
        let s1 = (1.0 / 24.0 + r * (1.0 / 120.0)) + (1.0 / 720.0 + r * (1.0 / 5_040.0)) * r2;
        s0 + s1 * r4
    };
    // The low 9 bits of t's mantissa are n (two's complement); n + 127 is in [1, 127].
    cody_waite!(
        x,
        f32,
        FLUSH_BELOW_F32,
        LOG2_E,
        SHIFTER,
        LN2_HI,
        LN2_LO,
        poly,
        23,
        127
    )
}

/// xs[i] ← exp(xs[i]) to f32 accuracy for a slice of non-positive values.
#[inline]
pub(crate) fn exp_in_place_f32(xs: &mut [f32]) {
    for x in xs.iter_mut() {
        *x = exp_nonpositive_f32(*x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs() / f64::EPSILON
    }

    #[test]
    fn matches_libm_within_a_few_ulp() {
        let mut worst: f64 = 0.0;
        let mut x = 0.0;
        while x > -700.0 {
            worst = worst.max(ulps(exp_nonpositive(x), x.exp()));
            x -= 0.000_731;
        }
        assert!(worst <= 4.0, "worst error {worst} ulp");
        assert_eq!(exp_nonpositive(0.0), 1.0);
        assert_eq!(exp_nonpositive(-0.0), 1.0);
    }

    #[test]
    fn f32_version_is_within_its_bound_of_the_exact_value() {
        // Every error source at once: a (f64) rounded to f32, then the f32 exp, against e^a.
        let mut worst: f64 = 0.0;
        let mut a = 0.0f64;
        while a > -110.0 {
            let got = f64::from(exp_nonpositive_f32(a as f32));
            worst = worst.max((got - a.exp()).abs() / 2f64.powi(-24));
            a -= 0.000_013_7;
        }
        assert!(worst <= F32_EXP_ERROR, "worst error {worst} · 2⁻²⁴");
        assert!(
            worst >= 1.0,
            "the bound is not loose by more than 2.5×: {worst}"
        );
        assert_eq!(exp_nonpositive_f32(0.0), 1.0);
        assert_eq!(exp_nonpositive_f32(-88.0), 0.0);
        assert_eq!(exp_nonpositive_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_nonpositive_f32(3.0), 1.0);
        assert!(exp_nonpositive_f32(f32::NAN).is_nan());
    }

    #[test]
    fn tiny_results_flush_to_zero_and_nan_propagates() {
        assert_eq!(exp_nonpositive(-709.0), 0.0);
        assert_eq!(exp_nonpositive(f64::NEG_INFINITY), 0.0);
        assert!(exp_nonpositive(-707.9) > 0.0);
        assert_eq!(exp_nonpositive(1.0), 1.0);
        assert!(exp_nonpositive(f64::NAN).is_nan());
    }
}
