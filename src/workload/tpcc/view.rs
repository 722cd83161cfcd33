//! The tpcc view: NOPM first (tpmC-like, never tpmC), then each transaction type's share and
//! latency against §5.2.5.4's limits, the shares the terminals achieved, and the load; on the
//! page, NOPM against terminals and against warehouses.

use super::terminal::Kind;
use crate::measure::latency::new_histogram;
use crate::measure::runner::StepOutcome;
use crate::report::chart::{self, AxisKind, Labels, LineSeries};
use crate::report::parts;
use crate::report::table::Table;
use crate::report::view::{Part, Verdict, View};
use crate::results::{Measurement, RunResult};
use crate::units::{duration, thousands};

pub struct TpccView;

/// Said wherever the figures are shown.
const NOT_TPMC: &str = "tpmC-like: not an audited TPC-C result";

impl View for TpccView {
    fn parts(&self, r: &RunResult, _verdicts: &[Verdict]) -> Vec<Part> {
        let mut all = vec![Part::Tables(
            [
                nopm_table(r),
                types_table(r),
                shares_table(r),
                load_table(r),
            ]
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect(),
        )];
        all.push(Part::html(charts(r)));
        all.extend(parts::timing(r));
        all
    }

    fn derived(&self) -> bool {
        false
    }

    fn headline(&self, r: &RunResult) -> Vec<String> {
        runs(r)
            .iter()
            .filter_map(|m| {
                let nopm = metric(r, m, "NOPM")?;
                Some(format!(
                    "{} {}, {} terminals on {} warehouse(s): {} NOPM ({NOT_TPMC})",
                    m.engine,
                    m.durability,
                    m.threads,
                    m.config
                        .get("warehouses")
                        .map_or(String::new(), |w| w.to_string()),
                    thousands(nopm)
                ))
            })
            .collect()
    }
}

