//! Values between hakari and PostgreSQL: parameters converted to the types the server expects,
//! columns read back (NUMERIC as exact text, timestamps as text), rows as COPY's text format.

use crate::engine::sql::{SqlValue, Visit};
use anyhow::{anyhow, Result};
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{ToSql, Type};
use std::fmt::Write;

/// A parameter converted to the type the server expects for it; one that cannot be that type is
/// `Invalid`, which the driver reports as the statement's error (nothing is allocated on the
/// way: the transactions' path converts every parameter of every statement).
pub(super) fn to_param<'a>(v: &'a SqlValue, ty: &Type) -> Param<'a> {
    let out_of_range =
        |i: &i64| Param::Invalid(format!("{i} is out of range for a {ty} parameter"));
    match (v, ty) {
        // NULL fits any type, as pgbench's NULL parameter does (a typed None would not).
        (SqlValue::Null, _) => Param::Text(None),
        (SqlValue::Int(i), t) if *t == Type::INT2 => {
            i16::try_from(*i).map_or_else(|_| out_of_range(i), Param::I16)
        }
        (SqlValue::Int(i), t) if *t == Type::INT4 => {
            i32::try_from(*i).map_or_else(|_| out_of_range(i), Param::I32)
        }
        (SqlValue::Int(i), t) if *t == Type::INT8 => Param::I64(*i),
        (SqlValue::Int(i), t) if *t == Type::FLOAT8 => Param::F64(*i as f64),
        (SqlValue::Int(i), t) if *t == Type::FLOAT4 => Param::F32(*i as f32),
        (SqlValue::Int(i), t) if *t == Type::BOOL => Param::Bool(*i != 0),
        (SqlValue::Float(f), t) if *t == Type::FLOAT4 => Param::F32(*f as f32),
        (SqlValue::Float(f), t) if *t == Type::FLOAT8 => Param::F64(*f),
        (SqlValue::Bytes(b), t) if *t == Type::BYTEA => Param::Bytes(b),
        // Any other pairing goes as text for the server to read (numeric, dates, a number
        // into a text column's comparison), as psql and pgbench send every parameter; into a
        // text column the text is the value itself.
        (SqlValue::Int(i), _) => Param::IntText(*i),
        (SqlValue::Float(f), _) => Param::FloatText(*f),
        (SqlValue::Text(s), _) => Param::Text(Some(s)),
        // Raw bytes are read as the binary form of the expected type: only a bytea takes them.
        (SqlValue::Bytes(_), t) => {
            Param::Invalid(format!("a byte string cannot be a {t} parameter"))
        }
    }
}

/// A parameter as it goes to the server: a value of the type it expects, borrowed from the
/// caller's where it can be, or text for the server's input function to read.
#[derive(Debug)]
pub(super) enum Param<'a> {
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Bytes(&'a [u8]),
    /// Text as it is (None: NULL).
    Text(Option<&'a str>),
    /// A number written as text as it goes out.
    IntText(i64),
    FloatText(f64),
    /// Why the value cannot be this parameter.
    Invalid(String),
}

impl ToSql for Param<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> std::result::Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>>
    {
        match self {
            Param::I16(v) => v.to_sql(ty, out),
            Param::I32(v) => v.to_sql(ty, out),
            Param::I64(v) => v.to_sql(ty, out),
            Param::F32(v) => v.to_sql(ty, out),
            Param::F64(v) => v.to_sql(ty, out),
            Param::Bool(v) => v.to_sql(ty, out),
            Param::Bytes(v) => v.to_sql(ty, out),
            Param::Text(Some(text)) => {
                out.extend_from_slice(text.as_bytes());
                Ok(postgres::types::IsNull::No)
            }
            Param::Text(None) => Ok(postgres::types::IsNull::Yes),
            Param::IntText(i) => {
                out.extend_from_slice(itoa::Buffer::new().format(*i).as_bytes());
                Ok(postgres::types::IsNull::No)
            }
            Param::FloatText(f) => {
                write!(out, "{f}")?;
                Ok(postgres::types::IsNull::No)
            }
            Param::Invalid(why) => Err(why.clone().into()),
        }
    }
    /// `to_param` chose the variant by the type the server expects.
    fn accepts(_: &Type) -> bool {
        true
    }
    fn encode_format(&self, _: &Type) -> postgres::types::Format {
        match self {
            Param::Text(_) | Param::IntText(_) | Param::FloatText(_) => {
                postgres::types::Format::Text
            }
            _ => postgres::types::Format::Binary,
        }
    }
    postgres::types::to_sql_checked!();
}

