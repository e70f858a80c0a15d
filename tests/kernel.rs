//! Kernel evaluation: columns, single entries and queries agree; dense and sparse storage give
//! the same values for every kernel.

mod common;

use fwsvm::kernel::{ColumnCache, KernelMatrix, QueryScratch};
use fwsvm::{CsrMatrix, DenseMatrix, Features, Kernel};

fn sparse_version(x: &DenseMatrix) -> CsrMatrix {
    let (m, d) = (x.n_rows(), x.n_cols());
    let (mut indptr, mut indices, mut data) = (vec![0], vec![], vec![]);
    for i in 0..m {
        for k in 0..d {
            let v = x.as_slice()[i * d + k];
            if v != 0.0 {
                indices.push(k as u32);
                data.push(v);
            }
        }
        indptr.push(data.len());
    }
    CsrMatrix::new(indptr, indices, data, d).unwrap()
}

fn naive(kernel: Kernel, a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    match kernel {
        Kernel::Linear => dot,
        Kernel::Rbf { gamma } => {
            (-gamma * a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>()).exp()
        }
        Kernel::Laplacian { gamma } => {
            (-gamma * a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f64>()).exp()
        }
        // Repeated products and exponentials, not the library's powi and tanh.
        Kernel::Poly {
            gamma,
            coef0,
            degree,
        } => (0..degree).fold(1.0, |power, _| power * (gamma * dot + coef0)),
        Kernel::Sigmoid { gamma, coef0 } => {
            let e = (2.0 * (gamma * dot + coef0)).exp();
            (e - 1.0) / (e + 1.0)
        }
        Kernel::Precomputed => panic!("a precomputed kernel has no formula"),
    }
}

fn kernels() -> Vec<Kernel> {
    vec![
        Kernel::linear(),
        Kernel::rbf(0.3),
        Kernel::poly(0.5, 1.0, 3),
        Kernel::sigmoid(0.1, -0.2),
        Kernel::laplacian(0.2),
    ]
}

#[test]
fn columns_entries_and_queries_match_the_formula_for_dense_and_sparse_data() {
    let (mut x, _) = common::blobs(37, 11, 1.0, 5);
    // Make it genuinely sparse.
    let mut data = x.clone().into_vec();
    for (k, v) in data.iter_mut().enumerate() {
        if k % 3 != 0 {
            *v = 0.0;
        }
    }
    x = DenseMatrix::new(data, 37, 11).unwrap();
    check_against_formula(&x);
}

#[test]
fn low_dimensional_dense_data_matches_the_formula() {
    // Dense with 11 features: columns come from the transposed (feature-major) storage.
    let (x, _) = common::blobs(37, 11, 1.0, 6);
    check_against_formula(&x);
}

#[test]
fn binary_sparse_data_matches_the_formula() {
    // All stored values 1, like the a- and w-series.
    let data: Vec<f64> = (0..37 * 11)
        .map(|k| if (k * 7 + k / 11) % 4 == 0 { 1.0 } else { 0.0 })
        .collect();
    check_against_formula(&DenseMatrix::new(data, 37, 11).unwrap());
}

