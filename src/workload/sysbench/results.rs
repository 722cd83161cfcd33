//! What a connection's last statement returned, kept with the connection as sysbench's driver
//! keeps it, and the script's view of it (`rs.nrows`, `rs:fetch_row()`).

use crate::engine::sql::{Row, SqlValue};
use mlua::{UserData, UserDataFields, UserDataMethods};
use std::cell::RefCell;
use std::rc::Rc;

/// What a statement returned: rows for a read, the rows changed for anything else.
#[derive(Default)]
pub struct Results {
    /// The rows read, then rows kept from longer reads for their allocations.
    rows: Vec<Row>,
    /// How many of `rows` the last statement read.
    filled: usize,
    next: usize,
    pub nrows: u64,
    nfields: usize,
}

impl Results {
    pub fn changed(&mut self, n: u64) {
        (self.next, self.filled, self.nrows, self.nfields) = (0, 0, n, 0);
    }

    /// A read of `n` rows that no one can fetch: what sysbench's MySQL driver makes of a
    /// prepared statement's rows (`nrows` counts them, `nfields` is 0, `fetch_row` gives nil).
    pub fn unread(&mut self, n: u64) {
        self.changed(n);
    }

    pub fn read(&mut self, rows: Vec<Row>) {
        self.nfields = rows.first().map_or(0, Vec::len);
        (self.next, self.filled, self.nrows) = (0, rows.len(), rows.len() as u64);
        self.rows = rows;
    }

    /// Starts a read whose rows come one by one ([`Results::row`]): the last read's rows are
    /// written over, so that a statement run again allocates nothing new for them.
    pub fn start(&mut self) {
        (self.next, self.filled, self.nrows, self.nfields) = (0, 0, 0, 0);
    }

    /// Takes the row the driver just read, leaving it the row in this slot from an earlier
    /// read (the drivers write every value over the row they are handed): no copy, and a
    /// statement run again allocates nothing new for its rows.
    pub fn row(&mut self, row: &mut Row) {
        let n = self.filled;
        if n == self.rows.len() {
            self.rows.push(Row::new());
        }
        std::mem::swap(&mut self.rows[n], row);
        (self.filled, self.nrows, self.nfields) = (n + 1, self.nrows + 1, self.rows[n].len());
    }
}

/// The script's view of a connection's results (`rs.nrows`, `rs:fetch_row()`).
pub struct ResultSet(pub Rc<RefCell<Results>>);

/// A value as sysbench hands it to a script: text (NULL is nil).
fn text(v: &SqlValue) -> Option<String> {
    match v {
        SqlValue::Null => None,
        SqlValue::Int(i) => Some(i.to_string()),
        SqlValue::Float(f) => Some(f.to_string()),
        SqlValue::Text(s) => Some(s.clone()),
        SqlValue::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
    }
}

impl UserData for ResultSet {
    fn add_fields<F: UserDataFields<Self>>(fields: &mut F) {
        fields.add_field_method_get("nrows", |_, this| Ok(this.0.borrow().nrows));
        fields.add_field_method_get("nfields", |_, this| Ok(this.0.borrow().nfields));
    }

    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("fetch_row", |lua, this, ()| {
            let mut results = this.0.borrow_mut();
            if results.nrows == 0 || results.nfields == 0 {
                // sysbench's own line, printed where the script's lines go.
                let print: mlua::Function = lua.globals().get("print")?;
                print.call::<()>("ALERT: attempt to fetch row from an empty result set")?;
                return Ok(None);
            }
            let Some(row) = (results.next < results.filled).then(|| &results.rows[results.next])
            else {
                return Ok(None);
            };
            let t = lua.create_table()?;
            for (i, v) in row.iter().enumerate() {
                t.raw_set(i + 1, text(v))?;
            }
            results.next += 1;
            Ok(Some(t))
        });
        methods.add_method("free", |_, this, ()| {
            this.0.borrow_mut().filled = 0;
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each read keeps exactly its own rows, whatever rows the driver is handed back.
    #[test]
    fn a_read_keeps_its_own_rows() {
        let text = |s: &str| SqlValue::Text(s.into());
        let mut results = Results::default();
        let mut driver_row: Row = Vec::new();
        let mut read = |results: &mut Results, rows: &[Row]| {
            results.start();
            for r in rows {
                driver_row.clear();
                driver_row.extend(r.iter().cloned());
                results.row(&mut driver_row);
            }
        };
        let first = [
            vec![SqlValue::Int(1), text("a")],
            vec![SqlValue::Int(2), text("b")],
        ];
        read(&mut results, &first);
        assert_eq!((results.nrows, results.nfields), (2, 2));
        assert_eq!(&results.rows[..results.filled], &first);
        let second = [vec![text("only")]];
        read(&mut results, &second);
        assert_eq!((results.nrows, results.nfields), (1, 1));
        assert_eq!(&results.rows[..results.filled], &second);
        results.changed(5);
        assert_eq!((results.nrows, results.filled), (5, 0));
    }
}
