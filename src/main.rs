fn main() {
    std::process::exit(hakari::cli::main());
}
