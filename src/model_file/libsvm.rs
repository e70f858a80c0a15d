//! LIBSVM model files: what `svm-train` writes and `svm-predict` reads, both ways.
//!
//! ```text
//! svm_type c_svc                 c_svc, nu_svc, one_class, epsilon_svr, nu_svr
//! kernel_type rbf                linear, polynomial, rbf, sigmoid (precomputed is refused)
//! gamma 0.5                      (degree, gamma, coef0 as the kernel uses them)
//! nr_class 3                     classes; 2 for one_class and the regressions
//! total_sv 5
//! rho 0.1 -0.2 0.3               one per pair of classes (1, 2), (1, 3), …, (2, 3), …
//! label 3 1 2                    classifiers: the labels in the order of the training file
//! probA … / probB …              optional: Platt's sigmoid per pair (SVR: probA is σ)
//! prob_density_marks …           optional (one_class, LIBSVM ≥ 3.3): kept, not used
//! nr_sv 2 2 1                    classifiers: support vectors per label
//! SV
//! 0.5 -0.1 1:0.3 4:-1            nr_class − 1 coefficients, then index:value (1-based)
//! ```
//!
//! Reading trusts nothing in the file: every number must be finite, labels distinct, feature
//! indices increasing and below 2³², every count must match what the file holds (`total_sv`
//! against the support-vector lines, `nr_sv` against `total_sv`, `rho`/`probA`/`probB`
//! against `nr_class`) before anything is allocated by it, lines are at most
//! [`MAX_LINE_BYTES`] long and binary data is refused. Every error is
//! [`FwsvmError::LibsvmModel`] naming the file, the line and what is wrong.
//!
//! [`LibsvmModel`] is the file's content in the file's own layout (labels in file order,
//! coefficients one row per support vector). [`SvcModel::from_libsvm`] and
//! [`SvcModel::to_libsvm`] convert a classifier to and from fwsvm's layout (classes sorted),
//! keeping the file's label order for LIBSVM's vote and probability tie rules.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

use crate::data::{CsrMatrix, FeatureMatrix};
use crate::error::{FwsvmError, Result};
use crate::kernel::Kernel;
use crate::model::SvcModel;

/// The longest line a LIBSVM model file may have: a dense support vector of a few million
/// features fits; `/dev/zero` or a binary file is refused after this many bytes.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// LIBSVM's `svm_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvmType {
    /// C-SVC (`-s 0`).
    CSvc,
    /// ν-SVC (`-s 1`).
    NuSvc,
    /// One-class ν-SVM (`-s 2`).
    OneClass,
    /// ε-SVR (`-s 3`).
    EpsilonSvr,
    /// ν-SVR (`-s 4`).
    NuSvr,
}

impl SvmType {
    const ALL: [SvmType; 5] = [
        SvmType::CSvc,
        SvmType::NuSvc,
        SvmType::OneClass,
        SvmType::EpsilonSvr,
        SvmType::NuSvr,
    ];

    /// The name in the file (`c_svc`, …).
    pub fn name(self) -> &'static str {
        match self {
            SvmType::CSvc => "c_svc",
            SvmType::NuSvc => "nu_svc",
            SvmType::OneClass => "one_class",
            SvmType::EpsilonSvr => "epsilon_svr",
            SvmType::NuSvr => "nu_svr",
        }
    }

    /// The type named `name` in a file.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether the model has labels (C-SVC and ν-SVC).
    pub fn is_classifier(self) -> bool {
        matches!(self, SvmType::CSvc | SvmType::NuSvc)
    }
}

/// A LIBSVM model file's content, in the file's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct LibsvmModel {
    /// The model type.
    pub svm_type: SvmType,
    /// The kernel.
    pub kernel: Kernel,
    /// Classifiers: the labels in file order (LIBSVM's: first appearance in the training
    /// file). Empty for one-class and regression models.
    pub labels: Vec<f64>,
    /// ρ per pair of classes in file order (one value for one-class and regression): a pair's
    /// decision value is Σ coef_s k(x_s, x) − ρ, positive for the pair's first label.
    pub rho: Vec<f64>,
    /// Platt's A per pair (empty without probabilities); for SVR the Laplace σ.
    pub prob_a: Vec<f64>,
    /// Platt's B per pair (empty without probabilities or for SVR).
    pub prob_b: Vec<f64>,
    /// LIBSVM ≥ 3.3 one-class density marks (kept for writing back; fwsvm does not use them).
    pub prob_density_marks: Vec<f64>,
    /// Classifiers: support vectors per label, in file order (they are grouped so in `vectors`).
    pub n_support: Vec<usize>,
    /// Coefficients, one row of `n_coef()` per support vector (row-major): pair (i, j) reads
    /// label i's vectors in column j − 1 and label j's in column i.
    pub sv_coef: Vec<f64>,
    /// The support vectors (columns are 0-based: LIBSVM's index 1 is column 0).
    pub vectors: CsrMatrix,
}

/// Refuses `value` at `line` of `path` unless it is one of `names`; `message` says so from the
/// value and the names joined by ", ".
fn known(
    path: &str,
    line: usize,
    value: &str,
    names: &[&str],
    message: impl FnOnce(&str, String) -> String,
) -> Result<()> {
    match names.contains(&value) {
        true => Ok(()),
        false => Err(fail(path, line, message(value, names.join(", ")))),
    }
}

