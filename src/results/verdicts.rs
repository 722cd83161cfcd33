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
}
