//! The `lasker` binary: a UCI engine on stdin/stdout. Arguments, if any, are
//! run as commands (`lasker bench`, `lasker "position startpos" "go depth 9"`)
//! and the engine exits when the search they start has finished; one that
//! starts no command is a usage error (said on stderr, exit status 2).
//!
//! `lasker --version` and `--help` say what the binary is; `lasker spsa`
//! (a `--features tune` build) prints the search parameters as OpenBench's
//! SPSA input. The training tools (`datagen`, `train`, `convert`,
//! `fit-wdl`) are the `lasker-tools` binary's (`tools/`): asked of this
//! one, they say so.

use lasker::channel::send;
use lasker::uci::Uci;

fn main() {
    // Diagnostics go to stderr only; stdout is the UCI channel.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tool = match args.first().map(String::as_str) {
        Some(tool @ ("datagen" | "train" | "convert" | "fit-wdl")) => Some(Err(format!(
            "'{tool}' is a training tool: run `lasker-tools {tool} ...` (make builds it beside lasker)"
        ))),
        Some("spsa") => Some(spsa()),
        Some("--version" | "-V" | "version") => {
            send(&lasker::build::version_text());
            Some(Ok(()))
        }
        Some("--help" | "-h" | "help") => {
            send(lasker::build::HELP);
            Some(Ok(()))
        }
        _ => None,
    };
    if let Some(outcome) = tool {
        if let Err(e) = outcome {
            eprintln!("{}: {e}", args[0]);
            std::process::exit(2);
        }
        return;
    }
    if args.is_empty() {
        Uci::new().run_stdin();
        return;
    }
    match Uci::command_line(&args) {
        Ok(commands) => Uci::new().run_args(&commands),
        // Said to the user, not to a GUI, with the status of a usage error.
        Err(e) => {
            eprintln!("lasker: {e}");
            std::process::exit(2);
        }
    }
}

/// The search parameters as OpenBench's SPSA input, one line each: what a
/// tuning run starts from. Only a tune build can be tuned by them.
fn spsa() -> Result<(), String> {
    if !cfg!(feature = "tune") {
        return Err("needs a build with `--features tune` (its parameters are UCI options)".into());
    }
    for line in lasker::params::openbench_lines() {
        send(&line);
    }
    Ok(())
}
