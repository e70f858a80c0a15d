//! [`ColumnCache`]: kernel columns k(X, x_j) of recently used points, least recently used
//! evicted first, within a byte budget (`cache_size`).
//!
//! Frank-Wolfe steps touch the toward vertex and, for away/swap steps, an active (coreset)
//! point, so the working set is the coreset; LRU keeps it resident when it fits.

use super::matrix::{KernelMatrix, QueryScratch};

const NO_SLOT: u32 = u32::MAX;

/// A bounded cache of base-kernel columns, each of length m.
#[derive(Debug)]
pub struct ColumnCache {
    m: usize,
    capacity: usize,
    columns: Vec<Vec<f64>>,
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
    /// always room for two columns, the minimum a pairwise step needs).
    pub fn new(m: usize, budget_bytes: usize) -> Self {
        let per_column = (m * std::mem::size_of::<f64>()).max(1);
        let capacity = (budget_bytes / per_column).clamp(2, m.max(2));
        ColumnCache {
            m,
            capacity,
            columns: Vec::new(),
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
        let slot = if self.columns.len() < self.capacity {
            self.columns.push(vec![0.0; self.m]);
            self.owner.push(j);
            self.last_used.push(0);
            self.columns.len() - 1
        } else {
            let victim = (0..self.columns.len())
                .filter(|&s| Some(s) != keep)
                .min_by_key(|&s| self.last_used[s])
                .expect("capacity is at least two");
            self.slot_of[self.owner[victim]] = NO_SLOT;
            self.owner[victim] = j;
            victim
        };
        kernel.column(j, &mut self.columns[slot], &mut self.scratch);
        self.slot_of[j] = slot as u32;
        self.last_used[slot] = self.clock;
        slot
    }

    /// The column stored in `slot`.
    pub fn column(&self, slot: usize) -> &[f64] {
        &self.columns[slot]
    }
}