/// Each row of `rows` to `visit`, as it comes (not gathered into a vector first); how many,
/// and the rows the server says the statement affected.
pub(super) fn each_row(mut rows: postgres::RowIter, visit: &mut Visit) -> Result<(u64, u64)> {
    let (mut n, mut buf) = (0, Vec::new());
    while let Some(row) = rows.next().map_err(super::classify)? {
        buf.clear();
        for i in 0..row.len() {
            buf.push(from_row(&row, i)?);
        }
        visit(&mut buf);
        n += 1;
    }
    Ok((n, rows.rows_affected().unwrap_or(n)))
}

pub(super) fn from_row(row: &postgres::Row, i: usize) -> Result<SqlValue> {
    let ty = row.columns()[i].type_();
    let v = if *ty == Type::INT2 {
        row.try_get::<_, Option<i16>>(i)?
            .map(|v| SqlValue::Int(v as i64))
    } else if *ty == Type::INT4 {
        row.try_get::<_, Option<i32>>(i)?
            .map(|v| SqlValue::Int(v as i64))
    } else if *ty == Type::INT8 {
        row.try_get::<_, Option<i64>>(i)?.map(SqlValue::Int)
    } else if *ty == Type::FLOAT4 {
        row.try_get::<_, Option<f32>>(i)?
            .map(|v| SqlValue::Float(v as f64))
    } else if *ty == Type::FLOAT8 {
        row.try_get::<_, Option<f64>>(i)?.map(SqlValue::Float)
    } else if *ty == Type::BYTEA {
        row.try_get::<_, Option<Vec<u8>>>(i)?.map(SqlValue::Bytes)
    } else if *ty == Type::BOOL {
        // As PostgreSQL writes a boolean in text ('t', 'f'), which is what psql shows and what
        // pgbench's \gset stores (and reads back as a boolean).
        row.try_get::<_, Option<bool>>(i)?
            .map(|b| SqlValue::Text(if b { "t" } else { "f" }.into()))
    } else if *ty == Type::TIMESTAMP || *ty == Type::DATE {
        row.try_get::<_, Option<Moment>>(i)?
            .map(|m| SqlValue::Text(m.0))
    } else if *ty == Type::NUMERIC {
        row.try_get::<_, Option<Numeric>>(i)?
            .map(|n| SqlValue::Text(n.0))
    } else {
        row.try_get::<_, Option<String>>(i)
            .map_err(|_| anyhow!("column type {ty} is not read by hakari's PostgreSQL engine through prepared queries"))?
            .map(SqlValue::Text)
    };
    Ok(v.unwrap_or(SqlValue::Null))
}

/// A NUMERIC as its exact decimal text ("-12.50"): money read back without a float between.
struct Numeric(String);

impl<'a> postgres::types::FromSql<'a> for Numeric {
    /// The binary form: digit count, weight (of the first base-10,000 digit), sign, display
    /// scale, then the digits.
    fn from_sql(
        _: &Type,
        raw: &'a [u8],
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let word = |i: usize| -> std::result::Result<i16, String> {
            raw.get(2 * i..2 * i + 2)
                .map(|b| i16::from_be_bytes([b[0], b[1]]))
                .ok_or_else(|| "a NUMERIC shorter than its header says".to_string())
        };
        let (count, weight, sign, scale) = (word(0)?, word(1)?, word(2)? as u16, word(3)?);
        if sign == 0xC000 {
            return Ok(Numeric("NaN".into()));
        }
        if raw.len() < 8 + 2 * count.max(0) as usize {
            return Err("a NUMERIC shorter than its header says".into());
        }
        // Digit k stands for digit(k) * 10000^(weight - k); past the stored ones, 0.
        let digit = |k: i32| -> std::result::Result<i16, String> {
            match k >= 0 && k < i32::from(count) {
                true => word(4 + k as usize),
                false => Ok(0),
            }
        };
        // Written in place, no string made per digit: money is read on every transaction.
        let mut text = String::with_capacity(24);
        if sign == 0x4000 {
            text.push('-');
        }
        if weight < 0 {
            text.push('0');
        } else {
            write!(text, "{}", digit(0)?)?;
            for k in 1..=weight as i32 {
                write!(text, "{:04}", digit(k)?)?;
            }
        }
        if scale > 0 {
            text.push('.');
            let start = text.len();
            let mut k = weight as i32 + 1;
            while text.len() - start < scale as usize {
                write!(text, "{:04}", digit(k)?)?;
                k += 1;
            }
            text.truncate(start + scale as usize);
        }
        Ok(Numeric(text))
    }
    fn accepts(ty: &Type) -> bool {
        *ty == Type::NUMERIC
    }
}

/// A TIMESTAMP or DATE as text ("2026-11-25 07:00:00.123456", "2026-11-25"), as the other
/// engines give them.
struct Moment(String);

