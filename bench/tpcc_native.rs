//! TPC-C's five transactions straight through the postgres crate, the reference for
//! `hakari run tpcc --engine postgres`: the statements the spec lists (../shared/specs/tpcc.md,
//! §2.4-2.8: no RETURNING, one statement a step), written as someone who knows the crate would
//! write them for the fastest correct run: every statement prepared once per connection, typed
//! binary parameters, ids as the INTEGER they are, money read as exact cents and written as
//! cents / 100.0 (so no decimal crate), one thread and connection per terminal, deadlocks and
//! serialization failures retried. No harness, no traits, no histograms: only the counts.
//!
//! It runs on tables hakari loaded and kept (`hakari run tpcc --keep`), reading the warehouses
//! and the load's C constants from the meta row, with terminals placed as the spec says (a home
//! warehouse each, round the warehouses; a Stock-Level district each) and the 23-card deck.
//!
//!   cargo bench --bench tpcc_native -- URL TERMINALS SECONDS RAMP_UP_SECONDS
//!
//! prints `nopm <New-Orders per minute>` and `tpm <transactions per minute>` of the SECONDS
//! after the ramp-up; bench/tpcc_native.sh runs it beside hakari.

use postgres::error::SqlState;
use postgres::{Client, NoTls, Statement, Transaction};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const T: &str = "hakari.hakari_tpcc_";

/// The load's constants and the run's, as §2.1.6 says.
#[derive(Clone, Copy)]
struct Constants {
    c_last: i32,
    c_id: i32,
    ol_i_id: i32,
}

fn nurand(rng: &mut SmallRng, a: i32, x: i32, y: i32, c: i32) -> i32 {
    (((rng.random_range(0..=a) | rng.random_range(x..=y)) + c) % (y - x + 1)) + x
}

fn last_name(n: i32) -> String {
    const SYLLABLES: [&str; 10] = [
        "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
    ];
    [n / 100, n / 10 % 10, n % 10]
        .iter()
        .map(|&i| SYLLABLES[i as usize])
        .collect()
}

struct Statements {
    w_tax: Statement,
    d_next: Statement,
    d_advance: Statement,
    c_discount: Statement,
    insert_order: Statement,
    insert_new_order: Statement,
    item: Statement,
    stock: Vec<Statement>,
    stock_update: Statement,
    insert_line: Statement,
    w_pay: Statement,
    w_name: Statement,
    d_pay: Statement,
    d_name: Statement,
    by_name: Statement,
    c_pay: Statement,
    c_data: Statement,
    c_paid: Statement,
    c_paid_data: Statement,
    insert_history: Statement,
    c_status: Statement,
    last_order: Statement,
    lines: Statement,
    oldest: Statement,
    delete_new_order: Statement,
    order_customer: Statement,
    carrier: Statement,
    delivered: Statement,
    amount: Statement,
    c_delivered: Statement,
    next_o_id: Statement,
    low_stock: Statement,
}

