//! The fused O(m) pass: apply a step to the gradient cache and find the next toward and away
//! vertices in the same sweep over memory.
//!
//! A step changes G by G ← c₀·G + Σ_t coef_t·Q_{:,a_t} with one or two columns (toward:
//! c₀ = 1−λ, +λ col i; away: c₀ = 1+λ, −λ col j; swap: c₀ = 1, +λ col i, −λ col j; SPEC §2).
//! The pass then yields argmax_b ∇g_b (toward vertex, over all slots) and
//! argmin_{b active} ∇g_b (away vertex), ties to the lowest index. It runs in parallel chunks
//! on large problems; chunk results are merged in order, so the vertices do not depend on
//! the number of threads.

use crate::parallel::{current_num_threads, map_chunks};
use crate::problem::SimplexProblem;

/// Minimum slots per parallel task.
const CHUNK: usize = 8192;

/// A column contribution coef·Q_{:,slot}, given the base-kernel column of slot's sample.
#[derive(Clone, Copy)]
pub(crate) struct ColumnTerm<'c> {
    pub coef: f64,
    pub slot: usize,
    pub column: &'c [f64],
}

/// The toward and away vertices found by a pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Vertices {
    pub toward: usize,
    pub toward_grad: f64,
    /// `None` only when the coreset is empty (never after initialisation).
    pub away: Option<usize>,
    pub away_grad: f64,
}

impl Vertices {
    fn empty() -> Self {
        Vertices {
            toward: usize::MAX,
            toward_grad: f64::NEG_INFINITY,
            away: None,
            away_grad: f64::INFINITY,
        }
    }

    #[inline(always)]
    fn consider(&mut self, b: usize, grad: f64, active: bool) {
        // Strict comparisons keep the lowest index on ties; NaN never wins.
        if grad > self.toward_grad || self.toward == usize::MAX {
            self.toward = b;
            self.toward_grad = grad;
        }
        if active && grad < self.away_grad {
            self.away = Some(b);
            self.away_grad = grad;
        }
    }

    /// Merges a later chunk's result (higher indices) into this one.
    fn merge(&mut self, later: Vertices) {
        if later.toward != usize::MAX
            && (self.toward == usize::MAX || later.toward_grad > self.toward_grad)
        {
            self.toward = later.toward;
            self.toward_grad = later.toward_grad;
        }
        if later.away.is_some() && (self.away.is_none() || later.away_grad < self.away_grad) {
            self.away = later.away;
            self.away_grad = later.away_grad;
        }
    }
}

