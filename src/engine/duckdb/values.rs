//! Values between hakari and DuckDB: parameters in, fetched values out, errors classified.

use crate::engine::kv::Conflict;
use crate::engine::sql::SqlValue;
use ::duckdb::types::{TimeUnit, Value, ValueRef};
use anyhow::{bail, Context, Result};

/// Write-write conflicts between transactions are lost conflicts: the caller retries.
pub(super) fn classify(e: ::duckdb::Error) -> anyhow::Error {
    let text = e.to_string();
    if text.to_ascii_lowercase().contains("conflict") {
        Conflict(text).into()
    } else {
        anyhow::anyhow!("DuckDB: {text}")
    }
}

pub(super) fn to_value(v: &SqlValue) -> Value {
    match v {
        SqlValue::Null => Value::Null,
        SqlValue::Int(i) => Value::BigInt(*i),
        SqlValue::Float(f) => Value::Double(*f),
        SqlValue::Text(s) => Value::Text(s.clone()),
        SqlValue::Bytes(b) => Value::Blob(b.clone()),
    }
}

/// Days since 1970-01-01 as `YYYY-MM-DD`.
pub(super) fn civil(days: i64) -> String {
    crate::results::time::date_of_days(days)
}

pub(super) fn micros(unit: TimeUnit, v: i64) -> i64 {
    match unit {
        TimeUnit::Second => v * 1_000_000,
        TimeUnit::Millisecond => v * 1_000,
        TimeUnit::Microsecond => v,
        TimeUnit::Nanosecond => v / 1_000,
    }
}

/// A fetched value as hakari's: integers and floats as numbers, DECIMAL as a float (so money
/// compares as a number, as PostgreSQL's numeric text does), dates and timestamps as text.
pub(super) fn from_ref(v: ValueRef<'_>) -> Result<SqlValue> {
    Ok(match v {
        ValueRef::Null => SqlValue::Null,
        ValueRef::Boolean(b) => SqlValue::Int(b as i64),
        ValueRef::TinyInt(i) => SqlValue::Int(i.into()),
        ValueRef::SmallInt(i) => SqlValue::Int(i.into()),
        ValueRef::Int(i) => SqlValue::Int(i.into()),
        ValueRef::BigInt(i) => SqlValue::Int(i),
        ValueRef::HugeInt(i) => match i64::try_from(i) {
            Ok(i) => SqlValue::Int(i),
            Err(_) => SqlValue::Float(i as f64),
        },
        ValueRef::UTinyInt(i) => SqlValue::Int(i.into()),
        ValueRef::USmallInt(i) => SqlValue::Int(i.into()),
        ValueRef::UInt(i) => SqlValue::Int(i.into()),
        ValueRef::UBigInt(i) => match i64::try_from(i) {
            Ok(i) => SqlValue::Int(i),
            Err(_) => SqlValue::Float(i as f64),
        },
        ValueRef::Float(f) => SqlValue::Float(f.into()),
        ValueRef::Double(f) => SqlValue::Float(f),
        // Through its text: the nearest double to the exact decimal.
        ValueRef::Decimal(d) => SqlValue::Float(
            d.to_string()
                .parse()
                .with_context(|| format!("DuckDB decimal {d}"))?,
        ),
        ValueRef::Text(t) => SqlValue::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => SqlValue::Bytes(b.to_vec()),
        ValueRef::Date32(days) => SqlValue::Text(civil(days.into())),
        ValueRef::Timestamp(unit, v) => {
            let us = micros(unit, v);
            let (days, rest) = (us.div_euclid(86_400_000_000), us.rem_euclid(86_400_000_000));
            let secs = rest / 1_000_000;
            SqlValue::Text(format!(
                "{} {:02}:{:02}:{:02}.{:06}",
                civil(days),
                secs / 3600,
                secs / 60 % 60,
                secs % 60,
                rest % 1_000_000
            ))
        }
        other => bail!(
            "column type {} is not read by hakari's DuckDB engine",
            other.data_type()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil(0), "1970-01-01");
        assert_eq!(civil(9204), "1995-03-15");
        assert_eq!(civil(-1), "1969-12-31");
    }
}
