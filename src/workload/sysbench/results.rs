//! What a connection's last statement returned, kept with the connection as sysbench's driver
//! keeps it, and the script's view of it (`rs.nrows`, `rs:fetch_row()`).

use crate::engine::sql::Kept;
use mlua::{UserData, UserDataFields, UserDataMethods};
use std::cell::RefCell;
use std::rc::Rc;

/// What a statement returned: a read's rows as the driver keeps them, or the rows changed.
#[derive(Default)]
pub struct Results {
    /// The last read's rows (none after anything else, or once freed).
    kept: Option<Box<dyn Kept>>,
    /// The row `fetch_row` gives next.
    next: usize,
    pub nrows: u64,
    nfields: usize,
}

impl Results {
    pub fn changed(&mut self, n: u64) {
        (self.kept, self.next, self.nrows, self.nfields) = (None, 0, n, 0);
    }

    /// A read of `n` rows that no one can fetch: what sysbench's MySQL driver makes of a
    /// prepared statement's rows (`nrows` counts them, `nfields` is 0, `fetch_row` gives nil).
    pub fn unread(&mut self, n: u64) {
        self.changed(n);
    }

    /// A read whose rows the script may fetch, each value made into a Lua string only then.
    pub fn read(&mut self, kept: Box<dyn Kept>) {
        (self.next, self.nrows, self.nfields) = (0, kept.rows() as u64, kept.columns());
        self.kept = Some(kept);
    }
}

/// The script's view of a connection's results (`rs.nrows`, `rs:fetch_row()`).
pub struct ResultSet(pub Rc<RefCell<Results>>);

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
            let r = results.next;
            let Some(kept) = results.kept.as_ref().filter(|k| r < k.rows()) else {
                return Ok(None);
            };
            // As sysbench hands them over: the bytes the client library holds (NULL is nil).
            let t = lua.create_table_with_capacity(kept.columns(), 0)?;
            for i in 0..kept.columns() {
                t.raw_set(
                    i + 1,
                    kept.value(r, i).map(|v| lua.create_string(v)).transpose()?,
                )?;
            }
            results.next += 1;
            Ok(Some(t))
        });
        methods.add_method("free", |_, this, ()| {
            this.0.borrow_mut().kept = None;
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sql::{Row, SqlValue};

    /// A read's figures are its own rows'; anything after it leaves nothing to fetch.
    #[test]
    fn a_read_keeps_its_own_rows_until_the_next_statement() {
        let text = |s: &str| SqlValue::Text(s.into());
        let mut results = Results::default();
        let rows: Vec<Row> = vec![
            vec![SqlValue::Int(1), text("a"), SqlValue::Null],
            vec![
                SqlValue::Float(2.5),
                text("b"),
                SqlValue::Bytes(b"c".to_vec()),
            ],
        ];
        results.read(Box::new(rows));
        assert_eq!((results.nrows, results.nfields), (2, 3));
        let kept = results.kept.as_ref().unwrap();
        let texts: Vec<Option<Vec<u8>>> = (0..2)
            .flat_map(|r| (0..3).map(move |i| (r, i)))
            .map(|(r, i)| kept.value(r, i).map(|t| t.into_owned()))
            .collect();
        let b = |s: &str| Some(s.as_bytes().to_vec());
        assert_eq!(texts, [b("1"), b("a"), None, b("2.5"), b("b"), b("c")]);
        results.read(Box::new(Vec::<Row>::new()));
        assert_eq!((results.nrows, results.nfields), (0, 0));
        results.changed(5);
        assert_eq!((results.nrows, results.nfields), (5, 0));
        assert!(results.kept.is_none());
    }
}
