//! The `lasker` binary: a UCI engine on stdin/stdout. Arguments, if any, are
//! run as commands (`lasker bench`, `lasker "position startpos" "go depth 9"`)
//! and the engine exits when the search they start has finished.
//!
//! `lasker datagen ...` is a tool of its own (training data, not UCI): it
//! takes flags, reports on stderr and exits.

use lasker::uci::Uci;

fn main() {
    // Diagnostics go to stderr only; stdout is the UCI channel.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("datagen") {
        let outcome = lasker::datagen::Config::from_args(&args[1..])
            .and_then(|config| lasker::datagen::run(&config));
        if let Err(e) = outcome {
            eprintln!("datagen: {e}");
            std::process::exit(2);
        }
        return;
    }
    let mut uci = Uci::new();
    if args.is_empty() {
        uci.run_stdin();
    } else {
        uci.run_args(&args);
    }
}
