//! The line grammar of LIBSVM/svmlight text, parsed a chunk of whole lines at a time.
//!
//! ```text
//! line   := label [qid:<int>] (<index>:<value>)* [# comment]
//! label  := <float> | <float>(,<float>)*   (the second form with multilabel=True; may be empty)
//! ```
//! Indices are integers, strictly increasing within a line; values and labels are any float
//! spelling Rust's parser accepts (`1`, `+1`, `1e0`, `-.5`, `inf`, `nan`). Blank lines and
//! `#` comments (whole-line or trailing) are skipped; CRLF, tabs and repeated spaces are fine.
//! Anything else is an error naming the line and column.

use memchr::memchr;

/// Feature indices above this are refused: they could not be stored as int32 column indices
/// (what scipy and scikit-learn use) and usually mean a corrupt file.
pub(crate) const MAX_INDEX: u64 = i32::MAX as u64;

/// A parse error at a position relative to the chunk.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LocalError {
    /// 0-based line number within the chunk.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
    pub message: String,
}

/// A position of interest (0-based line within the chunk, 1-based column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    pub line: usize,
    pub column: usize,
}

/// The rows parsed from one chunk, with raw (as written) indices.
#[derive(Debug, Default, Clone)]
pub(crate) struct Piece {
    /// Row boundaries into `indices`/`data`, starting at 0.
    pub indptr: Vec<usize>,
    pub indices: Vec<u32>,
    pub data: Vec<f64>,
    /// One label per row (single-label mode).
    pub labels: Vec<f64>,
    /// Row boundaries into `label_values` (multilabel mode).
    pub label_indptr: Vec<usize>,
    pub label_values: Vec<f64>,
    /// qid per row (0 where absent).
    pub qid: Vec<i64>,
    /// Lines consumed (including blank and comment lines).
    pub lines: usize,
    /// Smallest index seen.
    pub min_index: Option<u32>,
    /// Largest index seen and where.
    pub max_index: Option<(u32, Position)>,
    /// First index 0 and where (an error in one-based files).
    pub first_zero: Option<Position>,
}

#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

fn parse_float(tok: &[u8]) -> Option<f64> {
    std::str::from_utf8(tok).ok()?.parse::<f64>().ok()
}

