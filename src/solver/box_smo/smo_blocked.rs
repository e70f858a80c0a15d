//! Blocked working sets for the hinge-loss SVC: the decomposition of ThunderSVM (Wen et al.,
//! JMLR 2018; oneDAL's "thunder" method) on the engine of [`super::smo`].
//!
//! Per-step pairs ([`super::smo`]) bring one or two new kernel columns per step, and on
//! low-dimensional dense data a column is a pass over all of X (m × d values streamed from
//! memory for d multiply-adds a row) plus an `exp` per row. Here a round
//!
//! 1. chooses a working set W of q samples: the q/2 newest members of the previous set stay,
//!    and the most violating samples outside it join (the largest v over I_up and the smallest
//!    over I_low, alternately: the maximal violating pair is always in W);
//! 2. brings W's missing kernel columns in blocks of eight, each block one register tile over
//!    the transposed data ([`KernelMatrix::tiles_pay`]: X read once per block, not per column);
//! 3. solves the sub-problem on W — the same second-order pairwise steps and clipped updates
//!    as [`super::smo`], on the q × q kernel values of W, in O(q) a step — until its violation
//!    is a tenth of what it was (or `tol`), or 10·q steps;
//! 4. updates v on every row of the level from W's columns and the moves of α (one pass over
//!    the rows, the columns added in W's order: the result does not depend on the thread
//!    count), fused with the search for the extremes that certify the level.
//!
//! Shrinking, the rounding bound of `f32` columns (every move's |y Δα| is charged) and the
//! exact final check of [`super::smo::solve_box`] are those of the per-step loop, so the model
//! is LIBSVM's and the certificate the same. The rule that chooses between the two loops is
//! [`working_set_size`].

use super::ExitReason;
use super::engine::Totals;
use super::smo::{
    CHUNK, Context, Extremes, Level, Opened, TAU, dual_objective, pair_step, rounding_per_weight,
    scan_only, set_penalties, step_kind,
};
use crate::error::Result;
use crate::kernel::{Column, ColumnCache, Kernel};
use crate::parallel::{current_num_threads, map_chunks, map_ranges};
use crate::problem::BoxProblem;

/// The automatic rule's working set: q = 64 where the cache holds 2q columns (make_classification
/// 7·10⁴ × 20, one thread: q 32 4.52 s, 64 4.41–4.46 s, 128 4.54–4.62 s, 256 4.91–4.98 s).
const AUTO_WORKING_SET: usize = 64;

/// ... and no blocked working sets below this q (the cache holds too few columns: 10⁶ rows at
/// the default 200 MB hold 50 `f32` columns).
const MIN_WORKING_SET: usize = 16;

/// The automatic rule takes blocked working sets from this many rows (the size from which a
/// problem is shrunk; satimage's 4,435 rows fit in 0.030 s blocked, 0.039 s by pairs).
const MIN_ROWS: usize = 2_000;

/// ... and from this many features: on narrower data a column is dominated by its m `exp`s,
/// which a tile does not share, and per-step pairs, needing fewer columns, stay as fast or
/// faster. One thread, q 64 against pairs, with the f32 exp of the cache's columns (2026-11-26):
/// checkerboard 10⁵ × 2 at C 10, 2.56 s vs 1.44 s; make_classification 3.5·10⁴ × 3, 1.16 s vs
/// 1.21 s; × 4, 1.35 s vs 1.44 s; × 6, 1.35 s vs 1.64 s; 7·10⁴ × 20, 2.6 s vs 4.4 s.
const MIN_FEATURES: usize = 4;

/// Sub-problem steps per working-set member, at most, in one round.
const LOCAL_STEPS_PER_MEMBER: usize = 10;

/// The sub-problem stops when its violation is this fraction of its first one (or `tol`).
const LOCAL_REDUCTION: f64 = 0.1;

/// Rows per block of the update pass (v's block stays in L1/L2 while W's columns are added).
const UPDATE_ROWS: usize = 2048;

