//! Syzygy endgame tablebases, through the `shakmaty-syzygy` crate.
//!
//! What the rest of the engine sees: [`load`] reads the folders of the
//! `SyzygyPath` option into [`Tables`] (checking every file, so that a bad
//! path or file is reported when it is set, not in the middle of a game);
//! [`Syzygy`] is the tables together with the other `Syzygy*` options, which
//! the search asks two things: the WDL value of a node right after a capture
//! or pawn move ([`Syzygy::probe_search`]), and the ranking of the root moves
//! by DTZ, or by WDL where the clock leaves no time for DTZ
//! ([`Syzygy::rank_root_moves`]). Scores are the search's business, and so
//! is the clock: the ranking asks the caller before every probe whether to
//! go on, and the search decides when a probe is worth its time. This
//! module speaks in [`Wdl`] and ranks only.
//!
//! Files are read with the crate's default filesystem (`pread` on Unix), not
//! its memory-mapped one. `Tablebase::with_mmap_filesystem` is `unsafe`: it
//! is sound only if no table file is modified or truncated while mapped and
//! no read of it ever fails, because a mapped page that can't be read is
//! `SIGBUS` (the process dies) instead of an error. The engine can't promise
//! either for a folder a user names (tables on a network share or a USB disk,
//! a download still being written, a table replaced while a game runs), and
//! the engine must never crash on its input; a failed `pread` is an error
//! the search survives (the probe counts as no result). What the safe reads
//! cost, measured on the tables of the tests (20,000 random 4- and 5-piece
//! positions, page cache warm, second round): a WDL probe 3.8 µs with
//! `pread`, 1.4 µs mapped; a DTZ probe 19 µs against 8 µs. The search
//! probes only right after captures and pawn moves, so a few µs a probe is
//! a small share of its time; not worth a crash.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use log::debug;
use shakmaty::{Chess, Move, Position as _};
use shakmaty_syzygy::filesystem::{Filesystem, OsFilesystem};
use shakmaty_syzygy::{Dtz, Tablebase};

pub use shakmaty_syzygy::Wdl;

use crate::position::Position;

/// The most pieces a Syzygy table holds (and the top of `SyzygyProbeLimit`).
pub const MAX_PIECES: u32 = 7;

/// Separator of the folders in `SyzygyPath`, as in other engines.
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// The first four bytes of every WDL and DTZ file.
const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];
const DTZ_MAGIC: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];

/// The `Syzygy*` options other than the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TbSettings {
    /// `SyzygyProbeDepth`: the search probes only with at least this much
    /// depth left.
    pub probe_depth: i32,
    /// `Syzygy50MoveRule`: a win the fifty-move rule spoils (a "cursed" win)
    /// counts as a draw, a loss it saves as a draw.
    pub fifty_move_rule: bool,
    /// `SyzygyProbeLimit`: no probes with more pieces than this.
    pub probe_limit: u32,
}

impl TbSettings {
    /// What the `Syzygy*` options default to.
    pub const DEFAULT: TbSettings = TbSettings {
        probe_depth: 1,
        fifty_move_rule: true,
        probe_limit: MAX_PIECES,
    };
}

impl Default for TbSettings {
    fn default() -> Self {
        TbSettings::DEFAULT
    }
}

/// Tables loaded from one `SyzygyPath`.
pub struct Tables {
    tablebase: Tablebase<Chess>,
    /// WDL and DTZ files added.
    pub wdl_files: usize,
    pub dtz_files: usize,
    /// Tables (a WDL file, a DTZ file or both) by piece count.
    pub tables_by_pieces: [usize; MAX_PIECES as usize + 1],
}

impl Tables {
    /// The most pieces of any table (0 for none).
    pub fn max_pieces(&self) -> u32 {
        self.tablebase.max_pieces() as u32
    }

    pub fn table_count(&self) -> usize {
        self.tables_by_pieces.iter().sum()
    }

    /// One line for `info string`: how many tables of how many pieces.
    pub fn summary(&self, path: &str) -> String {
        let by_pieces: Vec<String> = self
            .tables_by_pieces
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(pieces, n)| format!("{n} of {pieces} pieces"))
            .collect();
        format!(
            "Syzygy tablebases: {} tables ({}; {} WDL and {} DTZ files), up to {} pieces, from {path}",
            self.table_count(),
            by_pieces.join(", "),
            self.wdl_files,
            self.dtz_files,
            self.max_pieces()
        )
    }
}

