//! Syzygy tablebases: Lasker's probes against the values listed in the
//! tables' README, endgames played out against the tables' own moves, the
//! search outside the tables, and the UCI options over pipes.
//!
//! The tables are `../shared/syzygy` beside the repository (3-4 pieces and
//! some 5-piece ones). Without them the tests that need them pass with a
//! message on stderr, so a clone elsewhere still passes `make test`; with
//! `LASKER_REQUIRE_SYZYGY=1` (set by `.ci/run`) a missing folder fails.

mod common;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use lasker::position::Position;
use lasker::search::{Control, SearchRequest, SearchSetup, Searcher, TB_WIN, format_score};
use lasker::tablebase::{self, RankedBy, RootRank, Syzygy, Tables, TbSettings, Wdl};
use lasker::timeman::{Limits, TimeBudget};
use lasker::tt::{Bound, TranspositionTable};
use shakmaty::{CastlingMode, Chess, Position as _};
use shakmaty_syzygy::filesystem::{Filesystem, OsFilesystem, RandomAccessFile, ReadHint};

use common::{Engine, TIMEOUT};

/// `../shared/syzygy` beside the repository; `LASKER_SYZYGY_DIR` names
/// another folder (to check the skip: `LASKER_SYZYGY_DIR=/none`).
fn tables_dir() -> String {
    std::env::var("LASKER_SYZYGY_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/syzygy").into())
}

/// The test tables, loaded once; `None` (after saying so) where they are
/// absent, unless `LASKER_REQUIRE_SYZYGY=1` makes that a failure.
fn tables() -> Option<Arc<Tables>> {
    static TABLES_LOADED: OnceLock<Option<Arc<Tables>>> = OnceLock::new();
    let dir = tables_dir();
    let tables = TABLES_LOADED.get_or_init(|| {
        if !std::path::Path::new(&dir).is_dir() {
            return None;
        }
        let loaded = tablebase::load(&dir);
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        Some(Arc::new(loaded.tables.expect("tables in the folder")))
    });
    if tables.is_none() {
        let required = std::env::var("LASKER_REQUIRE_SYZYGY").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "LASKER_REQUIRE_SYZYGY=1 but there are no Syzygy tables at {dir}"
        );
        // Not `eprintln!`: the test harness would swallow it.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: no Syzygy tables at {dir} (a tablebase test passes without checking)"
        );
    }
    tables.clone()
}

fn syzygy(settings: TbSettings) -> Option<Syzygy> {
    tables().map(|t| Syzygy::new(t, settings).expect("probing on"))
}

fn board(fen: &str) -> Chess {
    Position::from_fen(fen, CastlingMode::Standard)
        .unwrap()
        .board()
        .clone()
}

/// The probe values of `../shared/syzygy/README.md` (python-chess 1.11.2):
/// FEN, WDL and DTZ for the side to move.
const README_PROBES: &[(&str, i32, i32)] = &[
    ("8/8/8/8/4k3/8/1Q6/K7 b - - 0 1", -2, -20),
    ("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1", -2, -32),
    ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", 2, 27),
    ("8/4k3/8/4K3/4P3/8/8/8 b - - 0 1", -2, -4),
    ("8/4k3/8/4K3/4P3/8/8/8 w - - 0 1", 0, 0),
    ("8/8/8/6B1/8/8/4k3/1K5N b - - 0 1", -2, -65),
    ("8/8/2k5/1r6/8/8/8/2KQ4 b - - 0 1", -2, -62),
    ("1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1", 2, 15),
    ("4k3/R7/1r6/4PK2/8/8/8/8 b - - 0 1", 0, 0),
    ("8/2k5/8/8/8/8/r7/3RKB2 b - - 0 1", 0, 0),
    ("8/8/8/4B1r1/5R2/8/8/k1K5 b - - 0 1", -2, -100),
    ("8/3B4/8/1R6/5r2/8/3K4/5k2 w - - 0 1", 1, 116),
    ("8/2P5/8/8/6B1/8/8/1bk4K b - - 0 1", -2, -50),
    ("8/8/4k3/8/8/2B1K3/3P4/5b2 w - - 0 1", 0, 0),
    ("6k1/P7/8/Q7/8/8/2q5/K7 b - - 0 1", -2, -100),
    ("8/2q5/8/8/4k3/8/3P4/3QK3 w - - 0 1", 0, 0),
];

