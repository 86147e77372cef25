//! The search's techniques as switches, for ablation experiments, and
//! where enhanced transposition cutoffs are tried.

/// Enhanced transposition cutoffs: at nodes this deep and this near root.
const ETC_MIN_DEPTH: i32 = 3;
const ETC_MAX_PLY: usize = 2;

/// Where enhanced transposition cutoffs are tried. The defaults are what
/// the measurements chose; `Searcher::with_etc` changes them for experiments
/// (`max_ply: 0` switches ETC off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EtcLimits {
    pub min_depth: i32,
    pub max_ply: usize,
}

impl Default for EtcLimits {
    fn default() -> Self {
        EtcLimits {
            min_depth: ETC_MIN_DEPTH,
            max_ply: ETC_MAX_PLY,
        }
    }
}

/// The search's techniques, each of which can be switched off to measure
/// what it is worth (an ablation match: the full search against the search
/// without one technique). Builds with `--features ablation` expose this as
/// the UCI option `Disable`; normal builds always search with all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Techniques {
    pub aspiration: bool,
    pub check_extension: bool,
    pub null_move: bool,
    pub reverse_futility: bool,
    pub futility: bool,
    pub late_move_pruning: bool,
    pub see_pruning: bool,
    pub late_move_reductions: bool,
    pub internal_iterative_reduction: bool,
    pub enhanced_transposition_cutoffs: bool,
    pub singular_extensions: bool,
    pub killers: bool,
    pub counter_moves: bool,
    pub history: bool,
    pub continuation_history: bool,
    pub history_pruning: bool,
    pub correction_history: bool,
    pub double_extensions: bool,
    pub negative_extensions: bool,
    pub cut_node_reductions: bool,
    pub quiescence_see: bool,
    /// Off, every rule that reads the improving flag acts as it did before
    /// it had one: reverse futility's full margin, late move pruning's
    /// longer wait, no extra reduction.
    pub improving: bool,
}

/// Where a technique's on/off flag lives in `Techniques`.
type Switch = fn(&mut Techniques) -> &mut bool;

impl Techniques {
    pub const ALL: Techniques = Techniques {
        aspiration: true,
        check_extension: true,
        null_move: true,
        reverse_futility: true,
        futility: true,
        late_move_pruning: true,
        see_pruning: true,
        late_move_reductions: true,
        internal_iterative_reduction: true,
        enhanced_transposition_cutoffs: true,
        singular_extensions: true,
        killers: true,
        counter_moves: true,
        history: true,
        continuation_history: true,
        history_pruning: true,
        correction_history: true,
        double_extensions: true,
        negative_extensions: true,
        cut_node_reductions: true,
        quiescence_see: true,
        improving: true,
    };

    /// Each technique's short name, as `Disable` takes it, with its switch:
    /// the one list both the names and the lookup come from.
    const SWITCHES: [(&'static str, Switch); 22] = [
        ("aspiration", |t| &mut t.aspiration),
        ("checkext", |t| &mut t.check_extension),
        ("nullmove", |t| &mut t.null_move),
        ("rfp", |t| &mut t.reverse_futility),
        ("futility", |t| &mut t.futility),
        ("lmp", |t| &mut t.late_move_pruning),
        ("seeprune", |t| &mut t.see_pruning),
        ("lmr", |t| &mut t.late_move_reductions),
        ("iir", |t| &mut t.internal_iterative_reduction),
        ("etc", |t| &mut t.enhanced_transposition_cutoffs),
        ("singular", |t| &mut t.singular_extensions),
        ("killers", |t| &mut t.killers),
        ("countermove", |t| &mut t.counter_moves),
        ("history", |t| &mut t.history),
        ("conthist", |t| &mut t.continuation_history),
        ("histprune", |t| &mut t.history_pruning),
        ("corrhist", |t| &mut t.correction_history),
        ("doubleext", |t| &mut t.double_extensions),
        ("negext", |t| &mut t.negative_extensions),
        ("cutnode", |t| &mut t.cut_node_reductions),
        ("qsee", |t| &mut t.quiescence_see),
        ("improving", |t| &mut t.improving),
    ];

    /// The short names, as `Disable` takes them.
    pub fn names() -> impl Iterator<Item = &'static str> {
        Self::SWITCHES.iter().map(|&(name, _)| name)
    }

    /// All techniques but those named in a comma- or space-separated list.
    pub fn all_but(list: &str) -> Result<Techniques, String> {
        let mut t = Techniques::ALL;
        for name in list.split([',', ' ']).filter(|n| !n.is_empty()) {
            let name = name.to_ascii_lowercase();
            let (_, switch) = Self::SWITCHES
                .iter()
                .find(|(known, _)| *known == name)
                .ok_or_else(|| {
                    let known: Vec<_> = Self::names().collect();
                    format!("unknown technique '{name}' (known: {})", known.join(", "))
                })?;
            *switch(&mut t) = false;
        }
        Ok(t)
    }
}
