//! The initial population (§4.3.3.1), written into a `Sink` a part at a time (a district's rows,
//! a tenth of the items) as each table's loader takes it. Every part of every table draws from
//! its own seeded stream, so the rows are the same however the load is split over loaders.

use super::money::Money;
use super::random::{astring, data, nstring, nurand, write_last_name, zip, Constants, Draws};
use crate::engine::sql::Dialect;
use crate::workload::load::{Sink, Source};
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

/// The parts each warehouse's table (and the items) is generated in, each from its own stream:
/// a district's rows, or a tenth of the items. A loader hands the engine a part at a time.
const PARTS: i64 = 10;

/// How many parts `table` of one warehouse is generated in.
pub fn parts(table: &str) -> i64 {
    match table {
        "warehouse" | "district" => 1,
        _ => PARTS,
    }
}

/// The items of part `part`: a tenth of them.
fn tenth(part: i64) -> std::ops::RangeInclusive<i64> {
    (part - 1) * ITEMS / PARTS + 1..=part * ITEMS / PARTS
}

fn astring_field(sink: &mut impl Sink, rng: &mut Draws, min: usize, max: usize) {
    sink.text(|s| astring(rng, min, max, s));
}

/// A warehouse (0 for item) and a part of its rows of a table.
impl Source for Population {
    type Part = (i64, i64);
    fn write<S: Sink>(&self, table: &str, &(w, part): &(i64, i64), sink: &mut S) {
        self.write_rows(table, w, part, sink);
    }
    fn decimals_in_units(&self) -> bool {
        super::money::in_units(self.dialect)
    }
}

/// An amount in the column's form.
fn money(sink: &mut impl Sink, m: Money) {
    sink.decimal(m.units, m.scale);
}

impl Population {
    /// The random stream of `table` in warehouse `w` (0 for item) and part `part`.
    fn rng(&self, table: &str, w: i64, part: i64) -> Draws {
        let mut h = self.seed ^ 0x7470_6363;
        for b in table.bytes() {
            h = h.wrapping_mul(0x100_0000_01B3) ^ b as u64;
        }
        Draws::new(ChaCha8Rng::seed_from_u64(
            h ^ ((w as u64) << 20) ^ ((part as u64) << 8),
        ))
    }

    /// Writes part `part` (1..=`parts(table)`) of `table` for warehouse `w` into `sink` (item:
    /// `w` is ignored, the items are loaded once).
    pub fn write_rows(&self, table: &str, w: i64, part: i64, sink: &mut impl Sink) {
        match table {
            "item" => self.items(part, sink),
            "warehouse" => self.warehouse(w, sink),
            "district" => self.districts(w, sink),
            "stock" => self.stock(w, part, sink),
            "customer" => self.customers(w, part, sink),
            "history" => self.history(w, part, sink),
            "orders" => self.orders(w, part, sink),
            "new_order" => {
                for o in FIRST_NEW_ORDER..=ORDERS {
                    [o, part, w].into_iter().for_each(|v| sink.int(v));
                    sink.end();
                }
            }
            "order_line" => self.order_lines(w, part, sink),
            other => panic!("no table {other} in TPC-C"),
        }
    }

    fn now(&self, sink: &mut impl Sink) {
        sink.text(|s| s.push_str(&self.now));
    }

    fn items(&self, part: i64, sink: &mut impl Sink) {
        let mut rng = self.rng("item", 0, part);
        for i in tenth(part) {
            sink.int(i);
            sink.int(rng.random_range(1..=10_000));
            astring_field(sink, &mut rng, 14, 24);
            money(sink, Money::cents(rng.random_range(100..=10_000)));
            sink.text(|s| data(&mut rng, s));
            sink.end();
        }
    }

    /// Two street lines, city, state and zip (§4.3.2).
    fn place(rng: &mut Draws, sink: &mut impl Sink) {
        for _ in 0..3 {
            astring_field(sink, rng, 10, 20);
        }
        sink.text(|s| (0..2).for_each(|_| s.push(char::from(b'A' + rng.random_range(0..26u8)))));
        sink.text(|s| zip(rng, s));
    }

    /// Name, place, tax and year-to-date of a warehouse or a district.
    fn site(rng: &mut Draws, sink: &mut impl Sink, ytd: Money) {
        astring_field(sink, rng, 6, 10);
        Self::place(rng, sink);
        money(sink, Money::rate(rng.random_range(0..=2_000)));
        money(sink, ytd);
    }

