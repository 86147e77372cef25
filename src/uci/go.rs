//! Parsing `go`: its parameters become the search's `Limits`.

use super::Uci;
use crate::timeman::Limits;

impl Uci {
    pub(super) fn parse_go(&self, args: &[&str]) -> Result<Limits, String> {
        fn number<T: std::str::FromStr>(name: &str, v: Option<&&str>) -> Result<T, String> {
            let v = v.ok_or(format!("'{name}' needs a value"))?;
            v.parse()
                .map_err(|_| format!("'{name}' value '{v}' is not a valid number"))
        }
        const KEYWORDS: &[&str] = &[
            "searchmoves",
            "ponder",
            "wtime",
            "btime",
            "winc",
            "binc",
            "movestogo",
            "depth",
            "nodes",
            "mate",
            "movetime",
            "infinite",
            "perft",
        ];
        let mut l = Limits::default();
        let mut i = 0;
        while i < args.len() {
            let key = args[i];
            let value = args.get(i + 1);
            i += 2;
            match key {
                "wtime" => l.wtime = Some(number(key, value)?),
                "btime" => l.btime = Some(number(key, value)?),
                "winc" => l.winc = Some(number::<i64>(key, value)?.max(0) as u64),
                "binc" => l.binc = Some(number::<i64>(key, value)?.max(0) as u64),
                "movestogo" => {
                    let n: u32 = number(key, value)?;
                    l.movestogo = (n > 0).then_some(n);
                }
                "depth" => {
                    let d: u32 = number(key, value)?;
                    if d == 0 || d > 127 {
                        return Err(format!("depth {d} out of range 1..127"));
                    }
                    l.depth = Some(d);
                }
                "nodes" => l.nodes = Some(number::<u64>(key, value)?.max(1)),
                "mate" => {
                    let m: u32 = number(key, value)?;
                    if m == 0 {
                        return Err("mate 0: nothing to search".into());
                    }
                    l.mate = Some(m);
                }
                "movetime" => l.movetime = Some(number(key, value)?),
                "perft" => {
                    let d: u32 = number(key, value)?;
                    if d > 12 {
                        return Err(format!("perft depth {d} is too deep (at most 12)"));
                    }
                    l.perft = Some(d);
                }
                "infinite" => {
                    l.infinite = true;
                    i -= 1;
                }
                "ponder" => {
                    l.ponder = true;
                    i -= 1;
                }
                "searchmoves" => {
                    i -= 1;
                    while i < args.len() && !KEYWORDS.contains(&args[i]) {
                        let mut probe = self.position.clone();
                        let m = probe
                            .make_uci(args[i])
                            .map_err(|e| format!("searchmoves: {e}"))?;
                        l.searchmoves.push(self.position.uci(m));
                        i += 1;
                    }
                }
                other => return Err(format!("unknown go parameter '{other}'")),
            }
        }
        Ok(l)
    }
}
