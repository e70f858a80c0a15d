//! `fwsvm scale`: LIBSVM's `svm-scale`, byte for byte (tests/golden holds the SHA-256 of
//! LIBSVM's own output).

use super::args::{Opt, Spec, Takes};
use super::files::{refuse_same_file, write_output};
use super::train::read_data;
use super::{CliError, Context};
use crate::format::{g6, g17};

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
    /// (index, min, max), sorted by index (of a repeated index, the last line's).
    features: Vec<(usize, f64, f64)>,
}

/// The longest line of a parameter file (as the data reader's): `/dev/zero` or a binary file
/// is refused after this many bytes instead of being read into memory.
const MAX_LINE_BYTES: usize = 64 << 20;

/// The non-blank lines of the parameter file, split into words, each with its line number.
/// Binary data (a NUL byte, invalid UTF-8, a line over [`MAX_LINE_BYTES`]) is refused naming
/// the line.
fn restore_lines(path: &str) -> Result<Vec<(usize, Vec<String>)>, CliError> {
    use std::io::{BufRead, Read};
    let open_error = |e: &std::io::Error| {
        CliError::plain(format!(
            "can't open file {path} ({})",
            crate::error::FwsvmError::io(path, e)
                .to_string()
                .trim_start_matches(&format!("{path}: "))
        ))
    };
    let file = std::fs::File::open(path).map_err(|e| open_error(&e))?;
    let mut reader = std::io::BufReader::new(file);
    let mut lines = Vec::new();
    let mut buf = Vec::new();
    for number in 1.. {
        buf.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        let read = (&mut reader)
            .take(limit)
            .read_until(b'\n', &mut buf)
            .map_err(|e| open_error(&e))?;
        if read == 0 {
            break;
        }
        let not_parameters = |why: &str| {
            CliError::plain(format!(
                "{path}: line {number}: {why}: not a scaling parameter file"
            ))
        };
        if buf.last() != Some(&b'\n') && buf.len() > MAX_LINE_BYTES {
            return Err(not_parameters(&format!(
                "line longer than {} MiB",
                MAX_LINE_BYTES >> 20
            )));
        }
        if memchr::memchr(0, &buf).is_some() {
            return Err(not_parameters("binary data (a NUL byte)"));
        }
        let text =
            std::str::from_utf8(&buf).map_err(|_| not_parameters("not text (invalid UTF-8)"))?;
        let words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        if !words.is_empty() {
            lines.push((number, words));
        }
    }
    Ok(lines)
}

fn read_restore(path: &str) -> Result<Restore, CliError> {
    let lines = restore_lines(path)?;
    let bad = |line: Option<usize>, why: &str| {
        let at = line.map_or(String::new(), |l| format!(" line {l}:"));
        CliError::plain(format!(
            "{path}:{at} failed to read scaling parameters ({why})"
        ))
    };
    let pair = |k: usize| -> Result<(f64, f64), CliError> {
        let Some((number, words)) = lines.get(k) else {
            return Err(bad(None, "a line of two numbers expected, the file ends"));
        };
        match words.as_slice() {
            [a, b] => match (a.parse(), b.parse()) {
                (Ok(a), Ok(b)) => Ok((a, b)),
                _ => Err(bad(Some(*number), "a line of two numbers expected")),
            },
            _ => Err(bad(Some(*number), "a line of two numbers expected")),
        }
    };
    let mut k = 0;
    let mut y = None;
    if lines.first().is_some_and(|(_, l)| l.as_slice() == ["y"]) {
        let (y_lower, y_upper) = pair(1)?;
        let (y_min, y_max) = pair(2)?;
        y = Some((y_lower, y_upper, y_min, y_max));
        k = 3;
    }
    match lines.get(k) {
        Some((_, words)) if words.as_slice() == ["x"] => {}
        Some((number, _)) => return Err(bad(Some(*number), "no 'x' section")),
        None => return Err(bad(None, "no 'x' section")),
    }
    let x = pair(k + 1)?;
    let mut features = Vec::new();
    for (number, parts) in &lines[(k + 2).min(lines.len())..] {
        let (Some(i), Some(lo), Some(hi)) = (parts.first(), parts.get(1), parts.get(2)) else {
            return Err(bad(
                Some(*number),
                "a feature line needs index, min and max",
            ));
        };
        match (i.parse::<usize>(), lo.parse::<f64>(), hi.parse::<f64>()) {
            (Ok(i), Ok(lo), Ok(hi)) => features.push((i, lo, hi)),
            _ => {
                return Err(bad(
                    Some(*number),
                    &format!("malformed feature line '{}'", parts.join(" ")),
                ));
            }
        }
    }
    // Sorted by index; of a repeated index the last line counts (the sort is stable).
    features.sort_by_key(|f| f.0);
    let mut deduplicated: Vec<(usize, f64, f64)> = Vec::with_capacity(features.len());
    for f in features {
        match deduplicated.last_mut() {
            Some(last) if last.0 == f.0 => *last = f,
            _ => deduplicated.push(f),
        }
    }
    Ok(Restore {
        y,
        x,
        features: deduplicated,
    })
}

