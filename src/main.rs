// mimalloc, not glibc's malloc: the clients allocate per row and per value as their drivers
// hand them over, and glibc's malloc cost a sixth of their CPU (bench/README.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Errors take no backtrace, whatever RUST_LIB_BACKTRACE or RUST_BACKTRACE say: one made in
    // a call from LuaJIT's compiled code (sysbench's hot calls, src/workload/sysbench/hot.rs)
    // would walk up through the trace's frames, which have no unwind tables, and the unwinder
    // aborts the process. Set before any thread starts; RUST_BACKTRACE still serves panics.
    unsafe { std::env::set_var("RUST_LIB_BACKTRACE", "0") };
    std::process::exit(hakari::cli::main());
}
