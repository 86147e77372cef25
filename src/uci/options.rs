//! The UCI options: what `uci` lists, their current values, and
//! `setoption`, which checks a value against its option's kind and range
//! before anything changes (a bad value leaves every option as it was).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use log::debug;
use shakmaty::CastlingMode;

use super::{Uci, error, excerpt, send};
use crate::nnue::{self, Network};
#[cfg(feature = "tune")]
use crate::params;
use crate::position::Position;
use crate::rng::Rng;
use crate::search::Techniques;
use crate::strength;
use crate::tablebase::{self, TbSettings};
use crate::tt::TranspositionTable;

#[derive(Clone, Copy, Debug)]
enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Button,
    /// A free-text value (`type string`).
    Text {
        default: &'static str,
    },
}

#[derive(Clone, Copy, Debug)]
struct OptionSpec {
    name: &'static str,
    kind: OptionKind,
}

/// Hash 0 searches without a table (for measurements).
pub(super) const DEFAULT_HASH_MB: usize = 16;
const MAX_HASH_MB: i64 = 1 << 20;
const MAX_THREADS: i64 = 256;
const MAX_MULTIPV: i64 = 256;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "Hash",
        kind: OptionKind::Spin {
            default: DEFAULT_HASH_MB as i64,
            min: 0,
            max: MAX_HASH_MB,
        },
    },
    OptionSpec {
        name: "Threads",
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: MAX_THREADS,
        },
    },
    OptionSpec {
        name: "Clear Hash",
        kind: OptionKind::Button,
    },
    OptionSpec {
        name: "Move Overhead",
        kind: OptionKind::Spin {
            default: 30,
            min: 0,
            max: 5000,
        },
    },
    OptionSpec {
        name: "MultiPV",
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: MAX_MULTIPV,
        },
    },
    OptionSpec {
        name: "Ponder",
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        name: "UCI_Chess960",
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        name: "UCI_ShowWDL",
        kind: OptionKind::Check { default: false },
    },
    // Playing below full strength (`strength`), named by the UCI
    // specification.
    OptionSpec {
        name: "UCI_LimitStrength",
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        name: "UCI_Elo",
        kind: OptionKind::Spin {
            default: strength::DEFAULT_ELO,
            min: strength::MIN_ELO,
            max: strength::MAX_ELO,
        },
    },
    // Stockfish's option, which many apps and wrappers send: 0 is the
    // weakest `UCI_Elo`, 20 full strength (`strength::elo_for_skill`).
    // `UCI_LimitStrength` with its `UCI_Elo`, if on, comes first.
    OptionSpec {
        name: "Skill Level",
        kind: OptionKind::Spin {
            default: strength::MAX_SKILL,
            min: 0,
            max: strength::MAX_SKILL,
        },
    },
    // Endgame tablebases, named as in other engines.
    OptionSpec {
        name: "SyzygyPath",
        kind: OptionKind::Text { default: "<empty>" },
    },
    OptionSpec {
        name: "SyzygyProbeDepth",
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: 100,
        },
    },
    OptionSpec {
        name: "Syzygy50MoveRule",
        kind: OptionKind::Check { default: true },
    },
    OptionSpec {
        name: "SyzygyProbeLimit",
        kind: OptionKind::Spin {
            default: tablebase::MAX_PIECES as i64,
            min: 0,
            max: tablebase::MAX_PIECES as i64,
        },
    },
    // Every line in and out, with its time, appended to this file
    // (Stockfish's name and meaning): what a GUI user sends with a bug
    // report, since GUIs hide stderr.
    OptionSpec {
        name: "Debug Log File",
        kind: OptionKind::Text { default: "<empty>" },
    },
    OptionSpec {
        name: "EvalFile",
        kind: OptionKind::Text {
            default: EMBEDDED_NET_NAME,
        },
    },
];

/// `EvalFile`'s value for the net built into the binary.
const EMBEDDED_NET_NAME: &str = "<embedded>";

/// Builds with `--features ablation` (for matches that measure what a
/// search technique is worth) add `Disable`: a comma-separated list of the
/// techniques to switch off, by the names `Techniques::names` gives.
#[cfg(feature = "ablation")]
const ABLATION_OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "Disable",
    kind: OptionKind::Text { default: "<empty>" },
}];
#[cfg(not(feature = "ablation"))]
const ABLATION_OPTIONS: &[OptionSpec] = &[];

/// Builds with `--features tune` list every search parameter (`params`) as
/// a spin option of its name and range, for a tuner (OpenBench's SPSA, or
/// `tests/spsa`) to set.
#[cfg(feature = "tune")]
fn tune_options() -> impl Iterator<Item = OptionSpec> {
    params::PARAMS.iter().map(|p| OptionSpec {
        name: p.name,
        kind: OptionKind::Spin {
            default: i64::from(p.default),
            min: i64::from(p.min),
            max: i64::from(p.max),
        },
    })
}
#[cfg(not(feature = "tune"))]
fn tune_options() -> impl Iterator<Item = OptionSpec> {
    std::iter::empty()
}

