//! DuckDB's own loader reading dbgen `.tbl` files: the reference side of
//! `bench/tpch_load_compare.sh ... duckdb`. Creates the eight tables in a fresh database file
//! (SCHEMA: `CREATE TABLE` statements whose last column takes the empty field after each line's
//! trailing '|'), then one `COPY table FROM 'DIR/table.tbl.*'` per table, which DuckDB reads in
//! parallel. Prints the seconds the COPYs took.
//!
//!   cargo run --release --example duckdb_copy -- DB_FILE TBL_DIR SCHEMA_FILE

#[cfg(feature = "duckdb")]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db, dir, schema] = args.as_slice() else {
        eprintln!("usage: duckdb_copy DB_FILE TBL_DIR SCHEMA_FILE");
        std::process::exit(2);
    };
    let conn = duckdb::Connection::open(db).expect("open the database");
    conn.execute_batch(&std::fs::read_to_string(schema).expect("read the schema"))
        .expect("create the tables");
    let started = std::time::Instant::now();
    for table in [
        "region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem",
    ] {
        conn.execute_batch(&format!(
            "COPY {table} FROM '{dir}/{table}.tbl.*' (DELIMITER '|', HEADER false)"
        ))
        .unwrap_or_else(|e| panic!("COPY {table}: {e}"));
    }
    println!("{:.3}", started.elapsed().as_secs_f64());
}

#[cfg(not(feature = "duckdb"))]
fn main() {
    eprintln!("duckdb_copy needs the duckdb feature (the default build has it)");
    std::process::exit(1);
}
