//! Payment (§2.5): a customer pays at a district of the home warehouse; 15% of customers
//! belong to another warehouse, 60% are found by last name. Every update is relative.

use super::money::Money;
use super::random::{nurand, run_last_name, Constants};
use super::statements::{int, n, one_row, text, Statements};
use super::terminal::other_warehouse;
use crate::engine::sql::{SqlConnection, SqlValue};
use anyhow::{bail, Result};
use rand::Rng;

/// A customer as a transaction names it.
pub enum Customer {
    Id(i64),
    Name(String),
}

impl Customer {
    /// 60% by last name (NURand with the run's C), by id otherwise (§2.5.1.2).
    pub fn draw(rng: &mut impl Rng, c: &Constants) -> Customer {
        match rng.random_range(1..=100) <= 60 {
            true => Customer::Name(run_last_name(rng, c)),
            false => Customer::Id(nurand(rng, 1023, 1, 3000, c.c_id)),
        }
    }

    pub fn by_name(&self) -> bool {
        matches!(self, Customer::Name(_))
    }

    /// The customer's id: by name, the middle one of those ordered by first name, ⌈n/2⌉.
    pub fn id(&self, conn: &mut dyn SqlConnection, st: &Statements, w: i64, d: i64) -> Result<i64> {
        let name = match self {
            Customer::Id(id) => return Ok(*id),
            Customer::Name(name) => name,
        };
        let mut ids = Vec::new();
        let args = [n(w), n(d), SqlValue::Text(name.clone())];
        conn.query_prepared(st.get("customers_by_name"), &args, &mut |row| {
            ids.push(row[0].clone())
        })?;
        if ids.is_empty() {
            bail!("no customer named {name} in district {d} of warehouse {w}");
        }
        int(&[ids[(ids.len() - 1) / 2].clone()], 0)
    }
}

pub struct Input {
    pub w: i64,
    pub d: i64,
    pub c_w: i64,
    pub c_d: i64,
    pub customer: Customer,
    pub amount: Money,
}

pub fn draw(rng: &mut impl Rng, home: i64, warehouses: i64, c: &Constants) -> Input {
    let d = rng.random_range(1..=10);
    let (c_w, c_d) = match warehouses > 1 && rng.random_range(1..=100) > 85 {
        true => (
            other_warehouse(rng, home, warehouses),
            rng.random_range(1..=10),
        ),
        false => (home, d),
    };
    Input {
        w: home,
        d,
        c_w,
        c_d,
        customer: Customer::draw(rng, c),
        amount: Money::cents(rng.random_range(100..=500_000)),
    }
}

pub fn run(conn: &mut dyn SqlConnection, st: &Statements, x: &Input) -> Result<()> {
    let dialect = st.dialect;
    let amount = x.amount.value(dialect);
    let (w, d) = (n(x.w), n(x.d));
    conn.begin()?;
    conn.exec_prepared(st.get("warehouse_pay"), &[amount.clone(), w.clone()])?;
    let warehouse = one_row(
        conn,
        st.get("warehouse_name"),
        std::slice::from_ref(&w),
        "warehouse",
    )?;
    conn.exec_prepared(
        st.get("district_pay"),
        &[amount.clone(), w.clone(), d.clone()],
    )?;
    let district = one_row(
        conn,
        st.get("district_name"),
        &[w.clone(), d.clone()],
        "district",
    )?;
    let c_id = x.customer.id(conn, st, x.c_w, x.c_d)?;
    let key = [n(x.c_w), n(x.c_d), n(c_id)];
    let customer = one_row(conn, st.get("customer_pay"), &key, "customer")?;
    if text(&customer, 10) == "BC" {
        let data = one_row(conn, st.get("customer_data"), &key, "customer")?;
        let mut data = format!(
            "{c_id} {} {} {} {} {}|{}",
            x.c_d,
            x.c_w,
            x.d,
            x.w,
            x.amount.text(),
            text(&data, 0)
        );
        data.truncate(500);
        let mut args = vec![amount.clone(), amount.clone(), SqlValue::Text(data)];
        args.extend(key.iter().cloned());
        conn.exec_prepared(st.get("customer_paid_data"), &args)?;
    } else {
        let mut args = vec![amount.clone(), amount.clone()];
        args.extend(key.iter().cloned());
        conn.exec_prepared(st.get("customer_paid"), &args)?;
    }
    let h_data = format!("{}    {}", text(&warehouse, 0), text(&district, 0));
    let history = [
        n(c_id),
        n(x.c_d),
        n(x.c_w),
        d,
        w,
        amount,
        SqlValue::Text(h_data),
    ];
    conn.exec_prepared(st.get("insert_history"), &history)?;
    conn.commit()
}