/// The working-set size for a level of m samples whose cache holds `capacity` columns: 0 for
/// per-step pairs. `params.working_set` decides when set (`Some(0)`: pairs; `Some(q)`: q,
/// capped at half the capacity); otherwise blocked working sets of [`AUTO_WORKING_SET`]
/// (or half the capacity) are taken for at least [`MIN_ROWS`] rows of low-dimensional dense
/// data ([`KernelMatrix::tiles_pay`](crate::kernel::KernelMatrix::tiles_pay)) with at least
/// [`MIN_FEATURES`] features, where a block of columns costs a fraction of as many single
/// columns. Sparse and wide data keep per-step
/// pairs with their speculative column blocks (measured faster there).
pub(super) fn working_set_size(
    problem: &BoxProblem<'_>,
    params: &super::SolverParams,
    capacity: usize,
) -> usize {
    let m = problem.n_samples();
    let kernel = problem.kernel();
    if kernel.kernel() == Kernel::Precomputed {
        return 0;
    }
    // W and as many other columns (the retained half and the next round's candidates).
    let room = (capacity / 2).min(m) & !1;
    match params.working_set {
        Some(q) => {
            let q = q.min(room) & !1;
            if q >= 2 { q } else { 0 }
        }
        None if kernel.tiles_pay() && m >= MIN_ROWS && kernel.data().n_cols() >= MIN_FEATURES => {
            let q = AUTO_WORKING_SET.min(room) / 8 * 8;
            if q >= MIN_WORKING_SET { q } else { 0 }
        }
        None => 0,
    }
}

/// [`super::smo`]'s `run` by blocked working sets of `q` samples (see the module
/// documentation), on one level (the full problem or the rows kept by shrinking).
pub(super) fn run_blocked(
    problem: &BoxProblem<'_>,
    alpha: &mut [f64],
    v: &mut [f64],
    ctx: &mut Context<'_, '_, '_>,
    cache: ColumnCache,
    q: usize,
) -> Result<ExitReason> {
    let params = ctx.params;
    let m = problem.n_samples();
    let (y, c) = (problem.labels(), problem.bounds());
    let kernel = problem.kernel();
    let diag = kernel.diagonal();
    let per_weight = rounding_per_weight(&cache, kernel);
    let mut level = Level::new(problem, alpha, v, cache, ctx);
    let mut work: Vec<usize> = Vec::new();
    let mut member = vec![false; m];
    let mut rounds = 0u64;
    let exit = loop {
        let objective = dual_objective(alpha, y, v);
        let n_sv = alpha.iter().filter(|&&a| a > 0.0).count();
        match level.open(problem, alpha, v, ctx, (objective, n_sv), true)? {
            Opened::Go(_) => {}
            Opened::Shrunk => {
                // The level's rows are the same; its cache was released for the smaller one.
                work.clear();
                continue;
            }
            Opened::Stop(reason) => break reason,
        }
        let (up, low, ext, cache) = level.parts_mut();
        work = select_working_set(v, up, low, &work, q, &mut member);
        let slots = cache.fetch_all(kernel, &work);
        work.truncate(slots.len());
        let columns: Vec<Column<'_>> = slots.iter().map(|&s| cache.column(s)).collect();
        let old: Vec<f64> = work.iter().map(|&t| alpha[t]).collect();
        let budget = params
            .max_iter
            .map_or(u64::MAX, |k| k.saturating_sub(ctx.tracker.steps_taken));
        let sub = SubProblem::new(&work, &columns, v, diag);
        sub.solve(problem, alpha, objective, budget, ctx);
        rounds += 1;
        let mut moves: Vec<(Column<'_>, f64)> = Vec::new();
        let mut moved_weight = 0.0;
        for (k, &t) in work.iter().enumerate() {
            set_penalties(up, low, t, alpha[t], y[t], c[t]);
            let w = y[t] * (alpha[t] - old[k]);
            if w != 0.0 {
                moves.push((columns[k], w));
                moved_weight += w.abs();
            }
        }
        if moves.is_empty() {
            // No representable step on the most violating samples: the violation is below
            // what double precision resolves.
            break ExitReason::NoProgress;
        }
        *ext = update_pass(v, up, low, &moves);
        ctx.drift += per_weight * moved_weight;
    };
    if params.verbose {
        ctx.monitor.log(&format!(
            "blocked working sets of {q} on {m} samples: {rounds} rounds"
        ));
    }
    ctx.totals.merge(&Totals::of(&level.cache, m, 0));
    Ok(exit)
}

/// The next working set: the first q/2 members of `previous` (the newest) stay, and the most
/// violating samples outside them join, alternately the largest v over I_up and the smallest
/// over I_low, until q (or no candidate is left). The newcomers come first. `member` is a
/// scratch mask of m `false`s, left so.
fn select_working_set(
    v: &[f64],
    up: &[f64],
    low: &[f64],
    previous: &[usize],
    q: usize,
    member: &mut [bool],
) -> Vec<usize> {
    let kept = &previous[..previous.len().min(q / 2)];
    kept.iter().for_each(|&t| member[t] = true);
    let want = q - kept.len();
    // The `want` most violating of each side (the smallest keys, ties by index), chunk by
    // chunk in parallel: the same sets whatever the chunks, merged in order.
    let m = v.len();
    let chunk = m.div_ceil(current_num_threads()).max(CHUNK);
    let marked: &[bool] = member;
    let parts = map_ranges(m, chunk, m * 4, |lo, hi| {
        let (mut ups, mut lows) = (Smallest::new(want), Smallest::new(want));
        for t in lo..hi {
            if !marked[t] {
                ups.offer(-(v[t] + up[t]), t);
                lows.offer(v[t] + low[t], t);
            }
        }
        (ups, lows)
    });
    let (mut ups, mut lows) = (Smallest::new(want), Smallest::new(want));
    for (u, l) in parts {
        u.best.into_iter().for_each(|(k, t)| ups.offer(k, t));
        l.best.into_iter().for_each(|(k, t)| lows.offer(k, t));
    }
    let (ups, lows) = (ups.indices(), lows.indices());
    let mut fresh = Vec::with_capacity(q);
    let (mut a, mut b) = (ups.iter(), lows.iter());
    while fresh.len() < want {
        let mut added = false;
        for side in [&mut a, &mut b] {
            if fresh.len() == want {
                break;
            }
            for &t in side.by_ref() {
                if !member[t] {
                    member[t] = true;
                    fresh.push(t);
                    added = true;
                    break;
                }
            }
        }
        if !added {
            break;
        }
    }
    fresh.extend_from_slice(kept);
    fresh.iter().for_each(|&t| member[t] = false);
    fresh
}

/// The `cap` smallest finite keys offered, with their samples, sorted by (key, sample).
struct Smallest {
    cap: usize,
    best: Vec<(f64, usize)>,
}

impl Smallest {
    fn new(cap: usize) -> Self {
        Smallest {
            cap,
            best: Vec::with_capacity(cap + 1),
        }
    }

    #[inline]
    fn offer(&mut self, key: f64, t: usize) {
        let before = |a: &(f64, usize)| a.0.total_cmp(&key).then(a.1.cmp(&t)).is_lt();
        if !key.is_finite() || (self.best.len() == self.cap && self.best.last().is_none_or(before))
        {
            return;
        }
        let at = self.best.partition_point(before);
        self.best.insert(at, (key, t));
        self.best.truncate(self.cap);
    }

    fn indices(self) -> Vec<usize> {
        self.best.into_iter().map(|(_, t)| t).collect()
    }
}

/// The sub-problem of one round: W's kernel values and gradient.
struct SubProblem<'w> {
    work: &'w [usize],
    /// `k[a·q + b]` = k(x_{W_b}, x_{W_a}): column a of the q × q block, contiguous.
    k: Vec<f64>,
    /// v on W, as of the round's start.
    v: Vec<f64>,
    diag: Vec<f64>,
}

