//! NumPy's legacy `RandomState` stream (MT19937 with its `random_sample`, `normal`,
//! `standard_cauchy`, `randint` and `choice(…, replace=False)` draws), so that the feature maps
//! and landmark draws give in Rust the same numbers as `numpy.random.RandomState(seed)` does in
//! Python (and Python's estimators can hand their generator's state to Rust and take it back).

use crate::error::{FwsvmError, Result};

/// MT19937's state size in 32-bit words.
const N: usize = 624;
/// MT19937's middle word offset.
const M: usize = 397;

/// NumPy's `RandomState`: the Mersenne Twister plus the cached second normal draw of the polar
/// method (`get_state()`'s `has_gauss` and `cached_gaussian`).
#[derive(Clone, Debug)]
pub struct LegacyRandomState {
    key: Vec<u32>,
    pos: usize,
    gauss: Option<f64>,
}

impl LegacyRandomState {
    /// `numpy.random.RandomState(seed)`.
    pub fn new(seed: u32) -> Self {
        let mut key = vec![0u32; N];
        let mut s = seed;
        for (i, k) in key.iter_mut().enumerate() {
            *k = s;
            s = 1_812_433_253u32
                .wrapping_mul(s ^ (s >> 30))
                .wrapping_add(i as u32 + 1);
        }
        LegacyRandomState {
            key,
            pos: N,
            gauss: None,
        }
    }

    /// The generator of `RandomState.get_state()`'s parts: the 624 key words, the position and
    /// the cached normal draw.
    pub fn from_parts(key: &[u32], pos: usize, gauss: Option<f64>) -> Result<Self> {
        if key.len() != N || pos > N {
            return Err(FwsvmError::InvalidInput(format!(
                "an MT19937 state has {N} key words and a position of at most {N}, got {} and {pos}",
                key.len()
            )));
        }
        Ok(LegacyRandomState {
            key: key.to_vec(),
            pos,
            gauss,
        })
    }

    /// The parts [`from_parts`](Self::from_parts) takes.
    pub fn parts(&self) -> (&[u32], usize, Option<f64>) {
        (&self.key, self.pos, self.gauss)
    }

    /// Regenerates the 624 words.
    fn twist(&mut self) {
        let mix = |a: u32, b: u32, c: u32| {
            let y = (a & 0x8000_0000) | (b & 0x7fff_ffff);
            c ^ (y >> 1) ^ (0u32.wrapping_sub(y & 1) & 0x9908_b0df)
        };
        for i in 0..N {
            self.key[i] = mix(self.key[i], self.key[(i + 1) % N], self.key[(i + M) % N]);
        }
        self.pos = 0;
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        if self.pos == N {
            self.twist();
        }
        let mut y = self.key[self.pos];
        self.pos += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random_sample()`: a uniform float in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }

    /// A uniform integer in `0..=max` by masked rejection (NumPy's `random_interval`, also
    /// `randint(max + 1)`).
    pub fn interval(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        let mask = u64::MAX >> max.leading_zeros();
        loop {
            let value = if max <= u32::MAX as u64 {
                (self.next_u32() as u64) & mask
            } else {
                let hi = self.next_u32() as u64;
                ((hi << 32) | self.next_u32() as u64) & mask
            };
            if value <= max {
                return value;
            }
        }
    }

    /// `standard_normal()` by the polar method, caching the second draw.
    pub fn gauss(&mut self) -> f64 {
        if let Some(g) = self.gauss.take() {
            return g;
        }
        loop {
            let x1 = 2.0 * self.next_f64() - 1.0;
            let x2 = 2.0 * self.next_f64() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                let f = (-2.0 * r2.ln() / r2).sqrt();
                self.gauss = Some(f * x1);
                return f * x2;
            }
        }
    }

    /// `normal(loc, scale, n)`.
    pub fn normal(&mut self, loc: f64, scale: f64, n: usize) -> Vec<f64> {
        (0..n).map(|_| loc + scale * self.gauss()).collect()
    }

    /// `standard_cauchy(n)`: the ratio of two normal draws.
    pub fn standard_cauchy(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.gauss() / self.gauss()).collect()
    }

    /// `uniform(low, high, n)`.
    pub fn uniform(&mut self, low: f64, high: f64, n: usize) -> Vec<f64> {
        let range = high - low;
        (0..n).map(|_| low + range * self.next_f64()).collect()
    }

    /// `permutation(n)`: 0..n shuffled (Fisher–Yates from the end).
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut out: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = self.interval(i as u64) as usize;
            out.swap(i, j);
        }
        out
    }

    /// `choice(n, k, replace=False)`: the first `k` of a permutation of 0..n (k ≤ n).
    pub fn choice(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut out = self.permutation(n);
        out.truncate(k);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `numpy.random.RandomState(0)`'s first draws.
    #[test]
    fn matches_numpy() {
        let mut r = LegacyRandomState::new(0);
        assert_eq!(r.next_f64(), 0.5488135039273248);
        let mut r = LegacyRandomState::new(0);
        assert_eq!(r.gauss(), 1.764052345967664);
        assert_eq!(r.gauss(), 0.4001572083672233);
        let mut r = LegacyRandomState::new(0);
        assert_eq!(r.permutation(5), vec![2, 0, 1, 3, 4]);
    }
}