/// Applies G ← c₀G + Σ_t coef_t Q_{:,slot_t} and returns the next vertices. `alpha` must already
/// hold the new iterate (it decides which slots are active).
pub(crate) fn update_and_scan(
    problem: &SimplexProblem<'_>,
    grad_q: &mut [f64],
    alpha: &[f64],
    c0: f64,
    terms: &[ColumnTerm<'_>],
) -> Vertices {
    let n = grad_q.len();
    let work = n * (1 + terms.len());
    // One chunk per thread: a slot costs ~1-2 ns, so smaller tasks only add rayon overhead.
    let chunk = n.div_ceil(current_num_threads()).max(CHUNK);
    // ~1 ns per slot and column: below ~10,000 slots one thread beats a fork/join per step.
    let parts = map_chunks(grad_q, chunk, work * 2, |lo, chunk| {
        process_chunk(problem, chunk, lo, alpha, c0, terms)
    });
    let mut out = Vertices::empty();
    for p in parts {
        out.merge(p);
    }
    out
}

/// Finds the vertices without changing G.
pub(crate) fn scan(problem: &SimplexProblem<'_>, grad_q: &mut [f64], alpha: &[f64]) -> Vertices {
    update_and_scan(problem, grad_q, alpha, 1.0, &[])
}

#[inline(always)]
fn process_chunk_inline(
    problem: &SimplexProblem<'_>,
    g: &mut [f64],
    lo: usize,
    alpha: &[f64],
    c0: f64,
    terms: &[ColumnTerm<'_>],
) -> Vertices {
    let hi = lo + g.len();
    let mut out = Vertices::empty();
    // The ridge δ_ab/C_a touches only the step's own slots: split the range around them so the
    // bulk loop stays branch-free.
    let mut specials: [usize; 2] = [usize::MAX; 2];
    for (k, t) in terms.iter().enumerate().take(2) {
        specials[k] = t.slot;
    }
    specials.sort_unstable();
    let mut start = lo;
    for &s in specials.iter() {
        if s == usize::MAX || s < start || s >= hi {
            continue;
        }
        bulk(problem, g, lo, start, s, alpha, c0, terms, &mut out);
        // The special slot: bulk formula, plus the ridge of every term on this slot.
        let mut ignored = Vertices::empty();
        bulk(problem, g, lo, s, s + 1, alpha, c0, terms, &mut ignored);
        for t in terms {
            if t.slot == s {
                g[s - lo] += t.coef * problem.scale() * problem.ridge(s);
            }
        }
        let grad = problem.linear()[s] - 2.0 * g[s - lo];
        out.consider(s, grad, alpha[s] > 0.0);
        start = s + 1;
    }
    bulk(problem, g, lo, start, hi, alpha, c0, terms, &mut out);
    out
}

crate::simd::multiversion! {
    /// One chunk of [`update_and_scan`], in the AVX2 build when the CPU has it.
    fn process_chunk(
        problem: &SimplexProblem<'_>,
        g: &mut [f64],
        lo: usize,
        alpha: &[f64],
        c0: f64,
        terms: &[ColumnTerm<'_>],
    ) -> Vertices {
        process_chunk_inline(problem, g, lo, alpha, c0, terms)
    }
}

/// The branch-free update + scan over slots [from, to) (absolute indices; `g` starts at `lo`).
#[inline(always)]
fn bulk(
    problem: &SimplexProblem<'_>,
    g: &mut [f64],
    lo: usize,
    from: usize,
    to: usize,
    alpha: &[f64],
    c0: f64,
    terms: &[ColumnTerm<'_>],
    out: &mut Vertices,
) {
    if from >= to {
        return;
    }
    let m = problem.n_samples();
    let signs = problem.signs();
    let lin = problem.linear();
    let shift = problem.shift();
    let scale = problem.scale();
    // Split at copy boundaries (multiples of m) so sample = slot − copy·m is a plain offset.
    let mut b0 = from;
    while b0 < to {
        let copy_end = ((b0 / m) + 1) * m;
        let b1 = to.min(copy_end);
        let base = (b0 / m) * m;
        let (gs, ss, ls, als) = (
            &mut g[b0 - lo..b1 - lo],
            &signs[b0..b1],
            &lin[b0..b1],
            &alpha[b0..b1],
        );
        match terms {
            [] => fused(gs, ls, als, b0, out, |_, old| c0 * old),
            [t] => {
                let w = t.coef * scale * signs[t.slot];
                let col = &t.column[b0 - base..b1 - base];
                fused(gs, ls, als, b0, out, |k, old| {
                    c0 * old + w * ss[k] * (col[k] + shift)
                });
            }
            [t, u, ..] => {
                let wt = t.coef * scale * signs[t.slot];
                let wu = u.coef * scale * signs[u.slot];
                let ct = &t.column[b0 - base..b1 - base];
                let cu = &u.column[b0 - base..b1 - base];
                fused(gs, ls, als, b0, out, |k, old| {
                    c0 * old + ss[k] * (wt * (ct[k] + shift) + wu * (cu[k] + shift))
                });
            }
        }
        b0 = b1;
    }
}

/// Lanes of the vectorised argmax/argmin.
const LANES: usize = 8;

/// g[k] ← update(k, g[k]) for all k, fused with the toward (argmax of b − 2g) and away (argmin
/// over α > 0) searches. Each of [`LANES`] lanes keeps its own best value and index with
/// branch-free selects, so the loop vectorises; lanes are merged at the end, ties to the lowest
/// index, which gives the same vertices as a sequential scan.
#[inline(always)]
fn fused(
    g: &mut [f64],
    lin: &[f64],
    alpha: &[f64],
    first: usize,
    out: &mut Vertices,
    update: impl Fn(usize, f64) -> f64,
) {
    let n = g.len();
    let (lin, alpha) = (&lin[..n], &alpha[..n]);
    let blocks = n / LANES;
    let mut up_val = [f64::NEG_INFINITY; LANES];
    let mut up_idx = [u32::MAX; LANES];
    let mut down_val = [f64::INFINITY; LANES];
    let mut down_idx = [u32::MAX; LANES];
    for blk in 0..blocks {
        let k0 = blk * LANES;
        for l in 0..LANES {
            let k = k0 + l;
            let v = update(k, g[k]);
            g[k] = v;
            let grad = lin[k] - 2.0 * v;
            let better = grad > up_val[l];
            up_val[l] = if better { grad } else { up_val[l] };
            up_idx[l] = if better { k as u32 } else { up_idx[l] };
            let candidate = if alpha[k] > 0.0 { grad } else { f64::INFINITY };
            let lower = candidate < down_val[l];
            down_val[l] = if lower { candidate } else { down_val[l] };
            down_idx[l] = if lower { k as u32 } else { down_idx[l] };
        }
    }
    // Merge lanes in index order (ties: lowest index), then the tail sequentially.
    let mut local = Vertices::empty();
    let mut best: Option<(f64, u32)> = None;
    let mut worst: Option<(f64, u32)> = None;
    for l in 0..LANES {
        if up_idx[l] != u32::MAX
            && best.is_none_or(|(v, i)| up_val[l] > v || (up_val[l] == v && up_idx[l] < i))
        {
            best = Some((up_val[l], up_idx[l]));
        }
        if down_idx[l] != u32::MAX
            && worst.is_none_or(|(v, i)| down_val[l] < v || (down_val[l] == v && down_idx[l] < i))
        {
            worst = Some((down_val[l], down_idx[l]));
        }
    }
    if let Some((v, i)) = best {
        local.toward = first + i as usize;
        local.toward_grad = v;
    }
    if let Some((v, i)) = worst {
        local.away = Some(first + i as usize);
        local.away_grad = v;
    }
    for k in blocks * LANES..n {
        let v = update(k, g[k]);
        g[k] = v;
        local.consider(first + k, lin[k] - 2.0 * v, alpha[k] > 0.0);
    }
    out.merge(local);
}