impl<'w> SubProblem<'w> {
    fn new(work: &'w [usize], columns: &[Column<'_>], v: &[f64], diag: &[f64]) -> Self {
        let q = work.len();
        let mut k = vec![0.0; q * q];
        for (a, col) in columns.iter().enumerate() {
            for (b, &t) in work.iter().enumerate() {
                k[a * q + b] = col.get(t);
            }
        }
        SubProblem {
            work,
            k,
            v: work.iter().map(|&t| v[t]).collect(),
            diag: work.iter().map(|&t| diag[t]).collect(),
        }
    }

    /// Second-order pairwise steps on W (α of W's samples updated in place) until W's
    /// violation is [`LOCAL_REDUCTION`] of its first (or `tol`), [`LOCAL_STEPS_PER_MEMBER`]·q
    /// steps, or `budget` steps.
    fn solve(
        mut self,
        problem: &BoxProblem<'_>,
        alpha: &mut [f64],
        objective: f64,
        budget: u64,
        ctx: &mut Context<'_, '_, '_>,
    ) {
        let (y, c) = (problem.labels(), problem.bounds());
        let work = self.work;
        let q = work.len();
        let mut up = vec![0.0; q];
        let mut low = vec![0.0; q];
        for (a, &t) in work.iter().enumerate() {
            set_penalties(&mut up, &mut low, a, alpha[t], y[t], c[t]);
        }
        let max_steps = ((LOCAL_STEPS_PER_MEMBER * q) as u64).min(budget);
        let mut stop_at = None;
        for _ in 0..max_steps {
            let (mut i, mut vi, mut lo) = (usize::MAX, f64::NEG_INFINITY, f64::INFINITY);
            for a in 0..q {
                let hi = self.v[a] + up[a];
                if hi > vi {
                    (i, vi) = (a, hi);
                }
                lo = lo.min(self.v[a] + low[a]);
            }
            if i == usize::MAX {
                break;
            }
            let violation = vi - lo;
            let target = *stop_at.get_or_insert((LOCAL_REDUCTION * violation).max(ctx.params.tol));
            if !(violation > target) {
                break;
            }
            let ki = &self.k[i * q..(i + 1) * q];
            // The partner of the largest gain (v_i − v_b)²/(k_ii + k_bb − 2k_ib) over I_low.
            let mut best = (usize::MAX, -1.0, 1.0);
            for b in 0..q {
                let gap = vi - (self.v[b] + low[b]);
                if gap > 0.0 {
                    let curv = self.diag[i] + self.diag[b] - 2.0 * ki[b];
                    let curv = if curv > 0.0 { curv } else { TAU };
                    if gap * gap * best.2 > best.1 * curv {
                        best = (b, gap * gap, curv);
                    }
                }
            }
            let j = best.0;
            if j == usize::MAX {
                break;
            }
            let (ti, tj) = (work[i], work[j]);
            let ((new_i, new_j), (wi, wj)) = pair_step(
                (y[ti], y[tj]),
                self.diag[i] + self.diag[j] - 2.0 * ki[j],
                (-y[ti] * self.v[i], -y[tj] * self.v[j]),
                (alpha[ti], alpha[tj]),
                (c[ti], c[tj]),
            );
            if wi == 0.0 && wj == 0.0 {
                break;
            }
            alpha[ti] = new_i;
            alpha[tj] = new_j;
            set_penalties(&mut up, &mut low, i, new_i, y[ti], c[ti]);
            set_penalties(&mut up, &mut low, j, new_j, y[tj], c[tj]);
            let (ki, kj) = (&self.k[i * q..(i + 1) * q], &self.k[j * q..(j + 1) * q]);
            for ((vb, &a), &b) in self.v.iter_mut().zip(ki).zip(kj) {
                *vb -= wi * a + wj * b;
            }
            let kind = step_kind(new_i, c[ti], new_j, c[tj]);
            ctx.steps.count(kind);
            ctx.tracker
                .record(ctx.monitor, alpha, objective, violation, kind, 0);
        }
    }
}

