//! `fwsvm scale`: LIBSVM's `svm-scale`, byte for byte (tests/golden holds the SHA-256 of
//! LIBSVM's own output).

use super::args::{Opt, Spec, Takes};
use super::files::{refuse_same_file, write_output};
use super::format::{g6, g17};
use super::train::read_data;
use super::{CliError, Context};

const OPTIONS: &[Opt] = &[
    Opt {
        flag: "-l",
        takes: Takes::Float,
        metavar: "LOWER",
        help: "x scaling lower limit (default -1)",
    },
    Opt {
        flag: "-u",
        takes: Takes::Float,
        metavar: "UPPER",
        help: "x scaling upper limit (default +1)",
    },
    Opt {
        flag: "-y",
        takes: Takes::Floats2,
        metavar: "y_lower y_upper",
        help: "y scaling limits (default: no y scaling)",
    },
    Opt {
        flag: "-s",
        takes: Takes::Text,
        metavar: "SAVE_FILENAME",
        help: "save scaling parameters to save_filename",
    },
    Opt {
        flag: "-r",
        takes: Takes::Text,
        metavar: "RESTORE_FILENAME",
        help: "restore scaling parameters from restore_filename",
    },
];

const SPEC: Spec = Spec {
    options: OPTIONS,
    positionals: &["data_filename"],
    required: 1,
    description: "Scale a LIBSVM-format file to stdout (as LIBSVM's svm-scale).",
    epilog: "",
};

/// svm-scale's parameter file.
struct Restore {
    /// (y_lower, y_upper, y_min, y_max) when the file scales y.
    y: Option<(f64, f64, f64, f64)>,
    /// (lower, upper).
    x: (f64, f64),
    /// (index, min, max), in file order.
    features: Vec<(usize, f64, f64)>,
}

fn read_restore(path: &str) -> Result<Restore, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::plain(format!(
            "can't open file {path} ({})",
            crate::error::FwsvmError::io(path, &e)
                .to_string()
                .trim_start_matches(&format!("{path}: "))
        ))
    })?;
    let bad =
        |why: &str| CliError::plain(format!("{path}: failed to read scaling parameters ({why})"));
    let lines: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|l| !l.is_empty())
        .collect();
    let pair = |line: Option<&Vec<&str>>| -> Result<(f64, f64), CliError> {
        match line.map(Vec::as_slice) {
            Some([a, b]) => match (a.parse(), b.parse()) {
                (Ok(a), Ok(b)) => Ok((a, b)),
                _ => Err(bad("a line of two numbers expected")),
            },
            _ => Err(bad("a line of two numbers expected")),
        }
    };
    let mut k = 0;
    let mut y = None;
    if lines.first().is_some_and(|l| l.as_slice() == ["y"]) {
        let (y_lower, y_upper) = pair(lines.get(1))?;
        let (y_min, y_max) = pair(lines.get(2))?;
        y = Some((y_lower, y_upper, y_min, y_max));
        k = 3;
    }
    if lines.get(k).map(Vec::as_slice) != Some(&["x"][..]) {
        return Err(bad("no 'x' section"));
    }
    let x = pair(lines.get(k + 1))?;
    let mut features = Vec::new();
    for parts in &lines[(k + 2).min(lines.len())..] {
        let (Some(i), Some(lo), Some(hi)) = (parts.first(), parts.get(1), parts.get(2)) else {
            return Err(bad("a feature line needs index, min and max"));
        };
        match (i.parse::<usize>(), lo.parse::<f64>(), hi.parse::<f64>()) {
            (Ok(i), Ok(lo), Ok(hi)) => features.push((i, lo, hi)),
            _ => {
                return Err(bad(&format!(
                    "malformed feature line '{}'",
                    parts.join(" ")
                )));
            }
        }
    }
    Ok(Restore { y, x, features })
}

fn scale_target(value: f64, y: Option<(f64, f64, f64, f64)>) -> f64 {
    let Some((y_lower, y_upper, y_min, y_max)) = y else {
        return value;
    };
    if value == y_min {
        y_lower
    } else if value == y_max {
        y_upper
    } else {
        y_lower + (y_upper - y_lower) * (value - y_min) / (y_max - y_min)
    }
}

