//! [`ColumnCache`]: kernel columns k(X, x_j) of recently used points, least recently used
//! evicted first, within a byte budget (`cache_size`).
//!
//! Frank-Wolfe steps touch the toward vertex and, for away/swap steps, an active (coreset)
//! point, so the working set is the coreset; LRU keeps it resident when it fits.
//!
//! Columns are stored as `f64` when the budget holds the whole kernel matrix that way, and as
//! `f32` otherwise (LIBSVM stores `float` always): twice the columns in the same memory, and
//! half the bytes for the O(m) pass to read. Values are computed in `f64` and rounded once;
//! every sum over them is accumulated in `f64`. A coreset that outgrows an `f64` cache
//! recomputes a column on almost every step (BENCHMARKS.md: the shuttle pair 1-vs-4 at C = 100
//! computed 134k columns for 934 support vectors, 60 s; with `f32` storage 1.1k columns, 8 s).

use super::matrix::{KernelMatrix, QueryScratch};

const NO_SLOT: u32 = u32::MAX;

/// How cached columns are stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CachePrecision {
    /// `f64` when the budget holds all m columns as `f64`, `f32` otherwise. The default.
    #[default]
    Auto,
    /// Always `f64`: bit-for-bit the values the kernel computes.
    Float64,
    /// Always `f32` (values rounded once; sums still in `f64`).
    Float32,
}

impl CachePrecision {
    /// The parameter's name in messages and logs.
    pub fn name(self) -> &'static str {
        match self {
            CachePrecision::Auto => "auto",
            CachePrecision::Float64 => "float64",
            CachePrecision::Float32 => "float32",
        }
    }
}

/// A cached kernel column, in its storage precision.
#[derive(Clone, Copy, Debug)]
pub enum Column<'c> {
    /// Stored as computed.
    F64(&'c [f64]),
    /// Rounded to `f32` once.
    F32(&'c [f32]),
}

impl<'c> Column<'c> {
    /// Entry i, widened to `f64`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Column::F64(c) => c[i],
            Column::F32(c) => f64::from(c[i]),
        }
    }

    /// Number of entries (m).
    pub fn len(&self) -> usize {
        match self {
            Column::F64(c) => c.len(),
            Column::F32(c) => c.len(),
        }
    }

    /// Whether the column is empty (m = 0).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entries `range` of the column.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Column<'c> {
        match *self {
            Column::F64(c) => Column::F64(&c[range]),
            Column::F32(c) => Column::F32(&c[range]),
        }
    }
}

/// Column storage of one precision.
#[derive(Debug)]
enum Store {
    F64(Vec<Vec<f64>>),
    F32(Vec<Vec<f32>>),
}

/// Mutable borrows of the distinct `slots` of `columns`, in the order of `slots`.
fn disjoint_slots<'c, T>(columns: &'c mut [Vec<T>], slots: &[usize]) -> Vec<&'c mut [T]> {
    let mut by_slot: Vec<Option<&mut Vec<T>>> = columns.iter_mut().map(Some).collect();
    slots
        .iter()
        .map(|&slot| by_slot[slot].take().expect("distinct slots").as_mut_slice())
        .collect()
}

/// A bounded cache of base-kernel columns, each of length m.
#[derive(Debug)]
pub struct ColumnCache {
    m: usize,
    capacity: usize,
    store: Store,
    owner: Vec<usize>,
    last_used: Vec<u64>,
    slot_of: Vec<u32>,
    clock: u64,
    scratch: QueryScratch,
    hits: u64,
    computed: u64,
}

impl ColumnCache {
    /// A cache for columns of length `m` using at most `budget_bytes` for column storage (but
    /// always room for two columns, the minimum a pairwise step needs), `f64` columns.
    pub fn new(m: usize, budget_bytes: usize) -> Self {
        ColumnCache::with_precision(m, budget_bytes, CachePrecision::Float64)
    }

