//! What every integration test needs: run the real binary, read what it wrote.
#![allow(dead_code)] // each test file uses its own part of this

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the hakari binary this build made.
pub fn hakari(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args(args)
        .output()
        .expect("hakari runs")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The result files in `dir`, in name (= start time) order; none when it does not exist.
pub fn result_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