fn show(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(tok);
    if s.len() > 40 {
        format!(
            "{}...",
            &s[..s.char_indices().nth(40).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s.into_owned()
    }
}

/// Parses whole lines of `text` (which ends at a line boundary or the end of input).
pub(crate) fn parse_chunk(text: &[u8], multilabel: bool) -> Result<Piece, LocalError> {
    let mut piece = Piece {
        indptr: vec![0],
        label_indptr: if multilabel { vec![0] } else { Vec::new() },
        ..Piece::default()
    };
    let mut start = 0;
    let mut line_no = 0;
    while start < text.len() {
        let end = memchr(b'\n', &text[start..]).map_or(text.len(), |p| start + p);
        parse_line(&text[start..end], line_no, multilabel, &mut piece)?;
        line_no += 1;
        start = end + 1;
    }
    piece.lines = line_no;
    Ok(piece)
}

fn parse_line(
    line: &[u8],
    line_no: usize,
    multilabel: bool,
    piece: &mut Piece,
) -> Result<(), LocalError> {
    let err = |column: usize, message: String| LocalError {
        line: line_no,
        column,
        message,
    };
    if let Some(p) = memchr(0, line) {
        return Err(err(
            p + 1,
            "NUL byte in the line (binary or corrupt file?)".into(),
        ));
    }
    let content = match memchr(b'#', line) {
        Some(p) => &line[..p],
        None => line,
    };
    // Tokens as (start column, bytes).
    let mut tokens = content
        .split(|&b| is_space(b))
        .scan(0usize, |pos, tok| {
            let col = *pos;
            *pos += tok.len() + 1;
            Some((col + 1, tok))
        })
        .filter(|(_, t)| !t.is_empty())
        .peekable();
    let Some(&(label_col, label_tok)) = tokens.peek() else {
        return Ok(()); // blank or comment-only line
    };

    // Label(s).
    if multilabel {
        if memchr(b':', label_tok).is_none() {
            tokens.next();
            for part in label_tok.split(|&b| b == b',') {
                if part.is_empty() {
                    continue;
                }
                let v = parse_float(part).ok_or_else(|| {
                    err(
                        label_col,
                        format!("expected a label (a number), found {:?}", show(part)),
                    )
                })?;
                piece.label_values.push(v);
            }
        }
        piece.label_indptr.push(piece.label_values.len());
    } else {
        tokens.next();
        if memchr(b',', label_tok).is_some() {
            return Err(err(
                label_col,
                format!(
                    "found the multilabel target {:?}; load with multilabel=True",
                    show(label_tok)
                ),
            ));
        }
        let v = parse_float(label_tok).ok_or_else(|| {
            err(
                label_col,
                format!(
                    "expected a label (a number) at the start of the line, found {:?}",
                    show(label_tok)
                ),
            )
        })?;
        piece.labels.push(v);
    }

    // Optional qid.
    let mut qid = 0i64;
    if let Some(&(col, tok)) = tokens.peek()
        && let Some(rest) = tok.strip_prefix(b"qid:")
    {
        tokens.next();
        qid = std::str::from_utf8(rest)
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
            .ok_or_else(|| {
                err(
                    col,
                    format!("expected qid:<integer>, found {:?}", show(tok)),
                )
            })?;
    }
    piece.qid.push(qid);

    // Features.
    let mut previous: Option<u32> = None;
    for (col, tok) in tokens {
        let Some(colon) = memchr(b':', tok) else {
            return Err(err(
                col,
                format!("expected <index>:<value>, found {:?} (no ':')", show(tok)),
            ));
        };
        let (idx_tok, val_tok) = (&tok[..colon], &tok[colon + 1..]);
        if idx_tok == b"qid" {
            return Err(err(col, "qid must come right after the label".into()));
        }
        let index = parse_index(idx_tok).map_err(|m| err(col, m))?;
        if let Some(p) = previous
            && index <= p
        {
            return Err(err(
                col,
                format!("feature indices must be sorted and unique; index {index} follows {p}"),
            ));
        }
        previous = Some(index);
        if val_tok.is_empty() {
            return Err(err(
                col + colon + 1,
                format!("missing value after '{}:'", index),
            ));
        }
        let value = parse_float(val_tok).ok_or_else(|| {
            err(
                col + colon + 1,
                format!(
                    "expected a number after '{index}:', found {:?}",
                    show(val_tok)
                ),
            )
        })?;
        let pos = Position {
            line: line_no,
            column: col,
        };
        if index == 0 && piece.first_zero.is_none() {
            piece.first_zero = Some(pos);
        }
        if piece.min_index.is_none_or(|m| index < m) {
            piece.min_index = Some(index);
        }
        if piece.max_index.is_none_or(|(m, _)| index > m) {
            piece.max_index = Some((index, pos));
        }
        piece.indices.push(index);
        piece.data.push(value);
    }
    piece.indptr.push(piece.indices.len());
    Ok(())
}

fn parse_index(tok: &[u8]) -> Result<u32, String> {
    let digits = tok.strip_prefix(b"+").unwrap_or(tok);
    if tok.first() == Some(&b'-') {
        return Err(format!("negative feature index {:?}", show(tok)));
    }
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "expected an integer feature index, found {:?}",
            show(tok)
        ));
    }
    let mut v: u64 = 0;
    for &d in digits {
        v = v * 10 + u64::from(d - b'0');
        if v > MAX_INDEX {
            return Err(format!(
                "feature index {} is too large (at most {MAX_INDEX} is supported)",
                show(tok)
            ));
        }
    }
    Ok(v as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_common_forms() {
        let p = parse_chunk(
            b"+1 1:0.5 3:1\n-1 qid:7 2:2e0 # c\n\n# only comment\r\n2\t5:-.5  \r\n3",
            false,
        )
        .unwrap();
        assert_eq!(p.labels, vec![1.0, -1.0, 2.0, 3.0]);
        assert_eq!(p.indptr, vec![0, 2, 3, 4, 4]);
        assert_eq!(p.indices, vec![1, 3, 2, 5]);
        assert_eq!(p.data, vec![0.5, 1.0, 2.0, -0.5]);
        assert_eq!(p.qid, vec![0, 7, 0, 0]);
        assert_eq!(p.lines, 6);
        assert_eq!(p.min_index, Some(1));
        assert_eq!(p.max_index.map(|m| m.0), Some(5));
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_chunk(b"1 1:1\n1 3:1 2:1\n", false).unwrap_err();
        assert_eq!((e.line, e.column), (1, 7));
        assert!(e.message.contains("sorted and unique"));
        let e = parse_chunk(b"1 1:x\n", false).unwrap_err();
        assert_eq!((e.line, e.column), (0, 5));
        let e = parse_chunk(b"1 1 2\n", false).unwrap_err();
        assert!(e.message.contains("no ':'"));
        let e = parse_chunk(b"cat 1:2\n", false).unwrap_err();
        assert!(e.message.contains("label"));
        let e = parse_chunk(b"1 99999999999:1\n", false).unwrap_err();
        assert!(e.message.contains("too large"));
        let e = parse_chunk(b"1 -1:1\n", false).unwrap_err();
        assert!(e.message.contains("negative"));
    }

    #[test]
    fn multilabel_rows() {
        let p = parse_chunk(b"1,3 1:1\n 2:1\n2 3:1\n", true).unwrap();
        assert_eq!(p.label_indptr, vec![0, 2, 2, 3]);
        assert_eq!(p.label_values, vec![1.0, 3.0, 2.0]);
        assert!(
            parse_chunk(b"1,3 1:1\n", false)
                .unwrap_err()
                .message
                .contains("multilabel=True")
        );
    }
}
