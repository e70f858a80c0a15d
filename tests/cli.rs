//! The `fwsvm` binary (feature `cli`): the Rust crate alone trains a multiclass model with
//! probabilities, writes a LIBSVM model file, reads it back and predicts; errors are one line
//! with exit status 1, and an output that is an input is refused.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fwsvm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fwsvm"))
        .args(args)
        .output()
        .expect("the fwsvm binary runs")
}

/// Asserts that a run exited with status 0, with its stderr as the message otherwise.
fn assert_success(run: &Output) {
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fwsvm-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Three classes (labels 3, 1, 2 in order of appearance), two features.
fn write_data(path: &Path) {
    let mut text = String::new();
    for i in 0..150 {
        let class = [3, 1, 2][i % 3];
        let u = ((i * 7919 + 13) % 101) as f64 / 101.0 - 0.5;
        let v = ((i * 104_729 + 7) % 97) as f64 / 97.0 - 0.5;
        text.push_str(&format!(
            "{class} 1:{} 2:{}\n",
            f64::from(class) + u,
            0.8 * v
        ));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn trains_with_probabilities_writes_a_libsvm_model_and_predicts_it() {
    let dir = folder("train");
    let (data, model, out) = (dir.join("d.svm"), dir.join("d.model"), dir.join("p.txt"));
    write_data(&data);
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let run = fwsvm(&["train", "-b", "1", "-c", "2", &s(&data), &s(&model)]);
    assert_success(&run);
    let stdout = String::from_utf8(run.stdout).unwrap();
    assert!(
        stdout.contains("nSV per class: 1:") && stdout.contains("Total nSV = "),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&model).unwrap();
    // LIBSVM's layout: labels, three pairs of probabilities, one ρ per pair.
    assert!(
        text.contains("nr_class 3\n") && text.contains("\nprobA "),
        "{text}"
    );
    assert_eq!(
        text.lines()
            .find(|l| l.starts_with("rho"))
            .unwrap()
            .split(' ')
            .count(),
        4
    );
    let run = fwsvm(&["predict", "-b", "1", &s(&data), &s(&model), &s(&out)]);
    assert_success(&run);
    let accuracy = String::from_utf8(run.stdout).unwrap();
    assert!(accuracy.starts_with("Accuracy = "), "{accuracy}");
    let lines: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), 151);
    assert!(lines[0].starts_with("labels "), "{}", lines[0]);
    for line in &lines[1..] {
        let values: Vec<f64> = line.split(' ').map(|v| v.parse().unwrap()).collect();
        assert_eq!(values.len(), 4);
        assert!(
            (values[1..].iter().sum::<f64>() - 1.0).abs() < 1e-4,
            "{line}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_are_one_line_and_inputs_are_never_overwritten() {
    let dir = folder("errors");
    let data = dir.join("d.svm");
    write_data(&data);
    let before = std::fs::read(&data).unwrap();
    let d = data.to_str().unwrap();
    for (args, message) in [
        (vec!["train", "-q", d, d], "refusing to overwrite an input"),
        (
            vec!["train", "-c", "abc", d],
            "argument -c: invalid float value: 'abc'",
        ),
        (
            vec!["train", "-s", "5", d],
            "argument -s: invalid choice: 5",
        ),
        (
            vec!["predict", d, d],
            "the following arguments are required: output_file",
        ),
        (
            vec!["scale", "-l", "1", "-u", "0", d],
            "inconsistent lower/upper specification",
        ),
        (vec!["train", "/nonexistent/file"], "No such file"),
    ] {
        let run = fwsvm(&args);
        let err = String::from_utf8(run.stderr).unwrap();
        assert_eq!(run.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(message) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
        assert!(err.starts_with("fwsvm "), "{err}");
    }
    assert_eq!(std::fs::read(&data).unwrap(), before);
    let help = fwsvm(&["train", "--help"]);
    assert!(
        help.status.success()
            && String::from_utf8(help.stdout)
                .unwrap()
                .starts_with("usage: ")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 33: `scale` keeps per-feature statistics for the features that have entries or
/// parameters only. A parameter file with index 10¹² asked for 7.28 TiB and data with index
/// 2³¹ − 1 for 48 GiB; both now take kilobytes (the 1 GiB address-space limit proves it). A
/// binary parameter file is a one-line error naming the file and the line.
#[test]
fn scale_follows_the_entries_not_the_largest_index() {
    let dir = folder("scale");
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let (data, range, saved, binary) = (
        dir.join("d.svm"),
        dir.join("range"),
        dir.join("saved"),
        dir.join("binary"),
    );
    std::fs::write(&data, "1 1:0.5 2:3\n-1 1:-1 2147483647:2\n1 2:1\n").unwrap();
    std::fs::write(&range, "x\n-1 1\n1 -2 2\n1000000000000 0 1\n").unwrap();
    std::fs::write(&binary, b"x\n-1 1\n\xff\xfe\x80 1 2\n").unwrap();
    // Under a 1 GiB address-space limit (the shell's ulimit applies to the binary alone).
    let limited = |args: &[&str]| {
        let mut command = format!("ulimit -v 1048576; exec '{}'", env!("CARGO_BIN_EXE_fwsvm"));
        for a in args {
            command.push_str(&format!(" '{a}'"));
        }
        Command::new("sh").args(["-c", &command]).output().unwrap()
    };
    let run = limited(&["scale", "-r", &s(&range), &s(&data)]);
    assert_success(&run);
    assert_eq!(
        String::from_utf8(run.stdout).unwrap(),
        "1 1:0.25 1000000000000:-1 \n-1 1:-0.5 1000000000000:-1 \n1 1000000000000:-1 \n"
    );
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 2, "{stderr}"); // features 2 and 2³¹ − 1 are not in it
    assert!(
        stderr.contains("feature index 2147483647 appeared"),
        "{stderr}"
    );
    let run = limited(&["scale", "-s", &s(&saved), &s(&data)]);
    assert_success(&run);
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        "x\n-1 1\n1 -1 0.5\n2 0 3\n2147483647 0 2\n"
    );
    for (file, why) in [
        (s(&binary), "line 3: not text (invalid UTF-8)"),
        ("/dev/zero".to_owned(), "line 1: line longer than 64 MiB"),
    ] {
        let run = limited(&["scale", "-r", &file, &s(&data)]);
        let stderr = String::from_utf8(run.stderr).unwrap();
        assert_eq!(run.status.code(), Some(1), "{stderr}");
        assert_eq!(
            stderr,
            format!("fwsvm scale: error: {file}: {why}: not a scaling parameter file\n")
        );
    }
}

/// `fwsvm grid`: grid.py's lines and `-out` records; each point's rate is the accuracy
/// `fwsvm train -v n` prints for its C and γ, whatever the thread count; the best line is the
/// first point of the highest rate.
#[test]
fn grid_rates_are_train_cross_validation_accuracies() {
    let dir = folder("grid");
    let data = dir.join("d.svm");
    write_data(&data);
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let grid = |threads: &str, out: &Path| {
        let run = fwsvm(&[
            "grid",
            "-log2c",
            "-1,3,2",
            "-log2g",
            "-2,0,2",
            "-v",
            "3",
            "-j",
            threads,
            "-out",
            &s(out),
            &s(&data),
        ]);
        assert_success(&run);
        String::from_utf8(run.stdout).unwrap()
    };
    let (one, two) = (dir.join("one.out"), dir.join("two.out"));
    let stdout = grid("1", &one);
    assert_eq!(stdout, grid("2", &two));
    let records = std::fs::read_to_string(&one).unwrap();
    assert_eq!(records, std::fs::read_to_string(&two).unwrap());
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3 * 2 + 1, "{stdout}");
    assert!(
        lines[0].starts_with("[local] -1 -2 ") && lines[0].contains("(best c=0.5, g=0.25, rate=")
    );
    let mut best = (f64::NEG_INFINITY, String::new());
    for record in records.lines() {
        // "log2c=-1 log2g=-2 rate=93.3333"
        let fields: Vec<&str> = record.split([' ', '=']).collect();
        let [_, c, _, g, _, rate] = fields[..] else {
            panic!("{record}")
        };
        let (c, g): (f64, f64) = (c.parse().unwrap(), g.parse().unwrap());
        let run = fwsvm(&[
            "train",
            "-v",
            "3",
            "-c",
            &c.exp2().to_string(),
            "-g",
            &g.exp2().to_string(),
            &s(&data),
        ]);
        let line = String::from_utf8(run.stdout).unwrap();
        assert_eq!(
            line.trim(),
            format!("Cross Validation Accuracy = {rate}%"),
            "{record}"
        );
        let rate: f64 = rate.parse().unwrap();
        if rate > best.0 {
            best = (rate, format!("{} {} {rate}", c.exp2(), g.exp2()));
        }
    }
    assert_eq!(lines[6], best.1);
    std::fs::remove_dir_all(&dir).unwrap();
}