/// An error at `line` (0: the file as a whole) of `path`.
fn fail(path: &str, line: usize, message: impl Into<String>) -> FwsvmError {
    FwsvmError::LibsvmModel {
        path: path.to_owned(),
        line,
        message: message.into(),
    }
}

/// Reads one line (without its end) into `buf`; `false` at the end of the input.
fn next_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    path: &str,
    line: usize,
) -> Result<bool> {
    buf.clear();
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FwsvmError::io(path, &e)),
        };
        if chunk.is_empty() {
            return Ok(!buf.is_empty());
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(end) => (end, true),
            None => (chunk.len(), false),
        };
        if buf.len() + take > MAX_LINE_BYTES {
            return Err(fail(
                path,
                line,
                format!(
                    "line longer than {} MiB: not a LIBSVM model file",
                    MAX_LINE_BYTES >> 20
                ),
            ));
        }
        if memchr::memchr(0, &chunk[..take]).is_some() {
            return Err(fail(
                path,
                line,
                "binary data (a NUL byte): not a LIBSVM model file",
            ));
        }
        buf.extend_from_slice(&chunk[..take]);
        reader.consume(take + usize::from(done));
        if done {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(true);
        }
    }
}

/// A number of the file: finite.
fn number(token: &str, what: &str, path: &str, line: usize) -> Result<f64> {
    match token.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(v) => Err(fail(
            path,
            line,
            format!("{what} is {v}: it must be finite"),
        )),
        Err(_) => Err(fail(
            path,
            line,
            format!("malformed {what} {token:?}: not a number"),
        )),
    }
}

/// A count of the file: a non-negative integer.
fn count(token: &str, what: &str, path: &str, line: usize) -> Result<usize> {
    token.parse::<usize>().map_err(|_| {
        fail(
            path,
            line,
            format!("'{what} {token}' is not a count (a non-negative integer)"),
        )
    })
}

/// One header line: its key's values and where it was.
struct Entry {
    line: usize,
    values: Vec<String>,
}

struct Header {
    path: String,
    entries: std::collections::HashMap<String, Entry>,
}

impl Header {
    fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// The one value of `key`, which must be there.
    fn single(&self, key: &str, why: &str) -> Result<(&str, usize)> {
        let entry = self
            .get(key)
            .ok_or_else(|| fail(&self.path, 0, format!("missing '{key}' line ({why})")))?;
        match entry.values.as_slice() {
            [v] => Ok((v, entry.line)),
            values => Err(fail(
                &self.path,
                entry.line,
                format!("'{key}' needs one value, the line has {}", values.len()),
            )),
        }
    }

    /// The numbers of `key` (absent: empty), `expected` of them when given.
    fn numbers(&self, key: &str, expected: Option<usize>) -> Result<Vec<f64>> {
        let Some(entry) = self.get(key) else {
            return Ok(Vec::new());
        };
        if let Some(n) = expected.filter(|&n| n != entry.values.len()) {
            return Err(fail(
                &self.path,
                entry.line,
                format!("'{key}' has {} values, expected {n}", entry.values.len()),
            ));
        }
        entry
            .values
            .iter()
            .map(|v| number(v, &format!("'{key}' value"), &self.path, entry.line))
            .collect()
    }
}

const KERNEL_TYPES: [&str; 5] = ["linear", "polynomial", "rbf", "sigmoid", "precomputed"];

impl LibsvmModel {
    /// Number of classes as the file's `nr_class` says it (2 for one-class and regression).
    pub fn n_classes(&self) -> usize {
        if self.svm_type.is_classifier() {
            self.labels.len()
        } else {
            2
        }
    }

    /// Number of support vectors.
    pub fn n_support_vectors(&self) -> usize {
        self.vectors.n_rows()
    }

    /// Coefficients per support vector: `nr_class − 1`.
    pub fn n_coef(&self) -> usize {
        self.n_classes() - 1
    }

