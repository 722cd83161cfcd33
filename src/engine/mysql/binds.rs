//! The buffers a prepared statement's values pass through in libmariadb: its parameters'
//! ([`Inputs`]), bound once and written in place, and its result columns' ([`Outputs`]), one
//! buffer per column, read into a row after each fetch.

use crate::engine::sql::SqlValue;
use my::enum_field_types as Type;
use mysqlclient_sys as my;
use std::ffi::{c_uint, c_ulong};

/// A column's flag: its integers are unsigned.
const UNSIGNED: c_uint = 32;

/// A zeroed bind: the library's own initial state (null pointers, no type).
fn unbound() -> my::MYSQL_BIND {
    // SAFETY: MYSQL_BIND is plain C data for which all-zero bytes are its documented reset.
    unsafe { std::mem::zeroed() }
}

/// How a result column is fetched.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Fetch {
    Int {
        unsigned: bool,
    },
    Float,
    /// DECIMAL: read as text, kept as the number it is.
    Decimal,
    Text,
}

/// What a result column's value is read into, one buffer per column, kept between executions.
pub(super) struct Outputs {
    pub(super) binds: Vec<my::MYSQL_BIND>,
    pub(super) fetch: Vec<Fetch>,
    ints: Vec<i64>,
    floats: Vec<f64>,
    pub(super) texts: Vec<Vec<u8>>,
    pub(super) lengths: Vec<c_ulong>,
    nulls: Vec<my::my_bool>,
    errors: Vec<my::my_bool>,
}

impl Outputs {
    pub(super) fn new(fetch: Vec<Fetch>, sizes: Vec<usize>) -> Outputs {
        let n = fetch.len();
        Outputs {
            binds: (0..n).map(|_| unbound()).collect(),
            ints: vec![0; n],
            floats: vec![0.0; n],
            texts: sizes.into_iter().map(|s| vec![0; s]).collect(),
            lengths: vec![0; n],
            nulls: vec![my::FALSE; n],
            errors: vec![my::FALSE; n],
            fetch,
        }
    }

    /// Points column `i`'s bind at its buffers (after a buffer grew, or before a fetch).
    pub(super) fn point(&mut self, i: usize) {
        let b = &mut self.binds[i];
        *b = unbound();
        b.length = &mut self.lengths[i];
        b.is_null = &mut self.nulls[i];
        b.error = &mut self.errors[i];
        match self.fetch[i] {
            Fetch::Int { unsigned } => {
                b.buffer_type = Type::MYSQL_TYPE_LONGLONG;
                b.buffer = (&mut self.ints[i] as *mut i64).cast();
                b.is_unsigned = if unsigned { my::TRUE } else { my::FALSE };
            }
            Fetch::Float => {
                b.buffer_type = Type::MYSQL_TYPE_DOUBLE;
                b.buffer = (&mut self.floats[i] as *mut f64).cast();
            }
            Fetch::Decimal | Fetch::Text => {
                b.buffer_type = Type::MYSQL_TYPE_STRING;
                b.buffer = self.texts[i].as_mut_ptr().cast();
                b.buffer_length = self.texts[i].len() as c_ulong;
            }
        }
    }

    /// Column `i` of the row just fetched, written over `slot` (a text slot keeps its
    /// allocation): numbers as numbers, DECIMAL as the number its text reads, the rest as text
    /// as the server sent it (bytes when it is not UTF-8).
    pub(super) fn read(&self, i: usize, slot: &mut SqlValue) {
        if self.nulls[i] != my::FALSE {
            *slot = SqlValue::Null;
            return;
        }
        *slot = match self.fetch[i] {
            Fetch::Int { unsigned: false } => SqlValue::Int(self.ints[i]),
            Fetch::Int { unsigned: true } => {
                let u = self.ints[i] as u64;
                i64::try_from(u).map_or(SqlValue::Float(u as f64), SqlValue::Int)
            }
            Fetch::Float => SqlValue::Float(self.floats[i]),
            Fetch::Decimal | Fetch::Text => {
                let bytes = &self.texts[i][..self.lengths[i] as usize];
                match (std::str::from_utf8(bytes), self.fetch[i], &mut *slot) {
                    (Ok(t), Fetch::Text, SqlValue::Text(kept)) => {
                        kept.clear();
                        kept.push_str(t);
                        return;
                    }
                    _ => text_value(self.fetch[i], bytes),
                }
            }
        };
    }
}

