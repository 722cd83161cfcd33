//! What bound a step, where its resource figures tell: hakari's own CPU at the cores it may run
//! on (the figure is the client's limit, not the database's), every core busy, or the device
//! flushing at the fsync probe's ceiling.

use super::{Measurement, Verdict};

/// The share of a limit at which a step counts as held by it.
const AT_LIMIT: f64 = 0.9;

/// The shortest step judged, in seconds.
const SHORTEST: f64 = 1.0;

/// The verdicts of a measurement's figures; `ceiling` is the fsync probe's flushes per second.
pub fn of(m: &Measurement, ceiling: Option<f64>) -> Vec<Verdict> {
    let allowed = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let machine = machine_cores().max(allowed);
    of_with(m, ceiling, allowed, machine)
}

/// The same, with the cores hakari may run on (`allowed`, its affinity) and the machine's.
pub fn of_with(m: &Measurement, ceiling: Option<f64>, allowed: f64, machine: f64) -> Vec<Verdict> {
    let mut out = Vec::new();
    let client = m.figure("client.cpu_cores");
    let server = m.figure("server.cpu_cores").unwrap_or(0.0);
    if m.seconds_mean < SHORTEST {
        // CPU time comes in clock ticks: a shorter step's share of the cores is noise.
        return out;
    }
    if let Some(client) = client {
        let on_its_cores = client >= AT_LIMIT * allowed;
        let machine_busy = client + server >= AT_LIMIT * machine;
        if on_its_cores || (machine_busy && client >= server) {
            out.push(Verdict {
                kind: "client-bound".into(),
                why: format!(
                    "hakari used {client:.2} of the {} core{} it may run on{}: this figure is \
                     the client's limit, not the database's",
                    allowed,
                    if allowed == 1.0 { "" } else { "s" },
                    if server > 0.0 {
                        format!(" (the private server {server:.2})")
                    } else {
                        String::new()
                    }
                ),
            });
        } else if let Some(idle) = idle_while_latency_rose(m, client, server) {
            out.push(idle);
        } else if machine_busy {
            out.push(Verdict {
                kind: "cpu-bound".into(),
                why: format!(
                    "the machine's {machine} cores were busy: the server {server:.2}, hakari \
                     {client:.2}"
                ),
            });
        }
    }
    if let (Some(flushes), Some(ceiling)) = (m.figure("device.flushes_per_s"), ceiling) {
        if ceiling > 0.0 && flushes >= AT_LIMIT * ceiling {
            out.push(Verdict {
                kind: "flush-bound".into(),
                why: format!(
                    "the device flushed {} times a second, at the fsync probe's ceiling of {}",
                    crate::units::thousands(flushes),
                    crate::units::thousands(ceiling)
                ),
            });
        }
    }
    out
}

/// A private server's CPU under which it counts as idle, in cores.
const IDLE: f64 = 0.25;

/// A private server that sat idle while the latency rose and hakari worked: the operations
/// waited in hakari (an open loop whose queue grew), not in the database. Latency rose when the
/// median p99 of the last third of the first run's intervals is over twice the first third's.
/// hakari must have used at least twice the server's CPU, and a quarter of a core: a server
/// waiting on its disk leaves both idle, and is not the client's limit.
fn idle_while_latency_rose(m: &Measurement, client: f64, server: f64) -> Option<Verdict> {
    m.figure("server.cpu_cores").filter(|s| *s < IDLE)?;
    if client < IDLE || client < 2.0 * server {
        return None;
    }
    let run = m.runs.first()?;
    let counted: Vec<f64> = (run.intervals.iter())
        .filter(|i| !i.warmup && i.ops > 0)
        .map(|i| i.p99_us)
        .collect();
    let third = counted.len() / 3;
    if third < 2 {
        return None;
    }
    let median = |xs: &[f64]| {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (first, last) = (
        median(&counted[..third]),
        median(&counted[counted.len() - third..]),
    );
    (last > 2.0 * first).then(|| Verdict {
        kind: "client-bound".into(),
        why: format!(
            "the private server sat idle ({server:.2} cores, hakari {client:.2}) while p99 rose \
             from {} to {}: operations waited in hakari, not in the database",
            crate::units::duration(first / 1e6),
            crate::units::duration(last / 1e6)
        ),
    })
}

/// Online processors on the machine (whatever hakari's own affinity).
fn machine_cores() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    n.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::figures::Figure;

    fn step(client: f64, server: Option<f64>) -> Measurement {
        let mut m: Measurement = serde_json::from_value(serde_json::json!({
            "workload": "kv", "engine": "null", "durability": "none", "threads": 4,
            "step": "insert", "runs": [], "ops_per_sec_mean": 1.0, "ops_per_sec_stddev": 0.0,
            "ops_per_sec_min": 1.0, "ops_per_sec_max": 1.0, "seconds_mean": 1.0,
            "seconds_stddev": 0.0, "latency": null
        }))
        .unwrap();
        let fig = |name: &str, value| Figure {
            name: name.into(),
            value,
            unit: "cores".into(),
        };
        m.figures.push(fig("client.cpu_cores", client));
        if let Some(s) = server {
            m.figures.push(fig("server.cpu_cores", s));
        }
        m
    }

    #[test]
    fn a_client_at_its_cores_is_the_limit() {
        let kinds = |m: &Measurement, allowed, machine| -> Vec<String> {
            of_with(m, None, allowed, machine)
                .into_iter()
                .map(|v| v.kind)
                .collect()
        };
        assert_eq!(kinds(&step(0.97, None), 1.0, 2.0), ["client-bound"]);
        assert_eq!(kinds(&step(0.3, Some(0.2)), 2.0, 2.0), Vec::<String>::new());
        assert_eq!(kinds(&step(0.5, Some(1.4)), 2.0, 2.0), ["cpu-bound"]);
        assert_eq!(kinds(&step(1.1, Some(0.8)), 2.0, 2.0), ["client-bound"]);
    }

    /// An idle server under rising latency: the client's verdict; the same latency on a busy
    /// server, or a flat latency on an idle one, is not.
    #[test]
    fn an_idle_server_under_rising_latency_is_the_clients_limit() {
        let with = |client: f64, server: f64, p99s: &[f64]| {
            let mut m = step(client, Some(server));
            let intervals: Vec<serde_json::Value> = (p99s.iter().enumerate())
                .map(|(i, p)| {
                    serde_json::json!({"t_s": i as f64, "seconds": 1.0, "ops": 10,
                        "ops_per_sec": 10.0, "p50_us": p, "p99_us": p, "max_us": p})
                })
                .collect();
            m.runs = vec![serde_json::from_value(serde_json::json!({
                "ops": 60, "seconds": 6.0, "ops_per_sec": 10.0, "intervals": intervals
            }))
            .unwrap()];
            of_with(&m, None, 2.0, 2.0)
                .into_iter()
                .map(|v| v.kind)
                .collect::<Vec<_>>()
        };
        let rising = [100.0, 120.0, 300.0, 500.0, 900.0, 1500.0];
        assert_eq!(with(0.3, 0.05, &rising), ["client-bound"]);
        assert_eq!(with(0.3, 0.9, &rising), Vec::<String>::new());
        assert_eq!(with(0.3, 0.05, &[100.0; 6]), Vec::<String>::new());
        // Both idle: the server waits on its disk, not on hakari.
        assert_eq!(with(0.05, 0.02, &rising), Vec::<String>::new());
    }
}
