//! The initial population (§4.3.3.1), generated row by row as each table's loader takes it.
//! Every table of every warehouse draws from its own seeded stream, so the rows are the same
//! however the warehouses are split over loaders.

use super::money::Money;
use super::random::{astring, data, last_name, nstring, nurand, zip, Constants};
use crate::engine::sql::{Dialect, Row, SqlValue};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub const ITEMS: i64 = 100_000;
pub const DISTRICTS: i64 = 10;
pub const CUSTOMERS: i64 = 3_000;
pub const ORDERS: i64 = 3_000;
/// Orders from this id on are undelivered: no carrier, and a row in new_order.
pub const FIRST_NEW_ORDER: i64 = 2_101;

/// What every row of one load shares.
#[derive(Clone)]
pub struct Population {
    pub dialect: Dialect,
    pub seed: u64,
    pub constants: Constants,
    /// The load's date and time, for c_since, h_date, o_entry_d and delivered lines.
    pub now: String,
}

/// The columns of each table as the loader fills them.
pub const COLUMNS: [(&str, &[&str]); 9] = [
    ("item", &["i_id", "i_im_id", "i_name", "i_price", "i_data"]),
    (
        "warehouse",
        &[
            "w_id",
            "w_name",
            "w_street_1",
            "w_street_2",
            "w_city",
            "w_state",
            "w_zip",
            "w_tax",
            "w_ytd",
        ],
    ),
    (
        "district",
        &[
            "d_id",
            "d_w_id",
            "d_name",
            "d_street_1",
            "d_street_2",
            "d_city",
            "d_state",
            "d_zip",
            "d_tax",
            "d_ytd",
            "d_next_o_id",
        ],
    ),
    (
        "stock",
        &[
            "s_i_id",
            "s_w_id",
            "s_quantity",
            "s_dist_01",
            "s_dist_02",
            "s_dist_03",
            "s_dist_04",
            "s_dist_05",
            "s_dist_06",
            "s_dist_07",
            "s_dist_08",
            "s_dist_09",
            "s_dist_10",
            "s_ytd",
            "s_order_cnt",
            "s_remote_cnt",
            "s_data",
        ],
    ),
    (
        "customer",
        &[
            "c_id",
            "c_d_id",
            "c_w_id",
            "c_first",
            "c_middle",
            "c_last",
            "c_street_1",
            "c_street_2",
            "c_city",
            "c_state",
            "c_zip",
            "c_phone",
            "c_since",
            "c_credit",
            "c_credit_lim",
            "c_discount",
            "c_balance",
            "c_ytd_payment",
            "c_payment_cnt",
            "c_delivery_cnt",
            "c_data",
        ],
    ),
    (
        "history",
        &[
            "h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data",
        ],
    ),
    (
        "orders",
        &[
            "o_id",
            "o_d_id",
            "o_w_id",
            "o_c_id",
            "o_entry_d",
            "o_carrier_id",
            "o_ol_cnt",
            "o_all_local",
        ],
    ),
    ("new_order", &["no_o_id", "no_d_id", "no_w_id"]),
    (
        "order_line",
        &[
            "ol_o_id",
            "ol_d_id",
            "ol_w_id",
            "ol_number",
            "ol_i_id",
            "ol_supply_w_id",
            "ol_delivery_d",
            "ol_quantity",
            "ol_amount",
            "ol_dist_info",
        ],
    ),
];

fn int(v: i64) -> SqlValue {
    SqlValue::Int(v)
}

fn text(s: impl Into<String>) -> SqlValue {
    SqlValue::Text(s.into())
}

impl Population {
    /// The random stream of `table` in warehouse `w` (0 for item) and district `d`.
    fn rng(&self, table: &str, w: i64, d: i64) -> ChaCha8Rng {
        let mut h = self.seed ^ 0x7470_6363;
        for b in table.bytes() {
            h = h.wrapping_mul(0x100_0000_01B3) ^ b as u64;
        }
        ChaCha8Rng::seed_from_u64(h ^ ((w as u64) << 20) ^ ((d as u64) << 8))
    }

    fn money(&self, m: Money) -> SqlValue {
        m.value(self.dialect)
    }

