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

/// What an option takes, with its default and range, and the setter that
/// stores a value `setoption` has checked (and does what it takes: a
/// table resized, a net loaded). Each kind's setter takes its own type, so
/// no value reaches a setter unchecked.
#[derive(Clone, Copy)]
enum Kind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
        set: fn(&mut Uci, i64),
    },
    Check {
        default: bool,
        set: fn(&mut Uci, bool),
    },
    Button {
        press: fn(&mut Uci),
    },
    /// A free-text value (`type string`); `<empty>` is the empty text.
    Text {
        default: &'static str,
        set: fn(&mut Uci, &str) -> Result<(), String>,
    },
}

/// One UCI option, declared once: `uci` lists it from here, `setoption`
/// checks a value against its kind and range and hands it to the setter,
/// and `Uci::new` applies every listed option's default, so that the
/// defaults live here and nowhere else. README.md's table is checked
/// against this one by a test.
#[derive(Clone, Copy)]
struct UciOption {
    name: &'static str,
    kind: Kind,
}

/// Hash 0 searches without a table (for measurements).
const DEFAULT_HASH_MB: i64 = 16;
const MAX_HASH_MB: i64 = 1 << 20;
const MAX_THREADS: i64 = 256;
const MAX_MULTIPV: i64 = 256;
/// `EvalFile`'s value for the net built into the binary.
const EMBEDDED_NET_NAME: &str = "<embedded>";
/// A string option's value for "none".
const EMPTY: &str = "<empty>";

const OPTIONS: &[UciOption] = &[
    UciOption {
        name: "Hash",
        kind: Kind::Spin {
            default: DEFAULT_HASH_MB,
            min: 0,
            max: MAX_HASH_MB,
            set: |uci, mb| {
                if let Err(e) = uci.resize_hash(mb as usize) {
                    error(&e);
                }
            },
        },
    },
    UciOption {
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: MAX_THREADS,
            set: |uci, n| uci.options.threads = n as usize,
        },
    },
    UciOption {
        name: "Clear Hash",
        kind: Kind::Button {
            press: Uci::forget_learned,
        },
    },
    UciOption {
        name: "Move Overhead",
        kind: Kind::Spin {
            default: 30,
            min: 0,
            max: 5000,
            set: |uci, ms| uci.options.move_overhead_ms = ms as u64,
        },
    },
    UciOption {
        name: "MultiPV",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: MAX_MULTIPV,
            set: |uci, n| uci.options.multipv = n as usize,
        },
    },
    // GUIs send `go ponder` only where an engine lists it; pondering works
    // whatever its value, so there is nothing to store.
    UciOption {
        name: "Ponder",
        kind: Kind::Check {
            default: false,
            set: |_, _| {},
        },
    },
    UciOption {
        name: "UCI_Chess960",
        kind: Kind::Check {
            default: false,
            set: Uci::set_chess960,
        },
    },
    UciOption {
        name: "UCI_ShowWDL",
        kind: Kind::Check {
            default: false,
            set: |uci, on| uci.options.show_wdl = on,
        },
    },
    // Playing below full strength (`strength`), named by the UCI
    // specification.
    UciOption {
        name: "UCI_LimitStrength",
        kind: Kind::Check {
            default: false,
            set: |uci, on| uci.options.limit_strength = on,
        },
    },
    UciOption {
        name: "UCI_Elo",
        kind: Kind::Spin {
            default: strength::DEFAULT_ELO,
            min: strength::MIN_ELO,
            max: strength::MAX_ELO,
            set: |uci, elo| uci.options.uci_elo = elo,
        },
    },
    // Stockfish's option, which many apps and wrappers send: 0 is the
    // weakest `UCI_Elo`, 20 full strength (`strength::elo_for_skill`).
    // `UCI_LimitStrength` with its `UCI_Elo`, if on, comes first.
    UciOption {
        name: "Skill Level",
        kind: Kind::Spin {
            default: strength::MAX_SKILL,
            min: 0,
            max: strength::MAX_SKILL,
            set: |uci, level| uci.options.skill_level = level,
        },
    },
    // Endgame tablebases, named as in other engines.
    UciOption {
        name: "SyzygyPath",
        kind: Kind::Text {
            default: EMPTY,
            set: |uci, path| {
                uci.set_syzygy_path(path);
                Ok(())
            },
        },
    },
    UciOption {
        name: "SyzygyProbeDepth",
        kind: Kind::Spin {
            default: TbSettings::DEFAULT.probe_depth as i64,
            min: 1,
            max: 100,
            set: |uci, depth| uci.options.syzygy.probe_depth = depth as i32,
        },
    },
    UciOption {
        name: "Syzygy50MoveRule",
        kind: Kind::Check {
            default: TbSettings::DEFAULT.fifty_move_rule,
            set: |uci, on| uci.options.syzygy.fifty_move_rule = on,
        },
    },
    UciOption {
        name: "SyzygyProbeLimit",
        kind: Kind::Spin {
            default: TbSettings::DEFAULT.probe_limit as i64,
            min: 0,
            max: tablebase::MAX_PIECES as i64,
            set: |uci, pieces| uci.options.syzygy.probe_limit = pieces as u32,
        },
    },
    // Every line in and out, with its time, appended to this file
    // (Stockfish's name and meaning): what a GUI user sends with a bug
    // report, since GUIs hide stderr.
    UciOption {
        name: "Debug Log File",
        kind: Kind::Text {
            default: EMPTY,
            set: |_, path| crate::channel::set_debug_log((!path.is_empty()).then_some(path)),
        },
    },
    UciOption {
        name: "EvalFile",
        kind: Kind::Text {
            default: EMBEDDED_NET_NAME,
            set: Uci::load_net,
        },
    },
];