/// v ← v − Σ_s w_s k(·, x_s) over the moves (column, w_s = y_s Δα_s), added in their order on
/// every row, fused with the search for argmax_{I_up} v and min_{I_low} v (as
/// [`super::smo`]'s pass: chunks merged in order, so nothing depends on the thread count).
fn update_pass(v: &mut [f64], up: &[f64], low: &[f64], moves: &[(Column<'_>, f64)]) -> Extremes {
    let n = v.len();
    let chunk = n.div_ceil(current_num_threads()).max(CHUNK);
    let work = n * (moves.len() + 1);
    let parts = map_chunks(v, chunk, work * 2, |lo, vs| {
        let mut out = Extremes::empty();
        for (b, block) in vs.chunks_mut(UPDATE_ROWS).enumerate() {
            let start = lo + b * UPDATE_ROWS;
            let end = start + block.len();
            for &(col, w) in moves {
                match col {
                    Column::F32(c) => subtract_f32(block, &c[start..end], w),
                    Column::F64(c) => subtract_f64(block, &c[start..end], w),
                }
            }
            out.merge(scan_only(block, &up[start..end], &low[start..end], start));
        }
        out
    });
    Extremes::merge_all(parts)
}

crate::simd::multiversion! {
    avx512;
    /// v ← v − w·col over an `f32` column (widened), in the AVX-512 or AVX2 build when the
    /// CPU has it (no FMA: the values of the baseline build).
    fn subtract_f32(v: &mut [f64], col: &[f32], w: f64) {
        for (x, &k) in v.iter_mut().zip(col) {
            *x -= w * f64::from(k);
        }
    }
}

crate::simd::multiversion! {
    avx512;
    /// v ← v − w·col over an `f64` column (same tiers as [`subtract_f32`]).
    fn subtract_f64(v: &mut [f64], col: &[f64], w: f64) {
        for (x, &k) in v.iter_mut().zip(col) {
            *x -= w * k;
        }
    }
}
