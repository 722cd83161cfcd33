//! Writes the eight TPC-H tables as dbgen `.tbl` files with the `tpchgen` crate, each table in
//! PARTS pieces generated on PARTS threads (as tpchgen-cli does). It is the reference side of
//! `bench/tpch_load_compare.sh`: files first, then psql `\copy`, against hakari's streamed load.
//!
//!   cargo run --release --example tbl_files -- SF OUT_DIR [PARTS]

use std::fmt::Display;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;
use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator,
    PartSuppGenerator, RegionGenerator, SupplierGenerator,
};

fn write_lines<T: Display>(rows: impl Iterator<Item = T>, path: &Path) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    for row in rows {
        writeln!(out, "{row}")?;
    }
    out.flush()
}

/// Part `part` (1-based) of `parts` of `table`.
fn write_part(table: &str, sf: f64, part: i32, parts: i32, path: &Path) -> std::io::Result<()> {
    match table {
        "region" => write_lines(RegionGenerator::new(sf, part, parts).iter(), path),
        "nation" => write_lines(NationGenerator::new(sf, part, parts).iter(), path),
        "part" => write_lines(PartGenerator::new(sf, part, parts).iter(), path),
        "supplier" => write_lines(SupplierGenerator::new(sf, part, parts).iter(), path),
        "partsupp" => write_lines(PartSuppGenerator::new(sf, part, parts).iter(), path),
        "customer" => write_lines(CustomerGenerator::new(sf, part, parts).iter(), path),
        "orders" => write_lines(OrderGenerator::new(sf, part, parts).iter(), path),
        "lineitem" => write_lines(LineItemGenerator::new(sf, part, parts).iter(), path),
        other => panic!("unknown table {other}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: tbl_files SF OUT_DIR [PARTS]");
        std::process::exit(2);
    }
    let sf: f64 = args[0].parse().expect("SF is a number");
    let out = PathBuf::from(&args[1]);
    let parts: i32 = args
        .get(2)
        .map_or(2, |p| p.parse().expect("PARTS is a number"));
    std::fs::create_dir_all(&out).expect("cannot create OUT_DIR");
    // The 300 MB text pool is shared by every generator; build it before the clock starts, as
    // hakari does.
    tpchgen::text::TextPool::get_or_init_default();
    let started = Instant::now();
    for table in hakari::workload::tpch::data::TABLES {
        // The two smallest tables have fewer rows than parts would split.
        let parts = if matches!(table, "region" | "nation") {
            1
        } else {
            parts
        };
        std::thread::scope(|scope| {
            for part in 1..=parts {
                let path = out.join(format!("{table}.tbl.{part}"));
                scope.spawn(move || {
                    write_part(table, sf, part, parts, &path)
                        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()))
                });
            }
        });
    }
    println!("{:.3}", started.elapsed().as_secs_f64());
}