    fn warehouse(&self, w: i64, sink: &mut impl Sink) {
        let mut rng = self.rng("warehouse", w, 0);
        sink.int(w);
        Self::site(&mut rng, sink, Money::cents(30_000_000));
        sink.end();
    }

    fn districts(&self, w: i64, sink: &mut impl Sink) {
        let mut rng = self.rng("district", w, 0);
        for d in 1..=DISTRICTS {
            sink.int(d);
            sink.int(w);
            Self::site(&mut rng, sink, Money::cents(3_000_000));
            sink.int(ORDERS + 1);
            sink.end();
        }
    }

    fn stock(&self, w: i64, part: i64, sink: &mut impl Sink) {
        let mut rng = self.rng("stock", w, part);
        for i in tenth(part) {
            sink.int(i);
            sink.int(w);
            sink.int(rng.random_range(10..=100));
            for _ in 0..10 {
                astring_field(sink, &mut rng, 24, 24);
            }
            (0..3).for_each(|_| sink.int(0));
            sink.text(|s| data(&mut rng, s));
            sink.end();
        }
    }

    fn customers(&self, w: i64, d: i64, sink: &mut impl Sink) {
        let mut rng = self.rng("customer", w, d);
        for c in 1..=CUSTOMERS {
            // The first 1,000 customers take each name once; the rest draw with C_LOAD.
            let name = match c <= 1_000 {
                true => c - 1,
                false => nurand(&mut rng, 255, 0, 999, self.constants.c_last),
            };
            [c, d, w].into_iter().for_each(|v| sink.int(v));
            astring_field(sink, &mut rng, 8, 16);
            sink.text(|s| s.push_str("OE"));
            sink.text(|s| write_last_name(name, s));
            Self::place(&mut rng, sink);
            sink.text(|s| nstring(&mut rng, 16, 16, s));
            self.now(sink);
            let credit = if rng.random_range(0..10) == 0 {
                "BC"
            } else {
                "GC"
            };
            sink.text(|s| s.push_str(credit));
            money(sink, Money::cents(5_000_000));
            money(sink, Money::rate(rng.random_range(0..=5_000)));
            money(sink, Money::cents(-1_000));
            money(sink, Money::cents(1_000));
            sink.int(1);
            sink.int(0);
            astring_field(sink, &mut rng, 300, 500);
            sink.end();
        }
    }

    fn history(&self, w: i64, d: i64, sink: &mut impl Sink) {
        let mut rng = self.rng("history", w, d);
        for c in 1..=CUSTOMERS {
            [c, d, w, d, w].into_iter().for_each(|v| sink.int(v));
            self.now(sink);
            money(sink, Money::cents(1_000));
            astring_field(sink, &mut rng, 12, 24);
            sink.end();
        }
    }

    /// Each order's customer (a permutation of 1..=3000) and line count, for district `d`.
    fn order_plan(&self, w: i64, d: i64) -> (Vec<i64>, Vec<i64>) {
        let mut rng = self.rng("orders", w, d);
        let mut customers: Vec<i64> = (1..=CUSTOMERS).collect();
        customers.shuffle(&mut rng);
        let lines = (0..ORDERS).map(|_| rng.random_range(5..=15)).collect();
        (customers, lines)
    }

    fn orders(&self, w: i64, d: i64, sink: &mut impl Sink) {
        let (customers, lines) = self.order_plan(w, d);
        let mut rng = self.rng("carrier", w, d);
        for o in 1..=ORDERS {
            [o, d, w, customers[o as usize - 1]]
                .into_iter()
                .for_each(|v| sink.int(v));
            self.now(sink);
            match o < FIRST_NEW_ORDER {
                true => sink.int(rng.random_range(1..=10)),
                false => sink.null(),
            }
            sink.int(lines[o as usize - 1]);
            sink.int(1);
            sink.end();
        }
    }

