//! NumPy's `.npy` array format, the entries of the model file's archive: version 1.0 is
//! written, 1.0–3.0 are read. Only plain little-endian numbers, booleans and fixed-width
//! strings are accepted (never `object` arrays, which would need pickle), and the data length
//! must equal the shape's element count times the item size before anything is allocated.

use std::fmt::Write as _;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// The element types a model file may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    /// `|b1`.
    Bool,
    /// Signed integers of 1, 2, 4 or 8 bytes.
    Int(usize),
    /// Unsigned integers of 1, 2, 4 or 8 bytes.
    UInt(usize),
    /// `<f4` or `<f8`.
    Float(usize),
    /// `<U{n}`: n UCS-4 code points (NumPy's `str_` arrays, e.g. string class labels).
    Unicode(usize),
    /// `|S{n}`: n bytes.
    Bytes(usize),
}

impl DType {
    /// Parses NumPy's `descr` string.
    pub fn parse(descr: &str) -> Option<DType> {
        let (order, rest) = descr.split_at_checked(1)?;
        let (kind, size) = rest.split_at_checked(1)?;
        let size: usize = size.parse().ok()?;
        let little = order == "<" || order == "|";
        let dtype = match (kind, size) {
            ("b", 1) => DType::Bool,
            ("i", 1 | 2 | 4 | 8) => DType::Int(size),
            ("u", 1 | 2 | 4 | 8) => DType::UInt(size),
            ("f", 4 | 8) => DType::Float(size),
            ("U", n) if n <= 1 << 20 => DType::Unicode(n),
            ("S", n) if n <= 1 << 20 => DType::Bytes(n),
            _ => return None,
        };
        // Wider types must be little-endian ("<"); NumPy writes "|" for one-byte types and bytes.
        let byte_like = matches!(
            dtype,
            DType::Bool | DType::Int(1) | DType::UInt(1) | DType::Bytes(_)
        );
        (little && (order == "<" || byte_like)).then_some(dtype)
    }

    /// NumPy's `descr` string.
    pub fn descr(&self) -> String {
        match *self {
            DType::Bool => "|b1".into(),
            DType::Int(1) => "|i1".into(),
            DType::UInt(1) => "|u1".into(),
            DType::Int(n) => format!("<i{n}"),
            DType::UInt(n) => format!("<u{n}"),
            DType::Float(n) => format!("<f{n}"),
            DType::Unicode(n) => format!("<U{n}"),
            DType::Bytes(n) => format!("|S{n}"),
        }
    }

    /// Bytes per element.
    pub fn item_size(&self) -> usize {
        match *self {
            DType::Bool => 1,
            DType::Int(n) | DType::UInt(n) | DType::Float(n) | DType::Bytes(n) => n,
            DType::Unicode(n) => 4 * n,
        }
    }
}

/// One array: element type, shape, memory order and the raw little-endian bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct NpyArray {
    dtype: DType,
    shape: Vec<usize>,
    fortran_order: bool,
    data: Vec<u8>,
}

impl NpyArray {
    /// An array from raw bytes, checking that their length matches the shape.
    ///
    /// # Errors
    /// A message when the length does not match (or the size overflows).
    pub fn from_raw(
        dtype: DType,
        shape: Vec<usize>,
        fortran_order: bool,
        data: Vec<u8>,
    ) -> Result<Self, String> {
        let expected = shape
            .iter()
            .try_fold(dtype.item_size(), |acc, &d| acc.checked_mul(d));
        if expected != Some(data.len()) {
            return Err(format!(
                "array of shape {shape:?} and type {} has {} bytes of data",
                dtype.descr(),
                data.len()
            ));
        }
        Ok(NpyArray {
            dtype,
            shape,
            fortran_order,
            data,
        })
    }

    /// A C-ordered float64 array.
    pub fn from_f64(shape: Vec<usize>, values: &[f64]) -> Self {
        let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        NpyArray {
            dtype: DType::Float(8),
            shape,
            fortran_order: false,
            data,
        }
    }

    /// A C-ordered int32 array (values must fit; larger ones are written as int64 instead).
    pub fn from_indices(values: &[usize]) -> Self {
        if values.iter().all(|&v| v <= i32::MAX as usize) {
            let data = values
                .iter()
                .flat_map(|&v| (v as i32).to_le_bytes())
                .collect();
            NpyArray {
                dtype: DType::Int(4),
                shape: vec![values.len()],
                fortran_order: false,
                data,
            }
        } else {
            Self::from_i64(
                vec![values.len()],
                &values.iter().map(|&v| v as i64).collect::<Vec<_>>(),
            )
        }
    }

