//! The search's techniques as switches, for ablation experiments.

/// The search's techniques, each of which can be switched off to measure
/// what it is worth (an ablation match: the full search against the search
/// without one technique). Builds with `--features ablation` expose this as
/// the UCI option `Disable`. Normal builds always search with all of them,
/// and there the switches are not there at all: `Techniques` holds nothing,
/// each test below is `true` at compile time, and the branch it guards
/// costs nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Techniques {
    /// One bit a technique (`Technique as u32`): set where it is off.
    #[cfg(feature = "ablation")]
    disabled: u32,
}

/// The techniques: each a method of `Techniques` that says whether it is
/// on, and the short name `Disable` takes.
macro_rules! techniques {
    ($($(#[$doc:meta])* $technique:ident: $name:literal,)*) => {
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Technique {
            $($technique,)*
        }

        impl Techniques {
            $(
                $(#[$doc])*
                #[inline(always)]
                pub fn $technique(self) -> bool {
                    self.is_on(Technique::$technique)
                }
            )*

            /// Each technique's short name, as `Disable` takes it.
            const NAMES: &[(&'static str, Technique)] = &[$(($name, Technique::$technique),)*];
        }
    };
}

techniques! {
    aspiration: "aspiration",
    check_extension: "checkext",
    null_move: "nullmove",
    reverse_futility: "rfp",
    futility: "futility",
    late_move_pruning: "lmp",
    see_pruning: "seeprune",
    late_move_reductions: "lmr",
    internal_iterative_reduction: "iir",
    enhanced_transposition_cutoffs: "etc",
    singular_extensions: "singular",
    killers: "killers",
    counter_moves: "countermove",
    history: "history",
    continuation_history: "conthist",
    history_pruning: "histprune",
    correction_history: "corrhist",
    double_extensions: "doubleext",
    negative_extensions: "negext",
    cut_node_reductions: "cutnode",
    quiescence_see: "qsee",
    /// Off, every rule that reads the improving flag acts as it did before
    /// it had one: reverse futility's full margin, late move pruning's
    /// longer wait, no extra reduction.
    improving: "improving",
}

impl Techniques {
    /// Every technique on: the search as it plays.
    pub const ALL: Techniques = Techniques {
        #[cfg(feature = "ablation")]
        disabled: 0,
    };

    #[inline(always)]
    fn is_on(self, technique: Technique) -> bool {
        #[cfg(feature = "ablation")]
        {
            self.disabled & (1 << technique as u32) == 0
        }
        #[cfg(not(feature = "ablation"))]
        {
            let _ = technique;
            true
        }
    }

    /// The short names, as `Disable` takes them.
    pub fn names() -> impl Iterator<Item = &'static str> {
        Self::NAMES.iter().map(|&(name, _)| name)
    }

    /// All techniques but those named in a comma- or space-separated list
    /// (an ablation build's `Disable`; elsewhere only the empty list).
    pub fn all_but(list: &str) -> Result<Techniques, String> {
        let mut disabled = 0u32;
        for name in list.split([',', ' ']).filter(|n| !n.is_empty()) {
            let name = name.to_ascii_lowercase();
            let (_, technique) = Self::NAMES
                .iter()
                .find(|(known, _)| *known == name)
                .ok_or_else(|| {
                    let known: Vec<_> = Self::names().collect();
                    format!("unknown technique '{name}' (known: {})", known.join(", "))
                })?;
            disabled |= 1 << *technique as u32;
        }
        Self::with_disabled(disabled)
    }

    #[cfg(feature = "ablation")]
    fn with_disabled(disabled: u32) -> Result<Techniques, String> {
        Ok(Techniques { disabled })
    }

    #[cfg(not(feature = "ablation"))]
    fn with_disabled(disabled: u32) -> Result<Techniques, String> {
        match disabled {
            0 => Ok(Techniques::ALL),
            _ => Err(
                "this build searches with every technique (build with --features ablation)".into(),
            ),
        }
    }
}