/// Builds with `--features ablation` (for matches that measure what a
/// search technique is worth) add `Disable`: a comma-separated list of the
/// techniques to switch off, by the names `Techniques::names` gives.
#[cfg(feature = "ablation")]
const ABLATION_OPTIONS: &[UciOption] = &[UciOption {
    name: "Disable",
    kind: Kind::Text {
        default: EMPTY,
        set: |uci, names| {
            uci.options.techniques = Techniques::all_but(names)?;
            Ok(())
        },
    },
}];
#[cfg(not(feature = "ablation"))]
const ABLATION_OPTIONS: &[UciOption] = &[];

/// Options `setoption` takes that `uci` doesn't list, for tests: a GUI
/// has no use for them. `StrengthSeed` seeds the generator that a
/// weakened search (`UCI_LimitStrength`) chooses its moves with, so that a
/// seed, a position and the same commands give the same moves; unset, the
/// seeds come from entropy (its default is not applied).
const HIDDEN_OPTIONS: &[UciOption] = &[UciOption {
    name: "StrengthSeed",
    kind: Kind::Spin {
        default: 0,
        min: 0,
        max: i64::MAX,
        set: |uci, seed| uci.strength_seeds = Rng::new(seed as u64),
    },
}];

/// The options `uci` lists and whose defaults `Uci::new` applies. Builds
/// with `--features tune` list every search parameter (`params`) after
/// them, declared in `params::PARAMS`.
fn listed_options() -> impl Iterator<Item = &'static UciOption> {
    OPTIONS.iter().chain(ABLATION_OPTIONS)
}

/// The `option name ...` lines that answer `uci`, one per option.
pub(super) fn uci_lines() -> impl Iterator<Item = String> {
    let lines = listed_options().map(|o| match o.kind {
        Kind::Spin {
            default, min, max, ..
        } => spin_line(o.name, default, min, max),
        Kind::Check { default, .. } => {
            format!("option name {} type check default {default}", o.name)
        }
        Kind::Button { .. } => format!("option name {} type button", o.name),
        Kind::Text { default, .. } => {
            format!("option name {} type string default {default}", o.name)
        }
    });
    lines.chain(tune_lines())
}

fn spin_line(name: &str, default: i64, min: i64, max: i64) -> String {
    format!("option name {name} type spin default {default} min {min} max {max}")
}

#[cfg(feature = "tune")]
fn tune_lines() -> impl Iterator<Item = String> {
    params::PARAMS.iter().map(|p| {
        spin_line(
            p.name,
            i64::from(p.default),
            i64::from(p.min),
            i64::from(p.max),
        )
    })
}
#[cfg(not(feature = "tune"))]
fn tune_lines() -> impl Iterator<Item = String> {
    std::iter::empty()
}

/// The current values of the options a search reads. Each field is set by
/// its option's default in `Uci::new`, and by `setoption` after.
#[derive(Clone, Debug)]
pub(super) struct Options {
    pub threads: usize,
    pub move_overhead_ms: u64,
    pub multipv: usize,
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
    /// The net `EvalFile` names.
    pub net: Arc<Network>,
    /// The `Syzygy*` options but the path.
    pub syzygy: TbSettings,
}