/// Options `setoption` takes that `uci` doesn't list, for tests: a GUI
/// has no use for them. `StrengthSeed` seeds the generator that a
/// weakened search (`UCI_LimitStrength`) chooses its moves with, so that a
/// seed, a position and the same commands give the same moves.
const HIDDEN_OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "StrengthSeed",
    kind: OptionKind::Spin {
        default: 0,
        min: 0,
        max: i64::MAX,
    },
}];

/// The options `uci` lists.
fn listed_options() -> impl Iterator<Item = OptionSpec> {
    OPTIONS
        .iter()
        .chain(ABLATION_OPTIONS)
        .copied()
        .chain(tune_options())
}

/// Every option `setoption` takes.
fn all_options() -> impl Iterator<Item = OptionSpec> {
    listed_options().chain(HIDDEN_OPTIONS.iter().copied())
}

/// The `option name ...` lines that answer `uci`, one per option.
pub(super) fn uci_lines() -> impl Iterator<Item = String> {
    listed_options().map(|o| match o.kind {
        OptionKind::Spin { default, min, max } => format!(
            "option name {} type spin default {default} min {min} max {max}",
            o.name
        ),
        OptionKind::Check { default } => {
            format!("option name {} type check default {default}", o.name)
        }
        OptionKind::Button => format!("option name {} type button", o.name),
        OptionKind::Text { default } => {
            format!("option name {} type string default {default}", o.name)
        }
    })
}

/// Current option values.
#[derive(Clone, Debug)]
pub(super) struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub move_overhead_ms: u64,
    pub multipv: usize,
    pub ponder: bool,
    pub chess960: bool,
    /// `info` lines carry `wdl W D L` after the score.
    pub show_wdl: bool,
    /// `UCI_LimitStrength`: play at `UCI_Elo` instead of full strength.
    pub limit_strength: bool,
    pub uci_elo: i64,
    /// `Skill Level`: below `strength::MAX_SKILL`, play at its Elo.
    pub skill_level: i64,
    /// The search techniques in use: all of them, unless an ablation build
    /// switched some off.
    pub techniques: Techniques,
    /// The net `EvalFile` names (the embedded one by default).
    pub net: Arc<Network>,
    /// `SyzygyPath` as set (empty: no tablebases).
    pub syzygy_path: String,
    /// The other `Syzygy*` options.
    pub syzygy: TbSettings,
}

impl Options {
    /// The `UCI_Elo` to play at, if below full strength: `UCI_Elo` where
    /// `UCI_LimitStrength` is on, else `Skill Level`'s below 20.
    pub fn playing_elo(&self) -> Option<i64> {
        if self.limit_strength {
            Some(self.uci_elo)
        } else {
            (self.skill_level < strength::MAX_SKILL)
                .then(|| strength::elo_for_skill(self.skill_level))
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            move_overhead_ms: 30,
            multipv: 1,
            ponder: false,
            chess960: false,
            show_wdl: false,
            limit_strength: false,
            uci_elo: strength::DEFAULT_ELO,
            skill_level: strength::MAX_SKILL,
            techniques: Techniques::ALL,
            net: nnue::embedded(),
            syzygy_path: String::new(),
            syzygy: TbSettings::default(),
        }
    }
}

impl Uci {
    pub(super) fn cmd_setoption(&mut self, args: &[&str]) {
        if let Err(e) = self.set_option(args) {
            error(&e);
        }
    }

