//! A script variable's value: pgbench's null, boolean, integer and double, and text (from
//! `--set`), read as one of the others when an expression uses it.

use super::parse::VarRef;
use crate::engine::sql::SqlValue;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    Text(String),
}

impl Value {
    /// A value typed on the command line (`--set name=value`): a number or a boolean when it
    /// reads as one, as pgbench reads `-D`, else text.
    pub fn typed(text: &str) -> Value {
        if let Ok(i) = text.trim().parse::<i64>() {
            Value::Int(i)
        } else if let Ok(d) = text.trim().parse::<f64>() {
            Value::Double(d)
        } else {
            Value::Text(text.to_string())
        }
    }

    /// A column's value stored by `\gset`: pgbench stores its text, NULL as an empty string.
    pub fn stored(v: SqlValue) -> Value {
        match v {
            SqlValue::Null => Value::Text(String::new()),
            SqlValue::Int(i) => Value::Int(i),
            SqlValue::Float(f) => Value::Double(f),
            SqlValue::Text(t) => Value::Text(t),
            SqlValue::Bytes(b) => Value::Text(String::from_utf8_lossy(&b).into_owned()),
        }
    }

    /// The value an expression sees: text read as pgbench reads a variable's string.
    pub fn in_expression(&self) -> Result<Value, String> {
        let Value::Text(t) = self else {
            return Ok(self.clone());
        };
        let lower = t.trim().to_ascii_lowercase();
        let prefix_of = |word: &str| !lower.is_empty() && word.starts_with(lower.as_str());
        Ok(if lower == "null" {
            Value::Null
        } else if prefix_of("true") || prefix_of("yes") || lower == "on" {
            Value::Bool(true)
        } else if prefix_of("false") || prefix_of("no") || lower == "off" || lower == "of" {
            Value::Bool(false)
        } else {
            match Value::typed(t) {
                Value::Text(_) => return Err(format!("the value '{t}' is not a number")),
                v => v,
            }
        })
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "int",
            Value::Double(_) => "double",
            Value::Text(_) => "text",
        }
    }

    /// The value bound to a statement's parameter.
    pub fn to_sql(&self) -> SqlValue {
        match self {
            Value::Null => SqlValue::Null,
            Value::Bool(b) => SqlValue::Int(i64::from(*b)),
            Value::Int(i) => SqlValue::Int(*i),
            Value::Double(d) => SqlValue::Float(*d),
            Value::Text(t) => SqlValue::Text(t.clone()),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Null => write!(f, "null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Double(d) => write!(f, "{}", double_text(*d)),
            Value::Text(t) => write!(f, "{t}"),
        }
    }
}

/// A double as pgbench prints it: C's `%.15g` (15 significant digits, trailing zeros cut, an
/// exponent of at least two digits below 1e-4 and from 1e15), and PostgreSQL's Infinity,
/// -Infinity and NaN.
pub fn double_text(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    const DIGITS: i32 = 15;
    // The exponent after rounding to 15 significant digits decides the form, as in C.
    let scientific = format!("{:.*e}", DIGITS as usize - 1, d);
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        match s.contains('.') {
            true => s.trim_end_matches('0').trim_end_matches('.').to_string(),
            false => s.to_string(),
        }
    };
    if !(-4..DIGITS).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exponent.abs())
    } else {
        trim(&format!("{:.*}", (DIGITS - 1 - exponent) as usize, d))
    }
}

/// A statement's text with each `?` placeholder outside quotes replaced by its variable's value
/// as text, as pgbench's simple query mode writes them in (no quoting: a script that compares
/// with text quotes the variable itself, `':name'`).
pub fn literal(text: &str, params: &[VarRef], vars: &[Option<Value>]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut values = params.iter().map(|p| vars[p.slot].as_ref());
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => match values.next() {
                Some(Some(v)) => out.push_str(&v.to_string()),
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out
}
