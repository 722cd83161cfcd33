//! Stock-Level (§2.8): how many distinct items of the terminal's district's last 20 orders are
//! low in stock at the home warehouse (read committed is enough, §2.8.2.3).

use super::statements::{int, n, one_row, Statements};
use crate::engine::sql::SqlConnection;
use anyhow::Result;
use rand::Rng;

pub struct Input {
    pub w: i64,
    pub d: i64,
    pub threshold: i64,
}

pub fn draw(rng: &mut impl Rng, home: i64, district: i64) -> Input {
    Input {
        w: home,
        d: district,
        threshold: rng.random_range(10..=20),
    }
}

pub fn run(conn: &mut dyn SqlConnection, st: &Statements, x: &Input) -> Result<i64> {
    let (w, d) = (n(x.w), n(x.d));
    conn.begin()?;
    let next = one_row(
        conn,
        st.get("district_next_order"),
        &[w.clone(), d.clone()],
        "district",
    )?;
    let next = int(&next, 0)?;
    let args = [w.clone(), d, n(next), n(next - 20), w, n(x.threshold)];
    let low = one_row(conn, st.get("low_stock"), &args, "stock level")?;
    let low = int(&low, 0)?;
    conn.commit()?;
    Ok(low)
}