impl Statements {
    fn prepare(c: &mut Client) -> Result<Statements, postgres::Error> {
        let mut p = |sql: &str| c.prepare(&sql.replace("{T}", T));
        let stock = (1..=10)
            .map(|d| {
                p(&format!(
                    "SELECT s_quantity, s_dist_{d:02}, s_data FROM {T}stock WHERE s_w_id = $1 AND s_i_id = $2 FOR UPDATE"
                ))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Statements {
            w_tax: p("SELECT w_tax::float8 FROM {T}warehouse WHERE w_id = $1")?,
            d_next: p("SELECT d_tax::float8, d_next_o_id FROM {T}district WHERE d_w_id = $1 AND d_id = $2 FOR UPDATE")?,
            d_advance: p("UPDATE {T}district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2")?,
            c_discount: p("SELECT c_discount::float8, c_last, c_credit FROM {T}customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3")?,
            insert_order: p("INSERT INTO {T}orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP, NULL, $5, $6)")?,
            insert_new_order: p("INSERT INTO {T}new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)")?,
            item: p("SELECT (i_price * 100)::int8, i_name, i_data FROM {T}item WHERE i_id = $1")?,
            stock,
            stock_update: p("UPDATE {T}stock SET s_quantity = $1, s_ytd = s_ytd + $2, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $3 WHERE s_w_id = $4 AND s_i_id = $5")?,
            insert_line: p("INSERT INTO {T}order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, $8::int8 / 100.0, $9)")?,
            w_pay: p("UPDATE {T}warehouse SET w_ytd = w_ytd + $1::int8 / 100.0 WHERE w_id = $2")?,
            w_name: p("SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM {T}warehouse WHERE w_id = $1")?,
            d_pay: p("UPDATE {T}district SET d_ytd = d_ytd + $1::int8 / 100.0 WHERE d_w_id = $2 AND d_id = $3")?,
            d_name: p("SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM {T}district WHERE d_w_id = $1 AND d_id = $2")?,
            by_name: p("SELECT c_id FROM {T}customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first")?,
            c_pay: p("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim::float8, c_discount::float8, c_balance::float8 FROM {T}customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3 FOR UPDATE")?,
            c_data: p("SELECT c_data FROM {T}customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3 FOR UPDATE")?,
            c_paid: p("UPDATE {T}customer SET c_balance = c_balance - $1::int8 / 100.0, c_ytd_payment = c_ytd_payment + $1::int8 / 100.0, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = $2 AND c_d_id = $3 AND c_id = $4")?,
            c_paid_data: p("UPDATE {T}customer SET c_balance = c_balance - $1::int8 / 100.0, c_ytd_payment = c_ytd_payment + $1::int8 / 100.0, c_payment_cnt = c_payment_cnt + 1, c_data = $2 WHERE c_w_id = $3 AND c_d_id = $4 AND c_id = $5")?,
            insert_history: p("INSERT INTO {T}history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES ($1, $2, $3, $4, $5, CURRENT_TIMESTAMP, $6::int8 / 100.0, $7)")?,
            c_status: p("SELECT c_balance::float8, c_first, c_middle, c_last FROM {T}customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3")?,
            last_order: p("SELECT o_id, o_carrier_id, o_entry_d FROM {T}orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 AND o_id = (SELECT MAX(o_id) FROM {T}orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3)")?,
            lines: p("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount::float8, ol_delivery_d FROM {T}order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3")?,
            oldest: p("SELECT MIN(no_o_id) FROM {T}new_order WHERE no_w_id = $1 AND no_d_id = $2")?,
            delete_new_order: p("DELETE FROM {T}new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3")?,
            order_customer: p("SELECT o_c_id FROM {T}orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3")?,
            carrier: p("UPDATE {T}orders SET o_carrier_id = $1 WHERE o_w_id = $2 AND o_d_id = $3 AND o_id = $4")?,
            delivered: p("UPDATE {T}order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3")?,
            amount: p("SELECT (SUM(ol_amount) * 100)::int8 FROM {T}order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3")?,
            c_delivered: p("UPDATE {T}customer SET c_balance = c_balance + $1::int8 / 100.0, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = $2 AND c_d_id = $3 AND c_id = $4")?,
            next_o_id: p("SELECT d_next_o_id FROM {T}district WHERE d_w_id = $1 AND d_id = $2")?,
            low_stock: p("SELECT COUNT(DISTINCT s_i_id) FROM {T}order_line, {T}stock WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id < $3 AND ol_o_id >= $4 AND s_w_id = $1 AND s_i_id = ol_i_id AND s_quantity < $5")?,
        })
    }
}

/// One terminal: its connection, statements, home, Stock-Level district and dice.
struct Terminal {
    s: Statements,
    w: i32,
    stock_d: i32,
    warehouses: i32,
    c: Constants,
    rng: SmallRng,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    NewOrder,
    Payment,
    OrderStatus,
    Delivery,
    StockLevel,
}

/// Why a transaction must be tried again.
enum Outcome {
    Done,
    Retry,
}

impl Terminal {
    fn other_warehouse(&mut self) -> i32 {
        let o = self.rng.random_range(1..self.warehouses);
        if o >= self.w {
            o + 1
        } else {
            o
        }
    }

