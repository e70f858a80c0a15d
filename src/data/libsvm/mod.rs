//! LIBSVM / svmlight text: a streaming, parallel reader into [`CsrMatrix`] and a writer.
//!
//! The reader takes plain, gzip or bzip2 input (detected by magic bytes, not file names),
//! reads it in blocks of whole lines and parses each block's chunks in parallel; memory for
//! the text is bounded by the block size, not the file size. Semantics follow scikit-learn's
//! `load_svmlight_file` (`zero_based="auto"` decided over all files read together, explicit
//! zeros kept, `n_features` checked), with every malformed line reported by file, line and
//! column. The grammar is documented in `src/data/libsvm/parse.rs`.

mod parse;
mod write;

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use memchr::{memchr, memrchr};

pub use write::{TargetsRef, write_libsvm};

use self::parse::{LocalError, Piece, Position, parse_chunk};
use crate::data::CsrMatrix;
use crate::error::{FwsvmError, Result, try_reserve};

/// Whether feature indices in the file start at 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ZeroBased {
    /// One-based unless some file uses index 0 (scikit-learn's `"auto"`).
    #[default]
    Auto,
    /// Indices are used as written.
    Yes,
    /// Indices start at 1 (LIBSVM's convention); index 0 is an error.
    No,
}

/// The longest line the reader accepts by default (bytes, the newline excluded): far above
/// any real data line, far below memory. A longer line is a parse error naming it (a gzip
/// "bomb" of gigabytes without a newline was buffered whole before).
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

/// Options of the reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// Index base.
    pub zero_based: ZeroBased,
    /// Number of columns of the result (at least what the data needs); `None`: from the data.
    pub n_features: Option<usize>,
    /// Comma-separated label lists (`1,3 1:0.5`).
    pub multilabel: bool,
    /// Skip this many bytes, then the rest of the line they end in.
    pub offset: u64,
    /// Stop at the first line that starts at or after `offset + length` bytes.
    pub length: Option<u64>,
    /// The longest line accepted, in bytes ([`DEFAULT_MAX_LINE_BYTES`] by default).
    pub max_line_bytes: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            zero_based: ZeroBased::default(),
            n_features: None,
            multilabel: false,
            offset: 0,
            length: None,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }
}

/// Labels of the rows read.
#[derive(Clone, Debug, PartialEq)]
pub enum Targets {
    /// One label per row.
    Single(Vec<f64>),
    /// A list of labels per row: row i has `values[indptr[i]..indptr[i + 1]]`.
    Multi {
        /// Row boundaries into `values`.
        indptr: Vec<usize>,
        /// The labels.
        values: Vec<f64>,
    },
}

/// A data set read from LIBSVM/svmlight text.
#[derive(Clone, Debug, PartialEq)]
pub struct LibsvmData {
    /// Features, zero-based columns.
    pub x: CsrMatrix,
    /// Labels.
    pub y: Targets,
    /// Query ids (`qid:`), 0 where absent.
    pub qid: Vec<i64>,
}

impl LibsvmData {
    /// The first stored feature value that is finite but becomes ±∞ in a narrower binary float
    /// with `mantissa_bits` stored mantissa bits and largest exponent `max_exponent` (float32:
    /// 23 and 127; float16: 10 and 15), as its row and value.
    pub fn narrowing_overflow(
        &self,
        mantissa_bits: i32,
        max_exponent: i32,
    ) -> Option<(usize, f64)> {
        // Rounding to nearest carries |v| >= (2 - 2^-(p+1)) 2^emax past the largest finite value.
        let limit = (2.0 - 2f64.powi(-(mantissa_bits + 1))) * 2f64.powi(max_exponent);
        let x = self.x.view();
        let k = x
            .data()
            .iter()
            .position(|v| v.is_finite() && v.abs() >= limit)?;
        Some((x.indptr().partition_point(|&p| p <= k) - 1, x.data()[k]))
    }
}

/// Where to read from.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// A file (plain, gzip or bzip2).
    Path(&'a Path),
    /// Bytes in memory (plain, gzip or bzip2), with a name for error messages.
    Bytes {
        /// Shown in error messages.
        name: &'a str,
        /// The content.
        bytes: &'a [u8],
    },
}

/// Reads one LIBSVM/svmlight file.
///
/// # Errors
/// [`FwsvmError::Io`] if the file cannot be read, [`FwsvmError::Parse`] for the first malformed
/// line (with its line and column), [`FwsvmError::InvalidInput`] if `n_features` is too small.
pub fn read_libsvm(path: impl AsRef<Path>, options: &ReadOptions) -> Result<LibsvmData> {
    let mut all = read_libsvm_sources(&[Source::Path(path.as_ref())], options)?;
    Ok(all.remove(0))
}