/// What [`load`] found: the tables (none if no folder held any) and a
/// message for each problem.
pub struct Loaded {
    pub tables: Option<Tables>,
    pub errors: Vec<String>,
}

/// The piece count of a table's file name (`KRPvKR` has 5), if it is one.
fn table_pieces(stem: &str) -> Option<u32> {
    let (white, black) = stem.split_once('v')?;
    let side_ok = |s: &str| {
        s.starts_with('K') && s[1..].chars().all(|c| "QRBNP".contains(c)) && !s[1..].contains('K')
    };
    (side_ok(white) && side_ok(black)).then(|| (white.len() + black.len()) as u32)
}

/// Reads the first four bytes of a file.
fn magic(path: &Path) -> io::Result<[u8; 4]> {
    let mut bytes = [0; 4];
    fs::File::open(path)?.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// Loads the tables of `SyzygyPath` (folders separated by
/// [`PATH_SEPARATOR`]). Every folder must exist and be readable; every
/// `.rtbw`/`.rtbz` file must be a readable Syzygy file of the right size.
/// Files that aren't are left out and reported; the rest are used.
pub fn load(path_option: &str) -> Loaded {
    load_with(path_option, Arc::new(OsFilesystem::new()))
}

/// [`load`], with the tables read through `filesystem` (tests count and
/// slow down the reads with their own).
pub fn load_with(path_option: &str, filesystem: Arc<dyn Filesystem>) -> Loaded {
    let mut tablebase = Tablebase::with_filesystem(filesystem);
    let mut errors = Vec::new();
    let (mut wdl_files, mut dtz_files) = (0, 0);
    let mut tables: Vec<(String, u32)> = Vec::new();
    let folders = path_option
        .split(PATH_SEPARATOR)
        .map(str::trim)
        .filter(|f| !f.is_empty());
    for folder in folders {
        let entries = match fs::read_dir(folder) {
            Ok(entries) => entries,
            Err(e) => {
                errors.push(format!("SyzygyPath: can't read folder '{folder}': {e}"));
                continue;
            }
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        let mut found_here = 0;
        let mut bad = Vec::new();
        for path in paths {
            let (Some(stem), Some(ext)) = (
                path.file_stem().and_then(|s| s.to_str()),
                path.extension().and_then(|s| s.to_str()),
            ) else {
                continue;
            };
            let (expected, is_wdl) = match ext {
                "rtbw" => (WDL_MAGIC, true),
                "rtbz" => (DTZ_MAGIC, false),
                _ => continue,
            };
            let Some(pieces) = table_pieces(stem).filter(|&p| p <= MAX_PIECES) else {
                continue;
            };
            let name = format!("{stem}.{ext}");
            match magic(&path) {
                Ok(m) if m == expected => {}
                Ok(_) => {
                    bad.push(format!("{name} (not a Syzygy {ext} file)"));
                    continue;
                }
                Err(e) => {
                    bad.push(format!("{name} ({e})"));
                    continue;
                }
            }
            if let Err(e) = tablebase.add_file(&path) {
                bad.push(format!("{name} ({e})"));
                continue;
            }
            found_here += 1;
            if is_wdl {
                wdl_files += 1;
            } else {
                dtz_files += 1;
            }
            if !tables.iter().any(|(s, _)| s == stem) {
                tables.push((stem.to_string(), pieces));
            }
        }
        if !bad.is_empty() {
            errors.push(format!(
                "SyzygyPath: {} unusable file(s) in '{folder}', left out: {}",
                bad.len(),
                bad.join(", ")
            ));
        } else if found_here == 0 {
            errors.push(format!(
                "SyzygyPath: no Syzygy tables (.rtbw/.rtbz files) in '{folder}'"
            ));
        }
    }
    if tables.is_empty() {
        return Loaded {
            tables: None,
            errors,
        };
    }
    let mut tables_by_pieces = [0; MAX_PIECES as usize + 1];
    for (_, pieces) in &tables {
        tables_by_pieces[*pieces as usize] += 1;
    }
    Loaded {
        tables: Some(Tables {
            tablebase,
            wdl_files,
            dtz_files,
            tables_by_pieces,
        }),
        errors,
    }
}

/// A root move's place in the tablebase ranking (higher is better) and
/// what it leads to with best play, as the search should count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootRank {
    pub rank: i32,
    pub wdl: Wdl,
}

/// How a root was ranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankedBy {
    /// By DTZ: the kept moves keep the result and make progress.
    Dtz,
    /// By WDL alone (the DTZ pass ran out of time or found no DTZ file):
    /// the kept moves keep the result; the search chooses among them.
    Wdl,
}