    /// Reads and checks the LIBSVM model file at `path`.
    ///
    /// # Errors
    /// [`FwsvmError::Io`] if it cannot be read, [`FwsvmError::LibsvmModel`] naming the line and
    /// the problem for anything that is not a valid model (see the module docs).
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|e| FwsvmError::io(&name, &e))?;
        Self::from_reader(file, &name)
    }

    /// Reads a model from `reader`; `name` stands for it in errors.
    ///
    /// # Errors
    /// As [`Self::read`].
    pub fn from_reader(reader: impl Read, name: &str) -> Result<Self> {
        let mut reader = BufReader::with_capacity(1 << 16, reader);
        let mut buf = Vec::new();
        let mut line = 0;
        let mut entries = std::collections::HashMap::new();
        let text = |buf: &[u8], line: usize| -> Result<String> {
            String::from_utf8(buf.to_vec()).map_err(|_| {
                fail(
                    name,
                    line,
                    "not text (invalid UTF-8): not a LIBSVM model file",
                )
            })
        };
        // The header, up to "SV".
        loop {
            line += 1;
            if !next_line(&mut reader, &mut buf, name, line)? {
                return Err(fail(
                    name,
                    0,
                    "no 'SV' section: not a LIBSVM model file (or truncated)",
                ));
            }
            let text = text(&buf, line)?;
            let mut tokens = text.split_ascii_whitespace();
            let Some(key) = tokens.next() else { continue };
            if key == "SV" {
                if tokens.next().is_some() {
                    return Err(fail(name, line, "text after 'SV'"));
                }
                break;
            }
            const KEYS: [&str; 13] = [
                "svm_type",
                "kernel_type",
                "degree",
                "gamma",
                "coef0",
                "nr_class",
                "total_sv",
                "rho",
                "label",
                "probA",
                "probB",
                "prob_density_marks",
                "nr_sv",
            ];
            if key.parse::<f64>().is_ok() {
                return Err(fail(
                    name,
                    line,
                    "a support vector line before the 'SV' line",
                ));
            }
            known(name, line, key, &KEYS, |key, keys| {
                format!("unknown header line {key:?} (expected one of {keys})")
            })?;
            let values: Vec<String> = tokens.map(str::to_owned).collect();
            if let Some(previous) = entries.insert(key.to_owned(), Entry { line, values }) {
                return Err(fail(
                    name,
                    line,
                    format!("'{key}' given twice (first on line {})", previous.line),
                ));
            }
        }
        let header = Header {
            path: name.to_owned(),
            entries,
        };
        let (svm_type, svm_line) = header.single("svm_type", "the model type")?;
        let svm_type = SvmType::from_name(svm_type).ok_or_else(|| {
            fail(
                name,
                svm_line,
                format!(
                    "svm_type {svm_type:?} is unknown (c_svc, nu_svc, one_class, epsilon_svr, nu_svr)"
                ),
            )
        })?;
        let kernel = read_kernel(&header)?;
        let (nr_class, class_line) = header.single("nr_class", "the number of classes")?;
        let nr_class = count(nr_class, "nr_class", name, class_line)?;
        if svm_type.is_classifier() && nr_class < 2 {
            return Err(fail(
                name,
                class_line,
                format!("'nr_class {nr_class}': a classifier needs at least 2"),
            ));
        }
        if !svm_type.is_classifier() && nr_class != 2 {
            return Err(fail(
                name,
                class_line,
                format!(
                    "'nr_class {nr_class}': a {} model has nr_class 2 (LIBSVM's convention)",
                    svm_type.name()
                ),
            ));
        }
        let (total_sv, sv_line) = header.single("total_sv", "the number of support vectors")?;
        let total_sv = count(total_sv, "total_sv", name, sv_line)?;
        let n_pairs = if svm_type.is_classifier() {
            nr_class.checked_mul(nr_class - 1).map(|p| p / 2)
        } else {
            Some(1)
        };
        let rho_entry = header
            .get("rho")
            .ok_or_else(|| fail(name, 0, "missing 'rho' line (the decision offsets)"))?;
        if n_pairs != Some(rho_entry.values.len()) {
            return Err(fail(
                name,
                rho_entry.line,
                format!(
                    "'nr_class {nr_class}' needs {} 'rho' values, the file has {}",
                    n_pairs.map_or("more than 2^64".into(), |p| p.to_string()),
                    rho_entry.values.len()
                ),
            ));
        }
        let rho = header.numbers("rho", None)?;
        let n_pairs = rho.len();
        let (mut labels, mut n_support) = (Vec::new(), Vec::new());
        if svm_type.is_classifier() {
            labels = header.numbers("label", Some(nr_class))?;
            let label_line = header.get("label").map_or(0, |e| e.line);
            if labels.is_empty() {
                return Err(fail(
                    name,
                    0,
                    "missing 'label' line (a classifier's labels)",
                ));
            }
            let mut sorted = labels.clone();
            sorted.sort_by(f64::total_cmp);
            if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                return Err(fail(
                    name,
                    label_line,
                    format!("label {} is listed twice: labels must be distinct", w[0]),
                ));
            }
            let nr_sv = header
                .get("nr_sv")
                .ok_or_else(|| fail(name, 0, "missing 'nr_sv' line (support vectors per label)"))?;
            if nr_sv.values.len() != nr_class {
                return Err(fail(
                    name,
                    nr_sv.line,
                    format!(
                        "'nr_sv' has {} values, expected {nr_class}",
                        nr_sv.values.len()
                    ),
                ));
            }
            for v in &nr_sv.values {
                if v.starts_with('-') {
                    return Err(fail(
                        name,
                        nr_sv.line,
                        format!("'nr_sv' has a negative count ({v})"),
                    ));
                }
                n_support.push(count(v, "nr_sv", name, nr_sv.line)?);
            }
            let sum = n_support
                .iter()
                .try_fold(0usize, |acc, &n| acc.checked_add(n));
            if sum != Some(total_sv) {
                return Err(fail(
                    name,
                    nr_sv.line,
                    format!("'nr_sv' counts do not add up to 'total_sv {total_sv}'"),
                ));
            }
        } else {
            for key in ["label", "nr_sv", "probB"] {
                if let Some(entry) = header.get(key) {
                    return Err(fail(
                        name,
                        entry.line,
                        format!("a {} model has no '{key}' line", svm_type.name()),
                    ));
                }
            }
        }
        let (prob_a, prob_b) = match svm_type {
            SvmType::CSvc | SvmType::NuSvc => {
                let a = header.numbers("probA", Some(n_pairs))?;
                let b = header.numbers("probB", Some(n_pairs))?;
                if a.len() != b.len() {
                    return Err(fail(name, 0, "'probA' and 'probB' come together"));
                }
                (a, b)
            }
            SvmType::EpsilonSvr | SvmType::NuSvr => (header.numbers("probA", Some(1))?, Vec::new()),
            SvmType::OneClass => (Vec::new(), Vec::new()),
        };
        let prob_density_marks = header.numbers("prob_density_marks", None)?;
        let n_coef = nr_class - 1;
        let (sv_coef, vectors) = read_vectors(&mut reader, &mut buf, name, line, total_sv, n_coef)?;
        let model = LibsvmModel {
            svm_type,
            kernel,
            labels,
            rho,
            prob_a,
            prob_b,
            prob_density_marks,
            n_support,
            sv_coef,
            vectors,
        };
        Ok(model)
    }

    /// Writes the model at `path` in LIBSVM's format (what `svm-predict` reads), through a
    /// temporary file in the same folder renamed into place: an error leaves any existing file
    /// as it was.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the parts disagree or the kernel is not LIBSVM's;
    /// [`FwsvmError::Io`] if the file cannot be written.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<()> {
        self.check()?;
        super::atomic::write_with(path.as_ref(), |w| self.write_to(w))
    }

    /// Writes the model to `out` in LIBSVM's format.
    ///
    /// # Errors
    /// As [`Self::write`].
    pub fn to_writer(&self, out: impl Write) -> Result<()> {
        self.check()?;
        let mut out = std::io::BufWriter::new(out);
        self.write_to(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| FwsvmError::io("<writer>", &e))
    }

    /// Writes the file's text (the parts must agree: [`Self::check`]).
    pub(crate) fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "svm_type {}", self.svm_type.name())?;
        let kernel_type = match self.kernel {
            Kernel::Linear => "linear",
            Kernel::Poly { .. } => "polynomial",
            Kernel::Rbf { .. } => "rbf",
            Kernel::Sigmoid { .. } => "sigmoid",
            Kernel::Laplacian { .. } | Kernel::Precomputed => unreachable!("checked"),
        };
        writeln!(out, "kernel_type {kernel_type}")?;
        if let Kernel::Poly { degree, .. } = self.kernel {
            writeln!(out, "degree {degree}")?;
        }
        if let Some(gamma) = self.kernel.gamma() {
            writeln!(out, "gamma {}", Num(gamma))?;
        }
        if let Kernel::Poly { coef0, .. } | Kernel::Sigmoid { coef0, .. } = self.kernel {
            writeln!(out, "coef0 {}", Num(coef0))?;
        }
        writeln!(out, "nr_class {}", self.n_classes())?;
        writeln!(out, "total_sv {}", self.n_support_vectors())?;
        let list = |out: &mut dyn Write, key: &str, values: &[f64]| -> std::io::Result<()> {
            if values.is_empty() {
                return Ok(());
            }
            write!(out, "{key}")?;
            for &v in values {
                write!(out, " {}", Num(v))?;
            }
            writeln!(out)
        };
        list(out, "rho", &self.rho)?;
        list(out, "label", &self.labels)?;
        list(out, "probA", &self.prob_a)?;
        list(out, "probB", &self.prob_b)?;
        list(out, "prob_density_marks", &self.prob_density_marks)?;
        if !self.n_support.is_empty() {
            write!(out, "nr_sv")?;
            for n in &self.n_support {
                write!(out, " {n}")?;
            }
            writeln!(out)?;
        }
        writeln!(out, "SV")?;
        let view = self.vectors.view();
        let n_coef = self.n_coef();
        for (s, coef) in self.sv_coef.chunks(n_coef).enumerate() {
            for &c in coef {
                write!(out, "{} ", Num(c))?;
            }
            let (indices, values) = view.row(s);
            for (&j, &v) in indices.iter().zip(values) {
                if v != 0.0 {
                    write!(out, "{}:{} ", u64::from(j) + 1, Num(v))?;
                }
            }
            writeln!(out)?;
        }
        Ok(())
    }

    /// Checks that the parts agree (what reading checks, for a model built in memory).
    pub(crate) fn check(&self) -> Result<()> {
        let bad = |why: String| Err(FwsvmError::InvalidInput(format!("LIBSVM model: {why}")));
        if matches!(self.kernel, Kernel::Laplacian { .. } | Kernel::Precomputed) {
            return bad(format!(
                "LIBSVM has no {} kernel (linear, poly, rbf and sigmoid only)",
                self.kernel.name()
            ));
        }
        self.kernel.validate()?;
        let k = self.n_classes();
        let n_sv = self.n_support_vectors();
        let n_pairs = if self.svm_type.is_classifier() {
            k * (k.max(1) - 1) / 2
        } else {
            1
        };
        if k < 2 || self.rho.len() != n_pairs || self.sv_coef.len() != n_sv * (k - 1) {
            return bad(format!(
                "{k} classes, {} rho values, {} coefficients for {n_sv} support vectors",
                self.rho.len(),
                self.sv_coef.len()
            ));
        }
        if self.svm_type.is_classifier()
            && (self.n_support.len() != k || self.n_support.iter().sum::<usize>() != n_sv)
        {
            return bad(format!(
                "n_support {:?} for {k} labels and {n_sv} support vectors",
                self.n_support
            ));
        }
        let all = [
            &self.labels,
            &self.rho,
            &self.prob_a,
            &self.prob_b,
            &self.sv_coef,
        ];
        if all.iter().any(|v| v.iter().any(|x| !x.is_finite()))
            || self.vectors.view().data().iter().any(|x| !x.is_finite())
        {
            return bad("a value is not finite".into());
        }
        Ok(())
    }
}

