//! The fused O(m) pass: apply a step to the gradient cache and find the next toward and away
//! vertices in the same sweep over memory.
//!
//! A step changes G by G ← c₀·G + Σ_t coef_t·Q_{:,a_t} with one or two columns (toward:
//! c₀ = 1−λ, +λ col i; away: c₀ = 1+λ, −λ col j; swap: c₀ = 1, +λ col i, −λ col j).
//! The pass then yields argmax_b ∇g_b (toward vertex, over all slots) and
//! argmin_{b active} ∇g_b (away vertex), ties to the lowest index. It runs in parallel chunks
//! on large problems; chunk results are merged in order, so the vertices do not depend on
//! the number of threads.

use crate::kernel::Column;
use crate::parallel::{current_num_threads, map_chunks};
use crate::problem::SimplexProblem;
use crate::simd::{first_in_block, lanes_max, lanes_min, strict_max, strict_min};

/// Minimum slots per parallel task.
const CHUNK: usize = 8192;

/// A column contribution coef·Q_{:,slot}, given the base-kernel column of slot's sample.
#[derive(Clone, Copy)]
pub(crate) struct ColumnTerm<'c> {
    pub coef: f64,
    pub slot: usize,
    pub column: Column<'c>,
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
    pub(crate) fn empty() -> Self {
        Vertices {
            toward: usize::MAX,
            toward_grad: f64::NEG_INFINITY,
            away: None,
            away_grad: f64::INFINITY,
        }
    }

    #[inline(always)]
    pub(crate) fn consider(&mut self, b: usize, grad: f64, active: bool) {
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

crate::simd::multiversion! {
    avx512;
    /// One chunk of [`update_and_scan`], in the AVX-512 or AVX2 build when the CPU has it.
    fn process_chunk(
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
        let (gs, ss, als) = (&mut g[b0 - lo..b1 - lo], &signs[b0..b1], &alpha[b0..b1]);
        // The linear term: a constant (the SVC's 0) is not streamed from memory.
        let lin = match problem.linear_constant() {
            Some(b) => Linear::Constant(b),
            None => Linear::PerSlot(&lin[b0..b1]),
        };
        match terms {
            [] => fused(gs, lin, als, b0, out, |_, old| c0 * old),
            [t] => {
                let w = t.coef * scale * signs[t.slot];
                let (lo_s, hi_s) = (b0 - base, b1 - base);
                match t.column {
                    Column::F64(col) => {
                        let col = &col[lo_s..hi_s];
                        fused(gs, lin, als, b0, out, |k, old| {
                            c0 * old + w * ss[k] * (col[k] + shift)
                        });
                    }
                    Column::F32(col) => {
                        let col = &col[lo_s..hi_s];
                        fused(gs, lin, als, b0, out, |k, old| {
                            c0 * old + w * ss[k] * (f64::from(col[k]) + shift)
                        });
                    }
                }
            }
            [t, u, ..] => {
                let wt = t.coef * scale * signs[t.slot];
                let wu = u.coef * scale * signs[u.slot];
                let (lo_s, hi_s) = (b0 - base, b1 - base);
                match (t.column, u.column) {
                    (Column::F64(ct), Column::F64(cu)) => {
                        let (ct, cu) = (&ct[lo_s..hi_s], &cu[lo_s..hi_s]);
                        fused(gs, lin, als, b0, out, |k, old| {
                            c0 * old + ss[k] * (wt * (ct[k] + shift) + wu * (cu[k] + shift))
                        });
                    }
                    (Column::F32(ct), Column::F32(cu)) => {
                        let (ct, cu) = (&ct[lo_s..hi_s], &cu[lo_s..hi_s]);
                        fused(gs, lin, als, b0, out, |k, old| {
                            let (x, y) = (f64::from(ct[k]), f64::from(cu[k]));
                            c0 * old + ss[k] * (wt * (x + shift) + wu * (y + shift))
                        });
                    }
                    (ct, cu) => fused(gs, lin, als, b0, out, |k, old| {
                        let (x, y) = (ct.get(lo_s + k), cu.get(lo_s + k));
                        c0 * old + ss[k] * (wt * (x + shift) + wu * (y + shift))
                    }),
                }
            }
        }
        b0 = b1;
    }
}

/// The linear term b of a range of slots.
#[derive(Clone, Copy)]
enum Linear<'l> {
    Constant(f64),
    PerSlot(&'l [f64]),
}

/// Slots per block: a block's gradient entries are updated, then searched while they are
/// still in L1.
const BLOCK: usize = 256;

/// Accumulators of the vectorised block maximum and minimum.
const LANES: usize = 8;

/// g[k] ← update(k, g[k]) for all k, fused with the toward (argmax of b − 2g, first index on
/// ties) and away (argmin over α > 0, first index) searches, block by block: a streaming
/// update, then the block's extreme values by [`LANES`] independent max/min accumulators (both
/// loops vectorise), and only for a block that improves on the best so far a short rescan for
/// the first index attaining it. The vertices are those of a sequential scan.
#[inline(always)]
fn fused(
    g: &mut [f64],
    lin: Linear<'_>,
    alpha: &[f64],
    first: usize,
    out: &mut Vertices,
    update: impl Fn(usize, f64) -> f64,
) {
    match lin {
        Linear::Constant(b) => fused_with(g, |_| b, alpha, first, out, update),
        Linear::PerSlot(lin) => {
            let lin = &lin[..g.len()];
            fused_with(g, |k| lin[k], alpha, first, out, update)
        }
    }
}

/// [`fused`] with the linear term as a function of the offset.
#[inline(always)]
fn fused_with(
    g: &mut [f64],
    lin: impl Fn(usize) -> f64,
    alpha: &[f64],
    first: usize,
    out: &mut Vertices,
    update: impl Fn(usize, f64) -> f64,
) {
    let n = g.len();
    let alpha = &alpha[..n];
    let mut local = Vertices::empty();
    let mut start = 0;
    while start < n {
        let end = (start + BLOCK).min(n);
        for k in start..end {
            g[k] = update(k, g[k]);
        }
        let (gb, ab) = (&g[start..end], &alpha[start..end]);
        let grad = |r: usize| lin(start + r) - 2.0 * gb[r];
        // Block extremes: strict comparisons from ∓∞, so NaN and ∓∞ never win (as in
        // `Vertices::consider` after its first slot).
        let mut up = [f64::NEG_INFINITY; LANES];
        let mut down = [f64::INFINITY; LANES];
        let len = end - start;
        let full = len / LANES * LANES;
        for r0 in (0..full).step_by(LANES) {
            for l in 0..LANES {
                let x = grad(r0 + l);
                up[l] = strict_max(up[l], x);
                let c = if ab[r0 + l] > 0.0 { x } else { f64::INFINITY };
                down[l] = strict_min(down[l], c);
            }
        }
        for r in full..len {
            let x = grad(r);
            up[0] = strict_max(up[0], x);
            let c = if ab[r] > 0.0 { x } else { f64::INFINITY };
            down[0] = strict_min(down[0], c);
        }
        let block_up = lanes_max(&up);
        let block_down = lanes_min(&down);
        if block_up > local.toward_grad {
            local.toward = first + start + first_in_block(len, |r| grad(r) == block_up);
            local.toward_grad = block_up;
        }
        if block_down < local.away_grad {
            let r = first_in_block(len, |r| ab[r] > 0.0 && grad(r) == block_down);
            local.away = Some(first + start + r);
            local.away_grad = block_down;
        }
        start = end;
    }
    if local.toward == usize::MAX && n > 0 {
        // No finite gradient above −∞: the first slot, as a sequential scan would take it.
        local.toward = first;
        local.toward_grad = lin(0) - 2.0 * g[0];
    }
    out.merge(local);
}