/// A value the server sent as text, as a column fetched as `fetch` holds it: numbers parsed,
/// text kept as it came (bytes when it is not UTF-8).
pub(super) fn text_value(fetch: Fetch, bytes: &[u8]) -> SqlValue {
    let Ok(t) = std::str::from_utf8(bytes) else {
        return SqlValue::Bytes(bytes.to_vec());
    };
    match fetch {
        Fetch::Int { .. } | Fetch::Float | Fetch::Decimal => SqlValue::from_text(t),
        Fetch::Text => SqlValue::Text(t.to_string()),
    }
}

/// How a column is fetched: integers and floats as numbers, the rest as text.
pub(super) fn fetch_of(field: &my::MYSQL_FIELD) -> Fetch {
    match field.type_ {
        Type::MYSQL_TYPE_TINY
        | Type::MYSQL_TYPE_SHORT
        | Type::MYSQL_TYPE_LONG
        | Type::MYSQL_TYPE_INT24
        | Type::MYSQL_TYPE_LONGLONG
        | Type::MYSQL_TYPE_YEAR => Fetch::Int {
            unsigned: field.flags & UNSIGNED != 0,
        },
        Type::MYSQL_TYPE_FLOAT | Type::MYSQL_TYPE_DOUBLE => Fetch::Float,
        Type::MYSQL_TYPE_DECIMAL | Type::MYSQL_TYPE_NEWDECIMAL => Fetch::Decimal,
        _ => Fetch::Text,
    }
}

/// What a statement's parameters are sent from, kept with it between executions, as sysbench's
/// driver keeps its binds: libmariadb reads each value through its bind when the statement
/// runs, so the binds are made again only when a parameter's type changes or its text outgrows
/// its buffer. Binding again also makes libmariadb send the parameters' types with the next
/// execution, which a statement bound once sends only with its first.
#[derive(Default)]
pub(super) struct Inputs {
    pub(super) binds: Vec<my::MYSQL_BIND>,
    pub(super) types: Vec<Type>,
    numbers: Vec<[u8; 8]>,
    texts: Vec<Vec<u8>>,
    lengths: Vec<c_ulong>,
}

impl Inputs {
    /// Writes `values` where the binds point; true when the binds must be made again (the
    /// first time, or a type or a text buffer changed).
    pub(super) fn set(&mut self, values: &[SqlValue]) -> bool {
        let n = values.len();
        let mut changed = n != self.types.len();
        if changed {
            self.types = vec![Type::MYSQL_TYPE_NULL; n];
            self.numbers = vec![[0; 8]; n];
            self.texts.resize_with(n, Vec::new);
            self.lengths = vec![0; n];
        }
        for (i, v) in values.iter().enumerate() {
            let kind = match v {
                SqlValue::Null => Type::MYSQL_TYPE_NULL,
                SqlValue::Int(x) => {
                    self.numbers[i] = x.to_ne_bytes();
                    Type::MYSQL_TYPE_LONGLONG
                }
                SqlValue::Float(x) => {
                    self.numbers[i] = x.to_ne_bytes();
                    Type::MYSQL_TYPE_DOUBLE
                }
                SqlValue::Text(t) => {
                    changed |= self.copy(i, t.as_bytes());
                    Type::MYSQL_TYPE_STRING
                }
                SqlValue::Bytes(x) => {
                    changed |= self.copy(i, x);
                    Type::MYSQL_TYPE_BLOB
                }
            };
            changed |= std::mem::replace(&mut self.types[i], kind) != kind;
        }
        changed
    }

    /// Copies `bytes` into parameter `i`'s buffer; true when the buffer moved.
    fn copy(&mut self, i: usize, bytes: &[u8]) -> bool {
        let buffer = &mut self.texts[i];
        let before = buffer.as_ptr();
        buffer.clear();
        buffer.extend_from_slice(bytes);
        self.lengths[i] = bytes.len() as c_ulong;
        buffer.as_ptr() != before
    }

    /// Points the binds at the buffers: numbers at their 8 bytes, text at its buffer and length.
    pub(super) fn point(&mut self) {
        self.binds.clear();
        for i in 0..self.types.len() {
            let mut b = unbound();
            b.buffer_type = self.types[i];
            match self.types[i] {
                Type::MYSQL_TYPE_NULL => {}
                Type::MYSQL_TYPE_LONGLONG | Type::MYSQL_TYPE_DOUBLE => {
                    b.buffer = self.numbers[i].as_mut_ptr().cast();
                    b.buffer_length = 8;
                }
                _ => {
                    b.buffer = self.texts[i].as_mut_ptr().cast();
                    b.buffer_length = self.texts[i].capacity() as c_ulong;
                    b.length = &mut self.lengths[i];
                }
            }
            self.binds.push(b);
        }
    }
}