    /// The rows of `table` for warehouse `w` (item: `w` is ignored, loaded once).
    pub fn rows(&self, table: &str, w: i64) -> Box<dyn Iterator<Item = Row> + '_> {
        match table {
            "item" => Box::new(self.items()),
            "warehouse" => Box::new(std::iter::once(self.warehouse(w))),
            "district" => Box::new(self.districts(w)),
            "stock" => Box::new(self.stock(w)),
            "customer" => Box::new((1..=DISTRICTS).flat_map(move |d| self.customers(w, d))),
            "history" => Box::new((1..=DISTRICTS).flat_map(move |d| self.history(w, d))),
            "orders" => Box::new((1..=DISTRICTS).flat_map(move |d| self.orders(w, d))),
            "new_order" => Box::new((1..=DISTRICTS).flat_map(move |d| {
                (FIRST_NEW_ORDER..=ORDERS).map(move |o| vec![int(o), int(d), int(w)])
            })),
            "order_line" => Box::new((1..=DISTRICTS).flat_map(move |d| self.order_lines(w, d))),
            other => panic!("no table {other} in TPC-C"),
        }
    }

    fn items(&self) -> impl Iterator<Item = Row> + '_ {
        let mut rng = self.rng("item", 0, 0);
        (1..=ITEMS).map(move |i| {
            vec![
                int(i),
                int(rng.random_range(1..=10_000)),
                text(astring(&mut rng, 14, 24)),
                self.money(Money::cents(rng.random_range(100..=10_000))),
                text(data(&mut rng)),
            ]
        })
    }

    /// Name, two street lines, city, state and zip (§4.3.2).
    fn address(rng: &mut impl Rng, name: (usize, usize)) -> Vec<SqlValue> {
        let state: String = (0..2)
            .map(|_| char::from(b'A' + rng.random_range(0..26u8)))
            .collect();
        vec![
            text(astring(rng, name.0, name.1)),
            text(astring(rng, 10, 20)),
            text(astring(rng, 10, 20)),
            text(astring(rng, 10, 20)),
            text(state),
            text(zip(rng)),
        ]
    }

    fn warehouse(&self, w: i64) -> Row {
        let mut rng = self.rng("warehouse", w, 0);
        let mut row = vec![int(w)];
        row.extend(Self::address(&mut rng, (6, 10)));
        row.push(self.money(Money::rate(rng.random_range(0..=2_000))));
        row.push(self.money(Money::cents(30_000_000)));
        row
    }

    fn districts(&self, w: i64) -> impl Iterator<Item = Row> + '_ {
        let mut rng = self.rng("district", w, 0);
        (1..=DISTRICTS).map(move |d| {
            let mut row = vec![int(d), int(w)];
            row.extend(Self::address(&mut rng, (6, 10)));
            row.push(self.money(Money::rate(rng.random_range(0..=2_000))));
            row.push(self.money(Money::cents(3_000_000)));
            row.push(int(ORDERS + 1));
            row
        })
    }

    fn stock(&self, w: i64) -> impl Iterator<Item = Row> + '_ {
        let mut rng = self.rng("stock", w, 0);
        (1..=ITEMS).map(move |i| {
            let mut row = vec![int(i), int(w), int(rng.random_range(10..=100))];
            row.extend((0..10).map(|_| text(astring(&mut rng, 24, 24))));
            row.extend([int(0), int(0), int(0), text(data(&mut rng))]);
            row
        })
    }

    fn customers(&self, w: i64, d: i64) -> impl Iterator<Item = Row> + '_ {
        let mut rng = self.rng("customer", w, d);
        (1..=CUSTOMERS).map(move |c| {
            // The first 1,000 customers take each name once; the rest draw with C_LOAD.
            let name = match c <= 1_000 {
                true => c - 1,
                false => nurand(&mut rng, 255, 0, 999, self.constants.c_last),
            };
            let credit = if rng.random_range(0..10) == 0 {
                "BC"
            } else {
                "GC"
            };
            let address = Self::address(&mut rng, (8, 16));
            let mut row = vec![int(c), int(d), int(w), address[0].clone(), text("OE")];
            row.push(text(last_name(name)));
            row.extend(address[1..].iter().cloned());
            row.extend([
                text(nstring(&mut rng, 16, 16)),
                text(self.now.clone()),
                text(credit),
                self.money(Money::cents(5_000_000)),
                self.money(Money::rate(rng.random_range(0..=5_000))),
                self.money(Money::cents(-1_000)),
                self.money(Money::cents(1_000)),
                int(1),
                int(0),
                text(astring(&mut rng, 300, 500)),
            ]);
            row
        })
    }

    fn history(&self, w: i64, d: i64) -> impl Iterator<Item = Row> + '_ {
        let mut rng = self.rng("history", w, d);
        (1..=CUSTOMERS).map(move |c| {
            vec![
                int(c),
                int(d),
                int(w),
                int(d),
                int(w),
                text(self.now.clone()),
                self.money(Money::cents(1_000)),
                text(astring(&mut rng, 12, 24)),
            ]
        })
    }

    /// Each order's customer (a permutation of 1..=3000) and line count, for district `d`.
    fn order_plan(&self, w: i64, d: i64) -> (Vec<i64>, Vec<i64>) {
        let mut rng = self.rng("orders", w, d);
        let mut customers: Vec<i64> = (1..=CUSTOMERS).collect();
        customers.shuffle(&mut rng);
        let lines = (0..ORDERS).map(|_| rng.random_range(5..=15)).collect();
        (customers, lines)
    }

    fn orders(&self, w: i64, d: i64) -> impl Iterator<Item = Row> + '_ {
        let (customers, lines) = self.order_plan(w, d);
        let mut rng = self.rng("carrier", w, d);
        (1..=ORDERS).map(move |o| {
            let carrier = match o < FIRST_NEW_ORDER {
                true => int(rng.random_range(1..=10)),
                false => SqlValue::Null,
            };
            vec![
                int(o),
                int(d),
                int(w),
                int(customers[o as usize - 1]),
                text(self.now.clone()),
                carrier,
                int(lines[o as usize - 1]),
                int(1),
            ]
        })
    }

    fn order_lines(&self, w: i64, d: i64) -> impl Iterator<Item = Row> + '_ {
        let (_, lines) = self.order_plan(w, d);
        let mut rng = self.rng("order_line", w, d);
        (1..=ORDERS).flat_map(move |o| {
            let delivered = o < FIRST_NEW_ORDER;
            let count = lines[o as usize - 1];
            let rows: Vec<Row> = (1..=count)
                .map(|number| {
                    let (delivery, amount) = match delivered {
                        true => (text(self.now.clone()), Money::cents(0)),
                        false => (SqlValue::Null, Money::cents(rng.random_range(1..=999_999))),
                    };
                    vec![
                        int(o),
                        int(d),
                        int(w),
                        int(number),
                        int(rng.random_range(1..=ITEMS)),
                        int(w),
                        delivery,
                        int(5),
                        self.money(amount),
                        text(astring(&mut rng, 24, 24)),
                    ]
                })
                .collect();
            rows
        })
    }
}

