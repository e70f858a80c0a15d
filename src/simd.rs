//! Run-time selection of AVX2 builds of the hottest loops.
//!
//! The crate is compiled for baseline x86-64 (SSE2), so wheels run on any x86-64 machine. The
//! bit-counting kernel columns ([`crate::kernel`] on indicator data) and the fused gradient
//! update and vertex scan of the solver are also compiled with AVX2 and POPCNT enabled and
//! chosen at run time when the CPU has them (BENCHMARKS.md, "What changed, measured": w8a's fit
//! 1.6× faster). Fused multiply-add is deliberately not enabled: every result is bit-identical
//! to the baseline build, so a model does not depend on the machine that trained it.
//!
//! `FWSVM_SIMD=off` (read once per process) forces the baseline loops, for A/B measurements.
//!
//! This is the crate's only `unsafe`: calling a `#[target_feature]` function, which is sound
//! once the features have been detected.

use std::sync::OnceLock;

/// Whether the AVX2 + POPCNT builds may run on this CPU (and are not switched off).
#[inline]
pub(crate) fn avx2() -> bool {
    static AVX2: OnceLock<bool> = OnceLock::new();
    *AVX2.get_or_init(|| {
        let off = std::env::var("FWSVM_SIMD").is_ok_and(|v| v.trim().eq_ignore_ascii_case("off"));
        !off && detected()
    })
}

#[cfg(target_arch = "x86_64")]
fn detected() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
}

#[cfg(not(target_arch = "x86_64"))]
fn detected() -> bool {
    false
}

/// The name of the instruction set the hot loops use, for logs and benchmark records.
pub fn instruction_set() -> &'static str {
    if avx2() { "avx2+popcnt" } else { "baseline" }
}

/// Defines `$name`, which runs `$body` compiled with AVX2 and POPCNT when [`avx2`] holds and
/// the baseline build otherwise. `$body` should call `#[inline(always)]` code, so the whole
/// loop is compiled for the wider instruction set.
macro_rules! multiversion {
    ($(#[$meta:meta])* $vis:vis fn $name:ident $(<$lt:lifetime>)? ($($arg:ident : $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$meta])*
        $vis fn $name $(<$lt>)? ($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,popcnt")]
                fn wide $(<$lt>)? ($($arg: $ty),*) $(-> $ret)? $body
                if $crate::simd::avx2() {
                    // SAFETY: the CPU has AVX2 and POPCNT (`simd::avx2` detected them).
                    #[allow(unsafe_code)]
                    return unsafe { wide($($arg),*) };
                }
            }
            $body
        }
    };
}
pub(crate) use multiversion;