    fn set_option(&mut self, args: &[&str]) -> Result<(), String> {
        if args.first() != Some(&"name") {
            return Err("expected 'setoption name <name> [value <value>]'".into());
        }
        let value_at = args.iter().position(|&t| t == "value");
        let (name_tokens, value) = match value_at {
            Some(i) => (&args[1..i], Some(args[i + 1..].join(" "))),
            None => (&args[1..], None),
        };
        let name = name_tokens.join(" ");
        let spec = all_options()
            .find(|o| o.name.eq_ignore_ascii_case(&name))
            .ok_or_else(|| format!("unknown option '{}'", excerpt(&name)))?;
        if self.engine.is_searching() {
            return Err(format!(
                "option '{}' can't change while searching",
                spec.name
            ));
        }
        self.engine.wait();
        match spec.kind {
            OptionKind::Spin { min, max, .. } => {
                let v = value.ok_or(format!("option '{}' needs a value", spec.name))?;
                let n: i64 = v.trim().parse().map_err(|_| {
                    format!("option '{}': '{}' is not a number", spec.name, excerpt(&v))
                })?;
                if n < min || n > max {
                    return Err(format!(
                        "option '{}': {n} is out of range {min}..{max}",
                        spec.name
                    ));
                }
                self.apply_spin(spec.name, n)
            }
            OptionKind::Check { .. } => {
                let v = value.ok_or(format!("option '{}' needs true or false", spec.name))?;
                let b = match v.trim().to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(format!(
                            "option '{}': '{}' is not true or false",
                            spec.name,
                            excerpt(&v)
                        ));
                    }
                };
                match spec.name {
                    "Ponder" => self.options.ponder = b,
                    "UCI_Chess960" => self.set_chess960(b),
                    "UCI_ShowWDL" => self.options.show_wdl = b,
                    "UCI_LimitStrength" => self.options.limit_strength = b,
                    "Syzygy50MoveRule" => self.options.syzygy.fifty_move_rule = b,
                    _ => unreachable!("every check option is handled"),
                }
                Ok(())
            }
            OptionKind::Text { .. } => {
                let v = value.unwrap_or_default();
                let v = if v.trim() == "<empty>" { "" } else { v.trim() };
                match spec.name {
                    "Disable" => self.options.techniques = Techniques::all_but(v)?,
                    "EvalFile" => self.load_net(v)?,
                    "SyzygyPath" => self.set_syzygy_path(v),
                    "Debug Log File" => {
                        crate::channel::set_debug_log((!v.is_empty()).then_some(v))?
                    }
                    _ => unreachable!("every string option is handled"),
                }
                Ok(())
            }
            OptionKind::Button => {
                debug!("{}: pressed", spec.name);
                match spec.name {
                    "Clear Hash" => self.forget_learned(),
                    _ => unreachable!("every button is handled"),
                }
                Ok(())
            }
        }
    }

    fn apply_spin(&mut self, name: &str, n: i64) -> Result<(), String> {
        match name {
            "Hash" => {
                self.resize_hash(n as usize)?;
                self.options.hash_mb = n as usize;
            }
            "Threads" => self.options.threads = n as usize,
            "Move Overhead" => self.options.move_overhead_ms = n as u64,
            "MultiPV" => self.options.multipv = n as usize,
            "UCI_Elo" => self.options.uci_elo = n,
            "Skill Level" => self.options.skill_level = n,
            "StrengthSeed" => self.strength_seeds = Rng::new(n as u64),
            "SyzygyProbeDepth" => self.options.syzygy.probe_depth = n as i32,
            "SyzygyProbeLimit" => self.options.syzygy.probe_limit = n as u32,
            #[cfg(feature = "tune")]
            _ if params::find(name).is_some() => params::set(name, n as i32)?,
            _ => unreachable!("every spin option is handled"),
        }
        Ok(())
    }

    /// Resizes the table in place (no search holds it now); if the memory
    /// can't be had, the old table stays.
    fn resize_hash(&mut self, megabytes: usize) -> Result<(), String> {
        match Arc::get_mut(&mut self.tt) {
            Some(tt) => tt
                .resize(megabytes)
                .map_err(|e| format!("{e}; keeping {} MB", tt.megabytes())),
            None => {
                let tt = TranspositionTable::new(megabytes).map_err(|e| e.to_string())?;
                self.tt = Arc::new(tt);
                Ok(())
            }
        }
    }

    /// `EvalFile`: loads a net file (`<embedded>` or nothing: the built-in
    /// one). A relative path is looked for in the working directory, then
    /// beside the binary (GUIs start engines from folders of their own). A
    /// file that can't be read or doesn't match this build is refused and
    /// the current net stays.
    fn load_net(&mut self, path: &str) -> Result<(), String> {
        if path.is_empty() || path == EMBEDDED_NET_NAME {
            self.options.net = nnue::embedded();
            return Ok(());
        }
        let found = net_file(Path::new(path));
        let net =
            Network::load(&found).map_err(|e| format!("EvalFile: {e}; keeping the current net"))?;
        self.options.net = Arc::new(net);
        send(&format!("info string EvalFile {} loaded", found.display()));
        Ok(())
    }

    /// `SyzygyPath`: loads the tables of its folders (replacing any loaded
    /// before; the next search uses them) and says what it found. A folder
    /// that can't be read or holds no tables is an error; the engine plays
    /// on with whatever tables the other folders gave, or none.
    fn set_syzygy_path(&mut self, path: &str) {
        let loaded = tablebase::load(path);
        self.tables = loaded.tables.map(Arc::new);
        self.options.syzygy_path = path.to_string();
        let count = loaded.errors.len();
        for (i, e) in loaded.errors.iter().enumerate() {
            if i + 1 == count && self.tables.is_none() {
                error(&format!("{e}; playing without tablebases"));
            } else {
                error(e);
            }
        }
        if let Some(t) = &self.tables {
            send(&format!("info string {}", t.summary(path)));
        }
    }

    /// Switching notation re-reads the current position in the new mode, so
    /// that castling moves are parsed and printed consistently.
    fn set_chess960(&mut self, on: bool) {
        self.options.chess960 = on;
        let mode = CastlingMode::from_chess960(on);
        if let Some(Ok(p)) = self
            .position
            .as_ref()
            .map(|p| Position::from_fen(&p.fen(), mode))
        {
            self.position = Some(p);
        }
    }
}

/// Where `EvalFile`'s `path` is: as given if it exists there (or is
/// absolute), else beside the running binary if it is there.
fn net_file(path: &Path) -> PathBuf {
    if path.is_absolute() || path.exists() {
        return path.to_path_buf();
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(path)))
        .filter(|beside| beside.exists())
        .unwrap_or_else(|| path.to_path_buf())
}
