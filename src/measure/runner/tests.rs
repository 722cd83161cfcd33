use super::*;
use crate::measure::timing::{Arrival, Schedule};

fn closed() -> Timing {
    Timing::default()
}

#[test]
fn sums_ops_and_merges_latency_over_workers() {
    let out = run_step(
        4,
        &closed(),
        &Progress::hidden(),
        |i| Ok(i as u64 + 1),
        |n: &mut u64, w| {
            for _ in 0..*n * 10 {
                w.timed(1, || Ok(()))?;
            }
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(out.ops, 10 + 20 + 30 + 40);
    assert_eq!(out.latency.len(), 100);
    assert!(out.seconds > 0.0);
}

/// Between interval boundaries the calling thread sleeps until the next one; a step whose
/// workers end long before it must end with them, woken by its carriers.
#[test]
fn a_step_ends_with_its_workers_not_at_the_next_boundary() {
    let timing = Timing {
        interval: Duration::from_secs(60),
        ..closed()
    };
    let started = Instant::now();
    let out = run_step(2, &timing, &Progress::hidden(), Ok, |_: &mut usize, w| {
        std::thread::sleep(Duration::from_millis(300));
        w.timed(1, || Ok(()))
    })
    .unwrap();
    assert_eq!(out.ops, 2);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(30), "the step took {took:?}");
}

#[test]
fn a_failing_worker_fails_the_step_and_stops_the_others() {
    let err = run_step(3, &closed(), &Progress::hidden(), Ok, |i: &mut usize, w| {
        if *i == 1 {
            anyhow::bail!("boom");
        }
        while !w.should_stop() {
            std::thread::yield_now();
        }
        Ok(())
    })
    .unwrap_err();
    assert!(err.to_string().contains("boom"));
}

#[test]
fn a_failing_setup_is_reported() {
    let err = run_step(
        2,
        &closed(),
        &Progress::hidden(),
        |i| {
            if i == 0 {
                Ok(())
            } else {
                anyhow::bail!("no handle")
            }
        },
        |_: &mut (), _| Ok(()),
    )
    .unwrap_err();
    assert!(format!("{err:#}").contains("no handle"));
}

/// Units of 1 ms for a while, run by `threads` workers under `timing`.
fn sleepy_step(threads: usize, timing: &Timing) -> StepOutcome {
    run_step(
        threads,
        timing,
        &Progress::hidden(),
        Ok,
        |_: &mut usize, w| {
            while w.more() {
                w.timed(1, || {
                    std::thread::sleep(Duration::from_millis(1));
                    Ok(())
                })?;
            }
            Ok(())
        },
    )
    .unwrap()
}

#[test]
fn the_counted_intervals_sum_to_the_step_and_the_warm_up_is_left_out() {
    let timing = Timing {
        interval: Duration::from_millis(50),
        warmup: Duration::from_millis(100),
        ..closed()
    }
    .lasting(0.4);
    let out = sleepy_step(2, &timing);
    let counted: Vec<_> = out.intervals.iter().filter(|f| !f.warmup).collect();
    let warm = out.intervals.iter().filter(|f| f.warmup).count();
    assert_eq!(warm, 2, "{:?}", out.intervals);
    assert!(counted.len() >= 6, "{:?}", out.intervals);
    assert_eq!(counted.iter().map(|f| f.ops).sum::<u64>(), out.ops);
    assert!(out.intervals.iter().filter(|f| f.warmup).all(|f| f.ops > 0));
    assert!((out.seconds - 0.3).abs() < 0.05, "{}", out.seconds);
    // The series tiles the step: each interval starts where the last ended.
    for pair in out.intervals.windows(2) {
        assert!((pair[0].t_s + pair[0].seconds - pair[1].t_s).abs() < 1e-6);
    }
    assert_eq!(out.latency.len(), out.ops);
}

#[test]
fn a_step_inside_its_warm_up_is_refused() {
    let timing = Timing {
        warmup: Duration::from_secs(5),
        ..closed()
    };
    let err = run_step(1, &timing, &Progress::hidden(), Ok, |_: &mut usize, w| {
        w.timed(1, || Ok(()))
    })
    .unwrap_err();
    assert!(
        err.to_string().contains("inside the 5.00 s warm-up"),
        "{err}"
    );
}

fn open(rate: f64, seconds: f64) -> Timing {
    Timing {
        schedule: Some(Schedule {
            rate,
            arrival: Arrival::Constant,
            seed: 3,
        }),
        ..closed()
    }
    .lasting(seconds)
}

#[test]
fn an_open_loop_runs_the_scheduled_operations_and_no_more() {
    let out = run_step(
        2,
        &open(2000.0, 0.5),
        &Progress::hidden(),
        Ok,
        |_: &mut usize, w| {
            while w.more() {
                w.timed(1, || Ok(()))?;
            }
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(out.ops, 1000, "every intended start before the end, once");
    let open = out.open_loop.as_ref().unwrap();
    assert_eq!(open.service.len(), 1000);
    assert_eq!(open.lag.len(), 1000);
}

/// A stall the harness did not cause: the unit at 300 ms takes 200 ms. At 1,000 intended
/// starts a second, the 200 starts scheduled during the stall wait for it: their latencies
/// from the intended start fall evenly from 200 ms to 0, so the slowest 1% of 1,000 (10) are
/// within 10 ms of 200 ms. Service time, what a closed loop reports, sees one slow unit.
#[test]
fn a_stall_shows_in_the_open_loops_percentiles_as_the_arithmetic_predicts() {
    let stalled = std::sync::atomic::AtomicBool::new(false);
    let out = run_step(
        1,
        &open(1000.0, 1.0),
        &Progress::hidden(),
        Ok,
        |_: &mut usize, w| {
            while w.more() {
                let pause = w.elapsed() >= 0.3 && !stalled.swap(true, Ordering::SeqCst);
                w.timed(1, || {
                    if pause {
                        std::thread::sleep(Duration::from_millis(200));
                    }
                    Ok(())
                })?;
            }
            Ok(())
        },
    )
    .unwrap();
    let ms = |ns: u64| ns as f64 / 1e6;
    let open = out.open_loop.as_ref().unwrap();
    let p99 = ms(out.latency.value_at_quantile(0.99));
    let max = ms(out.latency.max());
    assert!((200.0..230.0).contains(&max), "max {max} ms");
    assert!((185.0..215.0).contains(&p99), "p99 {p99} ms: 190 predicted");
    // Requests scheduled during the stall: about 200 waited 20 ms or more.
    let over_20ms = out.latency.count_between(20_000_000, u64::MAX);
    assert!(
        (170..=200).contains(&over_20ms),
        "{over_20ms} waited over 20 ms"
    );
    assert!(
        ms(open.service.value_at_quantile(0.99)) < 5.0,
        "service p99"
    );
    assert!(ms(open.service.max()) >= 200.0, "the one slow unit");
    let worst = out
        .intervals
        .iter()
        .map(|f| f.lag_max_us.unwrap())
        .fold(0.0, f64::max);
    assert!(
        worst >= 190_000.0,
        "the lag shows in the series: {worst} us"
    );
}
