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
}
