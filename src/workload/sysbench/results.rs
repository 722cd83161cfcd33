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

    pub fn row(&mut self, row: &Row) {
        let n = self.filled;
        if n == self.rows.len() {
            self.rows.push(Row::with_capacity(row.len()));
        }
        let kept = &mut self.rows[n];
        kept.truncate(row.len());
        for (i, value) in row.iter().enumerate() {
            match (kept.get_mut(i), value) {
                (Some(SqlValue::Text(k)), SqlValue::Text(v)) => {
                    k.clear();
                    k.push_str(v);
                }
                (Some(k), v) => *k = v.clone(),
                (None, v) => kept.push(v.clone()),
            }
        }
        (self.filled, self.nrows, self.nfields) = (n + 1, self.nrows + 1, row.len());
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
