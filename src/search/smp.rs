//! Lazy SMP's last word: which thread's result is played.
//!
//! Every thread searches the same root, and when the search stops they have
//! got to different depths with different best moves. The main thread's is
//! not always the best informed: a helper that finished a deeper iteration,
//! or several threads agreeing on another move, are better evidence. The
//! vote is Stockfish's: each thread votes for its best move with a weight of
//! its depth times how far its score is above the worst thread's, and the
//! move with the most votes wins (its deepest-searching voter speaks for
//! it). Proven results (mates, tablebase wins) go first, shortest first.

use super::SearchResult;
use crate::params;
use crate::score::TB_WIN_BOUND;

/// The index of the result to play among `results` (the main thread's at
/// index 0). Results without a move (no legal move) or without a completed
/// iteration never win over the main thread.
pub fn best_thread(results: &[SearchResult]) -> usize {
    let candidates: Vec<usize> = (0..results.len())
        .filter(|&i| results[i].best.is_some() && results[i].depth > 0)
        .collect();
    let Some(min_score) = candidates.iter().map(|&i| results[i].score).min() else {
        return 0;
    };
    let votes = |i: usize| -> i64 {
        candidates
            .iter()
            .filter(|&&j| results[j].best == results[i].best)
            .map(|&j| {
                let r = &results[j];
                (i64::from(r.score - min_score) + i64::from(params::smp_vote_offset()))
                    * i64::from(r.depth)
            })
            .sum()
    };
    let mut best = 0;
    if !candidates.contains(&best) {
        return best;
    }
    for &i in &candidates[..] {
        let (this, chosen) = (&results[i], &results[best]);
        let better = if is_proven(chosen.score) {
            // A proven result is replaced only by a better proven one (a
            // faster mate, a slower loss).
            this.score > chosen.score
        } else if this.score >= TB_WIN_BOUND {
            true
        } else {
            let (v, w) = (votes(i), votes(best));
            v > w || (v == w && this.depth > chosen.depth)
        };
        if better {
            best = i;
        }
    }
    // Among the threads that agree on the winning move, the deepest one's
    // line and score are shown.
    let winner = results[best].best;
    candidates
        .iter()
        .copied()
        .filter(|&i| results[i].best == winner && !proven_differs(&results[i], &results[best]))
        .max_by_key(|&i| (results[i].depth, i == best))
        .unwrap_or(best)
}

/// Two results for the same move where one is proven and the other is not
/// (or proves something else): the proven one must speak for the move.
fn proven_differs(a: &SearchResult, b: &SearchResult) -> bool {
    (is_proven(a.score) || is_proven(b.score)) && a.score != b.score
}

/// A mate or tablebase result, not an evaluation.
fn is_proven(score: i32) -> bool {
    score.abs() >= TB_WIN_BOUND
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use crate::score::MATE;
    use crate::search::SearchStats;
    use shakmaty::Move;

    fn mv(uci: &str) -> Move {
        Position::default().make_uci(uci).unwrap()
    }

    fn result(m: &str, score: i32, depth: u32) -> SearchResult {
        SearchResult {
            best: Some(mv(m)),
            ponder: None,
            score,
            depth,
            seldepth: depth as usize,
            pv: vec![mv(m)],
            nodes: 0,
            stats: SearchStats::default(),
        }
    }

    #[test]
    fn one_thread_plays_its_own_move() {
        assert_eq!(best_thread(&[result("e2e4", 30, 10)]), 0);
    }

    /// A helper that completed a deeper iteration with another move, at a
    /// similar score, outvotes the main thread.
    #[test]
    fn the_deeper_thread_wins() {
        let results = [result("e2e4", 20, 10), result("d2d4", 25, 14)];
        assert_eq!(best_thread(&results), 1);
        // At equal depth and score the main thread keeps its move.
        let results = [result("e2e4", 20, 12), result("d2d4", 20, 12)];
        assert_eq!(best_thread(&results), 0);
    }

    /// Two threads agreeing on a move outvote one deeper thread; the
    /// deepest of the two speaks for it.
    #[test]
    fn agreeing_threads_outvote_a_lone_one() {
        let results = [
            result("e2e4", 20, 11),
            result("d2d4", 20, 12),
            result("d2d4", 22, 11),
            result("e2e4", 20, 11),
            result("e2e4", 20, 10),
        ];
        assert_eq!(best_thread(&results), 0);
        let results = [
            result("e2e4", 20, 10),
            result("d2d4", 20, 12),
            result("d2d4", 22, 13),
        ];
        assert_eq!(best_thread(&results), 2);
    }

    /// A found mate is played over a deeper thread's ordinary score, and a
    /// shorter mate over a longer one.
    #[test]
    fn proven_wins_come_first() {
        let results = [result("e2e4", 20, 20), result("g1f3", MATE - 9, 9)];
        assert_eq!(best_thread(&results), 1);
        let results = [result("g1f3", MATE - 9, 9), result("e2e4", MATE - 5, 8)];
        assert_eq!(best_thread(&results), 1);
    }

    /// A thread without a completed iteration or a move has no vote.
    #[test]
    fn threads_without_a_result_do_not_vote() {
        let mut empty = result("d2d4", 500, 0);
        empty.depth = 0;
        let results = [result("e2e4", 20, 5), empty];
        assert_eq!(best_thread(&results), 0);
    }
}