    /// A C-ordered int64 array.
    pub fn from_i64(shape: Vec<usize>, values: &[i64]) -> Self {
        let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        NpyArray {
            dtype: DType::Int(8),
            shape,
            fortran_order: false,
            data,
        }
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Whether the data is in Fortran (column-major) order.
    #[cfg_attr(not(feature = "python"), allow(dead_code))]
    pub fn fortran_order(&self) -> bool {
        self.fortran_order
    }

    /// The raw little-endian bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// Number of elements.
    pub(crate) fn len(&self) -> usize {
        self.data.len() / self.dtype.item_size().max(1)
    }

    /// Whether the elements are numbers (booleans, integers or floats).
    pub fn is_numeric(&self) -> bool {
        !matches!(self.dtype, DType::Unicode(_) | DType::Bytes(_))
    }

    /// The elements as f64 in C (row-major) order; `None` for strings.
    pub fn to_f64(&self) -> Option<Vec<f64>> {
        let size = self.dtype.item_size();
        let value = |c: &[u8]| -> f64 {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            match self.dtype {
                DType::Bool => f64::from(c[0] != 0),
                DType::Float(4) => f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
                DType::Float(_) => f64::from_le_bytes(b),
                DType::UInt(_) => u64::from_le_bytes(b) as f64,
                DType::Int(n) => {
                    // Sign-extend from n bytes.
                    let shift = 64 - 8 * n as u32;
                    ((i64::from_le_bytes(b) << shift) >> shift) as f64
                }
                DType::Unicode(_) | DType::Bytes(_) => f64::NAN,
            }
        };
        if !self.is_numeric() {
            return None;
        }
        let flat: Vec<f64> = self.data.chunks_exact(size).map(value).collect();
        Some(self.to_c_order(flat))
    }

    /// The elements as i64 in C order; `None` unless the type is an integer type whose values
    /// all fit.
    pub fn to_i64(&self) -> Option<Vec<i64>> {
        match self.dtype {
            DType::Int(_) => {}
            DType::UInt(n) if n < 8 => {}
            DType::UInt(_) => {
                if self.data.chunks_exact(8).any(|c| {
                    u64::from_le_bytes(c.try_into().unwrap_or([0xFF; 8])) > i64::MAX as u64
                }) {
                    return None;
                }
            }
            _ => return None,
        }
        let size = self.dtype.item_size();
        let signed = matches!(self.dtype, DType::Int(_));
        let flat: Vec<i64> = self
            .data
            .chunks_exact(size)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                let shift = 64 - 8 * size as u32;
                let v = i64::from_le_bytes(b) << shift;
                if signed {
                    v >> shift
                } else {
                    ((v as u64) >> shift) as i64
                }
            })
            .collect();
        Some(self.to_c_order(flat))
    }

    /// Reorders a flat Fortran-ordered buffer to C order (a no-op for C order and 1-D).
    fn to_c_order<T: Copy>(&self, flat: Vec<T>) -> Vec<T> {
        if !self.fortran_order || self.shape.len() < 2 {
            return flat;
        }
        // Column-major index of C-order position: reverse the shape's strides.
        let n = flat.len();
        let dims = &self.shape;
        let mut out = Vec::with_capacity(n);
        let mut index = vec![0usize; dims.len()];
        for _ in 0..n {
            let mut offset = 0;
            let mut stride = 1;
            for (d, &i) in dims.iter().zip(&index) {
                offset += i * stride;
                stride *= d;
            }
            out.push(flat[offset]);
            for k in (0..dims.len()).rev() {
                index[k] += 1;
                if index[k] < dims[k] {
                    break;
                }
                index[k] = 0;
            }
        }
        out
    }

    /// The `.npy` file (format version 1.0, header padded to 64 bytes as NumPy does).
    pub fn to_npy(&self) -> Vec<u8> {
        let mut shape = String::from("(");
        for d in &self.shape {
            let _ = write!(shape, "{d}, ");
        }
        if self.shape.len() != 1 {
            shape.truncate(shape.len().saturating_sub(2).max(1));
        } else {
            shape.truncate(shape.len() - 1);
        }
        shape.push(')');
        let mut header = format!(
            "{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}",
            self.dtype.descr(),
            if self.fortran_order { "True" } else { "False" },
            shape
        );
        let unpadded = MAGIC.len() + 2 + 2 + header.len() + 1;
        header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
        header.push('\n');
        let mut out = Vec::with_capacity(10 + header.len() + self.data.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&self.data);
        out
    }

    /// Reads a `.npy` file.
    ///
    /// # Errors
    /// A message naming what is malformed.
    pub fn from_npy(bytes: &[u8]) -> Result<Self, String> {
        if bytes.len() < 10 || &bytes[..6] != MAGIC {
            return Err("not a .npy array (bad magic bytes)".into());
        }
        let (header_len, start) = match bytes[6] {
            1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
            2 | 3 if bytes.len() >= 12 => (
                u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                12,
            ),
            v => return Err(format!(".npy format version {v} is not supported")),
        };
        let end = start
            .checked_add(header_len)
            .filter(|&e| e <= bytes.len())
            .ok_or("the .npy header is truncated")?;
        let header = std::str::from_utf8(&bytes[start..end])
            .map_err(|_| "the .npy header is not text".to_string())?;
        let (descr, fortran_order, shape) = parse_header(header)?;
        let dtype = DType::parse(&descr).ok_or_else(|| {
            format!("unsupported array type {descr:?} (numbers, booleans and strings only)")
        })?;
        NpyArray::from_raw(dtype, shape, fortran_order, bytes[end..].to_vec())
    }
}

