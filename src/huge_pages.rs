//! Transparent huge pages for the transposition table, on Linux.
//!
//! A probe of a table of many megabytes lands on a random 4 KB page, and
//! every page the CPU's TLB doesn't hold costs a page walk before the cache
//! miss is even served: the table's probe and its prefetch were the search's
//! costliest instructions in a profile of `bench`. On 2 MB pages a 16 MB
//! table is eight TLB entries. Linux gives huge pages to the ranges that ask
//! for them (`madvise(MADV_HUGEPAGE)`) where
//! `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise` (the usual
//! default) or `always`; where it is `never`, or elsewhere, nothing changes.

/// Asks the kernel to back the pages of `len` bytes from `start` with huge
/// pages when they are first touched: call it between allocating and
/// writing. Only whole 4 KB pages inside the range are named, and only
/// 2 MB-aligned stretches of them can be huge, so an allocation that is
/// not 2 MB-aligned loses a part at each end.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
pub fn advise<T>(start: *const T, len: usize) {
    // The value in Linux's asm-generic/mman-common.h, which both
    // architectures use.
    const MADV_HUGEPAGE: i32 = 14;
    const PAGE: usize = 4096;
    unsafe extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, length: usize, advice: i32) -> i32;
    }
    let first = (start as usize).next_multiple_of(PAGE);
    let end = (start as usize).saturating_add(len) / PAGE * PAGE;
    if end > first {
        // SAFETY: madvise with MADV_HUGEPAGE only gives the kernel advice
        // about how to back pages: it reads and writes no memory of ours,
        // changes no contents and no protections, and fails harmlessly
        // (EINVAL, ENOMEM) on a range it doesn't like. The range is whole
        // pages inside an allocation the caller owns. Its result is not
        // needed: without huge pages the table works as before.
        unsafe {
            madvise(first as *mut std::ffi::c_void, end - first, MADV_HUGEPAGE);
        }
    }
}

/// Elsewhere there is no such advice to give.
#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
pub fn advise<T>(_start: *const T, _len: usize) {}

#[cfg(all(
    test,
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod tests {
    use crate::tt::TranspositionTable;

    /// The kB on huge pages of the mapping that holds `address`, from
    /// /proc/self/smaps (whose mapping lines start `start-end perms ...`,
    /// each followed by its fields).
    fn huge_kb_at(address: usize) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((start, end)) = first.split_once('-')
                && let (Ok(start), Ok(end)) = (
                    usize::from_str_radix(start, 16),
                    usize::from_str_radix(end, 16),
                )
            {
                inside = (start..end).contains(&address);
            } else if inside && first == "AnonHugePages:" {
                return line.split_whitespace().nth(1)?.parse().ok();
            }
        }
        None
    }

    /// Where the kernel gives huge pages on request, a 64 MB table is on
    /// them (some, at least); without the advice a `madvise` system gives
    /// it none. Read off the table's own mapping: the tests beside it make
    /// and drop tables of their own.
    #[test]
    fn a_large_table_is_on_huge_pages_where_the_kernel_gives_them() {
        let setting = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if !setting.contains("[madvise]") && !setting.contains("[always]") {
            eprintln!(
                "skipped: transparent huge pages are off here ({})",
                setting.trim()
            );
            return;
        }
        let tt = TranspositionTable::new(64).expect("a 64 MB table");
        let Some(huge) = huge_kb_at(tt.middle_address()) else {
            eprintln!("skipped: no /proc/self/smaps entry for the table");
            return;
        };
        assert!(
            // One huge page at least, not all 32: a busy machine may have
            // few free.
            huge >= 2048,
            "{huge} kB of a 64 MB table on huge pages ({})",
            setting.trim()
        );
    }
}