    /// As [`ColumnCache::new`], storing columns in the given precision (see
    /// [`CachePrecision::Auto`] for the automatic choice).
    pub fn with_precision(m: usize, budget_bytes: usize, precision: CachePrecision) -> Self {
        let columns_of = |bytes: usize| budget_bytes / (m * bytes).max(1);
        let f32_storage = match precision {
            CachePrecision::Float64 => false,
            CachePrecision::Float32 => true,
            CachePrecision::Auto => columns_of(std::mem::size_of::<f64>()) < m,
        };
        let (per_value, store) = if f32_storage {
            (std::mem::size_of::<f32>(), Store::F32(Vec::new()))
        } else {
            (std::mem::size_of::<f64>(), Store::F64(Vec::new()))
        };
        let capacity = columns_of(per_value).clamp(2, m.max(2));
        ColumnCache {
            m,
            capacity,
            store,
            owner: Vec::new(),
            last_used: Vec::new(),
            slot_of: vec![NO_SLOT; m],
            clock: 0,
            scratch: QueryScratch::new(),
            hits: 0,
            computed: 0,
        }
    }

    /// Maximum number of columns held.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The storage precision in use: [`CachePrecision::Float64`] or [`CachePrecision::Float32`].
    pub fn precision(&self) -> CachePrecision {
        match self.store {
            Store::F64(_) => CachePrecision::Float64,
            Store::F32(..) => CachePrecision::Float32,
        }
    }

    /// Number of lookups answered from the cache.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Number of columns computed (cache misses), i.e. m kernel evaluations each.
    pub fn columns_computed(&self) -> u64 {
        self.computed
    }

    /// The slot holding column `j`, if cached.
    pub fn lookup(&self, j: usize) -> Option<usize> {
        match self.slot_of[j] {
            NO_SLOT => None,
            s => Some(s as usize),
        }
    }

    fn len(&self) -> usize {
        self.owner.len()
    }

    /// Ensures column `j` is cached and returns its slot. The slot `keep` (if any) is never
    /// evicted, so two columns can be held at once.
    pub fn fetch(&mut self, kernel: &KernelMatrix<'_>, j: usize, keep: Option<usize>) -> usize {
        self.clock += 1;
        if let Some(s) = self.lookup(j) {
            self.hits += 1;
            self.last_used[s] = self.clock;
            return s;
        }
        self.computed += 1;
        let slot = self
            .claim(j, |s, _| Some(s) != keep)
            .expect("an evictable slot: capacity is at least two and only `keep` is protected");
        match &mut self.store {
            Store::F64(columns) => kernel.column(j, &mut columns[slot], &mut self.scratch),
            Store::F32(columns) => kernel.column_f32(j, &mut columns[slot], &mut self.scratch),
        }
        self.slot_of[j] = slot as u32;
        self.last_used[slot] = self.clock;
        slot
    }

    /// As [`ColumnCache::fetch`], but when column `j` is missing it is computed in one pass with
    /// the missing columns of `likely` (samples the caller expects to need soon), as many as
    /// fit in a block ([`KernelMatrix::columns`]) and in the cache without evicting `keep`. The
    /// speculative columns enter as recently used.
    pub fn fetch_with(
        &mut self,
        kernel: &KernelMatrix<'_>,
        j: usize,
        likely: &[usize],
        keep: Option<usize>,
    ) -> usize {
        if self.lookup(j).is_some() {
            return self.fetch(kernel, j, keep);
        }
        let room = self
            .capacity
            .saturating_sub(1 + usize::from(keep.is_some()));
        let mut batch = vec![j];
        for &t in likely {
            if batch.len() > room || batch.len() == super::block::BLOCK {
                break;
            }
            if t != j && self.lookup(t).is_none() && !batch.contains(&t) {
                batch.push(t);
            }
        }
        self.clock += 1;
        // Only a cache that stopped growing mid-batch (a failed allocation) can run out of
        // slots; the batch then ends there (never at `j`, the first: see `fetch`).
        let slots = self.claim_all(&batch, self.clock, keep);
        assert!(!slots.is_empty(), "column {j} has a slot");
        batch.truncate(slots.len());
        self.compute(kernel, &batch, &slots);
        slots[0]
    }