/// The rows one warehouse adds to `table` (order lines as their expected count; item's rows are
/// the load's, not a warehouse's).
pub fn rows_of(table: &str) -> u64 {
    let rows = match table {
        "warehouse" => 1,
        "district" => DISTRICTS,
        "item" | "stock" => ITEMS,
        "customer" | "history" => DISTRICTS * CUSTOMERS,
        "orders" => DISTRICTS * ORDERS,
        "new_order" => DISTRICTS * (ORDERS - FIRST_NEW_ORDER + 1),
        "order_line" => DISTRICTS * ORDERS * 10,
        _ => 0,
    };
    rows as u64
}

/// The rows one warehouse adds across all its tables (order lines as their expected count).
pub fn rows_per_warehouse() -> u64 {
    (COLUMNS.iter())
        .filter(|(t, _)| *t != "item")
        .map(|(t, _)| rows_of(t))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn population() -> Population {
        Population {
            dialect: Dialect::Postgres,
            seed: 42,
            constants: Constants {
                c_last: 100,
                c_id: 200,
                ol_i_id: 300,
            },
            now: "2026-11-25 07:00:00".into(),
        }
    }

    #[test]
    fn each_warehouse_gets_the_specified_rows() {
        let p = population();
        let count = |t: &str| p.rows(t, 2).count();
        assert_eq!(count("item"), 100_000);
        assert_eq!(count("warehouse"), 1);
        assert_eq!(count("district"), 10);
        assert_eq!(count("customer"), 30_000);
        assert_eq!(count("history"), 30_000);
        assert_eq!(count("orders"), 30_000);
        assert_eq!(count("new_order"), 9_000);
        for (table, columns) in COLUMNS {
            let row = p.rows(table, 1).next().unwrap();
            assert_eq!(row.len(), columns.len(), "{table}");
        }
    }

    #[test]
    fn orders_and_lines_agree_and_customers_are_a_permutation() {
        let p = population();
        let orders: Vec<Row> = p.orders(1, 3).collect();
        let lines: Vec<Row> = p.order_lines(1, 3).collect();
        let wanted: i64 = orders
            .iter()
            .map(|o| match o[6] {
                SqlValue::Int(n) => n,
                _ => 0,
            })
            .sum();
        assert_eq!(lines.len() as i64, wanted);
        let mut customers: Vec<SqlValue> = orders.iter().map(|o| o[3].clone()).collect();
        customers.sort_by_key(|c| match c {
            SqlValue::Int(n) => *n,
            _ => 0,
        });
        assert_eq!(customers, (1..=3000).map(SqlValue::Int).collect::<Vec<_>>());
        // Undelivered orders have no carrier; their lines no date and a non-zero amount.
        assert!(orders[2099][5] != SqlValue::Null);
        assert_eq!(orders[2100][5], SqlValue::Null);
        let bc = p.customers(1, 1).filter(|c| c[13] == text("BC")).count();
        assert!((200..400).contains(&bc), "{bc}");
        // The same rows whichever order the warehouses are loaded in.
        assert_eq!(p.rows("stock", 2).nth(5), p.rows("stock", 2).nth(5));
    }
}