/// The ranking of a root's moves, in the order they were given.
#[derive(Clone, Debug)]
pub struct RootRanking {
    pub ranks: Vec<RootRank>,
    pub by: RankedBy,
}

/// Ranks are built around this (Stockfish's `MAX_DTZ`).
const MAX_DTZ: i32 = 1 << 18;

/// A win is sure while its zeroing move comes within this many plies of
/// the last one (DTZ + counter). The zeroing move must be played with the
/// counter at 98 at most: at 99 the side to move may claim the draw (and a
/// referee like python-chess ends the game as soon as anyone could). One
/// ply less for the rounding of DTZ values in some tables (KBNvK's longest
/// win reads 65 plies, the generator says 66). Stockfish uses 99, which
/// lost a KBNvK win in the match of 988921c: the ranking let the sum reach
/// 99 and the rounded DTZ was one ply short.
const SURE_WIN_PLIES: i32 = 98;

/// The tables and the settings a search probes with. Cheap to clone.
#[derive(Clone)]
pub struct Syzygy {
    tables: Arc<Tables>,
    settings: TbSettings,
    /// Probes only with at most this many pieces: the smaller of
    /// `SyzygyProbeLimit` and the largest table.
    cardinality: u32,
}

impl std::fmt::Debug for Syzygy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Syzygy")
            .field("tables", &self.tables.table_count())
            .field("settings", &self.settings)
            .field("cardinality", &self.cardinality)
            .finish()
    }
}

impl Syzygy {
    /// `None` if the settings leave nothing to probe (`SyzygyProbeLimit` 0).
    pub fn new(tables: Arc<Tables>, settings: TbSettings) -> Option<Syzygy> {
        let cardinality = settings.probe_limit.min(tables.max_pieces());
        (cardinality > 0).then_some(Syzygy {
            tables,
            settings,
            cardinality,
        })
    }

    pub fn settings(&self) -> TbSettings {
        self.settings
    }

    /// The most pieces it probes.
    pub fn max_pieces(&self) -> u32 {
        self.cardinality
    }

    /// Can this position be in the tables at all? Few enough pieces and no
    /// castling rights (tables have none).
    fn in_reach(&self, board: &Chess) -> bool {
        board.board().occupied().count() as u32 <= self.cardinality && !board.castles().any()
    }

    /// Is this a search node the search probes? The move before it zeroed
    /// the fifty-move counter (so the table's value is exactly the game's,
    /// and it is the last position that could still have been a different
    /// material), at least `SyzygyProbeDepth` is left, and the position can
    /// be in the tables. Cheap: no table is read.
    pub fn probes(&self, pos: &Position, depth: i32) -> bool {
        pos.halfmoves() == 0 && depth >= self.settings.probe_depth && self.in_reach(pos.board())
    }

    /// The WDL value of a search node, if it is one the search probes
    /// ([`Syzygy::probes`]). With `Syzygy50MoveRule` off, cursed wins count
    /// as wins and blessed losses as losses. `None` also when the probe
    /// fails (a table is missing or can't be read).
    pub fn probe_search(&self, pos: &Position, depth: i32) -> Option<Wdl> {
        if !self.probes(pos, depth) {
            return None;
        }
        let wdl = self
            .tables
            .tablebase
            .probe_wdl_after_zeroing(pos.board())
            .inspect_err(|e| debug!("syzygy: WDL probe of {} failed: {e}", pos.fen()))
            .ok()?;
        Some(self.by_the_rules(wdl))
    }

    fn by_the_rules(&self, wdl: Wdl) -> Wdl {
        match wdl {
            Wdl::CursedWin if !self.settings.fifty_move_rule => Wdl::Win,
            Wdl::BlessedLoss if !self.settings.fifty_move_rule => Wdl::Loss,
            w => w,
        }
    }