pub(crate) fn run(argv: &[String], context: &mut Context<'_>) -> Result<(), CliError> {
    let Some(p) = SPEC.parse(argv)? else {
        let help = SPEC.help(context.prog);
        return context.say(false, help.trim_end());
    };
    let data_file = p.positionals[0].clone();
    let (mut lower, mut upper) = (p.float("-l").unwrap_or(-1.0), p.float("-u").unwrap_or(1.0));
    let y_limits = p.floats2("-y");
    if !(upper > lower) || y_limits.is_some_and(|(a, b)| !(b > a)) {
        return Err(CliError::plain("inconsistent lower/upper specification"));
    }
    let (save, restore) = (p.text("-s"), p.text("-r"));
    if save.is_some() && restore.is_some() {
        return Err(CliError::plain("cannot use -r and -s simultaneously"));
    }
    if let Some(save) = save {
        refuse_same_file(("save file", save), &[("data file", Some(&data_file))])?;
    }
    let (x, y) = read_data(&data_file)?;
    let restore = restore
        .map(|r| read_restore(r).map(|v| (r, v)))
        .transpose()?;
    let (n, d) = (x.n_rows(), x.n_cols());
    let mut max_index = d;
    if let Some((_, r)) = &restore {
        max_index = max_index.max(r.features.iter().map(|f| f.0).max().unwrap_or(0));
    }
    // Per feature (1-based): min and max over the rows, absent entries being 0.
    let mut fmin = vec![f64::INFINITY; max_index + 1];
    let mut fmax = vec![f64::NEG_INFINITY; max_index + 1];
    let mut stored = vec![0usize; d + 1];
    let view = x.view();
    for r in 0..n {
        let (indices, values) = view.row(r);
        for (&j, &v) in indices.iter().zip(values) {
            let j = j as usize + 1;
            fmin[j] = fmin[j].min(v);
            fmax[j] = fmax[j].max(v);
            stored[j] += 1;
        }
    }
    for j in 1..=d {
        if stored[j] < n {
            fmin[j] = fmin[j].min(0.0);
            fmax[j] = fmax[j].max(0.0);
        }
    }
    if n > 0 {
        for j in (d + 1)..=max_index {
            fmin[j] = 0.0;
            fmax[j] = 0.0;
        }
    }
    let (y_min, y_max) = if n > 0 {
        (
            y.iter().copied().fold(f64::INFINITY, f64::min),
            y.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    } else {
        (f64::INFINITY, f64::NEG_INFINITY)
    };
    let mut y_scaling = y_limits.map(|(a, b)| (a, b, y_min, y_max));
    if let Some((restore_file, r)) = &restore {
        if r.y.is_some() {
            y_scaling = r.y;
        }
        (lower, upper) = r.x;
        let unseen = |i: usize, fmin: &mut [f64], fmax: &mut [f64], context: &mut Context<'_>| {
            if fmin[i] != fmax[i] {
                context.warn(&format!(
                    "WARNING: feature index {i} appeared in file {data_file} was not seen in the scaling factor file {restore_file}. The feature is scaled to 0."
                ));
                fmin[i] = 0.0;
                fmax[i] = 0.0;
            }
        };
        let mut sorted = r.features.clone();
        sorted.sort_by_key(|f| f.0);
        let mut next = 1;
        for &(i, lo, hi) in &sorted {
            for j in next..i.min(max_index + 1) {
                unseen(j, &mut fmin, &mut fmax, context);
            }
            if (1..=max_index).contains(&i) {
                fmin[i] = lo;
                fmax[i] = hi;
            }
            next = i + 1;
        }
        for j in next..=max_index {
            unseen(j, &mut fmin, &mut fmax, context);
        }
    }
    if let Some(save) = save {
        write_output(context, save, |w| {
            if let Some((a, b, lo, hi)) = y_scaling {
                write!(w, "y\n{} {}\n{} {}\n", g17(a), g17(b), g17(lo), g17(hi))?;
            }
            write!(w, "x\n{} {}\n", g17(lower), g17(upper))?;
            for i in 1..=max_index {
                if fmin[i] != fmax[i] {
                    writeln!(w, "{i} {} {}", g17(fmin[i]), g17(fmax[i]))?;
                }
            }
            Ok(())
        })?;
    }
    let varying: Vec<usize> = (1..=max_index).filter(|&i| fmin[i] != fmax[i]).collect();
    let mut new_nonzeros = 0usize;
    let mut out = String::new();
    let mut row = vec![0.0; max_index + 1];
    for r in 0..n {
        if r % 4096 == 0 && context.cancel.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(crate::error::FwsvmError::Interrupted.into());
        }
        let (indices, values) = view.row(r);
        for (&j, &v) in indices.iter().zip(values) {
            row[j as usize + 1] = v;
        }
        out.push_str(&g17(scale_target(y[r], y_scaling)));
        out.push(' ');
        for &i in &varying {
            let (value, lo, hi) = (row[i], fmin[i], fmax[i]);
            let scaled = if value == lo {
                lower
            } else if value == hi {
                upper
            } else {
                lower + (upper - lower) * (value - lo) / (hi - lo)
            };
            if scaled != 0.0 {
                new_nonzeros += 1;
                out.push_str(&format!("{i}:{} ", g6(scaled)));
            }
        }
        out.push('\n');
        for &j in indices {
            row[j as usize + 1] = 0.0;
        }
        if out.len() > 1 << 20 {
            context
                .console
                .out(&out)
                .map_err(|e| crate::error::FwsvmError::io("<stdout>", &e))?;
            out.clear();
        }
    }
    context
        .console
        .out(&out)
        .map_err(|e| crate::error::FwsvmError::io("<stdout>", &e))?;
    let nnz = view.nnz();
    if new_nonzeros > nnz {
        context.warn(&format!(
            "WARNING: original #nonzeros {nnz}\n       > new      #nonzeros {new_nonzeros}\nIf feature values are non-negative and sparse, use -l 0 rather than the default -l -1"
        ));
    }
    Ok(())
}
