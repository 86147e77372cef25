//! Runs searches on their own threads so that the UCI loop keeps answering.
//!
//! `Engine::go` starts one main search thread; it starts `Threads - 1` helper
//! threads (Lazy SMP: same root, shared table, no output), and when its own
//! search ends it stops them, waits, and prints `bestmove`. Under `go
//! infinite` and `go ponder` it holds `bestmove` back until `stop` or
//! `ponderhit`, as the protocol requires. The search's phases live in one
//! place, its `Control`'s `Lifecycle`.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use log::debug;
use shakmaty::Position as _;

use crate::channel;
use crate::position::Position;
use crate::search::{
    Control, LineInfo, RootMove, SearchMemory, SearchRequest, SearchResult, SearchSetup, Searcher,
    best_thread,
};
use crate::strength::Strength;
use crate::timeman::TimeBudget;
use crate::tt::TranspositionTable;

/// Stack of each search thread. The search keeps its per-ply data on the
/// heap, so this is a generous margin for recursion to `MAX_PLY`, not a need.
pub const SEARCH_STACK_BYTES: usize = 32 * 1024 * 1024;

/// The answer to a `go`, the only place one is printed: the move, or
/// `0000` where there is none (no legal move, or no position to search),
/// with the move the engine expects in reply.
pub fn send_bestmove(best: Option<&str>, ponder: Option<&str>) {
    let best = best.unwrap_or("0000");
    match ponder {
        Some(ponder) => channel::send(&format!("bestmove {best} ponder {ponder}")),
        None => channel::send(&format!("bestmove {best}")),
    }
}

/// Sent to the UCI loop when a search has printed its `bestmove`.
#[derive(Debug)]
pub struct SearchFinished;

/// What the engine shares with its search thread.
#[derive(Default)]
struct Shared {
    control: Control,
    /// Each search thread's memory (histories, counter-moves, evaluation
    /// cache), kept from one move of a game to the next. Only a running
    /// search holds the lock (and `ucinewgame`, between searches).
    memories: Mutex<Vec<SearchMemory>>,
}

pub struct Engine {
    shared: Arc<Shared>,
    handle: Option<JoinHandle<()>>,
    started: Instant,
    /// The running search ends without `stop` once it is no longer
    /// pondering: it has a limit of its own (`Limits::ends_by_itself`).
    ends_by_itself: bool,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    pub fn new() -> Self {
        Engine {
            shared: Arc::new(Shared::default()),
            handle: None,
            started: Instant::now(),
            ends_by_itself: false,
        }
    }

    /// Is a search running that has neither printed `bestmove` nor been
    /// told to stop? (A stopped one ends in moments: callers just `wait`.)
    pub fn is_searching(&self) -> bool {
        let life = &self.shared.control.lifecycle;
        self.handle.is_some() && !life.is_done() && !life.stopped_by_user()
    }