#[test]
fn indicator_data_of_every_width_gives_the_same_columns_as_dense_storage() {
    // Bit-counted columns (up to 1,024 features: one word, unrolled widths, the generic width)
    // and the gather path beyond must equal the dense-storage columns exactly: every inner
    // product and distance of indicator rows is an integer.
    for n_cols in [11usize, 123, 300, 700, 1100] {
        let m = 23;
        let data: Vec<f64> = (0..m * n_cols)
            .map(|k| {
                if (k * 7 + k / n_cols) % 9 == 0 {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        let x = DenseMatrix::new(data, m, n_cols).unwrap();
        let s = sparse_version(&x);
        // Queries: a longer row than any training row (beyond the look-up table), a row with a
        // non-unit value, and an ordinary indicator row.
        let mut q = vec![0.0; 3 * n_cols];
        q[..n_cols].iter_mut().step_by(2).for_each(|v| *v = 1.0);
        q[n_cols + 3] = 2.5;
        q[2 * n_cols + 1] = 1.0;
        let q = DenseMatrix::new(q, 3, n_cols).unwrap();
        let qs = sparse_version(&q);
        for kernel in kernels() {
            let dense = KernelMatrix::new(kernel, Features::from(&x));
            let sparse = KernelMatrix::new(kernel, Features::from(&s));
            let (mut a, mut b) = (vec![0.0; m], vec![0.0; m]);
            let mut scratch = QueryScratch::new();
            for j in [0, 4, m - 1] {
                dense.column(j, &mut a, &mut scratch);
                sparse.column(j, &mut b, &mut scratch);
                assert_eq!(a, b, "{kernel:?}, {n_cols} features, column {j}");
                for i in 0..m {
                    assert_eq!(sparse.entry(i, j), b[i], "{kernel:?} entry");
                }
            }
            for t in 0..3 {
                dense
                    .query_row(&Features::from(&q), t, &mut a, &mut scratch)
                    .unwrap();
                sparse
                    .query_row(&Features::from(&qs), t, &mut b, &mut scratch)
                    .unwrap();
                for i in 0..m {
                    assert!(
                        (a[i] - b[i]).abs() <= 1e-12 * a[i].abs().max(1.0),
                        "{kernel:?} query {t}"
                    );
                }
            }
        }
    }
}

fn check_against_formula(x: &DenseMatrix) {
    let x = x.clone();
    let s = sparse_version(&x);
    let d = x.n_cols();
    let row = |i: usize| &x.as_slice()[i * d..(i + 1) * d];
    for kernel in kernels() {
        for features in [Features::from(&x), Features::from(&s)] {
            let km = KernelMatrix::new(kernel, features);
            let mut col = vec![0.0; 37];
            let mut scratch = QueryScratch::new();
            for j in [0, 5, 36] {
                km.column(j, &mut col, &mut scratch);
                for i in 0..37 {
                    let want = naive(kernel, row(i), row(j));
                    assert!(
                        (col[i] - want).abs() < 1e-12,
                        "{kernel:?} column {j} row {i}"
                    );
                    assert!((km.entry(i, j) - want).abs() < 1e-12, "{kernel:?} entry");
                }
                assert!((km.diagonal()[j] - naive(kernel, row(j), row(j))).abs() < 1e-12);
            }
            // Queries from either storage kind against either storage kind.
            for queries in [Features::from(&x), Features::from(&s)] {
                km.query_row(&queries, 9, &mut col, &mut scratch).unwrap();
                for i in 0..37 {
                    assert!(
                        (col[i] - naive(kernel, row(i), row(9))).abs() < 1e-12,
                        "{kernel:?} query"
                    );
                }
            }
        }
    }
}

#[test]
fn query_with_wrong_feature_count_is_an_error() {
    let (x, _) = common::blobs(10, 3, 1.0, 1);
    let (q, _) = common::blobs(2, 4, 1.0, 2);
    let km = KernelMatrix::new(Kernel::rbf(1.0), Features::from(&x));
    let mut out = vec![0.0; 10];
    let err = km
        .query_row(&Features::from(&q), 0, &mut out, &mut QueryScratch::new())
        .unwrap_err();
    assert!(err.to_string().contains("features"));
}

#[test]
fn column_cache_respects_its_budget_and_evicts_least_recently_used() {
    let (x, _) = common::blobs(100, 3, 1.0, 3);
    let km = KernelMatrix::new(Kernel::rbf(1.0), Features::from(&x));
    // Room for 3 columns of 100 f64.
    let mut cache = ColumnCache::new(100, 3 * 100 * 8);
    assert_eq!(cache.capacity(), 3);
    for j in [1, 2, 3] {
        cache.fetch(&km, j, None);
    }
    cache.fetch(&km, 1, None); // 1 is now most recent; 2 is the LRU
    cache.fetch(&km, 4, None);
    assert!(cache.lookup(2).is_none());
    assert!(cache.lookup(1).is_some() && cache.lookup(3).is_some() && cache.lookup(4).is_some());
    assert_eq!(cache.columns_computed(), 4);
    assert_eq!(cache.hits(), 1);
    // A pinned slot survives eviction.
    let pinned = cache.lookup(3).unwrap();
    cache.fetch(&km, 5, Some(pinned));
    assert!(cache.lookup(3).is_some());
    // Cached columns are the kernel's columns.
    let slot = cache.fetch(&km, 4, None);
    let mut col = vec![0.0; 100];
    km.column(4, &mut col, &mut QueryScratch::new());
    let cached: Vec<f64> = (0..100).map(|i| cache.column(slot).get(i)).collect();
    assert_eq!(cached, col);
}

#[test]
fn csr_validation_names_the_problem() {
    let err = CsrMatrix::new(vec![0, 2], vec![3, 1], vec![1.0, 2.0], 5).unwrap_err();
    assert!(err.to_string().contains("unsorted or duplicate"));
    let err = CsrMatrix::new(vec![0, 1], vec![7], vec![1.0], 5).unwrap_err();
    assert!(err.to_string().contains("column index 7"));
    let err = CsrMatrix::new(vec![0, 2], vec![1], vec![1.0], 5).unwrap_err();
    assert!(err.to_string().contains("indptr ends"));
}

#[test]
fn precomputed_gram_reproduces_the_kernel_it_came_from() {
    let (x, _) = common::blobs(25, 3, 1.0, 9);
    let rbf = KernelMatrix::new(Kernel::rbf(0.4), Features::from(&x));
    let mut rows = Vec::new();
    let mut col = vec![0.0; 25];
    let mut scratch = QueryScratch::new();
    for j in 0..25 {
        rbf.column(j, &mut col, &mut scratch);
        rows.push(col.clone());
    }
    let gram = DenseMatrix::from_rows(&rows).unwrap();
    let pre = KernelMatrix::new(Kernel::Precomputed, Features::from(&gram));
    let mut col2 = vec![0.0; 25];
    for j in [0, 7, 24] {
        rbf.column(j, &mut col, &mut scratch);
        pre.column(j, &mut col2, &mut scratch);
        assert_eq!(col, col2);
        assert_eq!(pre.entry(3, j), rbf.entry(3, j));
    }
    assert_eq!(pre.diagonal(), rbf.diagonal());
    // A non-square "Gram matrix" is refused by the problem constructors.
    let y: Vec<f64> = (0..25)
        .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    let err = fwsvm::SimplexProblem::l2_svc(
        KernelMatrix::new(Kernel::Precomputed, Features::from(&x)),
        &y,
        &[1.0; 25],
    )
    .unwrap_err();
    assert!(err.to_string().contains("square"));
}
