//! The remote terminal emulator (TPC-C's RTE) of one run: its terminals (`terminal.rs`), each
//! with its connection, prepared statements, home warehouse and deck, dealing transactions in a
//! closed loop (or at `--rate`), and the tally of what they did.

use super::presets::TpccParams;
use super::random::Constants;
use super::statements::Statements;
use super::terminal::{self, Kind, Terminal};
use super::{delivery, new_order, order_status, payment, stock_level};
use crate::engine::kv::retry_conflicts;
use crate::engine::sql::{SqlConnection, SqlDatabase};
use crate::measure::progress::Progress;
use crate::measure::runner::{run_step, StepOutcome, Worker};
use crate::measure::timing::Timing;
use anyhow::Result;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// What the terminals counted beside the latencies, each figure of the measured time only
/// (but `committed_new_orders`, which counts the ramp-up too, to compare with the database).
#[derive(Default)]
pub struct Tally {
    pub retries: [AtomicU64; 5],
    pub rollbacks: AtomicU64,
    pub lines: AtomicU64,
    pub remote_lines: AtomicU64,
    pub payments: AtomicU64,
    pub remote_payments: AtomicU64,
    /// Payments and Order-Statuses, and those that found the customer by last name.
    pub customer_lookups: AtomicU64,
    pub by_name: AtomicU64,
    pub deliveries: AtomicU64,
    pub skipped_districts: AtomicU64,
    pub committed_new_orders: AtomicU64,
}

fn add(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

/// The run's terminals and what they share.
pub struct Terminals<'a> {
    pub p: &'a TpccParams,
    pub db: &'a dyn SqlDatabase,
    pub constants: Constants,
    pub seed: u64,
    pub tally: &'a Tally,
    /// The terminals' home warehouses: all of them, or this shard's part (`--shard`).
    pub homes: RangeInclusive<u64>,
}

/// One terminal's connection, statements, place and random stream.
struct Client {
    conn: Box<dyn SqlConnection>,
    st: Statements,
    terminal: Terminal,
    rng: ChaCha8Rng,
}

/// One drawn transaction's input.
enum Input {
    NewOrder(new_order::Input),
    Payment(payment::Input),
    OrderStatus(order_status::Input),
    Delivery(delivery::Input),
    StockLevel(stock_level::Input),
}

/// What one transaction did, for the tally.
enum Done {
    NewOrder(new_order::Done),
    Delivery { skipped: u64 },
    Other,
}

impl Terminals<'_> {
    pub fn run(&self, clients: usize, timing: &Timing) -> Result<StepOutcome> {
        run_step(
            clients,
            timing,
            &Progress::hidden(),
            |i| {
                let mut conn = self.db.connect()?;
                let st = Statements::prepare(conn.as_mut())?;
                Ok(Client {
                    conn,
                    st,
                    terminal: Terminal::new(i, &self.homes, self.p.weights),
                    rng: ChaCha8Rng::seed_from_u64(
                        self.seed ^ (i as u64).wrapping_mul(0x9E37_79B9),
                    ),
                })
            },
            |client: &mut Client, worker: &mut Worker| {
                while worker.more() {
                    let kind = client.terminal.next(&mut client.rng);
                    if self.p.think {
                        pause(worker, kind.keying_secs());
                        if !worker.more() {
                            break;
                        }
                    }
                    let input = self.draw(kind, client);
                    let mut retries = 0;
                    let done = worker.timed_as(kind.index(), 1, || {
                        retry_conflicts(&mut retries, || {
                            transaction(client, &input).inspect_err(|_| {
                                let _ = client.conn.rollback();
                            })
                        })
                    })?;
                    if let Done::NewOrder(d) = &done {
                        if !d.rolled_back {
                            add(&self.tally.committed_new_orders, 1);
                        }
                    }
                    if worker.counted() {
                        self.count(kind, &input, &done, retries);
                    }
                    for _ in 0..retries {
                        worker.retried();
                    }
                    if self.p.think {
                        let mean = kind.think_mean_secs();
                        pause(worker, terminal::think_secs(&mut client.rng, mean));
                    }
                }
                Ok(())
            },
        )
    }

    fn draw(&self, kind: Kind, client: &mut Client) -> Input {
        let (rng, c) = (&mut client.rng, &self.constants);
        let (home, all) = (client.terminal.warehouse, self.p.warehouses as i64);
        match kind {
            Kind::NewOrder => Input::NewOrder(new_order::draw(rng, home, all, c)),
            Kind::Payment => Input::Payment(payment::draw(rng, home, all, c)),
            Kind::OrderStatus => Input::OrderStatus(order_status::draw(rng, home, c)),
            Kind::Delivery => Input::Delivery(delivery::draw(rng, home)),
            Kind::StockLevel => {
                let district = client.terminal.district;
                Input::StockLevel(stock_level::draw(rng, home, district))
            }
        }
    }

    fn count(&self, kind: Kind, input: &Input, done: &Done, retries: u64) {
        let t = self.tally;
        add(&t.retries[kind.index()], retries);
        match (input, done) {
            (_, Done::NewOrder(d)) => {
                add(&t.rollbacks, d.rolled_back as u64);
                add(&t.lines, d.lines);
                add(&t.remote_lines, d.remote_lines);
            }
            (_, Done::Delivery { skipped }) => {
                add(&t.deliveries, 1);
                add(&t.skipped_districts, *skipped);
            }
            (Input::Payment(x), _) => {
                add(&t.payments, 1);
                add(&t.remote_payments, (x.c_w != x.w) as u64);
                add(&t.customer_lookups, 1);
                add(&t.by_name, x.customer.by_name() as u64);
            }
            (Input::OrderStatus(x), _) => {
                add(&t.customer_lookups, 1);
                add(&t.by_name, x.customer.by_name() as u64);
            }
            _ => {}
        }
    }
}

fn transaction(client: &mut Client, input: &Input) -> Result<Done> {
    let (conn, st) = (client.conn.as_mut(), &client.st);
    Ok(match input {
        Input::NewOrder(x) => Done::NewOrder(new_order::run(conn, st, x)?),
        Input::Payment(x) => payment::run(conn, st, x).map(|()| Done::Other)?,
        Input::OrderStatus(x) => order_status::run(conn, st, x).map(|()| Done::Other)?,
        Input::Delivery(x) => Done::Delivery {
            skipped: delivery::run(conn, st, x)?,
        },
        Input::StockLevel(x) => stock_level::run(conn, st, x).map(|_| Done::Other)?,
    })
}

/// Waits `secs` (a keying or think time), ending early when the step ends.
fn pause(worker: &Worker, secs: f64) {
    let until = Instant::now() + std::time::Duration::from_secs_f64(secs);
    while worker.more() {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(std::time::Duration::from_millis(100)));
    }
}

pub fn sum_retries(tallies: &[(Tally, i64, f64)], k: Kind) -> u64 {
    (tallies.iter())
        .map(|(t, ..)| t.retries[k.index()].load(Ordering::Relaxed))
        .sum()
}
