//! A small seeded generator (SplitMix64) so that `random_state` gives the same model on every
//! platform and crate version, independent of any external RNG crate's stream; [`legacy`], NumPy's
//! `RandomState` stream, where a model must draw what Python's draws.

pub mod legacy;

/// SplitMix64 (Steele, Lea, Flood 2014): fast, 64-bit state, passes BigCrush.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform float in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal draw (Box–Muller), for generated test and benchmark data.
    pub fn normal(&mut self) -> f64 {
        let u1 = ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// A uniform integer in `0..n` (n > 0), by Lemire's multiply-shift (bias < n / 2⁶⁴).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Shuffles `v` in place (Fisher–Yates, from the last element down).
    #[inline]
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }

    /// `k` distinct indices from `0..n` (all of them, shuffled, when k ≥ n), in O(k) memory.
    pub fn sample_distinct(&mut self, n: usize, k: usize) -> Vec<usize> {
        let k = k.min(n);
        // Floyd's algorithm, then a shuffle so the order is random too.
        let mut chosen: Vec<usize> = Vec::with_capacity(k);
        let mut set = std::collections::HashSet::with_capacity(k);
        for j in (n - k)..n {
            let t = self.below(j + 1);
            let pick = if set.contains(&t) { j } else { t };
            set.insert(pick);
            chosen.push(pick);
        }
        self.shuffle(&mut chosen);
        chosen
    }

    /// A CSR sparsity pattern `(indptr, indices)` of `m` rows, each with the distinct features
    /// (ascending) among `draws` draws from `0..n_cols`: the layout of generated sparse test data.
    #[cfg(test)]
    pub(crate) fn sparse_pattern(
        &mut self,
        m: usize,
        draws: usize,
        n_cols: usize,
    ) -> (Vec<usize>, Vec<u32>) {
        let mut indptr = vec![0];
        let mut indices = Vec::new();
        for _ in 0..m {
            let mut cols: Vec<u32> = (0..draws).map(|_| self.below(n_cols) as u32).collect();
            cols.sort_unstable();
            cols.dedup();
            indices.extend(&cols);
            indptr.push(indices.len());
        }
        (indptr, indices)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_distinct_is_distinct_and_in_range() {
        let mut r = SplitMix64::new(7);
        for &(n, k) in &[(10, 3), (10, 10), (5, 20), (1000, 20)] {
            let s = r.sample_distinct(n, k);
            assert_eq!(s.len(), k.min(n));
            let mut u = s.clone();
            u.sort();
            u.dedup();
            assert_eq!(u.len(), s.len());
            assert!(s.iter().all(|&i| i < n));
        }
    }
}
