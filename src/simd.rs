//! Run-time selection of AVX2 and AVX-512 builds of the hottest loops.
//!
//! The crate is compiled for baseline x86-64 (SSE2), so wheels run on any x86-64 machine. The
//! bit-counting kernel columns ([`crate::kernel`] on indicator data), the feature-major inner
//! products of low-dimensional data, the kernel's outer function (the vectorised `exp` of rbf
//! and laplacian) and the fused gradient update and vertex scan of the solver are also compiled
//! with AVX2 and POPCNT enabled and chosen at run time when the CPU has them (BENCHMARKS.md,
//! "What changed, measured": w8a's fit 1.7× faster, a shuttle pair 1.46×). Fused multiply-add
//! is deliberately not enabled: every result is bit-identical to the baseline build, so a model
//! does not depend on the machine that trained it.
//!
//! On CPUs with AVX-512 and its vector popcount (VPOPCNTQ; e.g. AMD Zen 4, Intel Ice Lake and
//! later) the bit-counting look-up, the outer function and the update-and-scan have a third
//! build: the look-up is hand-vectorised across rows (`kernel::bits_avx512`; a9a 1.47×
//! faster), `exp` runs eight values at a time (the shuttle pair 1.2× faster than AVX2), and
//! the scan's wider masks and blends make a9a and w8a 7–9% faster.
//!
//! `FWSVM_SIMD=off` (read once per process) forces the baseline loops and `FWSVM_SIMD=avx2`
//! caps them at AVX2, for A/B measurements.
//!
//! `unsafe` appears here (calling a `#[target_feature]` function, which is sound once the
//! features have been detected) and in `kernel::bits_avx512` (the hand-written AVX-512
//! look-up's unaligned loads and stores) only.

use std::sync::OnceLock;

/// The widest instruction set the hot loops may use, from the CPU and `FWSVM_SIMD` (`off`:
/// baseline; `avx2`: at most AVX2), read once per process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    Baseline,
    Avx2,
    Avx512,
}

fn level() -> Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let cap = match std::env::var("FWSVM_SIMD") {
            Ok(v) if v.trim().eq_ignore_ascii_case("off") => Level::Baseline,
            Ok(v) if v.trim().eq_ignore_ascii_case("avx2") => Level::Avx2,
            _ => Level::Avx512,
        };
        detected().min(cap)
    })
}

/// Whether the AVX2 + POPCNT builds may run on this CPU (and are not switched off).
#[inline]
pub(crate) fn avx2() -> bool {
    level() >= Level::Avx2
}

/// Whether the AVX-512 builds (with the vector popcount, VPOPCNTQ) may run.
#[inline]
pub(crate) fn avx512() -> bool {
    level() >= Level::Avx512
}