const LUCENA: &str = "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1";
const PHILIDOR: &str = "4k3/R7/1r6/4PK2/8/8/8/8 b - - 0 1";
const KBPVKB_DRAW: &str = "8/8/4k3/8/8/2B1K3/3P4/5b2 w - - 0 1";
const KRVK: &str = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
const KQVKR: &str = "8/8/2k5/1r6/8/8/8/2KQ4 b - - 0 1";

fn wdl_number(w: Wdl) -> i32 {
    match w {
        Wdl::Loss => -2,
        Wdl::BlessedLoss => -1,
        Wdl::Draw => 0,
        Wdl::CursedWin => 1,
        Wdl::Win => 2,
    }
}

#[test]
fn probes_match_the_tables_readme() {
    let Some(tb) = syzygy(TbSettings::default()) else {
        return;
    };
    let t = tables().unwrap();
    assert_eq!(t.table_count(), 50);
    assert_eq!((t.wdl_files, t.dtz_files), (50, 50));
    assert_eq!(t.tables_by_pieces[3..6], [5, 30, 15]);
    assert_eq!(t.max_pieces(), 5);
    for &(fen, wdl, dtz) in README_PROBES {
        let b = board(fen);
        let got = tb
            .probe_wdl(&b)
            .unwrap_or_else(|| panic!("no WDL for {fen}"));
        assert_eq!(wdl_number(got), wdl, "WDL of {fen}");
        assert_eq!(tb.probe_dtz(&b), Some(dtz), "DTZ of {fen}");
        // The search's own probe (the clock is 0 in every row) agrees; with
        // the fifty-move rule on, a cursed win stays a cursed win.
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        assert_eq!(tb.probe_search(&pos, 1), Some(got), "{fen}");
        assert_eq!(tb.probe_search(&pos, 0), None, "below SyzygyProbeDepth");
    }
    // Without the fifty-move rule the cursed win is a win.
    let no50 = syzygy(TbSettings {
        fifty_move_rule: false,
        ..TbSettings::default()
    })
    .unwrap();
    let cursed = Position::from_fen(README_PROBES[11].0, CastlingMode::Standard).unwrap();
    assert_eq!(no50.probe_search(&cursed, 1), Some(Wdl::Win));
    // Probes stop at SyzygyProbeLimit and at a clock other than 0.
    let limited = syzygy(TbSettings {
        probe_limit: 4,
        ..TbSettings::default()
    })
    .unwrap();
    let lucena = Position::from_fen(LUCENA, CastlingMode::Standard).unwrap();
    assert_eq!(limited.probe_search(&lucena, 5), None, "5 pieces over 4");
    let later =
        Position::from_fen("1K1k4/1P6/8/8/8/8/r7/2R5 w - - 3 9", CastlingMode::Standard).unwrap();
    assert_eq!(tb.probe_search(&later, 5), None, "clock 3");
    // Castling rights: never probed.
    let castling =
        Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", CastlingMode::Standard).unwrap();
    assert_eq!(tb.probe_search(&castling, 5), None);
}

/// The DTZ ranking of a root, with all the time it wants.
fn rank(tb: &Syzygy, pos: &mut Position, moves: &[shakmaty::Move]) -> Vec<RootRank> {
    let ranking = tb.rank_root_moves(pos, moves, &mut || false).unwrap();
    assert_eq!(ranking.by, RankedBy::Dtz);
    ranking.ranks
}

