//! libpq's result of one command: its rows read as values typed by their columns, or handed
//! over as they are, the server's text, to be read when asked.

use crate::engine::sql::{Kept, Row, SqlValue, Visit};
use anyhow::{anyhow, bail, Result};
use pq_sys as pq;
use pq_sys::ExecStatusType as Exec;
use std::borrow::Cow;
use std::ffi::{c_char, c_int, CStr};

/// Type OIDs of the columns read as numbers or bytes (the rest are text).
const INT2: u32 = 21;
const INT4: u32 = 23;
const INT8: u32 = 20;
const FLOAT4: u32 = 700;
const FLOAT8: u32 = 701;
const BYTEA: u32 = 17;

/// A command's result, cleared when dropped. libpq's accessors take a null result (out of
/// memory, nothing sent) as a failed one.
pub(super) struct Res(pub(super) *mut pq::PGresult);

impl Drop for Res {
    fn drop(&mut self) {
        // SAFETY: the result is cleared once; PQclear takes null.
        unsafe { pq::PQclear(self.0) }
    }
}

/// `text` owned, or None for null (libpq's strings live as long as their result).
pub(super) fn string(text: *const c_char) -> Option<String> {
    // SAFETY: libpq gives null or a NUL-ended string that outlives this call.
    (!text.is_null()).then(|| {
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    })
}

impl Res {
    pub(super) fn status(&self) -> Exec {
        // SAFETY (for each accessor below): `self.0` is a live result or null, which libpq takes.
        unsafe { pq::PQresultStatus(self.0) }
    }
    /// The command failed (a result kept over those that follow it, as PQexec keeps it).
    pub(super) fn failed(&self) -> bool {
        matches!(
            self.status(),
            Exec::PGRES_FATAL_ERROR | Exec::PGRES_BAD_RESPONSE
        )
    }
    pub(super) fn field(&self, code: u8) -> Option<String> {
        string(unsafe { pq::PQresultErrorField(self.0, code as c_int) })
    }
    pub(super) fn rows(&self) -> usize {
        unsafe { pq::PQntuples(self.0) }.max(0) as usize
    }
    pub(super) fn columns(&self) -> usize {
        unsafe { pq::PQnfields(self.0) }.max(0) as usize
    }
    pub(super) fn column_type(&self, i: usize) -> u32 {
        unsafe { pq::PQftype(self.0, i as c_int) }
    }
    pub(super) fn column_name(&self, i: usize) -> String {
        string(unsafe { pq::PQfname(self.0, i as c_int) }).unwrap_or_default()
    }
    /// The value at row `r`, column `i` (in range), None if null.
    pub(super) fn value(&self, r: usize, i: usize) -> Option<&[u8]> {
        let (r, i) = (r as c_int, i as c_int);
        if unsafe { pq::PQgetisnull(self.0, r, i) } != 0 {
            return None;
        }
        let (at, len) = unsafe { (pq::PQgetvalue(self.0, r, i), pq::PQgetlength(self.0, r, i)) };
        // SAFETY: libpq's value is `len` bytes that live as long as the result.
        Some(unsafe { std::slice::from_raw_parts(at as *const u8, len.max(0) as usize) })
    }
    /// The rows the server changed or returned, as its command tag says (0 for BEGIN and the
    /// like).
    pub(super) fn count(&self) -> u64 {
        let tag = unsafe { pq::PQcmdTuples(self.0) };
        if tag.is_null() {
            return 0;
        }
        // SAFETY: a NUL-ended string that lives as long as the result; read without a copy.
        let digits = unsafe { CStr::from_ptr(tag) }.to_bytes();
        (std::str::from_utf8(digits).ok())
            .and_then(|t| t.parse().ok())
            .unwrap_or(0)
    }
}

/// A read's result handed over as it is, each value as the server sent it (text, or binary
/// where the read asked for it), as sysbench's PostgreSQL driver hands them to a script.
impl Kept for Res {
    fn rows(&self) -> usize {
        Res::rows(self)
    }
    fn columns(&self) -> usize {
        Res::columns(self)
    }
    fn value(&self, r: usize, i: usize) -> Option<Cow<'_, [u8]>> {
        Res::value(self, r, i).map(Cow::Borrowed)
    }
}

/// Each row of `result` to `visit`, its values typed by their columns' types, written over
/// `row` (kept with the connection: a text value keeps its allocation from the row before, so
/// that a statement run again allocates nothing for its rows).
pub(super) fn each_row(result: &Res, row: &mut Row, visit: &mut Visit) -> Result<u64> {
    let columns = result.columns();
    for r in 0..result.rows() {
        // A visitor may have taken the row before.
        if row.len() != columns {
            row.clear();
            row.resize(columns, SqlValue::Null);
        }
        for (i, slot) in row.iter_mut().enumerate() {
            match result.value(r, i) {
                None => *slot = SqlValue::Null,
                Some(text) => typed_into(result.column_type(i), text, slot)?,
            }
        }
        visit(row);
    }
    Ok(result.rows() as u64)
}

/// A value of type `ty` from its text, written over `slot`: integers and floats as numbers,
/// `bytea` from its hex form, the rest as the server wrote them (booleans `t`/`f`, numerics
/// exactly), into the text already in `slot` when there is one (its allocation kept).
fn typed_into(ty: u32, text: &[u8], slot: &mut SqlValue) -> Result<()> {
    let s = std::str::from_utf8(text).map_err(|_| anyhow!("a value that is not UTF-8"))?;
    *slot = match ty {
        INT2 | INT4 | INT8 => SqlValue::Int(s.parse()?),
        FLOAT4 | FLOAT8 => SqlValue::Float(s.parse()?),
        BYTEA => {
            let Some(hex) = s.strip_prefix("\\x").filter(|h| h.len() % 2 == 0) else {
                bail!("a bytea value not in hex form: {s:.20}");
            };
            let digit = |i: usize| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16);
            SqlValue::Bytes((0..hex.len() / 2).map(digit).collect::<Result<_, _>>()?)
        }
        _ => match slot {
            SqlValue::Text(kept) => {
                kept.clear();
                kept.push_str(s);
                return Ok(());
            }
            _ => SqlValue::Text(s.to_string()),
        },
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(ty: u32, text: &[u8]) -> Result<SqlValue> {
        let mut value = SqlValue::Null;
        typed_into(ty, text, &mut value)?;
        Ok(value)
    }

    #[test]
    fn values_are_typed_by_their_columns() {
        assert_eq!(typed(INT8, b"-42").unwrap(), SqlValue::Int(-42));
        assert_eq!(typed(FLOAT8, b"2.5").unwrap(), SqlValue::Float(2.5));
        assert_eq!(
            typed(BYTEA, b"\\x00ff").unwrap(),
            SqlValue::Bytes(vec![0, 255])
        );
        assert_eq!(typed(16, b"t").unwrap(), SqlValue::Text("t".into()));
        assert!(typed(INT4, b"x").is_err());
        assert!(typed(BYTEA, b"\\x0").is_err());
        // Written over the value before: text over text, a number over text.
        let mut slot = SqlValue::Text("longer".into());
        typed_into(25, b"ab", &mut slot).unwrap();
        assert_eq!(slot, SqlValue::Text("ab".into()));
        typed_into(INT4, b"3", &mut slot).unwrap();
        assert_eq!(slot, SqlValue::Int(3));
    }
}
