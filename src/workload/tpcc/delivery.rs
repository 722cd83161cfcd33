//! Delivery (§2.7), run inline as one transaction: in each of the home warehouse's ten
//! districts the oldest undelivered order is delivered (a district with none is skipped).

use super::money::Money;
use super::statements::{int, n, one_row, Statements};
use crate::engine::kv::Conflict;
use crate::engine::sql::{SqlConnection, SqlValue};
use anyhow::Result;
use rand::Rng;

pub struct Input {
    pub w: i64,
    pub carrier: i64,
}

pub fn draw(rng: &mut impl Rng, home: i64) -> Input {
    Input {
        w: home,
        carrier: rng.random_range(1..=10),
    }
}

/// Returns the districts skipped for want of an undelivered order.
pub fn run(conn: &mut dyn SqlConnection, st: &Statements, x: &Input) -> Result<u64> {
    let w = n(x.w);
    let mut skipped = 0;
    conn.begin()?;
    for d in 1..=10 {
        let d = n(d);
        let oldest = one_row(
            conn,
            st.get("oldest_new_order"),
            &[w.clone(), d.clone()],
            "new_order",
        )?;
        if oldest[0] == SqlValue::Null {
            skipped += 1;
            continue;
        }
        let o_id = n(int(&oldest, 0)?);
        let key = [w.clone(), d.clone(), o_id.clone()];
        if conn.exec_prepared(st.get("delete_new_order"), &key)? != 1 {
            // Another terminal delivered it first: start again from the oldest left.
            return Err(Conflict("another Delivery took the same order".into()).into());
        }
        let customer = one_row(conn, st.get("order_customer"), &key, "order")?;
        let mut carrier = vec![n(x.carrier)];
        carrier.extend(key.iter().cloned());
        conn.exec_prepared(st.get("order_carrier"), &carrier)?;
        conn.exec_prepared(st.get("lines_delivered"), &key)?;
        let sum = one_row(conn, st.get("lines_amount"), &key, "order lines")?;
        let sum = Money::read(&sum[0], st.dialect, 2)?;
        let paid = [sum.value(st.dialect), w.clone(), d, customer[0].clone()];
        conn.exec_prepared(st.get("customer_delivered"), &paid)?;
    }
    conn.commit()?;
    Ok(skipped)
}