#[test]
fn root_ranking_keeps_only_the_moves_that_keep_the_result() {
    let Some(tb) = syzygy(TbSettings::default()) else {
        return;
    };
    // Lucena: of the rook's and king's moves, only some keep the win.
    let mut pos = Position::from_fen(LUCENA, CastlingMode::Standard).unwrap();
    let moves: Vec<_> = pos.board().legal_moves().into_iter().collect();
    let ranks = rank(&tb, &mut pos, &moves);
    let best = ranks.iter().map(|r| r.rank).max().unwrap();
    for (m, r) in moves.iter().zip(&ranks) {
        let mut after = pos.board().clone();
        after.play_unchecked(*m);
        let wdl_after = -wdl_number(tb.probe_wdl(&after).unwrap());
        if r.rank == best {
            assert_eq!(r.wdl, Wdl::Win, "{}", pos.uci(*m));
            assert_eq!(wdl_after, 2, "a kept move wins: {}", pos.uci(*m));
        } else if wdl_after < 2 {
            assert!(r.wdl != Wdl::Win, "{} draws", pos.uci(*m));
        }
    }
    assert!(
        ranks.iter().any(|r| r.rank < best),
        "some moves throw it away"
    );
    assert!(
        pos.repetition_counts_consistent(),
        "played forward and back"
    );
    // With the clock at 95, a win more than 4 plies from zeroing is spoilt.
    let mut late =
        Position::from_fen("8/8/8/4k3/8/8/8/R3K3 w - - 95 80", CastlingMode::Standard).unwrap();
    let moves: Vec<_> = late.board().legal_moves().into_iter().collect();
    let ranks = rank(&tb, &mut late, &moves);
    assert!(ranks.iter().all(|r| r.wdl != Wdl::Win), "{ranks:?}");
    assert!(ranks.iter().any(|r| r.wdl == Wdl::CursedWin));
    // Sure wins rank by DTZ: after the game went round in a circle, the
    // best rank is still the fastest zeroing, kept by fewer moves than
    // win.
    let mut krvk = Position::from_fen(KRVK, CastlingMode::Standard).unwrap();
    let moves: Vec<_> = krvk.board().legal_moves().into_iter().collect();
    let fresh = rank(&tb, &mut krvk, &moves);
    let wins = fresh.iter().filter(|r| r.wdl == Wdl::Win).count();
    assert!(wins > 3, "many wins: {fresh:?}");
    for m in ["a1a2", "e5e4", "a2a1", "e4e5"] {
        krvk.make_uci(m).unwrap();
    }
    let repeated = rank(&tb, &mut krvk, &moves);
    let best = repeated.iter().map(|r| r.rank).max().unwrap();
    let kept: Vec<_> = moves
        .iter()
        .zip(&repeated)
        .filter(|(_, r)| r.rank == best)
        .map(|(m, _)| *m)
        .collect();
    assert!(kept.len() < wins, "{kept:?}");
    let dtz_after = |m: &shakmaty::Move| {
        let mut b = krvk.board().clone();
        b.play_unchecked(*m);
        -tb.probe_dtz(&b).unwrap()
    };
    let fastest = moves
        .iter()
        .map(dtz_after)
        .filter(|&d| d > 0)
        .min()
        .unwrap();
    assert!(kept.iter().all(|m| dtz_after(m) == fastest), "{kept:?}");
}

/// One search of `pos` within `limits`, with or
/// without tables.
fn search(
    pos: &Position,
    tt: &TranspositionTable,
    limits: Limits,
    tb: Option<&Syzygy>,
) -> (lasker::search::SearchResult, u64) {
    let control = Control::default();
    tt.new_search(pos.piece_count());
    let request = SearchRequest {
        syzygy: tb.cloned(),
        ..SearchRequest::new(pos.clone(), limits)
    };
    let setup = SearchSetup::quiet(&request, &control, tt);
    let r = Searcher::new(&setup, 0).iterate();
    let hits = control.tb_hits.load(Ordering::Relaxed);
    (r, hits)
}

/// A search of `nodes` nodes: the endgames below are played by node
/// count, not by the clock, so the root's ranking always finishes and the
/// tests check what it decides whatever the machine's load (the clock's
/// part is tested on its own, below).
fn nodes(nodes: u64) -> Limits {
    Limits {
        nodes: Some(nodes),
        ..Limits::default()
    }
}

/// Who plays against Lasker with tables.
#[derive(Clone, Copy, Debug)]
enum Opponent {
    /// The tables' own best move (DTZ-optimal: the longest resistance, or
    /// the fastest win of a position Lasker spoilt).
    Tables,
    /// Lasker without tables, this many nodes a move.
    Lasker(u64),
}