/// The data's columns (0-based) and a slot per column: the per-feature statistics are kept
/// for the columns that hold entries only, so memory follows the entries, not the largest
/// index (an index of 2³¹ − 1 asked for 48 GiB of per-feature arrays).
struct ColumnSlots {
    /// The distinct columns with an entry, increasing.
    columns: Vec<u32>,
    /// Column → slot, when the columns are few enough for a table (no larger than the
    /// entries); else slots are found by binary search in `columns`.
    table: Option<Vec<u32>>,
}

impl ColumnSlots {
    fn new(indices: &[u32], n_cols: usize) -> Self {
        let mut columns = indices.to_vec();
        columns.sort_unstable();
        columns.dedup();
        columns.shrink_to_fit();
        let table = (n_cols <= indices.len().max(1 << 16)).then(|| {
            let mut table = vec![0u32; n_cols];
            for (slot, &c) in columns.iter().enumerate() {
                table[c as usize] = slot as u32;
            }
            table
        });
        ColumnSlots { columns, table }
    }

    fn slot(&self, column: u32) -> usize {
        match &self.table {
            Some(table) => table[column as usize] as usize,
            None => self.columns.binary_search(&column).unwrap_or(0),
        }
    }
}

/// Per feature (1-based index, increasing): the min and max used for scaling, for every
/// feature that has entries or parameters; every other feature has min = max = 0 and is
/// neither written nor scaled.
fn feature_ranges(
    x: &crate::data::CsrMatrix,
    restore: Option<(&str, &Restore)>,
    data_file: &str,
    context: &mut Context<'_>,
) -> Vec<(usize, f64, f64)> {
    let view = x.view();
    let n = x.n_rows();
    let slots = ColumnSlots::new(view.indices(), x.n_cols());
    let k = slots.columns.len();
    let (mut lo, mut hi, mut stored) = (
        vec![f64::INFINITY; k],
        vec![f64::NEG_INFINITY; k],
        vec![0usize; k],
    );
    for r in 0..n {
        let (indices, values) = view.row(r);
        for (&j, &v) in indices.iter().zip(values) {
            let s = slots.slot(j);
            lo[s] = lo[s].min(v);
            hi[s] = hi[s].max(v);
            stored[s] += 1;
        }
    }
    // Absent entries are 0.
    let data: Vec<(usize, f64, f64)> = (0..k)
        .map(|s| {
            let (l, h) = if stored[s] < n {
                (lo[s].min(0.0), hi[s].max(0.0))
            } else {
                (lo[s], hi[s])
            };
            (slots.columns[s] as usize + 1, l, h)
        })
        .collect();
    let Some((restore_file, restore)) = restore else {
        return data;
    };
    // The file's parameters replace the data's; a feature of the data the file lacks is
    // scaled to 0, with svm-scale's warning when it varies.
    let mut merged = Vec::with_capacity(data.len() + restore.features.len());
    let mut file = restore.features.iter().filter(|f| f.0 >= 1).peekable();
    for (i, l, h) in data {
        while let Some(&&f) = file.peek().filter(|f| f.0 < i) {
            merged.push(f);
            file.next();
        }
        if let Some(&&f) = file.peek().filter(|f| f.0 == i) {
            merged.push(f);
            file.next();
        } else if l != h {
            context.warn(&format!(
                "WARNING: feature index {i} appeared in file {data_file} was not seen in the scaling factor file {restore_file}. The feature is scaled to 0."
            ));
        }
    }
    merged.extend(file.copied());
    merged
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
    let n = x.n_rows();
    let ranges = feature_ranges(
        &x,
        restore.as_ref().map(|(f, r)| (&**f, r)),
        &data_file,
        context,
    );
    let (y_min, y_max) = if n > 0 {
        (
            y.iter().copied().fold(f64::INFINITY, f64::min),
            y.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    } else {
        (f64::INFINITY, f64::NEG_INFINITY)
    };
    let mut y_scaling = y_limits.map(|(a, b)| (a, b, y_min, y_max));
    if let Some((_, r)) = &restore {
        if r.y.is_some() {
            y_scaling = r.y;
        }
        (lower, upper) = r.x;
    }
    // The features scaling writes: those whose min and max differ, by increasing index.
    let varying: Vec<(usize, f64, f64)> = ranges.into_iter().filter(|f| f.1 != f.2).collect();
    if let Some(save) = save {
        write_output(context, save, |w| {
            if let Some((a, b, lo, hi)) = y_scaling {
                write!(w, "y\n{} {}\n{} {}\n", g17(a), g17(b), g17(lo), g17(hi))?;
            }
            write!(w, "x\n{} {}\n", g17(lower), g17(upper))?;
            for &(i, lo, hi) in &varying {
                writeln!(w, "{i} {} {}", g17(lo), g17(hi))?;
            }
            Ok(())
        })?;
    }
    let view = x.view();
    let mut new_nonzeros = 0usize;
    let mut out = String::new();
    for r in 0..n {
        if r % 4096 == 0 && context.cancel.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(crate::error::FwsvmError::Interrupted.into());
        }
        let (indices, values) = view.row(r);
        out.push_str(&g17(scale_target(y[r], y_scaling)));
        out.push(' ');
        // The row's entries (indices increase) merged with the varying features.
        let mut entry = 0;
        for &(i, lo, hi) in &varying {
            while entry < indices.len() && (indices[entry] as usize + 1) < i {
                entry += 1;
            }
            let value = match indices.get(entry) {
                Some(&j) if j as usize + 1 == i => values[entry],
                _ => 0.0,
            };
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