    /// Ensures the columns of `js` (distinct samples) are all cached at once and returns their
    /// slots, in order: the missing ones are computed [`BLOCK`](super::block::BLOCK) at a time
    /// ([`KernelMatrix::columns`]: one pass over the data per block), evicting only columns
    /// outside `js`. Where the cache cannot hold them all (more than its capacity, or a failed
    /// allocation), the slots of the longest prefix of `js` it holds are returned.
    pub fn fetch_all(&mut self, kernel: &KernelMatrix<'_>, js: &[usize]) -> Vec<usize> {
        self.clock += 1;
        let now = self.clock;
        let mut slots = vec![usize::MAX; js.len()];
        let mut missing = Vec::new();
        for (k, &j) in js.iter().enumerate() {
            match self.lookup(j) {
                Some(s) => {
                    self.hits += 1;
                    self.last_used[s] = now;
                    slots[k] = s;
                }
                None => missing.push(k),
            }
        }
        let mut held = js.len();
        for block in missing.chunks(super::block::BLOCK) {
            let batch: Vec<usize> = block.iter().map(|&k| js[k]).collect();
            let claimed = self.claim_all(&batch, now, None);
            for (&k, &slot) in block.iter().zip(&claimed) {
                slots[k] = slot;
            }
            self.compute(kernel, &batch[..claimed.len()], &claimed);
            if claimed.len() < block.len() {
                held = block[claimed.len()];
                break;
            }
        }
        slots.truncate(held);
        slots
    }

    /// Slots for the columns `batch`, in order, stamped `now` and counted as computed (the
    /// caller computes them): neither `keep` nor a column stamped `now` is evicted. Stops at
    /// the first column without an evictable slot; returns the slots claimed.
    fn claim_all(&mut self, batch: &[usize], now: u64, keep: Option<usize>) -> Vec<usize> {
        let mut slots = Vec::with_capacity(batch.len());
        for &t in batch {
            let Some(slot) = self.claim(t, |s, used| Some(s) != keep && used != now) else {
                break;
            };
            self.computed += 1;
            self.slot_of[t] = slot as u32;
            self.last_used[slot] = now;
            slots.push(slot);
        }
        slots
    }

    /// Computes the columns `batch` into their (claimed) `slots` in one pass.
    fn compute(&mut self, kernel: &KernelMatrix<'_>, batch: &[usize], slots: &[usize]) {
        if batch.is_empty() {
            return;
        }
        match &mut self.store {
            Store::F64(columns) => {
                let mut outs = disjoint_slots(columns, slots);
                kernel.columns(batch, &mut outs, &mut self.scratch);
            }
            Store::F32(columns) => {
                let mut outs = disjoint_slots(columns, slots);
                kernel.columns(batch, &mut outs, &mut self.scratch);
            }
        }
    }

    /// A slot for column `j`: a new one while the cache has room, else the least recently used
    /// slot that `evictable(slot, last_used)` allows (whose column is forgotten), or `None` if
    /// no slot is evictable. The caller fills it.
    fn claim(&mut self, j: usize, evictable: impl Fn(usize, u64) -> bool) -> Option<usize> {
        if self.len() < self.capacity && self.grow() {
            self.owner.push(j);
            self.last_used.push(0);
            return Some(self.len() - 1);
        }
        let victim = (0..self.len())
            .filter(|&s| evictable(s, self.last_used[s]))
            .min_by_key(|&s| self.last_used[s])?;
        self.slot_of[self.owner[victim]] = NO_SLOT;
        self.owner[victim] = j;
        Some(victim)
    }