#[derive(Debug, PartialEq, Eq)]
enum End {
    LaskerMated,
    LaskerMates,
    Draw(&'static str),
    PlyCap,
}

/// Plays from `fen` with Lasker (tables, `nodes` a move) on the side to move
/// if `lasker_first`, else on the other, against `opponent`. After every
/// Lasker move the tables must still give Lasker at least `keep` (from its
/// side). Draws are claimed as `match.py` (python-chess) claims them: as
/// soon as the side to move could claim, by a move that makes the third
/// occurrence or the hundredth ply. Returns how it ended, the plies played
/// and the moves.
fn play_out(
    fen: &str,
    lasker_first: bool,
    nodes_a_move: u64,
    opponent: Opponent,
    keep: Wdl,
    max_plies: usize,
    tb: &Syzygy,
) -> (End, usize, Vec<String>) {
    let mut pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
    let lasker = if lasker_first {
        pos.turn()
    } else {
        !pos.turn()
    };
    let tt = TranspositionTable::new(16).unwrap();
    let opponent_tt = TranspositionTable::new(16).unwrap();
    let mut keys = vec![pos.key()];
    let mut moves = Vec::new();
    for ply in 0..max_plies {
        let b = pos.board().clone();
        if b.is_checkmate() {
            let end = if b.turn() == lasker {
                End::LaskerMated
            } else {
                End::LaskerMates
            };
            return (end, ply, moves);
        }
        if b.is_stalemate() {
            return (End::Draw("stalemate"), ply, moves);
        }
        if b.is_insufficient_material() {
            return (End::Draw("insufficient material"), ply, moves);
        }
        let legal = b.legal_moves();
        let occurrences = |key: u64| keys.iter().filter(|&&k| k == key).count();
        if b.halfmoves() >= 100 || (b.halfmoves() == 99 && legal.iter().any(|m| !m.is_zeroing())) {
            return (End::Draw("fifty moves"), ply, moves);
        }
        if occurrences(pos.key()) >= 3 || legal.iter().any(|&m| occurrences(pos.key_after(m)) >= 2)
        {
            return (End::Draw("threefold repetition"), ply, moves);
        }
        let m = if b.turn() == lasker {
            let (r, _) = search(&pos, &tt, nodes(nodes_a_move), Some(tb));
            let m = r.best.expect("a legal move");
            assert!(b.is_legal(m), "illegal move from {}", pos.fen());
            let mut after = b.clone();
            after.play_unchecked(m);
            if !after.is_checkmate() {
                let wdl = -wdl_number(tb.probe_wdl(&after).expect("in the tables"));
                assert!(
                    wdl >= wdl_number(keep),
                    "{} from {} throws away the {keep:?} (now {wdl}); moves {}",
                    pos.uci(m),
                    pos.fen(),
                    moves.join(" ")
                );
            }
            m
        } else {
            match opponent {
                Opponent::Tables => tb.best_move(&b).expect("the tables have a move"),
                Opponent::Lasker(n) => {
                    let (r, _) = search(&pos, &opponent_tt, nodes(n), None);
                    r.best.expect("a legal move")
                }
            }
        };
        moves.push(pos.uci(m));
        pos.make(m);
        keys.push(pos.key());
    }
    (End::PlyCap, max_plies, moves)
}

fn wins(fen: &str, nodes: u64, max_plies: usize) {
    let Some(tb) = syzygy(TbSettings::default()) else {
        return;
    };
    let (end, plies, moves) =
        play_out(fen, true, nodes, Opponent::Tables, Wdl::Win, max_plies, &tb);
    assert_eq!(
        end,
        End::LaskerMates,
        "{fen} at {nodes} nodes: {plies} plies: {}",
        moves.join(" ")
    );
}

fn holds(fen: &str, lasker_first: bool, nodes: u64, plies: usize) {
    let Some(tb) = syzygy(TbSettings::default()) else {
        return;
    };
    let (end, _, moves) = play_out(
        fen,
        lasker_first,
        nodes,
        Opponent::Tables,
        Wdl::Draw,
        plies,
        &tb,
    );
    assert!(
        matches!(end, End::Draw(_) | End::PlyCap),
        "{fen}: {end:?} after {}",
        moves.join(" ")
    );
}

#[test]
fn wins_krvk() {
    wins(KRVK, 8_000, 200);
}

#[test]
fn wins_krvk_at_a_thousand_nodes() {
    wins(KRVK, 1_000, 200);
}

#[test]
fn wins_kqvkr() {
    // The README's longest KQvKR win, with Black to move: Lasker is White.
    let Some(tb) = syzygy(TbSettings::default()) else {
        return;
    };
    let (end, plies, moves) = play_out(KQVKR, false, 8_000, Opponent::Tables, Wdl::Win, 300, &tb);
    assert_eq!(end, End::LaskerMates, "{plies} plies: {}", moves.join(" "));
}

#[test]
fn wins_the_lucena_position() {
    wins(LUCENA, 8_000, 300);
}

#[test]
fn wins_kbnvk_against_lasker_without_tables() {
    // Drawn by repetition in the first tablebase match (719b417): the
    // ranking let sure wins shuffle until the root itself repeated, and
    // match.py claims a draw as soon as a move could make the third
    // occurrence.
    let Some(tb) = syzygy(TbSettings::default()) else {
        return;
    };
    let fen = "8/8/2KN4/k7/8/8/8/1B6 w - - 0 1";
    let (end, plies, moves) = play_out(
        fen,
        true,
        8_000,
        Opponent::Lasker(8_000),
        Wdl::Win,
        300,
        &tb,
    );
    assert_eq!(end, End::LaskerMates, "{plies} plies: {}", moves.join(" "));
}

#[test]
fn holds_the_philidor_draw() {
    holds(PHILIDOR, true, 8_000, 60);
}

#[test]
fn holds_the_philidor_draw_at_a_thousand_nodes() {
    holds(PHILIDOR, true, 1_000, 60);
}

#[test]
fn holds_the_opposite_bishops_draw() {
    // White to move: Lasker defends with Black.
    holds(KBPVKB_DRAW, false, 8_000, 60);
}

#[test]
fn a_tablebase_win_is_not_a_mate_and_is_stored_like_one() {
    let Some(tb) = syzygy(TbSettings::default()) else {
        return;
    };
    // KQvKR, White to move, the rook hangs: Qxb4 reaches KQvK, a table win
    // right after a capture.
    let fen = "8/8/2k5/8/1r6/8/8/1QK5 w - - 0 1";
    let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
    let tt = TranspositionTable::new(16).unwrap();
    let (r, hits) = search(&pos, &tt, Limits::depth(6), Some(&tb));
    assert!(hits > 0);
    let shown = format_score(r.score);
    assert!(shown.starts_with("cp "), "{shown}");
    let cp: i32 = shown[3..].parse().unwrap();
    assert!((19_800..=20_000).contains(&cp), "{shown}");
    // The position after Qxb4 is in the table as a proven loss for Black
    // (at most that: a mate would be worse), counted from that node, not
    // from the root.
    let mut after = pos.clone();
    after.make_uci("b1b4").unwrap();
    let e = tt.probe(after.key()).expect("stored");
    assert_eq!(e.score, -TB_WIN, "a loss at the node itself: {e:?}");
    assert_eq!(e.bound, Bound::Upper);
}

#[test]
fn a_position_outside_the_tables_searches_as_before() {
    let Some(tb) = syzygy(TbSettings::default()) else {
        return;
    };
    for fen in lasker::bench::bench_fens().take(4) {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let tt = TranspositionTable::new(16).unwrap();
        let (with, hits) = search(&pos, &tt, Limits::depth(8), Some(&tb));
        tt.clear();
        let (without, _) = search(&pos, &tt, Limits::depth(8), None);
        assert_eq!(hits, 0, "{fen}");
        assert_eq!(with.nodes, without.nodes, "{fen}");
        assert_eq!(with.best, without.best, "{fen}");
        assert_eq!(with.score, without.score, "{fen}");
    }
}

// ---------------------------------------------------------------------------
// UCI over pipes
// ---------------------------------------------------------------------------

/// What these tests add to the shared harness (`common`).
impl Engine {
    /// Lines up to and including the first that `done` accepts.
    fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.lines_until(done, TIMEOUT)
    }