    /// Ranks the root moves `moves` of `pos`, if the root is in the tables
    /// (`None` if not, or if a WDL probe fails or `time_up` says so before
    /// every move has its WDL). The position is played forward and back,
    /// so repetitions count.
    ///
    /// Two passes, each asking `time_up` before every probe (a probe may
    /// read the disk, and a cold table costs milliseconds): first by WDL
    /// (one cheap probe a move), then by DTZ. If the DTZ pass can't finish
    /// (the clock, or a DTZ file missing), the WDL ranking stands: the kept
    /// moves keep the result, though without DTZ's guarantee of progress.
    ///
    /// By DTZ: with the fifty-move counter `c`, a move that wins with `dtz`
    /// plies to the next zeroing move is a sure win while `dtz + c <= 98`
    /// ([`SURE_WIN_PLIES`]); sure wins rank by DTZ, the shortest first, so
    /// every move of a won game brings the next capture, pawn move or mate
    /// nearer and no position can come back. (Stockfish ranks sure wins
    /// alike and lets its search choose; that needs an evaluation that
    /// knows how to drive a bare king to a corner, which a net trained on
    /// self-play barely does: net 1 shuffled a KBNvK win into a repetition.)
    /// A win beyond that is cursed (ranked by DTZ, above draws); losses
    /// mirror it; draws rank alike. A win that returns to a position of the
    /// game ranks below every other sure win. Moves that keep the best rank
    /// keep the result: with them the counter can never run out before the
    /// win is converted.
    pub fn rank_root_moves(
        &self,
        pos: &mut Position,
        moves: &[Move],
        time_up: &mut dyn FnMut() -> bool,
    ) -> Option<RootRanking> {
        if !self.in_reach(pos.board()) {
            return None;
        }
        let by_wdl = self.rank_by_wdl(pos, moves, time_up)?;
        Some(match self.rank_by_dtz(pos, moves, time_up) {
            Some(ranks) => RootRanking {
                ranks,
                by: RankedBy::Dtz,
            },
            None => RootRanking {
                ranks: by_wdl,
                by: RankedBy::Wdl,
            },
        })
    }

    /// The WDL pass of [`Syzygy::rank_root_moves`].
    fn rank_by_wdl(
        &self,
        pos: &mut Position,
        moves: &[Move],
        time_up: &mut dyn FnMut() -> bool,
    ) -> Option<Vec<RootRank>> {
        let tb = &self.tables.tablebase;
        self.rank_each(pos, moves, time_up, "WDL", |after, seen| {
            let wdl = if after.halfmoves() != 0
                && (after.is_repetition(1) || after.is_fifty_move_draw())
            {
                Wdl::Draw
            } else {
                // After a move that didn't zero the counter this is the
                // value with the counter at 0: the counter's share of the
                // result is DTZ's business.
                -tb.probe_wdl_after_zeroing(after.board()).ok()?
            };
            Some(self.rank_by_wdl_value(wdl, seen))
        })
    }

    /// The DTZ pass of [`Syzygy::rank_root_moves`].
    fn rank_by_dtz(
        &self,
        pos: &mut Position,
        moves: &[Move],
        time_up: &mut dyn FnMut() -> bool,
    ) -> Option<Vec<RootRank>> {
        let tb = &self.tables.tablebase;
        let counter = pos.halfmoves() as i32;
        self.rank_each(pos, moves, time_up, "DTZ", |after, seen| {
            let dtz = if after.halfmoves() == 0 {
                // A zeroing move: the WDL after it tells all.
                -Dtz::before_zeroing(tb.probe_wdl_after_zeroing(after.board()).ok()?).0
            } else if after.is_repetition(1) || after.is_fifty_move_draw() {
                // A draw by rule right after the move (a repetition one ply
                // from the root is a second occurrence of a position that
                // occurred before the root).
                0
            } else {
                let d = -tb.probe_dtz(after.board()).ok()?.ignore_rounding().0;
                // Counted from the root: one ply more.
                d + d.signum()
            };
            // A mate is a win in one ply, not two.
            let mate = after.in_check() && after.board().legal_moves().is_empty();
            let dtz = if dtz == 2 && mate { 1 } else { dtz };
            // A win that returns to a position of the game is the last
            // resort among wins: a repetition is how wins are spoilt (and
            // match referees end a game as soon as a player could claim one).
            Some(self.rank(dtz, counter, seen))
        })
    }

