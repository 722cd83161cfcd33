//! The HTML report and `compare` from real runs: rendered in headless Chromium, robust to broken
//! and incomplete result files.

use std::path::{Path, PathBuf};
use std::process::Command;
mod common;
use common::{hakari, result_files};

/// Two small runs of the kv workload with two thread counts, into `dir`.
fn two_runs(dir: &Path) -> Vec<PathBuf> {
    for _ in 0..2 {
        let o = hakari(&[
            "run",
            "kv",
            "--engine",
            "sqlite,null",
            "--durability",
            "write-nosync",
            "--threads",
            "1,2",
            "--batches",
            "30",
            "--runs",
            "2",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    result_files(dir)
}

fn chromium() -> PathBuf {
    for c in [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ] {
        if Path::new(c).exists() {
            return PathBuf::from(c);
        }
    }
    panic!("headless Chromium is needed for this test: run scripts/setup.sh (or `apt-get install chromium`)");
}

/// Headless Chromium's DOM of `page` after load, and its log, with `more` flags.
fn chromium_dom(page: &Path, more: &[&str]) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            &format!("--user-data-dir={}", profile.path().display()),
            "--dump-dom",
        ])
        .args(more)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The page as headless Chromium rendered it (its DOM after load), with the console's log.
fn rendered(report: &Path) -> (String, String) {
    chromium_dom(report, &[])
}

/// The text a reader sees: the DOM without its tags (the charts' labels included).
fn text_of(dom: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in dom.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Runs of every workload the issue named (kv, tpcb closed and open loop, wisconsin, ycsb,
/// tpch), two tpcb runs sharing no figure: the page
/// opens with the summary, keeps where the runs were made for the end, writes every latency in
/// the unit that fits (never 1049624.57 µs), draws no step's short last interval as a point, and
/// has no comparison of runs that share nothing.
#[test]
fn the_report_leads_with_the_answer_in_units_a_person_reads() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    // tpcb twice: a closed loop cut into intervals, and an open loop (no figure shared).
    let tpcb = "tpcb --engine sqlite --accounts-per-branch 100 --duration 1 --runs 1";
    let runs = [
        "kv --engine sqlite --batches 30 --runs 2".to_string(),
        // Three intervals of 0.33 s and a last of 0.01 s and what the last transaction
        // overruns: short (under 0.165 s) unless that overrun passes 0.15 s. With 0.3 s, a
        // transaction 0.05 s late on a slow disk under the other tests kept the last one.
        format!("{tpcb} --interval 0.33"),
        format!("{tpcb} --rate 200"),
        "wisconsin --engine sqlite --tuples 1000 --runs 1".to_string(),
        "ycsb --engine sqlite --workload a --records 200 --operations 400 --runs 1".to_string(),
        "tpch --engine sqlite --sf 0.01".to_string(),
    ];
    for args in &runs {
        let mut all = vec!["run"];
        all.extend(args.split(' '));
        all.extend(["--out", out]);
        let o = hakari(&all);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = hakari(&["report", out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (dom, log) = rendered(&dir.path().join("report.html"));
    assert!(!log.contains("Uncaught"), "{log}");
    let text = text_of(&dom);
    let at = |what: &str| {
        text.find(what)
            .unwrap_or_else(|| panic!("no '{what}' in the page"))
    };
    assert!(
        at("Summary") < at("Workload: kv"),
        "the summary comes first"
    );
    assert!(text.contains("(TPC-H's rules)"), "tpch's headline: {text}");
    assert!(
        at("Workload: ycsb") < at("Test environment"),
        "provenance at the end"
    );
    assert!(
        text.contains("insert:") && text.contains("queries in"),
        "headlines: {text}"
    );
    assert!(
        !text.contains("0 shared figure(s)"),
        "no comparison of unrelated runs"
    );
    assert!(
        text.contains("a last one under half as long left out"),
        "the tpcb run's short last interval is left out of its lines, and said so"
    );
    // Every latency: at most 3 integer digits before its unit.
    let words: Vec<&str> = text.split(' ').collect();
    for pair in words.windows(2) {
        if ["µs", "ms", "us"].contains(&pair[1]) {
            let digits = pair[0].split('.').next().unwrap_or("");
            assert!(
                digits.len() <= 3 || pair[1] != "µs",
                "{} {} should be in a larger unit",
                pair[0],
                pair[1]
            );
            assert_ne!(pair[1], "us", "one spelling of microseconds: µs");
        }
    }
}

#[test]
fn the_report_renders_in_chromium_with_every_chart_and_no_console_error() {
    let dir = tempfile::tempdir().unwrap();
    two_runs(dir.path());
    let o = hakari(&["report", dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = dir.path().join("report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        !html.contains("http://") || !html.contains("<script src"),
        "self-contained"
    );
    assert!(!html.contains("<link"), "no external stylesheet");
    let expected: usize = html
        .split("data-charts=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|n| n.parse().ok())
        .expect("the page says how many charts it has");
    // Per run: one bar chart, one line chart per step (two thread counts ran), and per step
    // what it cost over time: CPU and the device's writes (an embedded engine: no server).
    assert_eq!(expected, 2 * (1 + 4 + 4 * 2));
    let (dom, log) = rendered(&report);
    assert_eq!(
        dom.matches("<svg class=\"chart\"").count(),
        expected,
        "every chart's SVG is in the rendered page"
    );
    assert!(dom.contains("Test environment") && dom.contains("Comparison against run"));
    for line in log.lines() {
        assert!(
            !(line.contains("CONSOLE") || line.contains("Uncaught")),
            "console error while rendering the report: {line}"
        );
    }
}

#[test]
fn broken_and_incomplete_files_are_named_and_the_rest_is_rendered() {
    let dir = tempfile::tempdir().unwrap();
    let files = two_runs(dir.path());
    // One run marked interrupted, one truncated, one foreign, one of another schema version.
    let mut interrupted: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    interrupted["status"] = "interrupted".into();
    interrupted["complete"] = false.into();
    std::fs::write(&files[0], interrupted.to_string()).unwrap();
    let text = std::fs::read_to_string(&files[1]).unwrap();
    std::fs::write(dir.path().join("truncated.json"), &text[..text.len() / 3]).unwrap();
    std::fs::write(dir.path().join("foreign.json"), "[1, 2, 3]").unwrap();
    let mut v2: serde_json::Value = serde_json::from_str(&text).unwrap();
    v2["schema_version"] = 2.into();
    std::fs::write(dir.path().join("v2.json"), v2.to_string()).unwrap();

    let out = dir.path().join("r.html");
    let o = hakari(&[
        "report",
        dir.path().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("truncated"), "{err}");
    assert!(err.contains("schema version 2"), "{err}");
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("incomplete: interrupted"));
    assert_eq!(html.matches("could not be read").count(), 3);

    // Nothing readable: a clear error and a non-zero exit, no report.
    let bad = tempfile::tempdir().unwrap();
    std::fs::write(bad.path().join("x.json"), "{").unwrap();
    let none = bad.path().join("none.html");
    let o = hakari(&[
        "report",
        bad.path().to_str().unwrap(),
        "-o",
        none.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!none.exists());
}

#[test]
fn compare_prints_changes_and_refuses_foreign_files() {
    let dir = tempfile::tempdir().unwrap();
    let files = two_runs(dir.path());
    let o = hakari(&[
        "compare",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("kv sqlite write-nosync t2 fetch"), "{text}");
    assert!(text.contains('%'));
    let foreign = dir.path().join("f.txt");
    std::fs::write(&foreign, "hello").unwrap();
    let o = hakari(&[
        "compare",
        files[0].to_str().unwrap(),
        foreign.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn run_with_report_writes_the_runs_own_page() {
    let dir = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "kv",
        "--engine",
        "null",
        "--batches",
        "10",
        "--runs",
        "1",
        "--report",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let json = &result_files(dir.path())[0];
    let page = std::fs::read_to_string(json.with_extension("html")).unwrap();
    assert!(page.contains("<svg class=\"chart\""));
}

/// The page at a window's width: the report with a script of the test's own appended that,
/// once the page has loaded, writes the window's width, the page's width and, for every chart,
/// its title, width and right edge into the DOM that Chromium dumps.
fn laid_out(report: &Path, width: u32) -> String {
    let page = report.with_file_name(format!("at-{width}.html"));
    let script = r#"<script>addEventListener('load', () => {
  const w = document.documentElement.clientWidth;
  const charts = [...document.querySelectorAll('svg.chart')].map(s => {
    const r = s.getBoundingClientRect();
    return `${Math.round(r.width)}|${Math.round(r.right)}|${s.getAttribute('aria-label')}`;
  });
  const d = document.createElement('pre');
  d.id = 'layout';
  d.textContent = [`window ${w} page ${document.documentElement.scrollWidth}`, ...charts].join('\n');
  document.body.appendChild(d);
});</script>"#;
    let html = std::fs::read_to_string(report).unwrap();
    std::fs::write(&page, html.replace("</body>", &format!("{script}</body>"))).unwrap();
    let size = format!("--window-size={width},900");
    let (dom, _) = chromium_dom(&page, &["--hide-scrollbars", &size]);
    let layout = dom
        .split("<pre id=\"layout\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .expect("the layout script ran");
    layout.to_string()
}

/// The charts of what each step cost (CPU, the device's writes) fit the window at a desktop's
/// 1400 px and a narrow 800 px: no chart runs past the window's edge or collapses, and the
/// page itself does not scroll sideways.
#[test]
fn the_resource_charts_fit_the_window_at_1400_and_800_px() {
    let dir = tempfile::tempdir().unwrap();
    two_runs(dir.path());
    let o = hakari(&["report", dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = dir.path().join("report.html");
    for width in [1400, 800] {
        let layout = laid_out(&report, width);
        let mut lines = layout.lines();
        let head: Vec<u32> = (lines.next().unwrap().split(' '))
            .filter_map(|w| w.parse().ok())
            .collect();
        let (window, page) = (head[0], head[1]);
        assert!(window <= width && window > width - 40, "{layout}");
        assert!(
            page <= window,
            "the page scrolls sideways at {width} px: {layout}"
        );
        let mut resource_charts = 0;
        for chart in lines {
            let mut parts = chart.splitn(3, '|');
            let w: u32 = parts.next().unwrap().parse().unwrap();
            let right: u32 = parts.next().unwrap().parse().unwrap();
            let title = parts.next().unwrap();
            assert!(
                right <= window,
                "{title} runs past the window at {width} px"
            );
            assert!(w >= 300, "{title} is {w} px wide at {width} px");
            if title.contains(": CPU per interval") || title.contains(": device I/O per interval") {
                resource_charts += 1;
            }
        }
        // Per run, per step: its CPU and its device's writes.
        assert_eq!(resource_charts, 2 * 4 * 2, "{layout}");
    }
}
