// mimalloc, not glibc's malloc: the clients allocate per row and per value as their drivers
// hand them over, and glibc's malloc cost a sixth of their CPU (bench/README.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(hakari::cli::main());
}