    /// Adds one zeroed column slot. Where the allocation fails the cache stops growing
    /// (its capacity becomes its length, and later columns evict as in a full cache), so a
    /// `cache_size` larger than the memory available slows a fit down instead of aborting it.
    /// The first two slots, the minimum a pairwise step needs, are allocated infallibly.
    fn grow(&mut self) -> bool {
        let must = self.len() < 2;
        let m = self.m;
        let pushed = match &mut self.store {
            Store::F64(columns) => try_zeroed(m, must).map(|c| columns.push(c)),
            Store::F32(columns) => try_zeroed(m, must).map(|c| columns.push(c)),
        };
        if pushed.is_none() {
            self.capacity = self.len();
        }
        pushed.is_some()
    }

    /// The column stored in `slot`.
    pub fn column(&self, slot: usize) -> Column<'_> {
        match &self.store {
            Store::F64(columns) => Column::F64(&columns[slot]),
            Store::F32(columns) => Column::F32(&columns[slot]),
        }
    }
}

/// `len` zeros, or `None` if they cannot be allocated (unless `must`: then as `vec!`).
fn try_zeroed<T: Clone + Default>(len: usize, must: bool) -> Option<Vec<T>> {
    if must {
        return Some(vec![T::default(); len]);
    }
    crate::error::try_filled(len, T::default(), "a kernel column").ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{DenseMatrix, Features};
    use crate::kernel::Kernel;

    #[test]
    fn auto_precision_follows_the_budget() {
        let m = 100;
        let all_f64 = m * m * 8;
        assert_eq!(
            ColumnCache::with_precision(m, all_f64, CachePrecision::Auto).precision(),
            CachePrecision::Float64
        );
        let small = ColumnCache::with_precision(m, all_f64 - 1, CachePrecision::Auto);
        assert_eq!(small.precision(), CachePrecision::Float32);
        assert_eq!(
            small.capacity(),
            m,
            "half-size values: all columns fit again"
        );
        let tiny = ColumnCache::with_precision(m, 10 * m * 4, CachePrecision::Auto);
        assert_eq!(tiny.capacity(), 10);
    }

    #[test]
    fn float32_columns_are_within_their_bound_of_the_float64_columns() {
        let values: Vec<f64> = (0..40).map(|v| (v as f64 * 0.37).sin()).collect();
        let data = DenseMatrix::new(values, 20, 2).expect("shape");
        let poly = Kernel::Poly {
            gamma: 0.5,
            coef0: 1.0,
            degree: 3,
        };
        for kernel in [
            Kernel::Rbf { gamma: 0.7 },
            Kernel::Laplacian { gamma: 0.3 },
            poly,
        ] {
            let km = KernelMatrix::new(kernel, Features::Dense(data.view()));
            let mut wide = ColumnCache::with_precision(20, 1 << 20, CachePrecision::Float64);
            let mut narrow = ColumnCache::with_precision(20, 1 << 20, CachePrecision::Float32);
            let k_max = km.diagonal().iter().fold(1.0f64, |a, &d| a.max(d));
            let bound = km.f32_error() * k_max * 2f64.powi(-24);
            for j in [0, 7, 19] {
                let (a, b) = (wide.fetch(&km, j, None), narrow.fetch(&km, j, None));
                let (a, b) = (wide.column(a), narrow.column(b));
                assert!(matches!(b, Column::F32(_)));
                for i in 0..20 {
                    let err = (b.get(i) - a.get(i)).abs();
                    assert!(err <= bound, "{kernel:?} ({i}, {j}): {err:e} > {bound:e}");
                    if kernel == poly {
                        assert_eq!(b.get(i), f64::from(a.get(i) as f32));
                    }
                }
            }
        }
        let km = KernelMatrix::new(Kernel::Rbf { gamma: 0.7 }, Features::Dense(data.view()));
        // LRU with two slots: the third column evicts the least recently used.
        let mut two = ColumnCache::with_precision(20, 2 * 20 * 4, CachePrecision::Float32);
        assert_eq!(two.capacity(), 2);
        let s0 = two.fetch(&km, 0, None);
        two.fetch(&km, 1, None);
        two.fetch(&km, 0, None);
        assert_eq!(two.fetch(&km, 2, None), 1 - s0);
        assert_eq!((two.hits(), two.columns_computed()), (1, 3));
    }
}
