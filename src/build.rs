//! What this binary is, for `lasker --version` and bug reports: the
//! version, the CPU level it was compiled for, whether it was built with
//! profile-guided optimisation, and the net built into it.

use crate::nnue;

/// The x86-64 level (or the architecture) the compiler was allowed to use:
/// a binary runs only on CPUs that have it.
pub fn cpu_level() -> &'static str {
    if cfg!(target_arch = "x86_64") {
        if cfg!(target_feature = "avx512f") && cfg!(target_feature = "avx512bw") {
            "x86-64-v4 (AVX-512)"
        } else if cfg!(target_feature = "avx2") {
            "x86-64-v3 (AVX2)"
        } else if cfg!(target_feature = "sse4.2") && cfg!(target_feature = "popcnt") {
            "x86-64-v2 (SSE4.2)"
        } else {
            "x86-64"
        }
    } else if cfg!(target_arch = "aarch64") {
        "aarch64 (NEON)"
    } else {
        std::env::consts::ARCH
    }
}

/// Whether the Makefile built this binary from a profile (it sets
/// `LASKER_PGO` for that build alone).
pub fn pgo() -> bool {
    option_env!("LASKER_PGO").is_some()
}

/// `lasker --version`'s lines.
pub fn version_text() -> String {
    let net = nnue::embedded();
    let shape = net.shape();
    format!(
        "Lasker {}\n\
         build: {}, {}, {} {}\n\
         net: {} ({} wide, {} input bucket{}, {} output buckets), checksum {:016x}\n\
         licence: GPL-3.0-or-later",
        env!("CARGO_PKG_VERSION"),
        cpu_level(),
        if pgo() { "PGO" } else { "no PGO" },
        std::env::consts::OS,
        std::env::consts::ARCH,
        nnue::EMBEDDED_NAME,
        shape.hidden,
        shape.input_buckets.count(),
        if shape.input_buckets.count() == 1 {
            ""
        } else {
            "s"
        },
        shape.output_buckets,
        nnue::embedded_checksum(),
    )
}

/// `lasker --help`'s text.
pub const HELP: &str = "\
Lasker, a UCI chess engine.

Usage:
  lasker                      speak UCI on stdin/stdout (load it into a GUI)
  lasker bench [DEPTH]        search the bench positions; ends 'N nodes M nps'
  lasker \"CMD\" [\"CMD\" ...]    run UCI commands, e.g. lasker \"position startpos\" \"go depth 12\"
  lasker --version            version, build, CPU level and net
  lasker --help               this text
An argument that starts no command is an error (exit status 2). The
training tools (datagen, train, convert, fit-wdl) are lasker-tools'.

At the UCI prompt, 'uci' lists the options; 'd' shows the board; 'eval' the
net's view of it. Documentation: README.md and docs/ in the source.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_names_the_version_and_the_net() {
        let text = version_text();
        assert!(text.starts_with(&format!("Lasker {}\n", env!("CARGO_PKG_VERSION"))));
        assert!(text.contains(nnue::EMBEDDED_NAME), "{text}");
        assert!(text.contains(&format!("{:016x}", nnue::embedded_checksum())));
    }

    /// The name is the file's: `nets/<name>.nnue` holds the embedded bytes.
    #[test]
    fn the_embedded_net_is_the_named_file() {
        let path = format!(
            "{}/nets/{}.nnue",
            env!("CARGO_MANIFEST_DIR"),
            nnue::EMBEDDED_NAME
        );
        let named = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let tail: [u8; 8] = named[named.len() - 8..].try_into().unwrap();
        assert_eq!(u64::from_le_bytes(tail), nnue::embedded_checksum());
    }
}