impl<'a> postgres::types::FromSql<'a> for Moment {
    /// Microseconds (a TIMESTAMP) or days (a DATE) since 2000-01-01.
    fn from_sql(
        ty: &Type,
        raw: &'a [u8],
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let epoch = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).expect("a valid date");
        if *ty == Type::DATE {
            let days = i32::from_be_bytes(raw.try_into()?);
            let date = epoch + chrono::Duration::days(days.into());
            return Ok(Moment(date.to_string()));
        }
        let micros = i64::from_be_bytes(raw.try_into()?);
        let at =
            epoch.and_hms_opt(0, 0, 0).expect("midnight") + chrono::Duration::microseconds(micros);
        // Display is "%Y-%m-%d %H:%M:%S%.f" without parsing a format on every value.
        Ok(Moment(at.to_string()))
    }
    fn accepts(ty: &Type) -> bool {
        *ty == Type::TIMESTAMP || *ty == Type::DATE
    }
}

/// Text as COPY's text format wants it.
pub(super) fn copy_text(v: &SqlValue, out: &mut Vec<u8>) {
    match v {
        SqlValue::Null => out.extend_from_slice(b"\\N"),
        SqlValue::Int(i) => out.extend_from_slice(i.to_string().as_bytes()),
        SqlValue::Float(f) => out.extend_from_slice(format!("{f:?}").as_bytes()),
        SqlValue::Text(s) => {
            for b in s.bytes() {
                match b {
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\t' => out.extend_from_slice(b"\\t"),
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    b => out.push(b),
                }
            }
        }
        SqlValue::Bytes(bytes) => {
            out.extend_from_slice(b"\\\\x");
            for b in bytes {
                out.extend_from_slice(format!("{b:02x}").as_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_take_the_expected_type_or_go_as_text() {
        // What goes on the wire: the value's bytes, or the error the statement fails with.
        let wire = |v: &SqlValue, ty: &Type| -> std::result::Result<Vec<u8>, String> {
            let mut out = postgres::types::private::BytesMut::new();
            let param = to_param(v, ty);
            param.to_sql(ty, &mut out).map_err(|e| e.to_string())?;
            Ok(out.to_vec())
        };
        let int = SqlValue::Int(7);
        assert!(matches!(to_param(&int, &Type::INT4), Param::I32(7)));
        assert_eq!(wire(&int, &Type::INT4).unwrap(), [0, 0, 0, 7]);
        assert_eq!(wire(&int, &Type::NUMERIC).unwrap(), b"7");
        assert_eq!(wire(&SqlValue::Int(-120), &Type::TEXT).unwrap(), b"-120");
        assert_eq!(wire(&SqlValue::Float(2.5), &Type::NUMERIC).unwrap(), b"2.5");
        assert_eq!(
            wire(&SqlValue::Text("x".into()), &Type::TEXT).unwrap(),
            b"x"
        );
        let far = wire(&SqlValue::Int(1 << 40), &Type::INT4).unwrap_err();
        assert!(far.contains("out of range"), "{far}");
        let bytes = SqlValue::Bytes(vec![0, 0, 0, 7]);
        assert!(matches!(to_param(&bytes, &Type::BYTEA), Param::Bytes(_)));
        assert_eq!(wire(&bytes, &Type::BYTEA).unwrap(), [0, 0, 0, 7]);
        let wrong = wire(&bytes, &Type::INT4).unwrap_err();
        assert!(wrong.contains("byte string"), "{wrong}");
    }

    #[test]
    fn numerics_read_as_their_exact_text() {
        use postgres::types::FromSql;
        let binary =
            |words: &[i16]| -> Vec<u8> { words.iter().flat_map(|w| w.to_be_bytes()).collect() };
        let read = |words: &[i16]| Numeric::from_sql(&Type::NUMERIC, &binary(words)).unwrap().0;
        // count, weight, sign, scale, then base-10,000 digits.
        assert_eq!(read(&[2, 0, 0, 2, 12, 5000]), "12.50");
        assert_eq!(read(&[1, 1, 0, 2, 30]), "300000.00");
        assert_eq!(read(&[1, -1, 0x4000, 4, 1]), "-0.0001");
        assert_eq!(read(&[1, -1, 0, 4, 2000]), "0.2000");
        assert_eq!(read(&[0, 0, 0, 2]), "0.00");
        assert_eq!(read(&[3, 1, 0x4000, 2, 1, 2345, 6700]), "-12345.67");
        assert!(Numeric::from_sql(&Type::NUMERIC, &binary(&[2, 0, 0, 2, 12])).is_err());
        assert!(Numeric::from_sql(&Type::NUMERIC, &binary(&[3, 0, 0, 0, 12])).is_err());
        let micros = (86_400i64 * 366 + 3_661) * 1_000_000 + 500_000;
        let at = Moment::from_sql(&Type::TIMESTAMP, &micros.to_be_bytes())
            .unwrap()
            .0;
        assert_eq!(at, "2001-01-01 01:01:01.500");
        let day = Moment::from_sql(&Type::DATE, &(-1i32).to_be_bytes())
            .unwrap()
            .0;
        assert_eq!(day, "1999-12-31");
    }
}