    /// `cmd`, then `isready`: the lines before `readyok`.
    fn answer(&mut self, cmd: &str) -> Vec<String> {
        self.send(cmd);
        self.isready()
    }

    /// A search's info lines and its best move.
    fn go(&mut self, position: &str, go: &str) -> (Vec<String>, String) {
        self.send(position);
        self.send(go);
        let mut lines = self.until(|l| l.starts_with("bestmove"));
        let best = lines.pop().unwrap();
        (lines, best.split_whitespace().nth(1).unwrap().to_string())
    }
}

fn tbhits(infos: &[String]) -> Vec<u64> {
    infos
        .iter()
        .filter(|l| l.contains(" pv "))
        .map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            let i = t
                .iter()
                .position(|&x| x == "tbhits")
                .unwrap_or_else(|| panic!("no tbhits in '{l}'"));
            t[i + 1].parse().unwrap()
        })
        .collect()
}

#[test]
fn uci_offers_the_syzygy_options() {
    let mut e = Engine::new();
    e.send("uci");
    let lines = e.until(|l| l == "uciok");
    for wanted in [
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
        "option name Syzygy50MoveRule type check default true",
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
    ] {
        assert!(lines.iter().any(|l| l == wanted), "{wanted}: {lines:?}");
    }
    let errors = e.answer("setoption name SyzygyProbeLimit value 8");
    assert!(errors[0].starts_with("info string error: "), "{errors:?}");
}

