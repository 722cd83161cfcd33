//! Order-Status (§2.6), read-only: a customer of the home warehouse (60% by last name), its
//! last order and that order's lines.

use super::payment::Customer;
use super::random::Constants;
use super::statements::{int, n, one_row, Statements};
use crate::engine::sql::SqlConnection;
use anyhow::Result;
use rand::Rng;

pub struct Input {
    pub w: i64,
    pub d: i64,
    pub customer: Customer,
}

pub fn draw(rng: &mut impl Rng, home: i64, c: &Constants) -> Input {
    Input {
        w: home,
        d: rng.random_range(1..=10),
        customer: Customer::draw(rng, c),
    }
}

pub fn run(conn: &mut dyn SqlConnection, st: &Statements, x: &Input) -> Result<()> {
    conn.begin()?;
    let c_id = x.customer.id(conn, st, x.w, x.d)?;
    let key = [n(x.w), n(x.d), n(c_id)];
    one_row(conn, st.get("customer_status"), &key, "customer")?;
    let mut args = key.to_vec();
    args.extend(key.iter().cloned());
    let order = one_row(
        conn,
        st.get("last_order"),
        &args,
        "the customer's last order",
    )?;
    let o_id = int(&order, 0)?;
    let lines = conn.query_prepared(
        st.get("order_lines"),
        &[n(x.w), n(x.d), n(o_id)],
        &mut |_| {},
    )?;
    anyhow::ensure!(
        lines >= 5,
        "order {o_id} of district {} has {lines} lines",
        x.d
    );
    conn.commit()
}