/// The kernel of the header.
fn read_kernel(header: &Header) -> Result<Kernel> {
    let name = header.path.as_str();
    let (kernel_type, line) = header.single("kernel_type", "the kernel")?;
    known(
        name,
        line,
        kernel_type,
        &KERNEL_TYPES,
        |kernel_type, types| format!("kernel_type {kernel_type:?} is unknown ({types})"),
    )?;
    if kernel_type == "precomputed" {
        return Err(fail(
            name,
            line,
            "kernel_type precomputed is not supported (its support vectors are serial numbers of training rows)",
        ));
    }
    let value = |key: &str| -> Result<Option<f64>> {
        match header.get(key) {
            None => Ok(None),
            Some(_) => {
                let (v, line) = header.single(key, "")?;
                number(v, &format!("'{key}'"), name, line).map(Some)
            }
        }
    };
    let gamma = value("gamma")?;
    // Checked whatever the kernel (LIBSVM reads it as an int).
    let degree = match header.get("degree") {
        None => 3,
        Some(_) => {
            let (v, line) = header.single("degree", "")?;
            v.parse::<u32>()
                .ok()
                .filter(|&d| d <= i32::MAX as u32)
                .ok_or_else(|| {
                    fail(
                        name,
                        line,
                        format!("'degree {v}' is out of range (0 to 2^31 - 1)"),
                    )
                })?
        }
    };
    let coef0 = value("coef0")?.unwrap_or(0.0);
    let needs_gamma = || {
        gamma.ok_or_else(|| {
            fail(
                name,
                0,
                format!("missing 'gamma' line (the {kernel_type} kernel needs it)"),
            )
        })
    };
    let kernel = match kernel_type {
        "linear" => Kernel::Linear,
        "rbf" => Kernel::rbf(needs_gamma()?),
        "sigmoid" => Kernel::sigmoid(needs_gamma()?, coef0),
        _ => Kernel::poly(needs_gamma()?, coef0, degree),
    };
    kernel.validate().map_err(|e| {
        let line = header.get("gamma").map_or(0, |e| e.line);
        fail(name, line, e.to_string())
    })?;
    Ok(kernel)
}

