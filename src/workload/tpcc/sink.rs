//! Where the population writes its rows: straight into the text a bulk loader parses (COPY,
//! LOAD DATA), or into values for a loader that binds them. Writing text in place, with no value
//! or string made per field, is what keeps the generating client from taking the cores a server
//! on the same machine loads with.

use super::money::Money;
use crate::engine::sql::{Dialect, Row, SqlValue};

/// A row's values one at a time, in the table's column order, each row ended by `end`.
pub trait Sink {
    fn int(&mut self, v: i64);
    fn null(&mut self);
    fn money(&mut self, m: Money);
    /// A text field, written by `fill` into the string it is given.
    fn text(&mut self, fill: impl FnOnce(&mut String));
    fn end(&mut self);
}

/// Rows as '|'-delimited lines, each ending "|\n", NULL as `\N`: the form every engine's
/// `bulk_load_delimited` takes (the population's text holds no '|', backslash or line break).
pub struct Delimited {
    pub text: String,
    pub rows: u64,
    /// Money as integer units (the dialect keeps no exact decimal), else as decimal text.
    units: bool,
    number: itoa::Buffer,
}

impl Delimited {
    pub fn new(dialect: Dialect, capacity: usize) -> Delimited {
        Delimited {
            text: String::with_capacity(capacity),
            rows: 0,
            units: super::money::in_units(dialect),
            number: itoa::Buffer::new(),
        }
    }
}

impl Sink for Delimited {
    fn int(&mut self, v: i64) {
        self.text.push_str(self.number.format(v));
        self.text.push('|');
    }
    fn null(&mut self) {
        self.text.push_str("\\N|");
    }
    fn money(&mut self, m: Money) {
        match self.units {
            true => self.text.push_str(self.number.format(m.units)),
            false => m.write(&mut self.text),
        }
        self.text.push('|');
    }
    fn text(&mut self, fill: impl FnOnce(&mut String)) {
        fill(&mut self.text);
        self.text.push('|');
    }
    fn end(&mut self) {
        self.text.push('\n');
        self.rows += 1;
    }
}

/// Rows as values, for the loaders that bind them (prepared inserts on SQLite and Berkeley DB
/// SQL, arrays through ODBC, multi-row INSERTs where LOAD DATA LOCAL is refused).
pub struct Values {
    pub rows: Vec<Row>,
    row: Row,
    dialect: Dialect,
}

impl Values {
    pub fn new(dialect: Dialect) -> Values {
        Values {
            rows: Vec::new(),
            row: Vec::new(),
            dialect,
        }
    }
}

impl Sink for Values {
    fn int(&mut self, v: i64) {
        self.row.push(SqlValue::Int(v));
    }
    fn null(&mut self) {
        self.row.push(SqlValue::Null);
    }
    fn money(&mut self, m: Money) {
        self.row.push(m.value(self.dialect));
    }
    fn text(&mut self, fill: impl FnOnce(&mut String)) {
        let mut s = String::new();
        fill(&mut s);
        self.row.push(SqlValue::Text(s));
    }
    fn end(&mut self) {
        let width = self.row.len();
        self.rows
            .push(std::mem::replace(&mut self.row, Vec::with_capacity(width)));
    }
}