    fn order_lines(&self, w: i64, d: i64, sink: &mut impl Sink) {
        let (_, lines) = self.order_plan(w, d);
        let mut rng = self.rng("order_line", w, d);
        for o in 1..=ORDERS {
            let delivered = o < FIRST_NEW_ORDER;
            for number in 1..=lines[o as usize - 1] {
                [o, d, w, number, rng.random_range(1..=ITEMS), w]
                    .into_iter()
                    .for_each(|v| sink.int(v));
                match delivered {
                    true => self.now(sink),
                    false => sink.null(),
                }
                sink.int(5);
                money(
                    sink,
                    Money::cents(match delivered {
                        true => 0,
                        false => rng.random_range(1..=999_999),
                    }),
                );
                astring_field(sink, &mut rng, 24, 24);
                sink.end();
            }
        }
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
    use super::super::random::last_name;
    use super::*;
    use crate::engine::sql::{Row, SqlValue};
    use crate::workload::load::{Delimited, Forms, Values};

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

    /// How the loader's sinks write its amounts.
    fn forms(p: &Population) -> Forms {
        Forms {
            units: p.decimals_in_units(),
            pads_char: false,
        }
    }

    fn part(p: &Population, table: &str, w: i64, part: i64) -> Vec<Row> {
        let mut sink = Values::new(forms(p), 0);
        p.write_rows(table, w, part, &mut sink);
        sink.into_rows().collect()
    }

    fn rows(p: &Population, table: &str, w: i64) -> Vec<Row> {
        (1..=parts(table))
            .flat_map(|k| part(p, table, w, k))
            .collect()
    }

    fn int_at(row: &Row, i: usize) -> i64 {
        match row[i] {
            SqlValue::Int(n) => n,
            ref other => panic!("{other:?} is not an integer"),
        }
    }

    #[test]
    fn each_warehouse_gets_the_specified_rows() {
        let p = population();
        let count = |t: &str| rows(&p, t, 2).len();
        assert_eq!(count("warehouse"), 1);
        assert_eq!(count("district"), 10);
        assert_eq!(count("customer"), 30_000);
        assert_eq!(count("history"), 30_000);
        assert_eq!(count("orders"), 30_000);
        assert_eq!(count("new_order"), 9_000);
        for (table, columns) in COLUMNS {
            for row in part(&p, table, 1, 1) {
                assert_eq!(row.len(), columns.len(), "{table}");
            }
        }
        // The parts of item and stock cover every item once, in order.
        for table in ["item", "stock"] {
            let ids: Vec<i64> = rows(&p, table, 2).iter().map(|r| int_at(r, 0)).collect();
            assert_eq!(ids, (1..=ITEMS).collect::<Vec<_>>(), "{table}");
        }
    }

    #[test]
    fn the_text_a_loader_parses_holds_the_same_values() {
        for dialect in [Dialect::Postgres, Dialect::Sqlite] {
            let p = Population {
                dialect,
                ..population()
            };
            for (table, _) in COLUMNS {
                let mut text = Delimited::new(forms(&p), 0);
                p.write_rows(table, 3, 2.min(parts(table)), &mut text);
                let expected: String = (part(&p, table, 3, 2.min(parts(table))).iter())
                    .map(|row| {
                        let fields = row.iter().map(|v| match v {
                            SqlValue::Null => "\\N".to_string(),
                            SqlValue::Int(i) => i.to_string(),
                            SqlValue::Text(t) => t.clone(),
                            other => panic!("{other:?} in the population"),
                        });
                        fields.map(|f| f + "|").collect::<String>() + "\n"
                    })
                    .collect();
                assert_eq!(text.text, expected, "{table} on {dialect:?}");
                assert_eq!(text.rows as usize, expected.lines().count(), "{table}");
            }
        }
    }

    #[test]
    fn orders_and_lines_agree_and_customers_are_a_permutation() {
        let p = population();
        let orders = part(&p, "orders", 1, 3);
        let lines = part(&p, "order_line", 1, 3);
        let wanted: i64 = orders.iter().map(|o| int_at(o, 6)).sum();
        assert_eq!(lines.len() as i64, wanted);
        let mut customers: Vec<i64> = orders.iter().map(|o| int_at(o, 3)).collect();
        customers.sort();
        assert_eq!(customers, (1..=3000).collect::<Vec<_>>());
        // Undelivered orders have no carrier; their lines no date and a non-zero amount.
        assert!(orders[2099][5] != SqlValue::Null);
        assert_eq!(orders[2100][5], SqlValue::Null);
        let undelivered = lines.iter().filter(|l| int_at(l, 0) >= FIRST_NEW_ORDER);
        for line in undelivered {
            assert_eq!(line[6], SqlValue::Null);
            assert_ne!(line[8], SqlValue::Text("0.00".into()));
        }
        let customers = part(&p, "customer", 1, 1);
        let bc = (customers.iter())
            .filter(|c| c[13] == SqlValue::Text("BC".into()))
            .count();
        assert!((200..400).contains(&bc), "{bc}");
        // The first 1,000 customers take each last name once.
        assert_eq!(customers[371][5], SqlValue::Text(last_name(371)));
        // The same rows whichever order the warehouses are loaded in.
        assert_eq!(part(&p, "stock", 2, 5), part(&p, "stock", 2, 5));
    }
}