impl Options {
    /// Values for `Uci::new` to overwrite with the options' defaults.
    pub fn unset() -> Options {
        Options {
            threads: 1,
            move_overhead_ms: 0,
            multipv: 1,
            chess960: false,
            show_wdl: false,
            limit_strength: false,
            uci_elo: 0,
            skill_level: 0,
            techniques: Techniques::ALL,
            net: nnue::embedded(),
            syzygy: TbSettings::DEFAULT,
        }
    }

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

impl Uci {
    /// Sets every listed option to its default.
    pub(super) fn apply_option_defaults(&mut self) {
        for option in listed_options() {
            let applied = match option.kind {
                Kind::Spin { default, set, .. } => {
                    set(self, default);
                    Ok(())
                }
                Kind::Check { default, set } => {
                    set(self, default);
                    Ok(())
                }
                Kind::Button { .. } => Ok(()),
                Kind::Text { default, set } => set(self, text_value(default)),
            };
            if let Err(e) = applied {
                panic!("option {}: its default must apply: {e}", option.name);
            }
        }
    }

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
        let option = listed_options()
            .chain(HIDDEN_OPTIONS)
            .find(|o| o.name.eq_ignore_ascii_case(&name))
            .copied();
        #[cfg(feature = "tune")]
        if option.is_none()
            && let Some(param) = params::PARAMS
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(&name))
        {
            self.checked_idle(param.name)?;
            let n = checked_spin(
                param.name,
                value,
                i64::from(param.min),
                i64::from(param.max),
            )?;
            return params::set(param.name, n as i32);
        }
        let option = option.ok_or_else(|| format!("unknown option '{}'", excerpt(&name)))?;
        self.checked_idle(option.name)?;
        match option.kind {
            Kind::Spin { min, max, set, .. } => {
                let n = checked_spin(option.name, value, min, max)?;
                set(self, n);
                Ok(())
            }
            Kind::Check { set, .. } => {
                let v = value.ok_or(format!("option '{}' needs true or false", option.name))?;
                let on = match v.trim().to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(format!(
                            "option '{}': '{}' is not true or false",
                            option.name,
                            excerpt(&v)
                        ));
                    }
                };
                set(self, on);
                Ok(())
            }
            Kind::Text { set, .. } => set(self, text_value(&value.unwrap_or_default())),
            Kind::Button { press } => {
                debug!("{}: pressed", option.name);
                press(self);
                Ok(())
            }
        }
    }

    /// Options change only between searches: a search holds the values
    /// it started with.
    fn checked_idle(&mut self, name: &str) -> Result<(), String> {
        if self.engine.is_searching() {
            return Err(format!("option '{name}' can't change while searching"));
        }
        self.engine.wait();
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

/// A spin option's value, parsed and checked against its range.
fn checked_spin(name: &str, value: Option<String>, min: i64, max: i64) -> Result<i64, String> {
    let v = value.ok_or(format!("option '{name}' needs a value"))?;
    let n: i64 = v
        .trim()
        .parse()
        .map_err(|_| format!("option '{name}': '{}' is not a number", excerpt(&v)))?;
    if n < min || n > max {
        return Err(format!("option '{name}': {n} is out of range {min}..{max}"));
    }
    Ok(n)
}

/// A string option's value as its setter takes it: trimmed, `<empty>` as
/// the empty text.
fn text_value(value: &str) -> &str {
    match value.trim() {
        EMPTY => "",
        v => v,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// README.md's options table, row by row, says what `uci` lists: the
    /// same options in the same order, with the same type, default and
    /// range.
    #[test]
    fn readme_lists_the_options_as_uci_does() {
        let readme = include_str!("../../README.md");
        let section = readme
            .split("## UCI options")
            .nth(1)
            .expect("README.md has a UCI options section");
        let cell = |text: &str| text.trim().trim_matches('`').to_string();
        let rows: Vec<[String; 4]> = section
            .lines()
            .skip_while(|line| !line.starts_with("| `"))
            .take_while(|line| line.starts_with('|'))
            .map(|line| {
                let cells: Vec<&str> = line.split('|').collect();
                [
                    cell(cells[1]),
                    cell(cells[2]),
                    cell(cells[3]),
                    cell(cells[4]),
                ]
            })
            .collect();
        let declared: Vec<[String; 4]> = OPTIONS
            .iter()
            .map(|o| {
                let (kind, default, range) = match o.kind {
                    Kind::Spin {
                        default, min, max, ..
                    } => ("spin", default.to_string(), format!("{min}–{max}")),
                    Kind::Check { default, .. } => ("check", default.to_string(), String::new()),
                    Kind::Button { .. } => ("button", String::new(), String::new()),
                    Kind::Text { default, .. } => ("string", default.to_string(), String::new()),
                };
                [o.name.to_string(), kind.to_string(), default, range]
            })
            .collect();
        assert_eq!(rows, declared);
    }

    /// A fresh engine holds every option's default.
    #[test]
    fn a_new_engine_holds_the_defaults() {
        let uci = Uci::new();
        assert_eq!(uci.tt.megabytes(), DEFAULT_HASH_MB as usize);
        assert_eq!(uci.options.move_overhead_ms, 30);
        assert_eq!(uci.options.uci_elo, strength::DEFAULT_ELO);
        assert_eq!(uci.options.skill_level, strength::MAX_SKILL);
        assert_eq!(uci.options.syzygy, TbSettings::DEFAULT);
        assert!(Arc::ptr_eq(&uci.options.net, &nnue::embedded()));
        assert!(uci.tables.is_none());
    }
}
