use super::*;
use anyhow::Context;

#[test]
fn an_instant_not_given_is_drawn_from_the_seed() {
    let f = Fault::parse("stall:2s").unwrap();
    assert!(f.undrawn);
    assert_eq!(f.to_string(), "stall:2s");
    // The same seed draws the same instant, in the middle half of the 8 s a 10-s step
    // leaves before a 2-s fault's end, to the millisecond; other seeds draw others.
    let drawn = f.drawn(7, 10.0);
    assert_eq!(drawn, f.drawn(7, 10.0));
    assert!(!drawn.undrawn && drawn.length == f.length);
    assert!((2.0..6.0).contains(&drawn.at.as_secs_f64()), "{drawn}");
    assert_eq!(drawn.at.subsec_nanos() % 1_000_000, 0);
    let text = drawn.to_string();
    assert_eq!(Fault::parse(&text).unwrap().to_string(), text);
    assert!((0..20).any(|seed| f.drawn(seed, 10.0).at != drawn.at));
    // An instant given is kept.
    let given = Fault::parse("kill-primary@3s").unwrap();
    assert_eq!(given.drawn(7, 10.0), given);
    assert_eq!(
        Fault::parse("kill-primary").unwrap().to_string(),
        "kill-primary"
    );
}

#[test]
fn faults_parse_and_print_back() {
    let f = Fault::parse("stall@2s:1.5s").unwrap();
    assert_eq!(f.kind, Kind::Stall);
    assert_eq!(f.at, Duration::from_secs(2));
    assert_eq!(f.length, Duration::from_millis(1500));
    assert_eq!(f.to_string(), "stall@2s:1.5s");
    assert_eq!(
        Fault::parse("stall@500ms:1").unwrap().at,
        Duration::from_millis(500)
    );
    let kill = Fault::parse("kill-primary@3").unwrap();
    assert_eq!(
        (kill.kind, kill.length),
        (Kind::KillPrimary, Duration::ZERO)
    );
    assert_eq!(kill.to_string(), "kill-primary@3s");
    let cut = Fault::parse("partition@1s:250ms").unwrap();
    assert_eq!(
        (cut.kind, cut.length, cut.to_string().as_str()),
        (
            Kind::Partition,
            Duration::from_millis(250),
            "partition@1s:0.25s"
        )
    );
    for bad in [
        "partition@2s",
        "stall",
        "stall@2s",
        "nap@2s:1s",
        "stall@x:1s",
        "stall@2s:0s",
        "stall@-1:1",
        "kill-primary@2s:1s",
    ] {
        assert!(Fault::parse(bad).is_err(), "{bad} parsed");
    }
}

fn interval(t_s: f64, ops: u64) -> IntervalFigure {
    IntervalFigure {
        t_s,
        seconds: 1.0,
        ops,
        ops_per_sec: ops as f64,
        ..Default::default()
    }
}

/// One-second intervals of these operations each.
fn series(ops: &[u64]) -> Vec<IntervalFigure> {
    (ops.iter().enumerate())
        .map(|(t, &ops)| interval(t as f64, ops))
        .collect()
}

#[test]
fn recovery_is_the_first_interval_back_within_ten_percent_of_the_median() {
    let stall = series(&[100, 100, 0, 50, 95, 100]);
    // Fault over [2, 3): 3-4 is at half, 4-5 is back (95 >= 90): 5 - 2 = 3 s.
    assert_eq!(recovery(&stall, 2.0, 3.0), Some(3.0));
    let never = series(&[100, 100, 0, 50]);
    assert_eq!(recovery(&never, 2.0, 3.0), None);
    // One fast interval before the fault does not raise the level (the median's 100).
    let burst = series(&[100, 100, 160, 0, 92]);
    assert_eq!(recovery(&burst, 3.0, 4.0), Some(2.0));
    // The fault recorded as ending a hair into the interval after it: that one counts, one
    // that began well before the end does not.
    assert_eq!(recovery(&stall, 2.0, 3.0005), Some(3.0));
    let back = series(&[100, 100, 0, 100, 100]);
    assert_eq!(recovery(&back, 2.0, 3.5), Some(3.0));
}

#[test]
fn the_outage_is_the_longest_span_without_a_completion() {
    let fault = Fault::parse("stall@1s:1s").unwrap();
    let clock = Clock::new(&fault);
    let ms = 1_000_000;
    let mut a = Seen::new();
    let mut b = Seen::new();
    a.saw(&clock, 900 * ms, ms);
    b.saw(&clock, 990 * ms, ms);
    clock.began.store(1000 * ms, Ordering::Release);
    // One unit slipped through as the fault began.
    a.saw(&clock, 1001 * ms, ms);
    clock.ended.store(2000 * ms, Ordering::Release);
    b.saw(&clock, 2010 * ms, 1020 * ms);
    a.saw(&clock, 2020 * ms, 1019 * ms);
    let out = FaultOutcome::merge(fault, &clock, vec![a, b], 3000 * ms, &[]);
    assert!((out.outage_s - 1.009).abs() < 1e-9, "{}", out.outage_s);
    assert!(out.p99_after_us.unwrap() > 1_000_000.0);
    assert!(out.p99_before_us.unwrap() < 2_000.0);
}

#[test]
fn a_lost_connection_is_known_under_other_contexts() {
    let marked = anyhow::anyhow!("connection closed").context(ConnectionLost);
    assert!(is_connection_lost(
        &marked.context("run 1/1").context("postgres")
    ));
    let io = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
    let wrapped: anyhow::Result<()> = Err(io).context("reading a row");
    assert!(is_connection_lost(&wrapped.unwrap_err()));
    assert!(!is_connection_lost(
        &anyhow::anyhow!("syntax error").context("run 1/1")
    ));
}
