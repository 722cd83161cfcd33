//! Values between hakari and PostgreSQL: parameters converted to the types the server expects,
//! columns read back (NUMERIC as exact text, timestamps as text), rows as COPY's text format.

use crate::engine::sql::SqlValue;
use anyhow::{anyhow, Result};
use postgres::types::{ToSql, Type};

/// A parameter converted to the type the server expects for it.
pub(super) fn to_param(v: &SqlValue, ty: &Type) -> Result<Box<dyn ToSql + Sync>> {
    Ok(match (v, ty) {
        // NULL fits any type, as pgbench's NULL parameter does (a typed None would not).
        (SqlValue::Null, _) => Box::new(AsText(None)),
        (SqlValue::Int(i), t) if *t == Type::INT2 => Box::new(i16::try_from(*i)?),
        (SqlValue::Int(i), t) if *t == Type::INT4 => Box::new(i32::try_from(*i)?),
        (SqlValue::Int(i), t) if *t == Type::INT8 => Box::new(*i),
        (SqlValue::Int(i), t) if *t == Type::FLOAT8 => Box::new(*i as f64),
        (SqlValue::Int(i), t) if *t == Type::FLOAT4 => Box::new(*i as f32),
        (SqlValue::Int(i), t) if *t == Type::TEXT || *t == Type::VARCHAR || *t == Type::BPCHAR => {
            Box::new(i.to_string())
        }
        (SqlValue::Int(i), t) if *t == Type::BOOL => Box::new(*i != 0),
        (SqlValue::Float(f), t) if *t == Type::FLOAT4 => Box::new(*f as f32),
        (SqlValue::Float(f), t) if *t == Type::FLOAT8 => Box::new(*f),
        (SqlValue::Text(s), t) if *t == Type::TEXT || *t == Type::VARCHAR || *t == Type::BPCHAR => {
            Box::new(s.clone())
        }
        (SqlValue::Bytes(b), t) if *t == Type::BYTEA => Box::new(b.clone()),
        // Any other pairing goes as text for the server to read (numeric, dates, a number
        // into a text column's comparison), as psql and pgbench send every parameter.
        (SqlValue::Int(i), _) => Box::new(AsText(Some(i.to_string()))),
        (SqlValue::Float(f), _) => Box::new(AsText(Some(f.to_string()))),
        (SqlValue::Text(s), _) => Box::new(AsText(Some(s.clone()))),
        (SqlValue::Bytes(b), _) => Box::new(b.clone()),
    })
}

/// A parameter sent in text format, read by the server as its type's input (None: NULL).
#[derive(Debug)]
struct AsText(Option<String>);

impl ToSql for AsText {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> std::result::Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>>
    {
        match &self.0 {
            Some(text) => {
                out.extend_from_slice(text.as_bytes());
                Ok(postgres::types::IsNull::No)
            }
            None => Ok(postgres::types::IsNull::Yes),
        }
    }
    fn accepts(_: &Type) -> bool {
        true
    }
    fn encode_format(&self, _: &Type) -> postgres::types::Format {
        postgres::types::Format::Text
    }
    postgres::types::to_sql_checked!();
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
        let digits: Vec<i16> = (0..count.max(0) as usize)
            .map(|i| word(4 + i))
            .collect::<std::result::Result<_, _>>()?;
        // Digit k stands for digits[k] * 10000^(weight - k).
        let digit = |k: i32| -> i16 {
            usize::try_from(k)
                .ok()
                .and_then(|k| digits.get(k).copied())
                .unwrap_or(0)
        };
        let mut text = String::new();
        if sign == 0x4000 {
            text.push('-');
        }
        if weight < 0 {
            text.push('0');
        } else {
            text.push_str(&digit(0).to_string());
            for k in 1..=weight as i32 {
                text.push_str(&format!("{:04}", digit(k)));
            }
        }
        if scale > 0 {
            let mut fraction = String::new();
            let mut k = weight as i32 + 1;
            while fraction.len() < scale as usize {
                fraction.push_str(&format!("{:04}", digit(k)));
                k += 1;
            }
            fraction.truncate(scale as usize);
            text.push('.');
            text.push_str(&fraction);
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
        Ok(Moment(at.format("%Y-%m-%d %H:%M:%S%.f").to_string()))
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