    /// Ranks each of `moves` by `rank_after`, which sees the position
    /// after the move and whether it returns to a position of the game.
    /// `None` if `time_up` says so before a move's probe (`pass` names the
    /// pass in the debug log) or a probe fails. The position is played
    /// forward and back.
    fn rank_each(
        &self,
        pos: &mut Position,
        moves: &[Move],
        time_up: &mut dyn FnMut() -> bool,
        pass: &str,
        rank_after: impl Fn(&mut Position, bool) -> Option<RootRank>,
    ) -> Option<Vec<RootRank>> {
        let mut ranks = Vec::with_capacity(moves.len());
        for (done, &m) in moves.iter().enumerate() {
            if time_up() {
                debug!(
                    "syzygy: {pass} ranking stopped by the clock after {done} of {} moves at the root {}",
                    moves.len(),
                    pos.fen()
                );
                return None;
            }
            pos.make(m);
            let seen = pos.halfmoves() != 0 && pos.is_repetition(usize::MAX);
            let rank = rank_after(pos, seen);
            pos.unmake();
            let Some(rank) = rank else {
                debug!("syzygy: {pass} ranking failed at the root {}", pos.fen());
                return None;
            };
            ranks.push(rank);
        }
        Some(ranks)
    }

    /// One root move's rank from its WDL alone (the fallback of a DTZ
    /// ranking that couldn't finish): wins above cursed wins above draws,
    /// and so on; a win back to a position of the game below other wins.
    fn rank_by_wdl_value(&self, wdl: Wdl, seen: bool) -> RootRank {
        let wdl = self.by_the_rules(wdl);
        let rank = match wdl {
            Wdl::Win if seen => 3,
            Wdl::Win => 4,
            Wdl::CursedWin => 2,
            Wdl::Draw => 0,
            Wdl::BlessedLoss => -2,
            Wdl::Loss => -4,
        };
        RootRank { rank, wdl }
    }

    /// One root move's rank from its DTZ counted from the root.
    /// `seen`: the move returns to a position of the game; such a win
    /// ranks below every other win that keeps the result, but above a win
    /// the counter spoils. (Ranks are doubled to make room for it.)
    fn rank(&self, dtz: i32, counter: i32, seen: bool) -> RootRank {
        let rank = if dtz > 0 {
            if dtz + counter <= SURE_WIN_PLIES {
                MAX_DTZ - dtz
            } else {
                MAX_DTZ / 2 - (dtz + counter)
            }
        } else if dtz < 0 {
            if -dtz * 2 + counter < 100 {
                -MAX_DTZ
            } else {
                -MAX_DTZ / 2 + (-dtz + counter)
            }
        } else {
            0
        };
        // Sure wins (and, without the fifty-move rule, every win) are wins;
        // a win the counter spoils is a draw the search should still prefer.
        let bound = if self.settings.fifty_move_rule {
            MAX_DTZ / 2 - 100
        } else {
            1
        };
        let wdl = if rank >= bound {
            Wdl::Win
        } else if rank > 0 {
            Wdl::CursedWin
        } else if rank == 0 {
            Wdl::Draw
        } else if rank > -bound {
            Wdl::BlessedLoss
        } else {
            Wdl::Loss
        };
        let rank = if seen && wdl == Wdl::Win {
            2 * bound + 1
        } else {
            2 * rank
        };
        RootRank { rank, wdl }
    }

    /// For tests and tools: the WDL of a position as if reached by a zeroing
    /// move, straight from the tables.
    pub fn probe_wdl(&self, board: &Chess) -> Option<Wdl> {
        self.tables.tablebase.probe_wdl_after_zeroing(board).ok()
    }

    /// For tests and tools: the DTZ of a position (plies to the next
    /// zeroing move with best play; negative when losing).
    pub fn probe_dtz(&self, board: &Chess) -> Option<i32> {
        self.tables
            .tablebase
            .probe_dtz(board)
            .ok()
            .map(|d| d.ignore_rounding().0)
    }