/// Parses the Python dict literal of a `.npy` header:
/// `{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }`.
fn parse_header(header: &str) -> Result<(String, bool, Vec<usize>), String> {
    let bad = |why: &str| format!("malformed .npy header ({why}): {:?}", truncate(header));
    let mut p = Parser {
        s: header.as_bytes(),
        i: 0,
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    p.expect(b'{').map_err(|_| bad("no opening brace"))?;
    loop {
        p.skip_ws();
        if p.eat(b'}') {
            break;
        }
        let key = p.string().ok_or_else(|| bad("key"))?;
        p.skip_ws();
        p.expect(b':').map_err(|_| bad("colon"))?;
        p.skip_ws();
        match key.as_str() {
            "descr" if descr.is_none() => descr = Some(p.string().ok_or_else(|| bad("descr"))?),
            "fortran_order" if fortran.is_none() => {
                fortran = Some(p.boolean().ok_or_else(|| bad("fortran_order"))?)
            }
            "shape" if shape.is_none() => shape = Some(p.tuple().ok_or_else(|| bad("shape"))?),
            _ => return Err(bad("unknown or repeated key")),
        }
        p.skip_ws();
        if !p.eat(b',') {
            p.skip_ws();
            p.expect(b'}').map_err(|_| bad("no closing brace"))?;
            break;
        }
    }
    match (descr, fortran, shape) {
        (Some(d), Some(f), Some(s)) => Ok((d, f, s)),
        _ => Err(bad("missing key")),
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(120).collect()
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), ()> {
        if self.eat(c) { Ok(()) } else { Err(()) }
    }

    fn string(&mut self) -> Option<String> {
        let quote = *self.s.get(self.i)?;
        if quote != b'\'' && quote != b'"' {
            return None;
        }
        let start = self.i + 1;
        let len = self.s[start..].iter().position(|&c| c == quote)?;
        self.i = start + len + 1;
        String::from_utf8(self.s[start..start + len].to_vec()).ok()
    }

    fn boolean(&mut self) -> Option<bool> {
        for (word, value) in [(&b"True"[..], true), (&b"False"[..], false)] {
            if self.s[self.i..].starts_with(word) {
                self.i += word.len();
                return Some(value);
            }
        }
        None
    }

    fn tuple(&mut self) -> Option<Vec<usize>> {
        if !self.eat(b'(') {
            return None;
        }
        let mut dims = Vec::new();
        loop {
            self.skip_ws();
            if self.eat(b')') {
                return Some(dims);
            }
            let start = self.i;
            while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
                self.i += 1;
            }
            let digits = std::str::from_utf8(&self.s[start..self.i]).ok()?;
            dims.push(digits.parse().ok()?);
            if dims.len() > 32 {
                return None;
            }
            self.skip_ws();
            if !self.eat(b',') {
                self.skip_ws();
                return self.eat(b')').then_some(dims);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_reads_fortran_order() {
        for a in [
            NpyArray::from_f64(vec![2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            NpyArray::from_f64(vec![0], &[]),
            NpyArray::from_f64(vec![], &[7.5]),
            NpyArray::from_indices(&[0, 5, 9]),
        ] {
            let bytes = a.to_npy();
            assert_eq!((bytes.len() - a.data().len()) % 64, 0);
            assert_eq!(NpyArray::from_npy(&bytes).unwrap(), a);
        }
        let f = NpyArray::from_raw(
            DType::Int(2),
            vec![2, 3],
            true,
            [1i16, 4, 2, 5, 3, -6]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        )
        .unwrap();
        assert_eq!(f.to_i64().unwrap(), vec![1, 2, 3, 4, 5, -6]);
        assert_eq!(f.to_f64().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, -6.0]);
    }

    #[test]
    fn refuses_objects_lies_and_garbage() {
        let mut bytes = NpyArray::from_f64(vec![2], &[1.0, 2.0]).to_npy();
        let text = String::from_utf8_lossy(&bytes[10..]).replace("<f8", "|O8");
        bytes.truncate(10);
        bytes.extend_from_slice(text.as_bytes());
        assert!(
            NpyArray::from_npy(&bytes)
                .unwrap_err()
                .contains("unsupported")
        );
        let huge = NpyArray::from_f64(vec![2], &[1.0, 2.0]).to_npy();
        let text = String::from_utf8_lossy(&huge).replace("(2,)", "(9999999999999,)");
        assert!(NpyArray::from_npy(text.as_bytes()).is_err());
        assert!(NpyArray::from_npy(b"\x93NUMPY\x01\x00\xff\xff{").is_err());
        assert!(NpyArray::from_npy(b"").is_err());
    }
}