/// The support-vector lines: `total_sv` of them (blank lines aside), each `n_coef`
/// coefficients then increasing `index:value` pairs.
fn read_vectors(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    name: &str,
    mut line: usize,
    total_sv: usize,
    n_coef: usize,
) -> Result<(Vec<f64>, CsrMatrix)> {
    let (mut coef, mut indptr) = (Vec::new(), vec![0usize]);
    let mut entries = Entries::new(Entries::BLOCK);
    let mut n_cols = 0usize;
    let mut seen = 0usize;
    loop {
        line += 1;
        if !next_line(reader, buf, name, line)? {
            break;
        }
        let text = std::str::from_utf8(buf).map_err(|_| {
            fail(
                name,
                line,
                "not text (invalid UTF-8): not a LIBSVM model file",
            )
        })?;
        let mut tokens = text.split_ascii_whitespace().peekable();
        if tokens.peek().is_none() {
            continue;
        }
        seen += 1;
        if seen > total_sv {
            return Err(fail(
                name,
                line,
                format!("more support vector lines than 'total_sv {total_sv}'"),
            ));
        }
        for c in 0..n_coef {
            let token = tokens.next().ok_or_else(|| {
                fail(
                    name,
                    line,
                    format!("support vector {seen} has {c} coefficients, expected {n_coef}"),
                )
            })?;
            coef.push(number(token, "coefficient", name, line)?);
        }
        let mut last: Option<u64> = None;
        for token in tokens {
            let (index, value) = token.split_once(':').ok_or_else(|| {
                fail(
                    name,
                    line,
                    format!("malformed feature {token:?}: expected index:value"),
                )
            })?;
            let index: u64 = index.parse().map_err(|_| {
                fail(
                    name,
                    line,
                    format!("malformed feature index {index:?} in {token:?}"),
                )
            })?;
            if index == 0 || index > u64::from(u32::MAX) {
                return Err(fail(
                    name,
                    line,
                    format!("feature index {index} is out of range (1 to {})", u32::MAX),
                ));
            }
            if last.is_some_and(|l| index <= l) {
                return Err(fail(
                    name,
                    line,
                    format!(
                        "feature index {index} after {}: indices must increase",
                        last.unwrap_or(0)
                    ),
                ));
            }
            last = Some(index);
            let value = number(value, &format!("feature {index}'s value"), name, line)?;
            entries.push((index - 1) as u32, value)?;
            n_cols = n_cols.max(index as usize);
        }
        indptr.push(entries.len());
    }
    if seen != total_sv {
        return Err(fail(
            name,
            line,
            format!("'total_sv {total_sv}' but the file has {seen} support vector lines"),
        ));
    }
    let (indices, data) = entries.into_vecs()?;
    let vectors = CsrMatrix::new(indptr, indices, data, n_cols)?;
    Ok((coef, vectors))
}

