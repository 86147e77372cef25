//! The `lasker-tools` binary: the training tools, one subcommand each. Each
//! takes flags, reports progress on stderr and exits (status 2 on an
//! error, with its usage).

const USAGE: &str = "usage: lasker-tools <datagen|train|judge|convert|fit-wdl> [flags]
  datagen   self-play games as training data (.vf)
  train     trains a net on training data
  judge     each net's loss and rank correlation against Stockfish's scores of other engines' games
  convert   turns games, records and PGNs into each other's formats
  fit-wdl   fits the win/draw/loss model of UCI_ShowWDL to self-play data
Each prints its flags when given a bad one.";

use lasker::channel::send;

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let outcome = match args.first().map(String::as_str) {
        Some("datagen") => lasker_tools::datagen::Config::from_args(rest)
            .and_then(|config| lasker_tools::datagen::run(&config).map(drop)),
        Some("train") => lasker_tools::train::Config::from_args(rest)
            .and_then(|config| lasker_tools::train::run(&config).map(drop)),
        Some("judge") => lasker_tools::judge::run(rest),
        Some("convert") => lasker_tools::data::convert(rest),
        Some("fit-wdl") => lasker_tools::wdl_fit::run(rest),
        Some("--help" | "-h" | "help") => {
            send(USAGE);
            Ok(())
        }
        Some("--version" | "-V") => {
            send(&format!("lasker-tools {}", env!("CARGO_PKG_VERSION")));
            Ok(())
        }
        _ => Err(USAGE.to_string()),
    };
    if let Err(e) = outcome {
        eprintln!("lasker-tools: {e}");
        std::process::exit(2);
    }
}