    /// Starts a search with the table `tt`. The caller has checked that
    /// none is running.
    pub fn go(
        &mut self,
        mut request: SearchRequest,
        tt: Arc<TranspositionTable>,
        done: Sender<SearchFinished>,
    ) {
        self.wait();
        let shared = Arc::clone(&self.shared);
        shared.control.start(request.limits.ponder);
        // A weakened search: one thread (its node budget needs no helpers,
        // and one thread repeats itself for a given seed) ranking the
        // candidate lines (`SearchRequest::lines`), within the level's node
        // budget, which is a limit of its own like any other.
        if let Some(s) = &request.strength {
            s.level.restrict(&mut request.limits);
            request.threads = 1;
            debug!("strength: {s:?}");
        }
        self.ends_by_itself = request.limits.ends_by_itself(request.position.turn());
        self.started = request.received;
        let handle = thread::Builder::new()
            .name("search-0".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let result = run_search(&shared, request, &tt);
                let best = result.best.map(|m| result.uci(m));
                let ponder = result.ponder.map(|m| result.uci(m));
                shared.control.lifecycle.finish();
                send_bestmove(best.as_deref(), ponder.as_deref());
                let _ = done.send(SearchFinished);
            })
            .expect("spawning the search thread");
        self.handle = Some(handle);
    }

    /// A new game: what the search threads learned is forgotten.
    pub fn forget(&mut self) {
        self.wait();
        self.shared
            .memories
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// `stop`: end the search now; `bestmove` follows from the search thread.
    pub fn stop(&self) {
        self.shared.control.lifecycle.user_stop();
    }

    /// `ponderhit` (read at `received`): the opponent played the expected
    /// move; from then on the normal time budget applies.
    pub fn ponderhit(&self, received: Instant) {
        let origin = received.saturating_duration_since(self.started);
        self.shared.control.lifecycle.ponderhit(origin);
    }

    pub fn is_pondering(&self) -> bool {
        self.is_searching() && self.shared.control.lifecycle.pondering()
    }

    /// A search printed `bestmove`: join it, unless a newer one (started
    /// after that message was sent) is running.
    pub fn search_finished(&mut self) {
        if self.handle.is_some() && self.shared.control.lifecycle.is_done() {
            self.wait();
        }
    }

    /// End of input: a search with a limit of its own may finish (so that
    /// `echo "go depth 12" | lasker` prints its move); one that only `stop`
    /// or `ponderhit` could end (`infinite`, `ponder`, `mate` on a board
    /// with no mate, a `go` without limits) is stopped, so that it ends in
    /// a `bestmove` and the engine exits, instead of searching on for a
    /// GUI that is gone.
    pub fn finish_or_stop(&mut self) {
        if self.shared.control.lifecycle.pondering() || !self.ends_by_itself {
            self.stop();
        }
        self.wait();
    }

    /// Waits for the running search (if any) to finish.
    pub fn wait(&mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The finished search with the notation its moves are printed in.
struct Outcome {
    position: Position,
    result: SearchResult,
}

impl std::ops::Deref for Outcome {
    type Target = SearchResult;
    fn deref(&self) -> &SearchResult {
        &self.result
    }
}

impl Outcome {
    fn uci(&self, m: shakmaty::Move) -> String {
        self.position.uci(m)
    }
}

fn run_search(shared: &Shared, mut request: SearchRequest, tt: &TranspositionTable) -> Outcome {
    let start = request.received;
    let turn = request.position.turn();
    if request.position.board().legal_moves().len() == 1 {
        request.limits.shorten_for_forced_move(turn);
    }
    let budget = TimeBudget::new(&request.limits, turn, request.move_overhead_ms);
    debug!(
        "search: {:?} budget {budget:?} threads {}, {:.1} ms after go was read",
        request.limits,
        request.threads,
        ms(start.elapsed())
    );
    tt.new_search(request.position.piece_count());
    let setup = SearchSetup {
        request: &request,
        control: &shared.control,
        tt,
        budget,
        verbose: true,
        ranked_root: Default::default(),
    };
    let mut memories = shared
        .memories
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    // Each thread takes its memory along and hands it back when done.
    let mut helper_memories = std::mem::take(&mut *memories);
    helper_memories.resize_with(request.threads.max(1), SearchMemory::default);
    let main_memory = helper_memories.remove(0);
    let result = thread::scope(|scope| {
        let helpers: Vec<_> = helper_memories
            .into_iter()
            .enumerate()
            .map(|(i, memory)| {
                let id = i + 1;
                let setup = &setup;
                thread::Builder::new()
                    .name(format!("search-{id}"))
                    .stack_size(SEARCH_STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        let mut searcher = Searcher::with_memory(setup, id, memory);
                        let result = searcher.iterate();
                        (result, searcher.into_memory())
                    })
                    .expect("spawning a helper thread")
            })
            .collect();
        let mut searcher = Searcher::with_memory(&setup, 0, main_memory);
        let mut results = vec![searcher.iterate()];
        let lines = request.strength.as_ref().map(|_| {
            let ranked = searcher.root_moves();
            ranked[..request.lines().min(ranked.len())].to_vec()
        });
        memories.push(searcher.into_memory());
        shared.control.lifecycle.limit_reached();
        for h in helpers {
            match h.join() {
                Ok((result, memory)) => {
                    results.push(result);
                    memories.push(memory);
                }
                // A helper that panicked lost its memory; it starts afresh.
                Err(_) => memories.push(SearchMemory::default()),
            }
        }
        // MultiPV lines are the main thread's: it alone ranked them.
        let chosen = if request.lines() > 1 {
            0
        } else {
            best_thread(&results)
        };
        let nodes: u64 = results.iter().map(|r| r.nodes).sum();
        let mut result = results.swap_remove(chosen);
        if chosen != 0 {
            report_played_line(&setup, &result, nodes);
            result.ponder = result.pv.get(1).copied();
        }
        // A weakened search plays one of its lines and reports it last (as
        // `multipv 1`, as a search of one line does): where it chose among
        // several, the only line it reports; where it didn't, its budget
        // may have stopped an iteration that changed the best move.
        if let (Some(s), Some(lines)) = (&request.strength, &lines)
            && result.best.is_some()
        {
            play_weaker(s, lines, &mut result);
            report_played_line(&setup, &result, nodes);
        }
        debug!(
            "search done at {:.1} ms (budget {:?}): thread {chosen} depth {} nodes {} {:?}",
            ms(start.elapsed()),
            setup.budget,
            result.depth,
            result.nodes,
            result.stats
        );
        result
    });
    shared
        .control
        .lifecycle
        .wait_for_release(request.limits.infinite);
    Outcome {
        position: request.position,
        result,
    }
}

/// Milliseconds with a decimal, for the debug log's timings.
fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A weakened search (`UCI_LimitStrength`) plays one of its candidate
/// `lines` (the main thread's MultiPV lines, best first), chosen by the
/// level's rule; `result` becomes that line's.
fn play_weaker(strength: &Strength, lines: &[RootMove], result: &mut SearchResult) {
    let scores: Vec<i32> = lines.iter().map(|l| l.score).collect();
    let chosen = strength.choose_line(&scores, result.score);
    debug!("strength: scores {scores:?}, playing line {chosen:?}");
    let Some(line) = chosen.filter(|&i| i > 0).map(|i| &lines[i]) else {
        return;
    };
    // A root ranked by the tablebases shows the tables' result for every
    // move it kept (they share it), not the search's score.
    if result.score == lines[0].score {
        result.score = line.score;
    }
    result.best = Some(line.mv);
    result.pv = line.pv.clone();
    result.ponder = line.pv.get(1).copied();
}

/// The move played is not the main thread's best line (the Lazy SMP vote
/// chose a helper's move), or a weakened search played it (its candidate
/// lines are not reported): the last `info` line before `bestmove` is the
/// played move's, so that a GUI shows its line and score.
fn report_played_line(setup: &SearchSetup, result: &SearchResult, nodes: u64) {
    let position = &setup.request.position;
    let pv: Vec<String> = result.pv.iter().map(|m| position.uci(*m)).collect();
    let info = LineInfo {
        depth: result.depth,
        seldepth: result.seldepth,
        multipv: 1,
        score: result.score,
        bound: "",
        wdl: setup.shown_wdl(result.score),
        nodes,
        time: setup.elapsed(),
        hashfull: setup.tt.hashfull(),
        tb_hits: setup.control.tb_hits.load(Ordering::Relaxed),
        pv: &pv,
    };
    channel::send(&info.to_uci());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeman::Limits;

    fn memories_kept(engine: &Engine) -> usize {
        engine.shared.memories.lock().unwrap().len()
    }

    #[test]
    fn search_threads_keep_their_memory_until_a_new_game() {
        let mut engine = Engine::new();
        let (done, finished) = crossbeam_channel::unbounded();
        let tt = Arc::new(TranspositionTable::new(1).unwrap());
        let request = |threads| SearchRequest {
            threads,
            ..SearchRequest::new(Position::default(), Limits::depth(4))
        };
        assert_eq!(memories_kept(&engine), 0);
        engine.go(request(2), Arc::clone(&tt), done.clone());
        finished.recv().unwrap();
        engine.wait();
        assert_eq!(memories_kept(&engine), 2, "one per thread");
        engine.go(request(1), tt, done);
        finished.recv().unwrap();
        engine.wait();
        assert_eq!(memories_kept(&engine), 1, "fewer threads, fewer memories");
        engine.forget();
        assert_eq!(memories_kept(&engine), 0);
    }
}