#[cfg(target_arch = "x86_64")]
fn detected() -> Level {
    use std::arch::is_x86_feature_detected as has;
    if has!("avx512f")
        && has!("avx512vpopcntdq")
        && has!("avx512vl")
        && has!("avx512bw")
        && has!("popcnt")
    {
        Level::Avx512
    } else if has!("avx2") && has!("popcnt") {
        Level::Avx2
    } else {
        Level::Baseline
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detected() -> Level {
    Level::Baseline
}

/// `x` when it is strictly above `m`, else `m`: NaN never wins, and a lane loop of it
/// vectorises as a compare and blend (where `f64::max` does not).
#[inline(always)]
pub(crate) fn strict_max(m: f64, x: f64) -> f64 {
    if x > m { x } else { m }
}

/// `x` when it is strictly below `m`, else `m` (the mirror of [`strict_max`]).
#[inline(always)]
pub(crate) fn strict_min(m: f64, x: f64) -> f64 {
    if x < m { x } else { m }
}

/// The largest lane by [`strict_max`] from −∞ (NaN lanes never win).
#[inline(always)]
pub(crate) fn lanes_max(lanes: &[f64]) -> f64 {
    lanes
        .iter()
        .fold(f64::NEG_INFINITY, |m, &x| strict_max(m, x))
}

/// The smallest lane by [`strict_min`] from +∞.
#[inline(always)]
pub(crate) fn lanes_min(lanes: &[f64]) -> f64 {
    lanes.iter().fold(f64::INFINITY, |m, &x| strict_min(m, x))
}

/// The first offset r < `len` with `attains(r)`: the slot of a block's extreme, found again
/// after the lane-wise scan (the block holds it).
#[inline(always)]
pub(crate) fn first_in_block(len: usize, attains: impl Fn(usize) -> bool) -> usize {
    (0..len)
        .find(|&r| attains(r))
        .expect("attained in the block")
}

/// The name of the instruction set the hot loops use, for logs and benchmark records.
pub fn instruction_set() -> &'static str {
    match level() {
        Level::Baseline => "baseline",
        Level::Avx2 => "avx2+popcnt",
        Level::Avx512 => "avx512+vpopcntdq (kernel look-up, exp, scan), avx2 (products)",
    }
}

/// Defines `$name`, which runs `$body` compiled with AVX2 and POPCNT when [`avx2`] holds and
/// the baseline build otherwise; with a leading `avx512;`, an AVX-512 (VPOPCNTQ) build is tried
/// first when [`avx512`] holds. `$body` should call `#[inline(always)]` code, so the whole loop
/// is compiled for the wider instruction set.
macro_rules! multiversion {
    (avx512; $($item:tt)*) => { $crate::simd::multiversion!(@tiers true; $($item)*); };
    (@tiers $with512:literal;
     $(#[$meta:meta])* $vis:vis fn $name:ident $(<$lt:lifetime>)?
     ($($arg:ident : $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$meta])*
        $vis fn $name $(<$lt>)? ($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vpopcntdq,avx512vl,avx512bw,avx2,popcnt")]
                fn wide512 $(<$lt>)? ($($arg: $ty),*) $(-> $ret)? $body
                #[target_feature(enable = "avx2,popcnt")]
                fn wide $(<$lt>)? ($($arg: $ty),*) $(-> $ret)? $body
                if $with512 && $crate::simd::avx512() {
                    // SAFETY: the CPU has these features (`simd::avx512` detected them).
                    #[allow(unsafe_code)]
                    return unsafe { wide512($($arg),*) };
                }
                if $crate::simd::avx2() {
                    // SAFETY: the CPU has AVX2 and POPCNT (`simd::avx2` detected them).
                    #[allow(unsafe_code)]
                    return unsafe { wide($($arg),*) };
                }
            }
            $body
        }
    };
    ($($item:tt)*) => { $crate::simd::multiversion!(@tiers false; $($item)*); };
}
pub(crate) use multiversion;

/// Asks the CPU to bring the first 512 bytes of `data` towards the core (a hint: no effect on
/// any result). A sweep that visits rows in a random order calls it for the next row while it
/// works on this one, so the row's start is not a full memory latency away; the hardware's
/// stream prefetcher follows the rest of the row. Measured on 200,000 rows of 1,000 features:
/// every line of a row was slower (float64 rows, an 11-round fit 1.7 → 2.0 s); the first eight
/// lines, float32 rows: one shard's 14 rounds 1.04 → 1.00–1.03 s, 16 shards' 63 rounds
/// 5.35–5.39 → 5.24–5.26 s.
#[inline]
pub(crate) fn prefetch<T>(data: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let bytes = std::mem::size_of_val(data);
        let start = data.as_ptr().cast::<i8>();
        for offset in (0..bytes.min(512)).step_by(64) {
            // SAFETY: a prefetch never faults and reads nothing into the program's state; the
            // address is inside `data` (SSE, which has the instruction, is baseline x86-64).
            #[allow(unsafe_code)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(start.add(offset));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}
