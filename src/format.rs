//! Numbers as C's `printf` writes them (`%g`, `%.17g`): `fwsvm scale` and `predict` write what
//! LIBSVM's tools write, byte for byte, and a fit's warnings ([`crate::progress::fit_warnings`])
//! print numbers as Python's `%g` does.

/// C's `%.<precision>g` of `v`.
pub(crate) fn g(v: f64, precision: usize) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    let p = precision.max(1);
    // The exponent after rounding to p significant digits (Rust's formatting rounds exactly).
    let scientific = format!("{:.*e}", p - 1, v);
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("exponent notation has an 'e'");
    let x: i32 = exponent.parse().expect("an integer exponent");
    if x < -4 || x >= p as i32 {
        let mantissa = strip_zeros(mantissa);
        let sign = if x < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", x.unsigned_abs())
    } else {
        let decimals = (p as i32 - 1 - x).max(0) as usize;
        strip_zeros(&format!("{v:.decimals$}")).to_owned()
    }
}

/// Python's `repr` of a float: the shortest digits that read back as `v`, in exponent notation
/// below 1e-4 and from 1e16 (`0.001`, `1e-05`, `1.0`).
pub(crate) fn repr(v: f64) -> String {
    if !v.is_finite() {
        return g(v, 17);
    }
    let scientific = format!("{v:e}");
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("exponent notation has an 'e'");
    let x: i32 = exponent.parse().expect("an integer exponent");
    if !(-4..16).contains(&x) {
        let sign = if x < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", x.unsigned_abs());
    }
    let plain = format!("{v}");
    if plain.contains('.') {
        plain
    } else {
        plain + ".0"
    }
}

/// C's `%g` (six significant digits).
pub(crate) fn g6(v: f64) -> String {
    g(v, 6)
}

/// C's `%.17g` (round-trips every double).
pub(crate) fn g17(v: f64) -> String {
    g(v, 17)
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_c_printf() {
        let cases: &[(f64, &str, &str)] = &[
            (0.0, "0", "0"),
            (-0.0, "-0", "-0"),
            (1.0, "1", "1"),
            (-1.5, "-1.5", "-1.5"),
            (0.1, "0.1", "0.10000000000000001"),
            (123456.0, "123456", "123456"),
            (1234567.0, "1.23457e+06", "1234567"),
            (0.0001, "0.0001", "0.0001"),
            (0.00001234, "1.234e-05", "1.234e-05"),
            (1e300, "1e+300", "1.0000000000000001e+300"),
            (2.5e-308, "2.5e-308", "2.4999999999999998e-308"),
            (83.33333333333333, "83.3333", "83.333333333333329"),
            (999999.5, "1e+06", "999999.5"),
            (0.5, "0.5", "0.5"),
            (100.0, "100", "100"),
        ];
        for &(v, six, seventeen) in cases {
            assert_eq!(g6(v), six, "%g of {v}");
            assert_eq!(g17(v), seventeen, "%.17g of {v}");
        }
        assert_eq!(g(0.000123456, 3), "0.000123");
        assert_eq!(g6(f64::INFINITY), "inf");
    }
}
