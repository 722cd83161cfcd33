//! Builds the Berkeley DB shim (src/engine/bdb/shim.c) against Debian's libdb5.3-dev.

fn main() {
    println!("cargo:rerun-if-changed=src/engine/bdb/shim.c");
    let header = std::path::Path::new("/usr/include/db.h");
    if !header.exists() {
        panic!(
            "Berkeley DB 5.3 headers not found (/usr/include/db.h): run scripts/setup.sh, or \
             `sudo apt-get install libdb5.3-dev`"
        );
    }
    cc::Build::new()
        .file("src/engine/bdb/shim.c")
        .warnings(true)
        .opt_level(2)
        .compile("hakari_bdb_shim");
    println!("cargo:rustc-link-lib=db-5.3");

    // sysbench's scripts call sb_counter_inc through LuaJIT's FFI, which finds it among the
    // binary's exported symbols (workload/sysbench/sql.rs).
    println!("cargo:rustc-link-arg-bin=hakari=-Wl,--export-dynamic-symbol=sb_counter_inc");

    // The duckdb feature over a prebuilt libduckdb.so: find it at run time where it was linked.
    println!("cargo:rerun-if-env-changed=DUCKDB_LIB_DIR");
    let bundled = std::env::var_os("CARGO_FEATURE_DUCKDB_BUNDLED").is_some();
    if std::env::var_os("CARGO_FEATURE_DUCKDB").is_some() && !bundled {
        match std::env::var("DUCKDB_LIB_DIR") {
            Ok(dir) => println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}"),
            Err(_) => panic!(
                "the duckdb engine links a prebuilt libduckdb.so: run scripts/setup.sh (it fetches \
                 it and links it as .duckdb in the checkout, where .cargo/config.toml points \
                 DUCKDB_LIB_DIR); or build with --features duckdb-bundled (compiles DuckDB, over \
                 an hour and a half on 2 cores), or --no-default-features (no duckdb engine)"
            ),
        }
    }
}
