//! The LIBSVM reader and writer from Rust: round trips, errors with positions, and a
//! property test that arbitrary bytes never panic.

use fwsvm::data::libsvm::{
    ReadOptions, Source, Targets, TargetsRef, ZeroBased, read_libsvm_sources, write_libsvm,
};
use fwsvm::{DenseMatrix, Features, FwsvmError};
use proptest::prelude::*;

fn read(bytes: &[u8], options: &ReadOptions) -> fwsvm::Result<fwsvm::data::libsvm::LibsvmData> {
    read_libsvm_sources(&[Source::Bytes { name: "mem", bytes }], options).map(|mut v| v.remove(0))
}

#[test]
fn write_then_read_is_exact() {
    let x =
        DenseMatrix::from_rows(&[[0.0, 1.5, -2.0], [1e-300, 0.0, 0.1], [0.0, 0.0, 0.0]]).unwrap();
    let y = [1.0, -1.0, 0.25];
    for zero_based in [true, false] {
        let mut out = Vec::new();
        write_libsvm(
            &mut out,
            Features::from(&x),
            TargetsRef::Single(&y),
            Some(&[1, 2, 3]),
            zero_based,
            Some("hi"),
        )
        .unwrap();
        let options = ReadOptions {
            zero_based: if zero_based {
                ZeroBased::Yes
            } else {
                ZeroBased::No
            },
            n_features: Some(3),
            ..ReadOptions::default()
        };
        let d = read(&out, &options).unwrap();
        assert_eq!(d.y, Targets::Single(y.to_vec()));
        assert_eq!(d.qid, vec![1, 2, 3]);
        let (indptr, indices, data) = d.x.into_parts();
        assert_eq!(indptr, vec![0, 2, 4, 4]);
        assert_eq!(indices, vec![1, 2, 0, 2]);
        assert_eq!(data, vec![1.5, -2.0, 1e-300, 0.1]);
    }
}

#[test]
fn parse_errors_carry_source_line_and_column() {
    let err = read(b"1 1:1\n\n-1 2:1 2:3\n", &ReadOptions::default()).unwrap_err();
    match err {
        FwsvmError::Parse {
            source_name,
            line,
            column,
            message,
        } => {
            assert_eq!((source_name.as_str(), line, column), ("mem", 3, 8));
            assert!(message.contains("sorted and unique"));
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn large_inputs_are_split_across_blocks_and_threads_consistently() {
    let mut text = Vec::new();
    for i in 0..200_000 {
        text.extend_from_slice(
            format!("{} {}:1 {}:{}\n", i % 2, i % 7 + 1, 10 + i % 5, i).as_bytes(),
        );
    }
    let d = read(&text, &ReadOptions::default()).unwrap();
    assert_eq!(d.x.n_rows(), 200_000);
    assert_eq!(d.x.n_cols(), 14);
    // An error far into the file reports the right line.
    text.extend_from_slice(b"1 3:1 2:1\n");
    match read(&text, &ReadOptions::default()).unwrap_err() {
        FwsvmError::Parse { line, .. } => assert_eq!(line, 200_001),
        other => panic!("unexpected {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = read(&bytes, &ReadOptions::default());
        let _ = read(&bytes, &ReadOptions { multilabel: true, zero_based: ZeroBased::No, ..ReadOptions::default() });
    }

    #[test]
    fn printable_noise_around_valid_lines_never_panics(
        prefix in "[0-9a-z:+\\-.,# \t\n]{0,40}",
        suffix in "[0-9a-z:+\\-.,# \t\n]{0,40}",
    ) {
        let text = format!("{prefix}\n1 1:0.5 3:2\n{suffix}");
        if let Ok(d) = read(text.as_bytes(), &ReadOptions::default()) {
            prop_assert_eq!(d.x.n_rows(), match &d.y { Targets::Single(y) => y.len(), Targets::Multi { indptr, .. } => indptr.len() - 1 });
        }
    }
}
