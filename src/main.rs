//! The `lasker` binary: a UCI engine on stdin/stdout. Arguments, if any, are
//! run as commands (`lasker bench`, `lasker "position startpos" "go depth 9"`)
//! and the engine exits when the search they start has finished.

use lasker::uci::Uci;

fn main() {
    // Diagnostics go to stderr only; stdout is the UCI channel.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut uci = Uci::new();
    if args.is_empty() {
        uci.run_stdin();
    } else {
        uci.run_args(&args);
    }
}
