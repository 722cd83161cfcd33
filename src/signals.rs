//! SIGINT, SIGTERM and SIGHUP take one path. The first asks running steps to stop: the run keeps
//! what finished, marks its result interrupted, stops its servers, removes what it made and
//! exits 128 + the signal (130, 143, 129). A second one ends every private server and removes
//! every directory hakari made at once (`owned::end_all`), then exits the same way.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::sync::Once;

static INSTALLED: Once = Once::new();

/// Installs the handlers, once per process.
pub fn install() {
    INSTALLED.call_once(|| {
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
        else {
            return;
        };
        std::thread::spawn(move || {
            for signal in signals.forever() {
                if crate::measure::interrupt(signal) {
                    eprintln!(
                        "\ninterrupted ({}): finishing up, keeping the steps that completed (again to quit now)",
                        name(signal)
                    );
                } else {
                    eprintln!("\nhakari: {}: stopping the private servers and quitting now", name(signal));
                    crate::server::partition::lift_mine();
                    crate::owned::end_all();
                    std::process::exit(128 + signal);
                }
            }
        });
    });
}

/// A signal's name in messages.
pub fn name(signal: i32) -> &'static str {
    match signal {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}