/// The page's charts of NOPM against terminals (a line per engine, level and warehouse count)
/// and against warehouses (a line per engine, level and terminal count), each drawn when some
/// line has more than one point.
fn charts(r: &RunResult) -> (String, usize) {
    // (engine and level, warehouses, terminals, NOPM)
    let points: Vec<(String, f64, f64, f64)> = (runs(r).into_iter())
        .filter_map(|m| {
            let w = m.config.get("warehouses")?.as_f64()?;
            let who = format!("{} {}", m.engine, m.durability);
            Some((who, w, m.threads as f64, metric(r, m, "NOPM")?))
        })
        .collect();
    let (mut out, mut drawn) = (String::new(), 0);
    for (title, x, against_terminals) in [
        ("tpcc: NOPM against terminals", "terminals", true),
        ("tpcc: NOPM against warehouses", "warehouses", false),
    ] {
        let mut lines: Vec<LineSeries> = Vec::new();
        let mut ticks = Vec::new();
        for (who, w, t, nopm) in &points {
            let (name, at) = match against_terminals {
                true => (format!("{who}, {w} warehouse(s)"), *t),
                false => (format!("{who}, {t} terminals"), *w),
            };
            ticks.push(at);
            match lines.iter_mut().find(|l| l.name == name) {
                Some(l) => l.points.push((at, *nopm, 0.0)),
                None => lines.push(LineSeries {
                    name,
                    points: vec![(at, *nopm, 0.0)],
                    published: false,
                }),
            }
        }
        if !lines.iter().any(|l| l.points.len() > 1) {
            continue;
        }
        for l in &mut lines {
            l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        ticks.sort_by(f64::total_cmp);
        ticks.dedup();
        let labels = Labels {
            title,
            x,
            y: "NOPM (New-Orders per minute)",
        };
        out.push_str(&chart::lines(
            &labels,
            &lines,
            AxisKind::Linear,
            AxisKind::Linear,
            &ticks,
        ));
        drawn += 1;
    }
    (out, drawn)
}

/// The measurements of whole runs ("all"), one per engine, level and terminal count.
fn runs(r: &RunResult) -> Vec<&Measurement> {
    r.measurements.iter().filter(|m| m.step == "all").collect()
}

/// How a run's metrics name it: level, terminals and warehouses (as `figures::record` does).
fn who(m: &Measurement) -> String {
    let warehouses = m
        .config
        .get("warehouses")
        .map_or(String::new(), |w| w.to_string());
    format!(
        "{}, {} terminals, {warehouses} warehouse(s)",
        m.durability, m.threads
    )
}

fn metric(r: &RunResult, m: &Measurement, name: &str) -> Option<f64> {
    let who = who(m);
    (r.metrics.iter())
        .find(|x| {
            x.name == name
                && x.engine.as_deref() == Some(&m.engine)
                && x.note.as_deref() == Some(&who)
        })
        .map(|x| x.value)
        .or_else(|| per_minute(r, m, name))
}

/// For the shards' results merged (`hakari merge`), which keep no figures of the whole: TPM
/// from the merged run's operations (the window every shard was counting in), NOPM the sum of
/// the shards' own (each over its measured time, which the shared `--start-at` lines up).
fn per_minute(r: &RunResult, m: &Measurement, name: &str) -> Option<f64> {
    if r.merged_from.is_empty() {
        return None;
    }
    match name {
        "TPM" => Some(m.ops_per_sec_mean * 60.0),
        "NOPM" => {
            let level = format!("{}, ", m.durability);
            let shards = (r.merged_from.iter()).filter_map(|c| {
                (c.metrics.iter()).find(|x| {
                    x.name == name
                        && x.engine.as_deref() == Some(&m.engine)
                        && x.note.as_deref().is_some_and(|n| n.starts_with(&level))
                })
            });
            let values: Vec<f64> = shards.map(|x| x.value).collect();
            (values.len() == r.merged_from.len()).then(|| values.iter().sum())
        }
        _ => None,
    }
}

fn nopm_table(r: &RunResult) -> Table {
    let think = runs(r).iter().any(|m| metric(r, m, "efficiency").is_some());
    let mut headers: Vec<String> = [
        "engine",
        "durability",
        "terminals",
        "warehouses",
        "NOPM",
        "TPM",
        "NOPM by the database",
    ]
    .map(String::from)
    .to_vec();
    if think {
        headers.push("efficiency".into());
    }
    let merged = match r.merged_from.len() {
        0 => String::new(),
        n => format!(" (merged from {n} shards: NOPM the sum of theirs, TPM their shared window)"),
    };
    let mut t = Table::new(
        format!("tpcc: NOPM, New-Orders per minute ({NOT_TPMC}); TPM, all transactions; by the database: Δ sum(d_next_o_id) over the whole run{merged}"),
        headers,
        4,
    );
    for m in runs(r) {
        let figure = |name: &str| metric(r, m, name).map_or("-".into(), thousands);
        let mut row = vec![
            m.engine.clone(),
            m.durability.clone(),
            m.threads.to_string(),
            m.config
                .get("warehouses")
                .map_or(String::new(), |w| w.to_string()),
            figure("NOPM"),
            figure("TPM"),
            figure("NOPM by the database"),
        ];
        if think {
            row.push(metric(r, m, "efficiency").map_or("-".into(), |e| format!("{e:.1}%")));
        }
        t.row(row);
    }
    t
}

fn types_table(r: &RunResult) -> Table {
    let headers = [
        "engine",
        "terminals",
        "transaction",
        "count",
        "share",
        "p50",
        "p90",
        "p99",
        "max",
        "p90 limit",
        "retries",
    ];
    let mut t = Table::new(
        "tpcc per transaction: latency from BEGIN to COMMIT (keying and think times excluded), the 90th percentile against §5.2.5.4's limits",
        headers.map(String::from).to_vec(),
        3,
    );
    for m in runs(r) {
        for k in Kind::ALL {
            let Some(one) = r.measurements.iter().find(|x| {
                x.step == k.name()
                    && x.engine == m.engine
                    && x.durability == m.durability
                    && x.threads == m.threads
            }) else {
                continue;
            };
            let ms = |us: f64| duration(us / 1e6);
            let lat = one.latency.as_ref();
            let p90 = metric(r, m, &format!("{} p90", k.name()));
            let limit = k.p90_limit_secs();
            let verdict = match p90 {
                Some(p) if p / 1e3 <= limit => format!("{} met", duration(limit)),
                Some(_) => format!("{} MISSED", duration(limit)),
                None => "-".into(),
            };
            t.row(vec![
                m.engine.clone(),
                m.threads.to_string(),
                k.name().into(),
                thousands(lat.map_or(0, |l| l.count) as f64),
                metric(r, m, &format!("{} share", k.name()))
                    .map_or("-".into(), |s| format!("{s:.1}%")),
                lat.map_or("-".into(), |l| ms(l.p50_us)),
                p90.map_or("-".into(), |p| duration(p / 1e3)),
                lat.map_or("-".into(), |l| ms(l.p99_us)),
                lat.map_or("-".into(), |l| ms(l.max_us)),
                verdict,
                metric(r, m, &format!("{} retries", k.name())).map_or("-".into(), thousands),
            ]);
        }
    }
    t
}

/// The shares the terminals achieved, beside the specification's.
fn shares_table(r: &RunResult) -> Table {
    // (metric, column, the specification's share)
    let figures = [
        ("New-Orders rolled back", "rolled back", "1%"),
        ("remote order lines", "remote lines", "1%"),
        ("remote payments", "remote payments", "15%"),
        ("customers by last name", "by last name", "60%"),
        ("districts skipped by Delivery", "Delivery skipped", "≤ 1%"),
    ];
    let mut headers = vec!["engine".to_string(), "terminals".into()];
    headers.extend(
        figures
            .iter()
            .map(|(_, column, spec)| format!("{column} ({spec})")),
    );
    let mut t = Table::new(
        "tpcc: the shares the terminals achieved, the specification's in brackets (one warehouse has no remote lines or payments)",
        headers,
        2,
    );
    // A merged result keeps only each shard's own shares: they are in the shards' results.
    let merged = !r.merged_from.is_empty();
    for m in runs(r).into_iter().filter(|_| !merged) {
        let mut row = vec![m.engine.clone(), m.threads.to_string()];
        row.extend(
            (figures.iter())
                .map(|(name, ..)| metric(r, m, name).map_or("-".into(), |v| format!("{v:.2}%"))),
        );
        t.row(row);
    }
    t
}

fn load_table(r: &RunResult) -> Table {
    let headers = [
        "engine",
        "durability",
        "warehouses",
        "load time",
        "rows/s",
        "warehouses/min",
    ];
    let mut t = Table::new(
        "tpcc load: rows through each engine's bulk path, then keys, indexes and statistics",
        headers.map(String::from).to_vec(),
        3,
    );
    for m in r.measurements.iter().filter(|m| m.step == "load") {
        let warehouses = m.config.get("warehouses").and_then(|w| w.as_f64());
        let per_minute =
            warehouses.map_or("-".into(), |w| format!("{:.1}", w / m.seconds_mean * 60.0));
        t.row(vec![
            m.engine.clone(),
            m.durability.clone(),
            m.config
                .get("warehouses")
                .map_or(String::new(), |w| w.to_string()),
            duration(m.seconds_mean),
            thousands(m.ops_per_sec_mean),
            per_minute,
        ]);
    }
    t
}

/// A mix under §5.2.3's minima runs, and says it is not TPC-C's.
pub fn mix_note(weights: Option<[u32; 5]>) -> Option<String> {
    let w = weights?;
    let under: Vec<String> = (Kind::ALL.iter().zip(w))
        .filter(|(k, w)| (*w as f64) < k.minimum_percent())
        .map(|(k, w)| format!("{} {w}% (at least {}%)", k.name(), k.minimum_percent()))
        .collect();
    if under.is_empty() {
        return None;
    }
    Some(format!(
        "--weights {}: not TPC-C's mix (§5.2.3): {}",
        w.map(|x| x.to_string()).join(","),
        under.join(", ")
    ))
}

/// The `pct` percentile of kind `kind` over the runs, in milliseconds.
pub fn percentile(outcomes: &[StepOutcome], kind: usize, pct: f64) -> f64 {
    let mut merged = new_histogram();
    for h in outcomes.iter().filter_map(|o| o.by_kind.get(kind)) {
        let _ = merged.add(h);
    }
    match merged.is_empty() {
        true => 0.0,
        false => merged.value_at_percentile(pct) as f64 / 1e6,
    }
}