    /// A customer as Payment and Order-Status pick one: by last name 60% of the time (the
    /// middle of those ordered by c_first), else by id.
    fn customer(&mut self, tx: &mut Transaction, w: i32, d: i32) -> Result<i32, postgres::Error> {
        if self.rng.random_range(1..=100) <= 60 {
            let name = last_name(nurand(&mut self.rng, 255, 0, 999, self.c.c_last));
            let ids = tx.query(&self.s.by_name, &[&w, &d, &name])?;
            if !ids.is_empty() {
                return Ok(ids[(ids.len() - 1) / 2].get(0));
            }
        }
        Ok(nurand(&mut self.rng, 1023, 1, 3000, self.c.c_id))
    }

    fn new_order(&mut self, client: &mut Client) -> Result<Outcome, postgres::Error> {
        let w = self.w;
        let d: i32 = self.rng.random_range(1..=10);
        let c = nurand(&mut self.rng, 1023, 1, 3000, self.c.c_id);
        let count = self.rng.random_range(5..=15);
        let rollback = self.rng.random_range(1..=100) == 1;
        let lines: Vec<(i32, i32, i32)> = (0..count)
            .map(|i| {
                let item = match rollback && i == count - 1 {
                    true => 100_001,
                    false => nurand(&mut self.rng, 8191, 1, 100_000, self.c.ol_i_id),
                };
                let supply = match self.warehouses > 1 && self.rng.random_range(1..=100) == 1 {
                    true => self.other_warehouse(),
                    false => w,
                };
                (item, supply, self.rng.random_range(1..=10))
            })
            .collect();
        let s = &self.s;
        let mut tx = client.transaction()?;
        let w_tax: f64 = tx.query_one(&s.w_tax, &[&w])?.get(0);
        let district = tx.query_one(&s.d_next, &[&w, &d])?;
        let (d_tax, o_id): (f64, i32) = (district.get(0), district.get(1));
        tx.execute(&s.d_advance, &[&w, &d])?;
        let customer = tx.query_one(&s.c_discount, &[&w, &d, &c])?;
        let discount: f64 = customer.get(0);
        let all_local = lines.iter().all(|l| l.1 == w) as i32;
        tx.execute(
            &s.insert_order,
            &[&o_id, &d, &w, &c, &(lines.len() as i32), &all_local],
        )?;
        tx.execute(&s.insert_new_order, &[&o_id, &d, &w])?;
        let mut total = 0i64;
        for (number, &(item, supply, quantity)) in lines.iter().enumerate() {
            let Some(item_row) = tx.query_opt(&s.item, &[&item])? else {
                tx.rollback()?;
                return Ok(Outcome::Done);
            };
            let price: i64 = item_row.get(0);
            let stock = tx.query_one(&s.stock[d as usize - 1], &[&supply, &item])?;
            let on_hand: i32 = stock.get(0);
            let left = match on_hand - quantity >= 10 {
                true => on_hand - quantity,
                false => on_hand - quantity + 91,
            };
            let remote = (supply != w) as i32;
            tx.execute(
                &s.stock_update,
                &[&left, &quantity, &remote, &supply, &item],
            )?;
            let amount = quantity as i64 * price;
            total += amount;
            let dist: &str = stock.get(1);
            tx.execute(
                &s.insert_line,
                &[
                    &o_id,
                    &d,
                    &w,
                    &(number as i32 + 1),
                    &item,
                    &supply,
                    &quantity,
                    &amount,
                    &dist,
                ],
            )?;
        }
        std::hint::black_box(total as f64 * (1.0 - discount) * (1.0 + w_tax + d_tax));
        tx.commit()?;
        Ok(Outcome::Done)
    }

