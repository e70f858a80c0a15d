//! The iterate and its caches.

use super::monitor::Monitor;
use super::tracker::{Standing, Tracker};
use super::{ExitReason, StepKind};
use crate::error::Result;
use crate::kernel::{CachePrecision, ColumnCache, KernelMatrix, Terms};
use crate::problem::SimplexProblem;

const NOT_ACTIVE: u32 = u32::MAX;

/// α on the simplex, its support (the coreset) as an explicit list, the gradient cache
/// G = Qα and the scalars bᵀα and αᵀQα.
///
/// The active list is authoritative (notes F.4): a coordinate leaves it only through a drop
/// branch, where it is set to exactly zero, never through a `== 0` test after arithmetic.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub alpha: Vec<f64>,
    /// G = Qα (so ∇g = b − 2G).
    pub grad_q: Vec<f64>,
    pub active: Vec<usize>,
    /// The same coordinates in ascending order: loops that gather per-coordinate data at the
    /// coreset's rows (the pairwise partner search) stream through memory in this order.
    pub sorted: Vec<usize>,
    position: Vec<u32>,
    /// bᵀα.
    pub lin: f64,
    /// αᵀQα.
    pub quad: f64,
    /// Steps applied to G since it was last recomputed (its round-off grows with them).
    pub since_resync: u64,
    /// Whether G holds kernel values rounded to `f32` (from an `f32` column cache).
    pub rounded: bool,
}

/// The tracker at a simplex iterate, whose coreset is its active set.
impl Tracker<'_> {
    /// [`Tracker::checkpoint`] before a step from `state`.
    pub(crate) fn checkpoint_at(
        &mut self,
        monitor: &mut (dyn Monitor + Send),
        state: &State,
        objective: f64,
        gap: f64,
        columns: u64,
    ) -> Result<Option<ExitReason>> {
        let now = Standing {
            objective,
            gap,
            coreset_size: state.active.len(),
            columns,
        };
        self.checkpoint(monitor, now)
    }

    /// [`Tracker::record`] of a step of `kind` that led to `state` from a point with the given
    /// objective and gap.
    pub(crate) fn record_at(
        &mut self,
        monitor: &mut (dyn Monitor + Send),
        state: &State,
        objective: f64,
        gap: f64,
        kind: StepKind,
    ) {
        self.record(
            monitor,
            &state.alpha,
            objective,
            gap,
            kind,
            state.active.len(),
        );
    }
}

impl State {
    pub fn zeros(n: usize) -> Self {
        State {
            alpha: vec![0.0; n],
            grad_q: vec![0.0; n],
            active: Vec::new(),
            sorted: Vec::new(),
            position: vec![NOT_ACTIVE; n],
            lin: 0.0,
            quad: 0.0,
            since_resync: 0,
            rounded: false,
        }
    }

    /// g(α) = bᵀα − αᵀQα.
    #[inline]
    pub fn objective(&self) -> f64 {
        self.lin - self.quad
    }

    /// αᵀ∇g(α) = bᵀα − 2αᵀQα.
    #[inline]
    pub fn alpha_dot_grad(&self) -> f64 {
        self.lin - 2.0 * self.quad
    }

    /// ∇g_a = b_a − 2G_a.
    #[inline]
    pub fn grad(&self, problem: &SimplexProblem<'_>, a: usize) -> f64 {
        problem.linear()[a] - 2.0 * self.grad_q[a]
    }

    pub fn activate(&mut self, a: usize) {
        if self.position[a] == NOT_ACTIVE {
            self.position[a] = self.active.len() as u32;
            self.active.push(a);
            let at = self.sorted.partition_point(|&b| b < a);
            self.sorted.insert(at, a);
        }
    }

    /// Where `a` is in `active`, if it is active.
    pub fn position(&self, a: usize) -> Option<usize> {
        let p = self.position[a];
        (p != NOT_ACTIVE).then_some(p as usize)
    }

    /// Removes `a` from the coreset and sets α_a to exactly zero.
    pub fn drop_point(&mut self, a: usize) {
        let p = self.position[a];
        if p != NOT_ACTIVE {
            let last = *self.active.last().expect("active set is non-empty");
            self.active.swap_remove(p as usize);
            if last != a {
                self.position[last] = p;
            }
            self.position[a] = NOT_ACTIVE;
            let at = self.sorted.partition_point(|&b| b < a);
            self.sorted.remove(at);
        }
        self.alpha[a] = 0.0;
    }

