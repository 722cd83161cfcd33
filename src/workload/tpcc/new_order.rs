//! New-Order (§2.4): an order of 5..15 lines for a customer of the home warehouse, 1% of lines
//! supplied by another warehouse, and in 1% of orders an unused item that rolls it all back.

use super::money::Money;
use super::random::{nurand, Constants};
use super::statements::{first_row, int, n, one_row, text, Statements};
use super::terminal::other_warehouse;
use crate::engine::sql::{SqlConnection, SqlValue};
use anyhow::Result;
use rand::Rng;

/// An item id no item has (§2.4.1.5): the order that asks for it is rolled back.
const UNUSED_ITEM: i64 = 100_001;

pub struct Input {
    pub w: i64,
    pub d: i64,
    pub c: i64,
    pub lines: Vec<Line>,
}

pub struct Line {
    pub item: i64,
    pub supply: i64,
    pub quantity: i64,
}

/// What a New-Order did.
pub struct Done {
    pub rolled_back: bool,
    pub lines: u64,
    pub remote_lines: u64,
}

pub fn draw(rng: &mut impl Rng, home: i64, warehouses: i64, c: &Constants) -> Input {
    let count = rng.random_range(5..=15);
    let rollback = rng.random_range(1..=100) == 1;
    let lines = (0..count)
        .map(|i| {
            let item = match rollback && i == count - 1 {
                true => UNUSED_ITEM,
                false => nurand(rng, 8191, 1, 100_000, c.ol_i_id),
            };
            let supply = match warehouses > 1 && rng.random_range(1..=100) == 1 {
                true => other_warehouse(rng, home, warehouses),
                false => home,
            };
            Line {
                item,
                supply,
                quantity: rng.random_range(1..=10),
            }
        })
        .collect();
    Input {
        w: home,
        d: rng.random_range(1..=10),
        c: nurand(rng, 1023, 1, 3000, c.c_id),
        lines,
    }
}

pub fn run(conn: &mut dyn SqlConnection, st: &Statements, x: &Input) -> Result<Done> {
    let dialect = st.dialect;
    let (w, d) = (n(x.w), n(x.d));
    conn.begin()?;
    let w_tax = one_row(
        conn,
        st.get("warehouse_tax"),
        std::slice::from_ref(&w),
        "warehouse",
    )?;
    let w_tax = Money::read(&w_tax[0], dialect, 4)?;
    let district = one_row(
        conn,
        st.get("district_next"),
        &[w.clone(), d.clone()],
        "district",
    )?;
    let d_tax = Money::read(&district[0], dialect, 4)?;
    let o_id = int(&district, 1)?;
    conn.exec_prepared(st.get("district_advance"), &[w.clone(), d.clone()])?;
    let customer = one_row(
        conn,
        st.get("customer_discount"),
        &[w.clone(), d.clone(), n(x.c)],
        "customer",
    )?;
    let discount = Money::read(&customer[0], dialect, 4)?;
    let all_local = x.lines.iter().all(|l| l.supply == x.w);
    let order = [
        n(o_id),
        d.clone(),
        w.clone(),
        n(x.c),
        n(x.lines.len() as i64),
        n(all_local as i64),
    ];
    conn.exec_prepared(st.get("insert_order"), &order)?;
    conn.exec_prepared(st.get("insert_new_order"), &[n(o_id), d.clone(), w.clone()])?;
    let mut total = 0i64;
    let remote_lines = x.lines.iter().filter(|l| l.supply != x.w).count() as u64;
    for (number, line) in x.lines.iter().enumerate() {
        let Some(amount) = order_line(conn, st, x, o_id, number as i64 + 1, line)? else {
            // The unused item: the whole order is undone, and still counts as completed.
            conn.rollback()?;
            return Ok(Done {
                rolled_back: true,
                lines: x.lines.len() as u64,
                remote_lines,
            });
        };
        total += amount.units;
    }
    // The total the terminal shows: sum × (1 − discount) × (1 + w_tax + d_tax), not stored.
    let _total = total as f64
        * (1.0 - discount.units as f64 / 1e4)
        * (1.0 + (w_tax.units + d_tax.units) as f64 / 1e4);
    conn.commit()?;
    Ok(Done {
        rolled_back: false,
        lines: x.lines.len() as u64,
        remote_lines,
    })
}

/// Line `number` of order `o_id`: the item, the supplying warehouse's stock taken, the line
/// inserted; returns its amount, or None for an unused item.
fn order_line(
    conn: &mut dyn SqlConnection,
    st: &Statements,
    x: &Input,
    o_id: i64,
    number: i64,
    line: &Line,
) -> Result<Option<Money>> {
    let dialect = st.dialect;
    let Some(item) = first_row(conn, st.get("item"), &[n(line.item)])? else {
        return Ok(None);
    };
    let price = Money::read(&item[0], dialect, 2)?;
    let stock = one_row(
        conn,
        st.stock(x.d),
        &[n(line.supply), n(line.item)],
        "stock",
    )?;
    let quantity = int(&stock, 0)?;
    let left = match quantity - line.quantity >= 10 {
        true => quantity - line.quantity,
        false => quantity - line.quantity + 91,
    };
    let remote = line.supply != x.w;
    conn.exec_prepared(
        st.get("stock_update"),
        &[
            n(left),
            n(line.quantity),
            n(remote as i64),
            n(line.supply),
            n(line.item),
        ],
    )?;
    let amount = Money::cents(line.quantity * price.units);
    // The brand-generic flag the terminal would show: "B" when both datas say ORIGINAL.
    let _brand = text(&item, 2).contains("ORIGINAL") && text(&stock, 2).contains("ORIGINAL");
    conn.exec_prepared(
        st.get("insert_order_line"),
        &[
            n(o_id),
            n(x.d),
            n(x.w),
            n(number),
            n(line.item),
            n(line.supply),
            n(line.quantity),
            amount.value(dialect),
            SqlValue::Text(text(&stock, 1)),
        ],
    )?;
    Ok(Some(amount))
}
