//! The `info` line that reports a line of the root: one format for the
//! lines of each iteration (`root`) and for the line the engine plays where
//! that is another (`engine`: a helper's move won the Lazy SMP vote, or a
//! weakened search chose a lesser line).

use std::time::Duration;

use crate::score::format_score;
use crate::wdl;

/// What a GUI is told of one root line.
pub struct LineInfo<'a> {
    pub depth: u32,
    pub seldepth: usize,
    /// The line's rank (1: the best).
    pub multipv: usize,
    pub score: i32,
    /// `lowerbound` or `upperbound` for a failed aspiration search, else
    /// empty.
    pub bound: &'a str,
    /// The win/draw/loss chances, where `UCI_ShowWDL` asks for them.
    pub wdl: Option<[u32; 3]>,
    /// Nodes of all threads.
    pub nodes: u64,
    pub time: Duration,
    pub hashfull: usize,
    pub tb_hits: u64,
    /// The moves in UCI notation.
    pub pv: &'a [String],
}

impl LineInfo<'_> {
    /// The line as the protocol writes it (the WDL after the score and
    /// before any bound, as Stockfish prints it).
    pub fn to_uci(&self) -> String {
        let ms = self.time.as_millis() as u64;
        let wdl = self.wdl.map(wdl::uci_text).unwrap_or_default();
        let bound = if self.bound.is_empty() {
            String::new()
        } else {
            format!(" {}", self.bound)
        };
        format!(
            "info depth {} seldepth {} multipv {} score {}{wdl}{bound} nodes {} nps {} \
             hashfull {} tbhits {} time {ms} pv {}",
            self.depth,
            self.seldepth.max(self.depth as usize),
            self.multipv,
            format_score(self.score),
            self.nodes,
            self.nodes * 1000 / ms.max(1),
            self.hashfull,
            self.tb_hits,
            self.pv.join(" ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reads_as_the_protocol_writes_it() {
        let pv = ["e2e4".to_string(), "e7e5".to_string()];
        let mut info = LineInfo {
            depth: 9,
            seldepth: 4,
            multipv: 2,
            score: 31,
            bound: "",
            wdl: None,
            nodes: 5000,
            time: Duration::from_millis(250),
            hashfull: 12,
            tb_hits: 3,
            pv: &pv,
        };
        assert_eq!(
            info.to_uci(),
            format!(
                "info depth 9 seldepth 9 multipv 2 score {} nodes 5000 nps 20000 hashfull 12 \
                 tbhits 3 time 250 pv e2e4 e7e5",
                format_score(31)
            )
        );
        info.bound = "lowerbound";
        info.wdl = Some([400, 500, 100]);
        info.time = Duration::ZERO;
        assert!(
            info.to_uci()
                .contains(" wdl 400 500 100 lowerbound nodes 5000 nps 5000000 "),
            "{}",
            info.to_uci()
        );
    }
}