    fn payment(&mut self, client: &mut Client) -> Result<Outcome, postgres::Error> {
        let w = self.w;
        let d: i32 = self.rng.random_range(1..=10);
        let (c_w, c_d) = match self.warehouses > 1 && self.rng.random_range(1..=100) <= 15 {
            true => (self.other_warehouse(), self.rng.random_range(1..=10)),
            false => (w, d),
        };
        let amount: i64 = self.rng.random_range(100..=500_000);
        let mut tx = client.transaction()?;
        let s = &self.s;
        tx.execute(&s.w_pay, &[&amount, &w])?;
        let warehouse = tx.query_one(&s.w_name, &[&w])?;
        tx.execute(&s.d_pay, &[&amount, &w, &d])?;
        let district = tx.query_one(&s.d_name, &[&w, &d])?;
        let c = self.customer(&mut tx, c_w, c_d)?;
        let s = &self.s;
        let customer = tx.query_one(&s.c_pay, &[&c_w, &c_d, &c])?;
        let credit: &str = customer.get(10);
        if credit == "BC" {
            let old: String = tx.query_one(&s.c_data, &[&c_w, &c_d, &c])?.get(0);
            let mut data = format!(
                "{c} {c_d} {c_w} {d} {w} {}.{:02} | {old}",
                amount / 100,
                amount % 100
            );
            data.truncate(500);
            tx.execute(&s.c_paid_data, &[&amount, &data, &c_w, &c_d, &c])?;
        } else {
            tx.execute(&s.c_paid, &[&amount, &c_w, &c_d, &c])?;
        }
        let (w_name, d_name): (&str, &str) = (warehouse.get(0), district.get(0));
        let h_data = format!("{w_name}    {d_name}");
        tx.execute(
            &s.insert_history,
            &[&c, &c_d, &c_w, &d, &w, &amount, &h_data],
        )?;
        tx.commit()?;
        Ok(Outcome::Done)
    }

    fn order_status(&mut self, client: &mut Client) -> Result<Outcome, postgres::Error> {
        let (w, d) = (self.w, self.rng.random_range(1..=10));
        let mut tx = client.transaction()?;
        let c = self.customer(&mut tx, w, d)?;
        let s = &self.s;
        tx.query_one(&s.c_status, &[&w, &d, &c])?;
        if let Some(order) = tx.query_opt(&s.last_order, &[&w, &d, &c])? {
            let o_id: i32 = order.get(0);
            std::hint::black_box(tx.query(&s.lines, &[&w, &d, &o_id])?);
        }
        tx.commit()?;
        Ok(Outcome::Done)
    }

    fn delivery(&mut self, client: &mut Client) -> Result<Outcome, postgres::Error> {
        let (w, s) = (self.w, &self.s);
        let carrier: i32 = self.rng.random_range(1..=10);
        let mut tx = client.transaction()?;
        for d in 1..=10i32 {
            let Some(o_id) = tx.query_one(&s.oldest, &[&w, &d])?.get::<_, Option<i32>>(0) else {
                continue;
            };
            if tx.execute(&s.delete_new_order, &[&w, &d, &o_id])? != 1 {
                return Ok(Outcome::Retry);
            }
            let c: i32 = tx.query_one(&s.order_customer, &[&w, &d, &o_id])?.get(0);
            tx.execute(&s.carrier, &[&carrier, &w, &d, &o_id])?;
            tx.execute(&s.delivered, &[&w, &d, &o_id])?;
            let amount: i64 = tx.query_one(&s.amount, &[&w, &d, &o_id])?.get(0);
            tx.execute(&s.c_delivered, &[&amount, &w, &d, &c])?;
        }
        tx.commit()?;
        Ok(Outcome::Done)
    }

    fn stock_level(&mut self, client: &mut Client) -> Result<Outcome, postgres::Error> {
        let (w, d, s) = (self.w, self.stock_d, &self.s);
        let threshold: i32 = self.rng.random_range(10..=20);
        let mut tx = client.transaction()?;
        let next: i32 = tx.query_one(&s.next_o_id, &[&w, &d])?.get(0);
        let low: i64 = tx
            .query_one(&s.low_stock, &[&w, &d, &next, &(next - 20), &threshold])?
            .get(0);
        std::hint::black_box(low);
        tx.commit()?;
        Ok(Outcome::Done)
    }

