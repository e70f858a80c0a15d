//! LIBSVM-style options (`-c 10 -g 0.5 -w1 2 file [file]`), with argparse's messages (the
//! Python command line's, which tests and scripts know).

use std::collections::HashMap;

use super::CliError;

/// What an option takes.
#[derive(Clone, Copy)]
pub(crate) enum Takes {
    /// Nothing (a switch).
    Nothing,
    /// An integer.
    Int,
    /// A number.
    Float,
    /// Two numbers.
    Floats2,
    /// Any text.
    Text,
    /// One of these integers.
    IntChoice(&'static [i64]),
    /// One of these words.
    Choice(&'static [&'static str]),
}

/// One option: its flag, what it takes, its metavariable and help line.
pub(crate) struct Opt {
    pub flag: &'static str,
    pub takes: Takes,
    pub metavar: &'static str,
    pub help: &'static str,
}

/// A command's options and positional arguments.
pub(crate) struct Spec {
    pub options: &'static [Opt],
    /// Positional names; those after `required` are optional.
    pub positionals: &'static [&'static str],
    pub required: usize,
    pub description: &'static str,
    pub epilog: &'static str,
}

/// A parsed value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Switch,
    Int(i64),
    Float(f64),
    Floats2(f64, f64),
    Text(String),
}

/// The parsed command line.
pub(crate) struct Parsed {
    values: HashMap<&'static str, Value>,
    pub positionals: Vec<String>,
}

impl Parsed {
    pub fn has(&self, flag: &str) -> bool {
        self.values.contains_key(flag)
    }

    pub fn int(&self, flag: &str, default: i64) -> i64 {
        match self.values.get(flag) {
            Some(Value::Int(v)) => *v,
            _ => default,
        }
    }

    pub fn float(&self, flag: &str) -> Option<f64> {
        match self.values.get(flag) {
            Some(Value::Float(v)) => Some(*v),
            _ => None,
        }
    }

    pub fn floats2(&self, flag: &str) -> Option<(f64, f64)> {
        match self.values.get(flag) {
            Some(Value::Floats2(a, b)) => Some((*a, *b)),
            _ => None,
        }
    }

    pub fn text(&self, flag: &str) -> Option<&str> {
        match self.values.get(flag) {
            Some(Value::Text(v)) => Some(v),
            _ => None,
        }
    }
}