/// The support vectors' entries as they are read, in blocks of [`Entries::BLOCK`]: a growing
/// `Vec` doubles its capacity (a 288 MB file of 40 million entries held up to twice the
/// entries, three times while copying); the blocks are joined once, at their exact size,
/// each freed as it is copied. A block's arrays (32 and 64 MiB) are above the allocator's
/// largest mmap threshold (glibc: 32 MiB), so a freed block goes back to the system at once
/// instead of staying in the heap (with 12 MiB blocks the peak stayed at twice the entries).
struct Entries {
    /// Entries per block.
    block: usize,
    full: Vec<(Vec<u32>, Vec<f64>)>,
    indices: Vec<u32>,
    data: Vec<f64>,
    len: usize,
}

impl Entries {
    /// Entries per block (96 MiB).
    const BLOCK: usize = 1 << 23;

    fn new(block: usize) -> Self {
        Entries {
            block,
            full: Vec::new(),
            indices: Vec::new(),
            data: Vec::new(),
            len: 0,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, index: u32, value: f64) -> Result<()> {
        if self.indices.len() == self.indices.capacity() {
            if self.indices.len() >= self.block {
                let indices = std::mem::take(&mut self.indices);
                let data = std::mem::take(&mut self.data);
                self.full.push((indices, data));
            }
            // Small files stay small: the first block grows by doubling up to BLOCK.
            let want = if self.full.is_empty() {
                self.indices.len().max(16).min(self.block)
            } else {
                self.block
            };
            crate::error::try_reserve(&mut self.indices, want, "support vectors")?;
            crate::error::try_reserve(&mut self.data, want, "support vectors")?;
        }
        self.indices.push(index);
        self.data.push(value);
        self.len += 1;
        Ok(())
    }

    /// All entries, in order, in two exactly sized vectors.
    fn into_vecs(self) -> Result<(Vec<u32>, Vec<f64>)> {
        if self.full.is_empty() {
            return Ok((self.indices, self.data));
        }
        let (mut indices, mut data) = (Vec::new(), Vec::new());
        indices
            .try_reserve_exact(self.len)
            .and_then(|()| data.try_reserve_exact(self.len))
            .map_err(|_| crate::error::FwsvmError::OutOfMemory {
                what: "support vectors",
                bytes: self.len as u128 * 12,
            })?;
        for (i, d) in self.full.into_iter().chain([(self.indices, self.data)]) {
            indices.extend_from_slice(&i);
            data.extend_from_slice(&d);
        }
        Ok((indices, data))
    }
}

/// A number as LIBSVM writes it (`%.17g` round-trips; so does the shortest form): plain
/// decimals for ordinary magnitudes, exponent notation beyond.
struct Num(f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = self.0;
        let a = v.abs();
        if v == 0.0 || (1e-5..1e16).contains(&a) {
            write!(f, "{v}")
        } else {
            write!(f, "{v:e}")
        }
    }
}

impl SvcModel {
    /// The classifier as a LIBSVM C-SVC model file's content. Two classes: LIBSVM's first label
    /// wins where its decision value is positive, so the file lists `classes()[1]` first (its
    /// value is this model's decision value). A model read from a LIBSVM file keeps the file's
    /// label order.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] for a kernel LIBSVM does not have (laplacian, precomputed).
    pub fn to_libsvm(&self) -> Result<LibsvmModel> {
        let k = self.classes.len();
        let n_sv = self.support.len();
        let vectors = self.vectors.view().to_csr();
        let starts = class_starts(&self.n_support);
        // File position p holds sorted class order[p].
        let order: Vec<usize> = if !self.label_order.is_empty() {
            self.label_order.clone()
        } else if k == 2 {
            vec![1, 0]
        } else {
            (0..k).collect()
        };
        let mut rank = vec![0; k];
        order.iter().enumerate().for_each(|(p, &c)| rank[c] = p);
        // Support vectors regrouped by file class.
        let perm: Vec<usize> = order
            .iter()
            .flat_map(|&c| starts[c]..starts[c + 1])
            .collect();
        let mut sv_coef = vec![0.0; n_sv * (k - 1)];
        let mut rho = vec![0.0; k * (k - 1) / 2];
        let file_starts =
            class_starts(&order.iter().map(|&c| self.n_support[c]).collect::<Vec<_>>());
        for (fa, fb, fp) in pairs(k) {
            let (a, b) = (order[fa], order[fb]);
            let (sa, sb, sign) = if a < b { (a, b, 1.0) } else { (b, a, -1.0) };
            let sp = pair_index(sa, sb, k);
            // Our pair value (sa, sb) is positive for sa; the file's (fa, fb) for fa.
            let ours = self.pair_sign(sign);
            rho[fp] = -ours * self.intercept[sp];
            for (class, file_col, dual_row) in [
                (a, fb - 1, if a == sa { sb - 1 } else { sa }),
                (b, fa, if b == sa { sb - 1 } else { sa }),
            ] {
                let fstart = file_starts[rank[class]];
                for (t, s) in (starts[class]..starts[class + 1]).enumerate() {
                    sv_coef[(fstart + t) * (k - 1) + file_col] =
                        ours * self.dual_coef[dual_row * n_sv + s];
                }
            }
        }
        let (mut prob_a, mut prob_b) = (Vec::new(), Vec::new());
        if !self.prob_a.is_empty() {
            prob_a = vec![0.0; rho.len()];
            prob_b = vec![0.0; rho.len()];
            for (fa, fb, fp) in pairs(k) {
                let (a, b) = (order[fa], order[fb]);
                let sp = if a < b {
                    pair_index(a, b, k)
                } else {
                    pair_index(b, a, k)
                };
                // Probabilities are stored for the sorted pair's value (positive: the first
                // sorted class); the file's value is the opposite when the pair is flipped.
                let flip = if a < b { 1.0 } else { -1.0 };
                prob_a[fp] = self.prob_a[sp];
                prob_b[fp] = flip * self.prob_b[sp];
            }
        }
        Ok(LibsvmModel {
            svm_type: if self.params.contains_key("nu") {
                SvmType::NuSvc
            } else {
                SvmType::CSvc
            },
            kernel: self.kernel,
            labels: order.iter().map(|&c| self.classes[c]).collect(),
            rho,
            prob_a,
            prob_b,
            prob_density_marks: Vec::new(),
            n_support: order.iter().map(|&c| self.n_support[c]).collect(),
            sv_coef,
            vectors: vectors.view().select_rows(&perm),
        })
    }

