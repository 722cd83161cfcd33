//! Progress bars for steps longer than a moment (drawn on stderr, hidden when it is not a terminal).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar counting `total` operations for the step named `label`.
    pub fn new(label: &str, total: u64) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(4));
        bar.set_style(
            ProgressStyle::with_template(
                "  {prefix:<40} [{bar:30}] {percent:>3}% {human_pos}/{human_len} ops, {elapsed}",
            )
            .expect("valid progress template")
            .progress_chars("=> "),
        );
        bar.set_prefix(label.to_string());
        // Ticks so that a step stuck in one long operation still shows it is alive.
        bar.enable_steady_tick(Duration::from_millis(500));
        Progress { bar }
    }

    /// A progress sink that draws nothing (tests, nested steps).
    pub fn hidden() -> Progress {
        Progress {
            bar: ProgressBar::hidden(),
        }
    }

    pub fn add(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Prints a line above the bar (on stderr as it is when the bar is hidden).
    pub fn line(&self, text: &str) {
        if self.bar.is_hidden() {
            eprintln!("{text}");
        } else {
            self.bar.println(text);
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