    /// Runs one transaction of `kind` to its end, again after a deadlock or a serialization
    /// failure.
    fn run(&mut self, client: &mut Client, kind: Kind) {
        loop {
            let outcome = match kind {
                Kind::NewOrder => self.new_order(client),
                Kind::Payment => self.payment(client),
                Kind::OrderStatus => self.order_status(client),
                Kind::Delivery => self.delivery(client),
                Kind::StockLevel => self.stock_level(client),
            };
            match outcome {
                Ok(Outcome::Done) => return,
                Ok(Outcome::Retry) => continue,
                Err(e)
                    if e.code() == Some(&SqlState::T_R_DEADLOCK_DETECTED)
                        || e.code() == Some(&SqlState::T_R_SERIALIZATION_FAILURE) =>
                {
                    continue
                }
                Err(e) => panic!("{e}"),
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let [url, terminals, seconds, ramp] = &args[..] else {
        eprintln!("usage: tpcc_native URL TERMINALS SECONDS RAMP_UP_SECONDS");
        std::process::exit(2);
    };
    let terminals: i32 = terminals.parse().expect("TERMINALS");
    let seconds: f64 = seconds.parse().expect("SECONDS");
    let ramp: f64 = ramp.parse().expect("RAMP_UP_SECONDS");
    let mut setup = Client::connect(url, NoTls).expect("connect");
    let meta = setup
        .query_one(
            &format!("SELECT warehouses, c_last, c_id, ol_i_id FROM {T}meta"),
            &[],
        )
        .expect("tables loaded by `hakari run tpcc --keep`");
    let warehouses: i32 = meta.get(0);
    let c_load: i32 = meta.get(1);
    let mut rng = SmallRng::seed_from_u64(42);
    // §2.1.6.1: the run's C for c_last differs from the load's by 65..119, but not 96 or 112.
    let c_last = loop {
        let c = rng.random_range(0..=255);
        let delta = (c - c_load).abs();
        if (65..=119).contains(&delta) && delta != 96 && delta != 112 {
            break c;
        }
    };
    let c = Constants {
        c_last,
        c_id: meta.get(2),
        ol_i_id: meta.get(3),
    };
    let new_orders = Arc::new(AtomicU64::new(0));
    let all = Arc::new(AtomicU64::new(0));
    let start = Instant::now() + Duration::from_millis(500);
    let (from, to) = (
        start + Duration::from_secs_f64(ramp),
        start + Duration::from_secs_f64(ramp + seconds),
    );
    let threads: Vec<_> = (0..terminals)
        .map(|i| {
            let (url, new_orders, all) = (url.clone(), new_orders.clone(), all.clone());
            std::thread::spawn(move || {
                let mut client = Client::connect(&url, NoTls).expect("connect");
                let mut t = Terminal {
                    s: Statements::prepare(&mut client).expect("prepare"),
                    w: i % warehouses + 1,
                    stock_d: i / warehouses % 10 + 1,
                    warehouses,
                    c,
                    rng: SmallRng::seed_from_u64(1000 + i as u64),
                };
                let mut deck: Vec<Kind> = [
                    (Kind::NewOrder, 10),
                    (Kind::Payment, 10),
                    (Kind::OrderStatus, 1),
                    (Kind::Delivery, 1),
                    (Kind::StockLevel, 1),
                ]
                .iter()
                .flat_map(|&(k, n)| std::iter::repeat_n(k, n))
                .collect();
                std::thread::sleep(start.saturating_duration_since(Instant::now()));
                loop {
                    deck.shuffle(&mut t.rng);
                    for &kind in &deck {
                        t.run(&mut client, kind);
                        let now = Instant::now();
                        if now >= to {
                            return;
                        }
                        if now >= from {
                            all.fetch_add(1, Ordering::Relaxed);
                            if kind == Kind::NewOrder {
                                new_orders.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a terminal failed");
    }
    let minutes = seconds / 60.0;
    println!(
        "nopm {:.0}",
        new_orders.load(Ordering::Relaxed) as f64 / minutes
    );
    println!("tpm {:.0}", all.load(Ordering::Relaxed) as f64 / minutes);
}