/// Reads several sources with one shared number of features and one index-base decision
/// (scikit-learn's `load_svmlight_files`).
///
/// # Errors
/// As [`read_libsvm`].
pub fn read_libsvm_sources(
    sources: &[Source<'_>],
    options: &ReadOptions,
) -> Result<Vec<LibsvmData>> {
    read_libsvm_sources_until(sources, options, &|| false)
}

/// [`read_libsvm_sources`] that stops with [`FwsvmError::Interrupted`] when `stop` returns true;
/// it is asked between reads of at most [`READ_STEP`] bytes and between parse blocks, so a
/// cancelled load ends within a fraction of a second even on slowly decompressing input.
///
/// # Errors
/// As [`read_libsvm`], and [`FwsvmError::Interrupted`].
pub fn read_libsvm_sources_until(
    sources: &[Source<'_>],
    options: &ReadOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<LibsvmData>> {
    let raws = sources
        .iter()
        .map(|s| match *s {
            Source::Path(p) => {
                let name = p.display().to_string();
                let file = File::open(p).map_err(|e| FwsvmError::io(&name, &e))?;
                let mut reader = decompressed(BufReader::with_capacity(1 << 20, file), &name)?;
                parse_stream(&name, &mut reader, options, stop)
            }
            Source::Bytes { name, bytes } => {
                let mut reader = decompressed(bytes, name)?;
                parse_stream(name, &mut reader, options, stop)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    finish(raws, options)
}

/// Wraps `reader` in a gzip or bzip2 decoder when its first bytes say so.
fn decompressed<'r, R: std::io::BufRead + 'r>(
    mut reader: R,
    name: &str,
) -> Result<Box<dyn Read + 'r>> {
    let head = reader.fill_buf().map_err(|e| FwsvmError::io(name, &e))?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(flate2::bufread::MultiGzDecoder::new(reader)))
    } else if head.starts_with(b"BZh") {
        Ok(Box::new(bzip2::bufread::MultiBzDecoder::new(reader)))
    } else {
        Ok(Box::new(reader))
    }
}

/// One source parsed, indices as written.
struct Raw {
    name: String,
    piece: Piece,
    /// Absolute 0-based line numbers for the positions in `piece`.
    min_index: Option<u32>,
    max_index: Option<(u32, Position)>,
    first_zero: Option<Position>,
}

/// Bytes per parse block (per thread).
const BLOCK_PER_THREAD: usize = 8 << 20;

/// Bytes read between two checks of the stop condition.
pub const READ_STEP: usize = 1 << 20;

/// Appends up to `want` bytes from `reader` to `buf`, [`READ_STEP`] at a time, checking `stop`
/// between reads; returns the number of bytes read (fewer than `want` only at end of input).
fn read_some(
    reader: &mut dyn Read,
    buf: &mut Vec<u8>,
    want: usize,
    stop: &(dyn Fn() -> bool + Sync),
    io: impl Fn(std::io::Error) -> FwsvmError,
) -> Result<usize> {
    let mut got = 0;
    while got < want {
        if stop() {
            return Err(FwsvmError::Interrupted);
        }
        let step = (want - got).min(READ_STEP) as u64;
        let n = (&mut *reader).take(step).read_to_end(buf).map_err(&io)?;
        got += n;
        if (n as u64) < step {
            break;
        }
    }
    Ok(got)
}

fn parse_stream(
    name: &str,
    reader: &mut dyn Read,
    options: &ReadOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Raw> {
    let io = |e: std::io::Error| FwsvmError::io(name, &e);
    let threads = crate::parallel::current_num_threads().max(1);
    let block = BLOCK_PER_THREAD * threads;
    let mut buf: Vec<u8> = Vec::new();
    let mut line_base = 0usize;
    let mut stream_pos: u64 = 0; // stream offset of buf[0]
    let mut eof = false;

    // `offset`: skip bytes, then the rest of the line they end in (scikit-learn's semantics).
    if options.offset > 0 {
        let mut remaining = options.offset;
        let mut chunk = vec![0u8; 1 << 16];
        while remaining > 0 {
            let want = remaining.min(chunk.len() as u64) as usize;
            let n = reader.read(&mut chunk[..want]).map_err(io)?;
            if n == 0 {
                eof = true;
                break;
            }
            line_base += memchr::memchr_iter(b'\n', &chunk[..n]).count();
            remaining -= n as u64;
            stream_pos += n as u64;
        }
        // Discard up to and including the next newline.
        let mut byte = [0u8; 1];
        while !eof {
            let n = reader.read(&mut byte).map_err(io)?;
            if n == 0 {
                eof = true;
                break;
            }
            stream_pos += 1;
            if byte[0] == b'\n' {
                line_base += 1;
                break;
            }
        }
    }
    let limit = options.length.map(|l| options.offset.saturating_add(l));

    let mut total = Piece {
        indptr: vec![0],
        label_indptr: if options.multilabel {
            vec![0]
        } else {
            Vec::new()
        },
        ..Piece::default()
    };
    let (mut min_index, mut max_index, mut first_zero) = (None, None, None);
    loop {
        // Fill the buffer up to a block (a line longer than a block keeps growing it).
        if !eof && buf.len() < block {
            let want = block - buf.len();
            // Reserve (not zero) the block so the reads fill it without regrowing.
            try_reserve(&mut buf, want, "the text being parsed")?;
            let n = read_some(reader, &mut buf, want, stop, io)?;
            eof = n < want;
        }
        let mut cut = if eof {
            buf.len()
        } else {
            memrchr(b'\n', &buf).map_or(0, |p| p + 1)
        };
        if cut == 0 && !eof {
            // No newline in a whole block: one very long line; read more, up to the limit.
            if buf.len() > options.max_line_bytes {
                return Err(long_line(name, line_base, options.max_line_bytes));
            }
            try_reserve(&mut buf, block, "the text being parsed")?;
            let n = read_some(reader, &mut buf, block, stop, io)?;
            eof = n < block;
            continue;
        }
        if options.max_line_bytes < buf.len() {
            // A limit below the block size: check each line of the block (an end-of-file line
            // without a newline included).
            let mut start = 0;
            for (k, end) in memchr::memchr_iter(b'\n', &buf[..cut])
                .chain((eof && cut > 0 && buf[cut - 1] != b'\n').then_some(cut))
                .enumerate()
            {
                if end - start > options.max_line_bytes {
                    return Err(long_line(name, line_base + k, options.max_line_bytes));
                }
                start = end + 1;
            }
        }
        let mut done = eof;
        if let Some(limit) = limit {
            // Keep only lines that start before the limit.
            if stream_pos + cut as u64 > limit {
                let mut p = 0usize;
                while p < cut && stream_pos + (p as u64) < limit {
                    p = memchr(b'\n', &buf[p..cut]).map_or(cut, |q| p + q + 1);
                }
                cut = p;
                done = true;
            }
        }
        if stop() {
            return Err(FwsvmError::Interrupted);
        }
        let pieces = parse_block(&buf[..cut], options.multilabel, threads);
        for result in pieces {
            let piece = result.map_err(|e| FwsvmError::Parse {
                source_name: name.to_string(),
                line: line_base + e.line + 1,
                column: e.column,
                message: e.message,
            })?;
            let shift = |p: Position| Position {
                line: p.line + line_base,
                column: p.column,
            };
            if let Some(m) = piece.min_index
                && min_index.is_none_or(|cur| m < cur)
            {
                min_index = Some(m);
            }
            if let Some((m, pos)) = piece.max_index
                && max_index.is_none_or(|(cur, _)| m > cur)
            {
                max_index = Some((m, shift(pos)));
            }
            if first_zero.is_none() {
                first_zero = piece.first_zero.map(shift);
            }
            line_base += piece.lines;
            append(&mut total, piece, options.multilabel)?;
        }
        buf.drain(..cut);
        stream_pos += cut as u64;
        if done && (eof || limit.is_some()) {
            break;
        }
    }
    Ok(Raw {
        name: name.to_string(),
        piece: total,
        min_index,
        max_index,
        first_zero,
    })
}

/// The error for a line (0-based `line`) longer than `limit` bytes.
fn long_line(name: &str, line: usize, limit: usize) -> FwsvmError {
    FwsvmError::Parse {
        source_name: name.to_string(),
        line: line + 1,
        column: 1,
        message: format!(
            "line longer than {limit} bytes (the limit; raise max_line_length to read longer lines)"
        ),
    }
}

/// Splits `text` (whole lines) into about `4 × threads` chunks at line boundaries and parses
/// them, in parallel when there is more than one thread. Results are in text order.
fn parse_block(
    text: &[u8],
    multilabel: bool,
    threads: usize,
) -> Vec<std::result::Result<Piece, LocalError>> {
    let n_chunks = if text.len() < (1 << 16) {
        1
    } else {
        4 * threads
    };
    let mut bounds = vec![0usize];
    for k in 1..n_chunks {
        let target = (text.len() * k / n_chunks).max(*bounds.last().expect("non-empty"));
        let b = memchr(b'\n', &text[target..]).map_or(text.len(), |p| target + p + 1);
        if b > *bounds.last().expect("non-empty") && b < text.len() {
            bounds.push(b);
        }
    }
    bounds.push(text.len());
    let chunks: Vec<&[u8]> = bounds.windows(2).map(|w| &text[w[0]..w[1]]).collect();
    #[cfg(feature = "parallel")]
    {
        if chunks.len() > 1 && threads > 1 {
            use rayon::prelude::*;
            return chunks
                .par_iter()
                .map(|c| parse_chunk(c, multilabel))
                .collect();
        }
    }
    chunks.iter().map(|c| parse_chunk(c, multilabel)).collect()
}

fn append(total: &mut Piece, piece: Piece, multilabel: bool) -> Result<()> {
    // The parsed data grow with the file: reserve fallibly, so a file whose data do not fit in
    // memory is a MemoryError, not an abort (2.1 GiB of "1 1:1" rows aborted at 3.4 GB).
    try_reserve(&mut total.indptr, piece.indptr.len(), "the parsed rows")?;
    try_reserve(
        &mut total.indices,
        piece.indices.len(),
        "the parsed column indices",
    )?;
    try_reserve(&mut total.data, piece.data.len(), "the parsed values")?;
    try_reserve(&mut total.labels, piece.labels.len(), "the parsed labels")?;
    let base = total.indices.len();
    total
        .indptr
        .extend(piece.indptr[1..].iter().map(|&p| p + base));
    total.indices.extend_from_slice(&piece.indices);
    total.data.extend_from_slice(&piece.data);
    total.qid.extend_from_slice(&piece.qid);
    if multilabel {
        let lbase = total.label_values.len();
        total
            .label_indptr
            .extend(piece.label_indptr[1..].iter().map(|&p| p + lbase));
        total.label_values.extend_from_slice(&piece.label_values);
    } else {
        total.labels.extend_from_slice(&piece.labels);
    }
    Ok(())
}

/// Applies the index base and the number of features across all sources.
fn finish(raws: Vec<Raw>, options: &ReadOptions) -> Result<Vec<LibsvmData>> {
    let one_based = match options.zero_based {
        ZeroBased::Yes => false,
        ZeroBased::No => {
            if let Some(raw) = raws.iter().find(|r| r.first_zero.is_some()) {
                let p = raw.first_zero.expect("checked");
                return Err(FwsvmError::Parse {
                    source_name: raw.name.clone(),
                    line: p.line + 1,
                    column: p.column,
                    message:
                        "feature index 0 in a one-based file (use zero_based=True or \"auto\")"
                            .into(),
                });
            }
            true
        }
        // scikit-learn: one-based iff every source has features and none uses index 0.
        ZeroBased::Auto => raws.iter().all(|r| r.min_index.is_some_and(|m| m > 0)),
    };
    let shift = u32::from(one_based);
    let needed = raws
        .iter()
        .map(|r| r.max_index.map_or(0, |(m, _)| (m - shift) as usize))
        .max()
        .unwrap_or(0)
        + 1;
    let n_features = match options.n_features {
        None => needed,
        Some(n) if n >= needed => n,
        Some(n) => {
            let raw = raws
                .iter()
                .max_by_key(|r| r.max_index.map_or(0, |(m, _)| m))
                .expect("needed > n ≥ 1 implies some data");
            let (m, p) = raw.max_index.expect("has features");
            return Err(FwsvmError::InvalidInput(format!(
                "n_features was set to {n}, but {} line {} column {} has feature index {m}, so the data has at least {needed} features",
                raw.name,
                p.line + 1,
                p.column
            )));
        }
    };
    raws.into_iter()
        .map(|raw| {
            let Piece {
                indptr,
                mut indices,
                data,
                labels,
                label_indptr,
                label_values,
                qid,
                ..
            } = raw.piece;
            if shift == 1 {
                indices.iter_mut().for_each(|i| *i -= 1);
            }
            let x = CsrMatrix::new(indptr, indices, data, n_features)?;
            let y = if options.multilabel {
                Targets::Multi {
                    indptr: label_indptr,
                    values: label_values,
                }
            } else {
                Targets::Single(labels)
            };
            Ok(LibsvmData { x, y, qid })
        })
        .collect()
}