    /// +1 where this model's stored pair value is positive for the sorted pair's first class
    /// (K > 2, and the probability convention), −1 for two classes, whose decision value is
    /// positive for `classes()[1]`; times `sign`.
    fn pair_sign(&self, sign: f64) -> f64 {
        if self.classes.len() == 2 { -sign } else { sign }
    }

    /// A C-SVC (or ν-SVC: same decision function) read from a LIBSVM model file, in fwsvm's
    /// layout: classes sorted, support vectors grouped by sorted class, the file's label order
    /// kept for LIBSVM's rules (the vote's ties, the coupling's order; see
    /// [`SvcModel::label_order`]). Probabilities come with it when the file has them.
    /// `support()` is `0..n_SV` (training indices are not in the file).
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] for a model that is not a classifier.
    pub fn from_libsvm(file: &LibsvmModel) -> Result<SvcModel> {
        file.check()?;
        Self::from_libsvm_parts(file, |perm| Ok(file.vectors.view().select_rows(perm)))
    }

    /// [`Self::from_libsvm`] taking the file's content: the support vectors are reordered in
    /// place (class blocks rotated into sorted order), not copied, so a model of millions of
    /// support vectors needs its size once, not twice.
    ///
    /// # Errors
    /// As [`Self::from_libsvm`].
    pub fn from_libsvm_owned(mut file: LibsvmModel) -> Result<SvcModel> {
        file.check()?;
        let vectors = std::mem::replace(
            &mut file.vectors,
            CsrMatrix::new(vec![0], Vec::new(), Vec::new(), 0)?,
        );
        let mut vectors = Some(vectors);
        let starts = class_starts(&file.n_support);
        Self::from_libsvm_parts(&file, |_| {
            let mut order: Vec<usize> = (0..file.labels.len()).collect();
            order.sort_by(|&a, &b| file.labels[a].total_cmp(&file.labels[b]));
            let vectors = vectors
                .take()
                .unwrap_or_else(|| unreachable!("called once"));
            sort_class_blocks(vectors, &starts, &order)
        })
    }

    /// The conversion, with the support vectors reordered by `reorder(perm)` (file rows in the
    /// model's order).
    fn from_libsvm_parts(
        file: &LibsvmModel,
        reorder: impl FnOnce(&[usize]) -> Result<CsrMatrix>,
    ) -> Result<SvcModel> {
        if !file.svm_type.is_classifier() {
            return Err(FwsvmError::InvalidInput(format!(
                "a {} model is not a classifier",
                file.svm_type.name()
            )));
        }
        let k = file.labels.len();
        // From the counts: the owned conversion has taken the vectors out (check() has
        // matched the counts against them).
        let n_sv: usize = file.n_support.iter().sum();
        // Sorted class c is file position order[c]; file position p holds sorted class
        // sorted_of[p] (the model's label order).
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&a, &b| file.labels[a].total_cmp(&file.labels[b]));
        let mut sorted_of = vec![0; k];
        order
            .iter()
            .enumerate()
            .for_each(|(c, &p)| sorted_of[p] = c);
        let file_starts = class_starts(&file.n_support);
        let n_support: Vec<usize> = order.iter().map(|&p| file.n_support[p]).collect();
        let starts = class_starts(&n_support);
        let perm: Vec<usize> = order
            .iter()
            .flat_map(|&p| file_starts[p]..file_starts[p + 1])
            .collect();
        let mut dual_coef = vec![0.0; (k - 1) * n_sv];
        let mut intercept = vec![0.0; k * (k - 1) / 2];
        let two = k == 2;
        let has_prob = !file.prob_a.is_empty();
        let (mut prob_a, mut prob_b) = (vec![0.0; intercept.len()], vec![0.0; intercept.len()]);
        for (fa, fb, fp) in pairs(k) {
            let (a, b) = (sorted_of[fa], sorted_of[fb]);
            let (sa, sb, sign) = if a < b { (a, b, 1.0) } else { (b, a, -1.0) };
            let sp = pair_index(sa, sb, k);
            // Two classes: fwsvm's value is positive for classes[1] (the sorted pair's second).
            let ours = if two { -sign } else { sign };
            intercept[sp] = -ours * file.rho[fp];
            for (class, file_col) in [(fa, fb - 1), (fb, fa)] {
                let sorted = sorted_of[class];
                let dual_row = if sorted == sa { sb - 1 } else { sa };
                for (t, s) in (file_starts[class]..file_starts[class + 1]).enumerate() {
                    dual_coef[dual_row * n_sv + starts[sorted] + t] =
                        ours * file.sv_coef[s * (k - 1) + file_col];
                }
            }
            if has_prob {
                prob_a[sp] = file.prob_a[fp];
                prob_b[sp] = sign * file.prob_b[fp];
            }
        }
        if !has_prob {
            prob_a.clear();
            prob_b.clear();
        }
        let vectors = reorder(&perm)?;
        let model = SvcModel {
            classes: order.iter().map(|&p| file.labels[p]).collect(),
            kernel: file.kernel,
            vectors: FeatureMatrix::Sparse(vectors),
            support: (0..n_sv).collect(),
            n_support,
            dual_coef,
            intercept,
            alpha: Vec::new(),
            prob_a,
            prob_b,
            label_order: sorted_of,
            stats: Vec::new(),
            history: Vec::new(),
            // A ν-SVC file is written back as one (its ν is not in the file).
            params: if file.svm_type == SvmType::NuSvc {
                std::iter::once(("nu".to_string(), serde_json::Value::Null)).collect()
            } else {
                serde_json::Map::new()
            },
        };
        model.check()?;
        Ok(model)
    }
}