#[test]
fn a_missing_or_unreadable_path_is_a_clear_error() {
    let mut e = Engine::new();
    let missing = e.answer("setoption name SyzygyPath value /nonexistent/syzygy");
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(
        missing[0]
            .starts_with("info string error: SyzygyPath: can't read folder '/nonexistent/syzygy'")
            && missing[0].ends_with("playing without tablebases"),
        "{missing:?}"
    );
    // A file, not a folder.
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let file = e.answer(&format!("setoption name SyzygyPath value {manifest}"));
    assert_eq!(file.len(), 1, "{file:?}");
    assert!(file[0].starts_with("info string error: SyzygyPath: can't read folder"));
    // A folder without tables.
    let empty = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let none = e.answer(&format!("setoption name SyzygyPath value {empty}"));
    assert_eq!(none.len(), 1, "{none:?}");
    assert!(none[0].contains("no Syzygy tables"), "{none:?}");
    // The engine plays on, without tables.
    let (infos, best) = e.go("position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "go depth 6");
    assert_ne!(best, "0000");
    assert!(tbhits(&infos).iter().all(|&n| n == 0), "{infos:?}");
}

#[test]
fn tables_set_searched_and_changed_mid_game() {
    if tables().is_none() {
        return;
    }
    let tables = tables_dir();
    let mut e = Engine::new();
    let found = e.answer(&format!("setoption name SyzygyPath value {tables}"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("info string Syzygy tablebases: 50 tables (5 of 3 pieces, 30 of 4 pieces, 15 of 5 pieces"),
        "{found:?}"
    );
    assert!(found[0].contains("up to 5 pieces"), "{found:?}");
    let krvk = "position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
    let (infos, best) = e.go(krvk, "go movetime 200");
    assert_ne!(best, "0000");
    let hits = tbhits(&infos);
    assert!(!hits.is_empty() && hits.iter().all(|&n| n > 0), "{infos:?}");
    let last = infos.iter().rev().find(|l| l.contains(" pv ")).unwrap();
    assert!(last.contains("score cp 20000"), "{last}");
    // Mid-game: tables off, the same search probes nothing.
    assert!(
        e.answer("setoption name SyzygyPath value <empty>")
            .is_empty()
    );
    let (infos, _) = e.go(krvk, "go depth 8");
    assert!(tbhits(&infos).iter().all(|&n| n == 0), "{infos:?}");
    // ... and on again, through a list with a bad folder in it.
    let sep = tablebase::PATH_SEPARATOR;
    let mixed = e.answer(&format!(
        "setoption name SyzygyPath value /nonexistent{sep}{tables}"
    ));
    assert_eq!(mixed.len(), 2, "{mixed:?}");
    assert!(
        mixed[0].starts_with("info string error: SyzygyPath: can't read folder '/nonexistent'")
    );
    assert!(!mixed[0].contains("playing without"), "{mixed:?}");
    assert!(mixed[1].starts_with("info string Syzygy tablebases: 50 tables"));
    let (infos, _) = e.go(krvk, "go depth 8");
    assert!(tbhits(&infos).iter().all(|&n| n > 0), "{infos:?}");
}

// ---------------------------------------------------------------------------
// The clock: table reads answer to it
// ---------------------------------------------------------------------------

/// Table files read through the OS, every read counted and each delayed by
/// `delay` (a slow disk). The tests count reads; they never time them.
struct SlowDisk {
    reads: Arc<AtomicU64>,
    delay: Duration,
}

struct SlowFile {
    file: Box<dyn RandomAccessFile>,
    reads: Arc<AtomicU64>,
    delay: Duration,
}

impl Filesystem for SlowDisk {
    fn regular_file_size(&self, path: &Path) -> io::Result<u64> {
        OsFilesystem::new().regular_file_size(path)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<PathBuf>> {
        OsFilesystem::new().read_dir(path)
    }

    fn open(&self, path: &Path) -> io::Result<Box<dyn RandomAccessFile>> {
        Ok(Box::new(SlowFile {
            file: OsFilesystem::new().open(path)?,
            reads: Arc::clone(&self.reads),
            delay: self.delay,
        }))
    }
}

impl RandomAccessFile for SlowFile {
    fn read_at(&self, buf: &mut [u8], offset: u64, hint: ReadHint) -> io::Result<usize> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(self.delay);
        self.file.read_at(buf, offset, hint)
    }
}

/// The test tables loaded afresh behind a `SlowDisk` (no table opened
/// yet, as in a new engine), with its read counter.
fn tables_on_a_slow_disk(delay: Duration) -> Option<(Syzygy, Arc<AtomicU64>)> {
    tables()?;
    let reads = Arc::new(AtomicU64::new(0));
    let disk = SlowDisk {
        reads: Arc::clone(&reads),
        delay,
    };
    let loaded = tablebase::load_with(&tables_dir(), Arc::new(disk));
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let tables = Arc::new(loaded.tables.expect("tables in the folder"));
    Some((Syzygy::new(tables, TbSettings::default()).unwrap(), reads))
}

#[test]
fn root_ranking_stops_when_the_clock_says_so() {
    let Some((tb, reads)) = tables_on_a_slow_disk(Duration::ZERO) else {
        return;
    };
    let mut pos = Position::from_fen(LUCENA, CastlingMode::Standard).unwrap();
    let moves: Vec<_> = pos.board().legal_moves().into_iter().collect();
    // Out of time before the first probe: no ranking, nothing read.
    assert!(tb.rank_root_moves(&mut pos, &moves, &mut || true).is_none());
    assert_eq!(reads.load(Ordering::SeqCst), 0);
    // Out of time in the DTZ pass, after every move's WDL: the WDL ranking
    // stands, and nothing is read once the clock said so.
    let mut asked = 0;
    let mut reads_when_stopped = None;
    let mut time_up = || {
        asked += 1;
        let up = asked > moves.len() + 2;
        if up && reads_when_stopped.is_none() {
            reads_when_stopped = Some(reads.load(Ordering::SeqCst));
        }
        up
    };
    let ranking = tb.rank_root_moves(&mut pos, &moves, &mut time_up).unwrap();
    assert_eq!(ranking.by, RankedBy::Wdl);
    assert_eq!(Some(reads.load(Ordering::SeqCst)), reads_when_stopped);
    // By WDL, the kept moves are exactly the winning ones.
    let best = ranking.ranks.iter().map(|r| r.rank).max().unwrap();
    for (m, r) in moves.iter().zip(&ranking.ranks) {
        let mut after = pos.board().clone();
        after.play_unchecked(*m);
        let wins = -wdl_number(tb.probe_wdl(&after).unwrap()) == 2;
        assert_eq!(r.rank == best, wins, "{}: {r:?}", pos.uci(*m));
    }
    assert!(ranking.ranks.iter().any(|r| r.rank < best));
    // With the time it wants, by DTZ.
    let ranking = tb.rank_root_moves(&mut pos, &moves, &mut || false).unwrap();
    assert_eq!(ranking.by, RankedBy::Dtz);
    assert!(pos.repetition_counts_consistent());
}

/// The Lucena position with a black knight that the rook can take: six
/// pieces (no root ranking), and the search probes KRPvKR after Rxc3.
const LUCENA_AND_KNIGHT: &str = "1K1k4/1P6/8/8/8/2n5/r7/2R5 w - - 0 1";

#[test]
fn past_the_hard_limit_a_search_reads_no_table_and_still_moves() {
    let Some((tb, reads)) = tables_on_a_slow_disk(Duration::from_millis(2)) else {
        return;
    };
    // The positions (5 and 7 pieces) and one whose search probes.
    let fens = [
        "8/3k4/8/R7/3K2p1/8/7r/8 w - - 0 56",
        "2R5/8/7p/4NKp1/8/6kr/8/8 w - - 5 61",
        "4b3/8/8/p2k4/8/2BP4/r7/5K2 w - - 0 64",
        LUCENA,
        LUCENA_AND_KNIGHT,
    ];
    for fen in fens {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let tt = TranspositionTable::new(1).unwrap();
        let control = Control::default();
        // A search whose clock ran out before it started (a slow start, a
        // busy machine): it must move at once, whatever the tables cost.
        let request = SearchRequest {
            syzygy: Some(tb.clone()),
            received: Instant::now() - Duration::from_secs(1),
            ..SearchRequest::new(pos.clone(), Limits::default())
        };
        let setup = SearchSetup {
            budget: TimeBudget {
                optimum: Some(Duration::from_millis(5)),
                maximum: Some(Duration::from_millis(10)),
            },
            ..SearchSetup::quiet(&request, &control, &tt)
        };
        let r = Searcher::new(&setup, 0).iterate();
        let best = r.best.expect("a move");
        assert!(pos.board().is_legal(best), "{fen}: {best:?}");
        // Stopped after the first iteration, which probes no table past
        // the hard limit.
        assert_eq!(r.depth, 1, "{fen}: stopped after the first iteration");
        assert_eq!(reads.load(Ordering::SeqCst), 0, "{fen}: a table was read");
        assert_eq!(r.stats.tb_probes, 0, "{fen}");
    }
    // The same searches without a clock read the tables: the counter
    // counts, and these positions do probe (a disk without the delay: a
    // whole search's reads at 2 ms would take minutes).
    let (tb, reads) = tables_on_a_slow_disk(Duration::ZERO).unwrap();
    for fen in [LUCENA, LUCENA_AND_KNIGHT] {
        let before = reads.load(Ordering::SeqCst);
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let tt = TranspositionTable::new(1).unwrap();
        let (r, hits) = search(&pos, &tt, Limits::depth(5), Some(&tb));
        assert!(hits > 0, "{fen}");
        assert!(reads.load(Ordering::SeqCst) > before, "{fen}");
        if fen == LUCENA_AND_KNIGHT {
            assert!(r.stats.tb_probes > 0, "{fen}: {:?}", r.stats);
        }
    }
}

#[test]
fn tablebase_roots_answer_every_clock_with_a_legal_move() {
    if tables().is_none() {
        return;
    }
    let tables = tables_dir();
    let mut e = Engine::new();
    e.answer(&format!("setoption name SyzygyPath value {tables}"));
    let legal = |fen: &str, uci: &str| {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        pos.board().legal_moves().iter().any(|&m| pos.uci(m) == uci)
    };
    let roots = [
        "8/3k4/8/R7/3K2p1/8/7r/8 w - - 0 56",
        LUCENA,
        "2R5/8/7p/4NKp1/8/6kr/8/8 w - - 5 61",
    ];
    let clocks = [
        "go wtime 50 btime 50 winc 0 binc 0",
        "go movetime 20",
        "go wtime 50 btime 50 movestogo 1",
        "go wtime 150 btime 150 winc 10 binc 10 movestogo 20",
        "go wtime 1 btime 1",
    ];
    for fen in roots {
        for go in clocks {
            let (_, best) = e.go(&format!("position fen {fen}"), go);
            assert!(legal(fen, &best), "{fen} after '{go}': bestmove {best}");
        }
        // Pondering has no budget until `ponderhit`; then the clock's.
        e.send(&format!("position fen {fen}"));
        e.send("go ponder wtime 50 btime 50 winc 0 binc 0");
        e.isready();
        e.send("ponderhit");
        let line = e.expect_line(|l| l.starts_with("bestmove"), TIMEOUT);
        let best = line.split_whitespace().nth(1).unwrap();
        assert!(legal(fen, best), "{fen} after ponderhit: {line}");
    }
}