/// Python's `float()` of a command-line value (also `inf`, `1e3`, `+2`).
fn parse_float(s: &str) -> Option<f64> {
    let t = s.trim();
    t.parse::<f64>()
        .ok()
        .or_else(|| match t.to_ascii_lowercase().as_str() {
            "infinity" | "+infinity" => Some(f64::INFINITY),
            "-infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        })
}

impl Spec {
    /// Parses `argv`; `Ok(None)` when `--help` was asked for (the usage is in the error-free
    /// [`Spec::help`]).
    pub fn parse(&self, argv: &[String]) -> Result<Option<Parsed>, CliError> {
        let mut values = HashMap::new();
        let mut positionals = Vec::new();
        let mut k = 0;
        while k < argv.len() {
            let token = &argv[k];
            if token == "--help" {
                return Ok(None);
            }
            let option = self.options.iter().find(|o| o.flag == token);
            let Some(option) = option else {
                if token.starts_with('-') && token.len() > 1 && parse_float(token).is_none() {
                    return Err(CliError::usage(format!("unrecognized arguments: {token}")));
                }
                positionals.push(token.clone());
                k += 1;
                continue;
            };
            let name = option.flag;
            let value = |k: usize| -> Result<&String, CliError> {
                argv.get(k).ok_or_else(|| {
                    CliError::usage(format!("argument {name}: expected one argument"))
                })
            };
            let bad = |kind: &str, v: &str| {
                CliError::usage(format!("argument {name}: invalid {kind} value: '{v}'"))
            };
            let (parsed, used) = match option.takes {
                Takes::Nothing => (Value::Switch, 1),
                Takes::Int | Takes::IntChoice(_) => {
                    let v = value(k + 1)?;
                    let n = v.trim().parse::<i64>().map_err(|_| bad("int", v))?;
                    if let Takes::IntChoice(choices) = option.takes
                        && !choices.contains(&n)
                    {
                        let list: Vec<String> = choices.iter().map(i64::to_string).collect();
                        return Err(CliError::usage(format!(
                            "argument {name}: invalid choice: {n} (choose from {})",
                            list.join(", ")
                        )));
                    }
                    (Value::Int(n), 2)
                }
                Takes::Float => {
                    let v = value(k + 1)?;
                    (
                        Value::Float(parse_float(v).ok_or_else(|| bad("float", v))?),
                        2,
                    )
                }
                Takes::Floats2 => {
                    let (a, b) = (value(k + 1)?, argv.get(k + 2));
                    let b = b.ok_or_else(|| {
                        CliError::usage(format!("argument {name}: expected 2 arguments"))
                    })?;
                    (
                        Value::Floats2(
                            parse_float(a).ok_or_else(|| bad("float", a))?,
                            parse_float(b).ok_or_else(|| bad("float", b))?,
                        ),
                        3,
                    )
                }
                Takes::Text => (Value::Text(value(k + 1)?.clone()), 2),
                Takes::Choice(choices) => {
                    let v = value(k + 1)?;
                    if !choices.contains(&v.as_str()) {
                        let list: Vec<String> = choices.iter().map(|c| format!("'{c}'")).collect();
                        return Err(CliError::usage(format!(
                            "argument {name}: invalid choice: '{v}' (choose from {})",
                            list.join(", ")
                        )));
                    }
                    (Value::Text(v.clone()), 2)
                }
            };
            values.insert(name, parsed);
            k += used;
        }
        if positionals.len() < self.required {
            let missing: Vec<&str> = self.positionals[positionals.len()..self.required].to_vec();
            return Err(CliError::usage(format!(
                "the following arguments are required: {}",
                missing.join(", ")
            )));
        }
        if positionals.len() > self.positionals.len() {
            return Err(CliError::usage(format!(
                "unrecognized arguments: {}",
                positionals[self.positionals.len()..].join(" ")
            )));
        }
        Ok(Some(Parsed {
            values,
            positionals,
        }))
    }

    /// The `--help` text.
    pub fn help(&self, prog: &str) -> String {
        let positional = self
            .positionals
            .iter()
            .enumerate()
            .map(|(k, p)| {
                if k < self.required {
                    p.to_string()
                } else {
                    format!("[{p}]")
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        let mut out = format!(
            "usage: {prog} [options] {positional}\n\n{}\n\noptions:\n",
            self.description
        );
        for o in self.options {
            let left = if o.metavar.is_empty() {
                o.flag.to_string()
            } else {
                format!("{} {}", o.flag, o.metavar)
            };
            out.push_str(&format!("  {left:<24}{}\n", o.help));
        }
        out.push_str(&format!(
            "  {:<24}show this help message and exit\n",
            "--help"
        ));
        if !self.epilog.is_empty() {
            out.push_str(&format!("\n{}\n", self.epilog));
        }
        out
    }
}

/// `(label, weight)` pairs of `-wi weight` options.
pub(crate) type ClassWeights = Vec<(f64, f64)>;

/// LIBSVM's `-wi weight` options (`-w1 2`, `-w-1 0.5`): the rest of argv, and label → weight.
pub(crate) fn split_weights(argv: &[String]) -> Result<(Vec<String>, ClassWeights), CliError> {
    let (mut rest, mut weights) = (Vec::new(), Vec::new());
    let mut k = 0;
    while k < argv.len() {
        let token = &argv[k];
        if token.starts_with("-w") && token.len() > 2 {
            let Some(weight) = argv.get(k + 1) else {
                return Err(CliError::plain(format!("option {token} needs a weight")));
            };
            match (parse_float(&token[2..]), parse_float(weight)) {
                (Some(label), Some(w)) => weights.push((label, w)),
                _ => {
                    return Err(CliError::plain(format!(
                        "option {token} {weight}: label and weight must be numbers"
                    )));
                }
            }
            k += 2;
            continue;
        }
        rest.push(token.clone());
        k += 1;
    }
    Ok((rest, weights))
}