    /// Sets α to `values` on `support` (zero elsewhere) and recomputes G and the scalars.
    pub fn set_iterate(
        &mut self,
        problem: &SimplexProblem<'_>,
        cache: &mut ColumnCache,
        support: &[usize],
        values: &[f64],
    ) {
        for &a in &self.active.clone() {
            self.drop_point(a);
        }
        for (&a, &v) in support.iter().zip(values) {
            if v > 0.0 {
                self.alpha[a] = v;
                self.activate(a);
            }
        }
        self.resync(problem, cache);
    }

    /// Recomputes G = Qα from scratch from the columns of the active points, then the scalars.
    pub fn resync(&mut self, problem: &SimplexProblem<'_>, cache: &mut ColumnCache) {
        self.grad_q.iter_mut().for_each(|g| *g = 0.0);
        let n = problem.n_slots();
        let m = problem.n_samples();
        let (shift, scale) = (problem.shift(), problem.scale());
        let signs = problem.signs();
        for &a in &self.active {
            let slot = cache.fetch(problem.kernel(), problem.sample(a), None);
            let col = cache.column(slot);
            let w = self.alpha[a] * scale * signs[a];
            for b in 0..n {
                self.grad_q[b] += w * signs[b] * (col.get(b % m) + shift);
            }
            self.grad_q[a] += self.alpha[a] * scale * problem.ridge(a);
        }
        self.since_resync = 0;
        self.rounded = cache.precision() == CachePrecision::Float32;
        self.refresh_scalars(problem);
    }

    /// Recomputes G = Qα exactly (`f64` kernel values, no cache) on every slot of the given
    /// samples (sorted; `None`: all of them, which also clears the round-off bookkeeping), as
    /// one kernel expansion over the coreset evaluated a block of rows at a time. Returns the
    /// number of kernel values computed. The scalars are not refreshed.
    pub fn rebuild_exact(
        &mut self,
        problem: &SimplexProblem<'_>,
        samples: Option<&[usize]>,
    ) -> u64 {
        let m = problem.n_samples();
        // Σ_a α_a s_a k(x_i(a), ·) grouped by sample (the SVR's two slots of a sample share it).
        let signs = problem.signs();
        let mut coef = vec![0.0; m];
        let mut total = 0.0;
        let mut active = self.active.clone();
        active.sort_unstable();
        for &a in &active {
            let w = self.alpha[a] * signs[a];
            coef[problem.sample(a)] += w;
            total += w;
        }
        let support: Vec<usize> = (0..m).filter(|&i| coef[i] != 0.0).collect();
        let weights: Vec<f64> = support.iter().map(|&i| coef[i]).collect();
        let data = problem.kernel().data();
        let rows: Vec<usize> = samples.map_or_else(|| (0..m).collect(), <[usize]>::to_vec);
        let mut f = vec![problem.shift() * total; rows.len()];
        match samples {
            None => problem
                .kernel()
                .add_expansion(Terms::new(&data, &support, &weights), &mut f),
            Some(samples) => {
                let subset = data.select_rows(samples);
                KernelMatrix::new(problem.kernel().kernel(), subset.view())
                    .add_expansion(Terms::new(&data, &support, &weights), &mut f);
            }
        }
        let scale = problem.scale();
        for c in 0..problem.copies() {
            for (r, &i) in rows.iter().enumerate() {
                let b = c * m + i;
                self.grad_q[b] = scale * (signs[b] * f[r] + problem.ridge(b) * self.alpha[b]);
            }
        }
        if samples.is_none() {
            self.since_resync = 0;
            self.rounded = false;
        }
        (rows.len() * support.len()) as u64
    }

    /// Recomputes bᵀα and αᵀQα = Σ_{a active} α_a G_a exactly from α and G, in O(|coreset|).
    pub fn refresh_scalars(&mut self, problem: &SimplexProblem<'_>) {
        let b = problem.linear();
        let (mut lin, mut quad) = (0.0, 0.0);
        for &a in &self.active {
            lin += self.alpha[a] * b[a];
            quad += self.alpha[a] * self.grad_q[a];
        }
        self.lin = lin;
        self.quad = quad;
    }

    /// Rescales every active weight (toward and away steps move all of them).
    pub fn scale_active(&mut self, factor: f64) {
        for &a in &self.active {
            self.alpha[a] *= factor;
        }
    }
}