/// `vectors` (rows grouped by class, class p's rows from `starts[p]`) with the class blocks in
/// the order `order` (block `order[0]` first), moved in place by rotations: each class block is
/// rotated to the front of what remains (O(classes × entries) moves, no second copy). Many
/// classes are copied instead, row by row.
fn sort_class_blocks(vectors: CsrMatrix, starts: &[usize], order: &[usize]) -> Result<CsrMatrix> {
    let n_cols = vectors.n_cols();
    if order.len() > 64 {
        let perm: Vec<usize> = order
            .iter()
            .flat_map(|&p| starts[p]..starts[p + 1])
            .collect();
        return Ok(vectors.view().select_rows(&perm));
    }
    let (indptr, mut indices, mut data) = vectors.into_parts();
    let entries = |p: usize| indptr[starts[p + 1]] - indptr[starts[p]];
    let mut current: Vec<usize> = (0..order.len()).collect();
    let mut at = 0;
    for (c, &want) in order.iter().enumerate() {
        let k = c + current[c..].iter().position(|&b| b == want).unwrap_or(0);
        let span: usize = current[c..=k].iter().map(|&b| entries(b)).sum();
        indices[at..at + span].rotate_right(entries(want));
        data[at..at + span].rotate_right(entries(want));
        current[c..=k].rotate_right(1);
        at += entries(want);
    }
    let mut new_indptr = Vec::new();
    crate::error::try_reserve(&mut new_indptr, indptr.len(), "support vectors")?;
    new_indptr.push(0);
    for &p in order {
        for r in starts[p]..starts[p + 1] {
            let last = new_indptr[new_indptr.len() - 1];
            new_indptr.push(last + indptr[r + 1] - indptr[r]);
        }
    }
    CsrMatrix::new(new_indptr, indices, data, n_cols)
}

/// Where each class's support vectors start (and, last, their total).
fn class_starts(n_support: &[usize]) -> Vec<usize> {
    std::iter::once(0)
        .chain(n_support.iter().scan(0, |acc, &n| {
            *acc += n;
            Some(*acc)
        }))
        .collect()
}

/// The pairs (i, j), i < j, of k classes with their position in LIBSVM's order.
fn pairs(k: usize) -> impl Iterator<Item = (usize, usize, usize)> {
    (0..k)
        .flat_map(move |i| ((i + 1)..k).map(move |j| (i, j)))
        .enumerate()
        .map(|(p, (i, j))| (i, j, p))
}

/// Position of pair (i, j), i < j, in LIBSVM's order (0,1), (0,2), …, (1,2), ….
pub(crate) fn pair_index(i: usize, j: usize, k: usize) -> usize {
    i * (2 * k - i - 1) / 2 + (j - i - 1)
}

#[cfg(test)]
mod tests {
    use super::Entries;

    #[test]
    fn entries_in_blocks_join_in_order_at_their_exact_size() {
        for n in [0, 1, 5, 16, 17, 64, 100] {
            let mut entries = Entries::new(16);
            for i in 0..n {
                entries.push(i as u32, f64::from(i) * 0.5).unwrap();
            }
            assert_eq!(entries.len(), n as usize);
            let (indices, data) = entries.into_vecs().unwrap();
            assert_eq!(indices, (0..n).map(|i| i as u32).collect::<Vec<_>>());
            assert_eq!(data, (0..n).map(|i| f64::from(i) * 0.5).collect::<Vec<_>>());
            if n > 16 {
                assert_eq!(
                    (indices.capacity(), data.capacity()),
                    (n as usize, n as usize)
                );
            }
        }
    }
}
