//! Where a source writes its rows: straight into the text a bulk loader parses (COPY, LOAD
//! DATA, DuckDB's CSV reader), or into values for a loader that binds them. Writing text in
//! place, with no value or string made per field, is what keeps the generating client from
//! taking the cores a server on the same machine loads with.

use crate::engine::sql::{Row, SqlValue};

/// A row's values one at a time, in the table's column order, each row ended by `end`.
pub trait Sink {
    fn int(&mut self, v: i64);
    fn null(&mut self);
    /// An exact decimal: `units` of 10^-`scale` (cents at scale 2).
    fn decimal(&mut self, units: i64, scale: u32);
    /// A text field, written by `fill` into the string it is given.
    fn text(&mut self, fill: impl FnOnce(&mut String));
    /// A CHAR(`n`) field of blanks (a record's filler): as text, nothing where the engine pads
    /// CHAR with blanks itself (`Capabilities::pads_char`), so no byte of it is sent.
    fn blanks(&mut self, n: usize);
    fn end(&mut self);
}

/// Appends `units` of 10^-`scale` to `out` as decimal text: `12.50`, `-0.0100`.
pub fn write_decimal(units: i64, scale: u32, out: &mut String) {
    let unit = 10i64.pow(scale);
    if units < 0 {
        out.push('-');
    }
    let (whole, part) = (units.abs() / unit, units.abs() % unit);
    out.push_str(itoa::Buffer::new().format(whole));
    out.push('.');
    let mut digits = itoa::Buffer::new();
    let part = digits.format(part);
    (part.len()..scale as usize).for_each(|_| out.push('0'));
    out.push_str(part);
}

/// How a sink writes what an engine stores its own way.
#[derive(Clone, Copy, Debug, Default)]
pub struct Forms {
    /// Decimals as integer units (the schema keeps no exact decimal), else as decimal text.
    pub units: bool,
    /// The engine pads CHAR(n) with blanks: a text filler is sent empty.
    pub pads_char: bool,
}

/// Rows as '|'-delimited lines, each ending "|\n", NULL as `\N`: the form every engine's
/// `bulk_load_delimited` takes (the sources' text holds no '|', backslash or line break).
pub struct Delimited {
    pub text: String,
    pub rows: u64,
    forms: Forms,
    number: itoa::Buffer,
}

impl Delimited {
    pub fn new(forms: Forms, capacity: usize) -> Delimited {
        Delimited {
            text: String::with_capacity(capacity),
            rows: 0,
            forms,
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
    fn decimal(&mut self, units: i64, scale: u32) {
        match self.forms.units {
            true => self.text.push_str(self.number.format(units)),
            false => write_decimal(units, scale, &mut self.text),
        }
        self.text.push('|');
    }
    fn text(&mut self, fill: impl FnOnce(&mut String)) {
        fill(&mut self.text);
        self.text.push('|');
    }
    fn blanks(&mut self, n: usize) {
        if !self.forms.pads_char {
            push_blanks(&mut self.text, n);
        }
        self.text.push('|');
    }
    fn end(&mut self) {
        self.text.push('\n');
        self.rows += 1;
    }
}

/// Rows as values, for the loaders that bind them (prepared inserts on SQLite and Berkeley DB
/// SQL, arrays through ODBC, multi-row INSERTs where LOAD DATA LOCAL is refused). A part is
/// kept compactly (its text in one string) and each row made only as the engine takes it
/// (`into_rows`): a row's values are allocated and freed before the next row's, where the
/// allocator reuses them at once (a part's rows made all at once cost SQLite's tpcb load 8%).
pub struct Values {
    fields: Vec<Field>,
    text: String,
    /// Where each row's fields end in `fields`.
    ends: Vec<usize>,
    forms: Forms,
}

/// A field as recorded: text as a range of the part's string.
enum Field {
    Int(i64),
    Null,
    Decimal(i64, u32),
    Text(usize, usize),
    Blanks(usize),
}

impl Values {
    /// Values for about `rows` rows.
    pub fn new(forms: Forms, rows: usize) -> Values {
        Values {
            fields: Vec::with_capacity(rows * 4),
            text: String::new(),
            ends: Vec::with_capacity(rows),
            forms,
        }
    }

    /// The rows, each made as it is taken.
    pub fn into_rows(mut self) -> impl Iterator<Item = Row> {
        let ends = std::mem::take(&mut self.ends);
        let mut start = 0;
        ends.into_iter().map(move |end| {
            let row = (self.fields[start..end].iter())
                .map(|f| match *f {
                    Field::Int(v) => SqlValue::Int(v),
                    Field::Null => SqlValue::Null,
                    Field::Decimal(units, _) if self.forms.units => SqlValue::Int(units),
                    Field::Decimal(units, scale) => {
                        let mut text = String::with_capacity(16);
                        write_decimal(units, scale, &mut text);
                        SqlValue::Text(text)
                    }
                    Field::Text(from, to) => SqlValue::Text(self.text[from..to].to_string()),
                    Field::Blanks(n) => {
                        let mut text = String::with_capacity(n);
                        push_blanks(&mut text, n);
                        SqlValue::Text(text)
                    }
                })
                .collect();
            start = end;
            row
        })
    }
}

/// Appends `n` blanks to `out`: pieces of [`SPACES`] (`str::repeat` copies its way up in
/// doubling pieces and a blank at a time is slower still: either cost SQLite's tpcb load a
/// tenth).
fn push_blanks(out: &mut String, n: usize) {
    let mut left = n;
    while left > 0 {
        let piece = left.min(SPACES.len());
        out.push_str(&SPACES[..piece]);
        left -= piece;
    }
}

/// Blanks enough for a record's filler.
const SPACES: &str = concat!(
    "                                                                ",
    "                                                                ",
    "                                                                ",
    "                                                                "
);

impl Sink for Values {
    fn int(&mut self, v: i64) {
        self.fields.push(Field::Int(v));
    }
    fn null(&mut self) {
        self.fields.push(Field::Null);
    }
    fn decimal(&mut self, units: i64, scale: u32) {
        self.fields.push(Field::Decimal(units, scale));
    }
    fn text(&mut self, fill: impl FnOnce(&mut String)) {
        let from = self.text.len();
        fill(&mut self.text);
        self.fields.push(Field::Text(from, self.text.len()));
    }
    fn blanks(&mut self, n: usize) {
        self.fields.push(Field::Blanks(n));
    }
    fn end(&mut self) {
        self.ends.push(self.fields.len());
    }
}