    /// For tests and tools: the tables' own best move (DTZ-optimal).
    pub fn best_move(&self, board: &Chess) -> Option<Move> {
        self.tables
            .tablebase
            .best_move(board)
            .ok()
            .flatten()
            .map(|(m, _)| m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names() {
        assert_eq!(table_pieces("KRPvKR"), Some(5));
        assert_eq!(table_pieces("KvK"), Some(2));
        assert_eq!(table_pieces("KQvK"), Some(3));
        assert_eq!(table_pieces("README"), None);
        assert_eq!(table_pieces("KXvK"), None);
        assert_eq!(table_pieces("QKvK"), None);
        assert_eq!(table_pieces("KKvK"), None);
    }

    #[test]
    fn missing_and_empty_folders_are_errors() {
        let l = load("/nonexistent/lasker-syzygy");
        assert!(l.tables.is_none());
        assert_eq!(l.errors.len(), 1);
        assert!(l.errors[0].contains("can't read folder"), "{:?}", l.errors);
        let empty = std::env::temp_dir().join(format!("lasker-tb-empty-{}", std::process::id()));
        fs::create_dir_all(&empty).unwrap();
        let l = load(empty.to_str().unwrap());
        assert!(l.tables.is_none());
        assert!(l.errors[0].contains("no Syzygy tables"), "{:?}", l.errors);
        fs::remove_dir_all(&empty).unwrap();
        // Nothing at all: no tables, no complaint.
        let l = load("");
        assert!(l.tables.is_none() && l.errors.is_empty());
    }

    #[test]
    fn files_that_are_not_tables_are_reported() {
        let dir = std::env::temp_dir().join(format!("lasker-tb-bad-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        // Wrong magic, right size (64k + 16 bytes).
        fs::write(dir.join("KQvK.rtbw"), vec![0u8; 64 * 16 + 16]).unwrap();
        // Right magic, wrong size.
        let mut short = DTZ_MAGIC.to_vec();
        short.resize(100, 0);
        fs::write(dir.join("KQvK.rtbz"), short).unwrap();
        let l = load(dir.to_str().unwrap());
        assert!(l.tables.is_none());
        assert_eq!(l.errors.len(), 1, "{:?}", l.errors);
        assert!(l.errors[0].contains("2 unusable"), "{:?}", l.errors);
        assert!(l.errors[0].contains("KQvK.rtbw (not a Syzygy rtbw file)"));
        assert!(l.errors[0].contains("KQvK.rtbz ("));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ranks_follow_dtz_and_the_counter() {
        // The ranking needs no tables.
        let ranker = |fifty_move_rule| Syzygy {
            tables: Arc::new(Tables {
                tablebase: Tablebase::new(),
                wdl_files: 0,
                dtz_files: 0,
                tables_by_pieces: [0; 8],
            }),
            settings: TbSettings {
                fifty_move_rule,
                ..TbSettings::default()
            },
            cardinality: 5,
        };
        let (with50, without50) = (ranker(true), ranker(false));
        let rank = |dtz, counter| with50.rank(dtz, counter, false);
        // Sure wins rank by DTZ, the shortest first ...
        assert!(rank(6, 0).rank < rank(5, 0).rank);
        assert!(rank(60, 0).rank < rank(5, 0).rank);
        assert_eq!(rank(60, 0).wdl, Wdl::Win);
        // ... while DTZ + counter <= 98; up to 100 still a win, past it
        // cursed, below every sure win.
        assert_eq!(rank(49, 49).wdl, Wdl::Win);
        assert_eq!(rank(50, 49).wdl, Wdl::Win);
        assert!(rank(50, 49).rank < rank(98, 0).rank);
        assert_eq!(rank(60, 50).wdl, Wdl::CursedWin);
        assert!(rank(60, 50).rank < rank(50, 49).rank);
        assert!(
            rank(60, 50).rank > rank(0, 50).rank,
            "a cursed win beats a draw"
        );
        // A win back to a position of the game: below the other sure wins,
        // above the spoilt ones, still a win.
        let seen = with50.rank(5, 40, true);
        assert_eq!(seen.wdl, Wdl::Win);
        assert!(seen.rank < rank(58, 40).rank);
        assert!(seen.rank > rank(61, 40).rank, "61 + 40 is spoilt");
        // Without the fifty-move rule a cursed win is a win.
        assert_eq!(without50.rank(60, 50, false).wdl, Wdl::Win);
        assert_eq!(rank(0, 30).wdl, Wdl::Draw);
        assert_eq!(rank(0, 30), rank(0, 0), "draws rank alike");
        assert_eq!(rank(-3, 0).wdl, Wdl::Loss);
        // Sure losses rank alike; a long loss ranks above a short one once
        // a draw by the counter is in sight; a loss the rule saves is a
        // blessed loss.
        assert_eq!(rank(-3, 0), rank(-40, 0));
        assert_eq!(rank(-60, 0).wdl, Wdl::Loss);
        assert!(rank(-60, 0).rank > rank(-3, 0).rank);
        assert_eq!(rank(-101, 0).wdl, Wdl::BlessedLoss);
        assert_eq!(without50.rank(-101, 0, false).wdl, Wdl::Loss);
    }
}
