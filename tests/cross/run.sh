#!/usr/bin/env bash
# The Windows and ARM builds, checked where this Linux x86-64 machine can
# run them: the Windows binary under Wine, the ARM one under qemu-user.
# `.ci/run` runs it. What it lacks it installs (rustup's targets; as root
# with apt-get: the MinGW and aarch64 linkers, Wine, qemu-user, and
# python-chess with pip); what it still can't do it skips, saying so on a
# line that starts with SKIPPED, and exits 0 only if nothing failed.
#
# Windows (plain build, x86-64-v2 as every cargo build here): bench gives
# the Linux build's nodes; the UCI handshake; SyzygyPath, EvalFile and
# Debug Log File given Windows paths (Z:\... is / under Wine); a few games
# against the Linux build through python-chess with no illegal move and no
# loss on time. ARM: bench gives the same nodes under qemu, and the net's
# SIMD tests (NEON against the definition) pass there.
#
# `run.sh install` only installs (for `make release` to link with);
# WINDOWS_EXE and ARM_EXE name binaries to check instead of building plain
# ones here (`make release`'s, in CI), and one that is missing is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

skip() { echo "SKIPPED: $*"; }
have() { command -v "$1" > /dev/null 2>&1; }
# Debian packages for the commands named, where they are missing and this
# is root with apt-get (a CI machine); quiet unless it fails.
install() {
    local missing=()
    # shellcheck disable=SC2206 # a command's packages, split on spaces
    while [ $# -gt 1 ]; do have "$1" || missing+=($2); shift 2; done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" = 0 ] && have apt-get; then
        echo "installing ${missing[*]}"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } \
            > "$work/apt.log" 2>&1 || { tail -5 "$work/apt.log"; return 1; }
    else
        return 1
    fi
}
target() { rustup target list --installed | grep -qx "$1" || rustup target add "$1"; }
nodes() { tail -n 1 | sed -n 's/^\([0-9]*\) nodes.*/\1/p'; }

install_all() {
    install x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64 wine "wine wine64" winepath "wine wine64" \
        && target x86_64-pc-windows-gnu || skip "Windows: no MinGW linker, Wine or Rust target here"
    install aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu qemu-aarch64 qemu-user \
        && target aarch64-unknown-linux-gnu || skip "ARM: no aarch64 linker, qemu-user or Rust target here"
}
if [ "${1:-}" = install ]; then
    install_all
    exit 0
fi

cargo build -q --release -p lasker
linux="$root/target/release/lasker"
expected=$("$linux" bench 2>&1 | nodes)
echo "Linux x86-64: bench $expected nodes"

# --- Windows under Wine -------------------------------------------------
windows() {
    install x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64 wine "wine wine64" winepath "wine wine64" || {
        skip "Windows: no MinGW linker or Wine, and they can't be installed here"; return 0; }
    target x86_64-pc-windows-gnu || { skip "Windows: rustup can't add x86_64-pc-windows-gnu here"; return 0; }
    local dir="$work/windows" exe
    mkdir -p "$dir"
    exe="$dir/lasker.exe"
    if [ -n "${WINDOWS_EXE:-}" ]; then
        [ -f "$WINDOWS_EXE" ] || { skip "Windows: no $WINDOWS_EXE"; return 0; }
        cp "$WINDOWS_EXE" "$exe"
    else
        cargo build -q --release -p lasker --target x86_64-pc-windows-gnu
        cp target/x86_64-pc-windows-gnu/release/lasker.exe "$exe"
    fi
    # Rust's standard library calls ProcessPrng in bcryptprimitives.dll
    # (Windows 10 and later have it); Wine 8 (Debian 12's) lacks the DLL.
    # This stand-in, built here and put beside the test's copy only, is a
    # test fixture: it is never shipped, and real Windows needs none.
    printf '%s\n' '#include <windows.h>' '#include <ntsecapi.h>' \
        'BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) { return RtlGenRandom(data, (ULONG)len); }' \
        > "$dir/shim.c"
    x86_64-w64-mingw32-gcc -shared -O2 -o "$dir/bcryptprimitives.dll" "$dir/shim.c" -ladvapi32
    export WINEPREFIX="$work/wineprefix" WINEDEBUG=-all
    local got
    got=$(wine "$exe" bench 2>&1 | nodes)
    echo "Windows x86-64 under Wine: bench $got nodes"
    [ "$got" = "$expected" ] || { echo "FAILED: Windows bench $got nodes, Linux $expected" >&2; return 1; }
    # Wine's server quits a few seconds after its last program; a program
    # started while it is quitting dies at once ("wine client error:0:
    # recvmsg: Connection reset by peer"; CI lost a run to it). One server
    # kept for all the checks below (the first run made the prefix), shut
    # down when the checks end.
    wineserver -w
    wineserver -p
    trap 'wineserver -k 2> /dev/null || true' EXIT  # windows() runs in a subshell

    local out
    out=$(printf 'uci\nisready\nquit\n' | wine "$exe" 2> /dev/null)
    grep -q '^uciok' <<< "$out" && grep -q '^readyok' <<< "$out" \
        || { echo "FAILED: no handshake from the Windows build: $out" >&2; return 1; }
    echo "Windows: UCI handshake answered"

    local net log tables
    net=$(winepath -w "$root/nets/$("$linux" --version | sed -n 's/^net: \([^ ,]*\).*/\1/p').nnue")
    log=$(winepath -w "$dir/debug.log")
    out=$(printf 'setoption name EvalFile value %s\nsetoption name Debug Log File value %s\nisready\nquit\n' \
        "$net" "$log" | wine "$exe" 2> /dev/null)
    grep -q "^info string EvalFile .* loaded" <<< "$out" \
        || { echo "FAILED: EvalFile $net: $out" >&2; return 1; }
    grep -q 'isready' "$dir/debug.log" \
        || { echo "FAILED: no Debug Log File at $log" >&2; return 1; }
    echo "Windows: EvalFile $net loaded, Debug Log File $log written"
    if [ -d "$root/../shared/syzygy" ]; then
        # Two folders with `;` between, drive letters and backslashes: as a
        # Windows GUI passes them (the second holds a copy of KQvK).
        mkdir -p "$dir/tb"
        cp "$root"/../shared/syzygy/KQvK.* "$dir/tb/"
        tables="$(winepath -w "$root/../shared/syzygy");$(winepath -w "$dir/tb")"
        out=$(printf 'setoption name SyzygyPath value %s\nisready\nquit\n' "$tables" | wine "$exe" 2> /dev/null)
        grep -q "^info string Syzygy tablebases: [1-9]" <<< "$out" && ! grep -q 'error' <<< "$out" \
            || { echo "FAILED: SyzygyPath $tables: $out" >&2; return 1; }
        echo "Windows: SyzygyPath $tables: $(head -n 1 <<< "$out" | cut -c 13-90)..."
    else
        skip "Windows: no ../shared/syzygy to load tables from"
    fi

    if ! python3 -c 'import chess' 2> /dev/null; then
        python3 -m pip install -q chess > "$work/pip.log" 2>&1 || true
    fi
    if python3 -c 'import chess' 2> /dev/null; then
        python3 tests/cross/games.py --games 4 --tc 3+0.03 "wine $exe" "$linux"
    else
        skip "Windows: no python-chess for the games"
    fi
}

# --- ARM under qemu -----------------------------------------------------
arm() {
    install aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu qemu-aarch64 qemu-user || {
        skip "ARM: no aarch64 linker or qemu-user, and they can't be installed here"; return 0; }
    target aarch64-unknown-linux-gnu || { skip "ARM: rustup can't add aarch64-unknown-linux-gnu here"; return 0; }
    export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
    export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
    local exe=target/aarch64-unknown-linux-gnu/release/lasker got
    if [ -n "${ARM_EXE:-}" ]; then
        [ -f "$ARM_EXE" ] || { skip "ARM: no $ARM_EXE"; return 0; }
        exe=$ARM_EXE
    else
        cargo build -q --release -p lasker --target aarch64-unknown-linux-gnu
    fi
    got=$(qemu-aarch64 -L /usr/aarch64-linux-gnu "$exe" bench 2>&1 | nodes)
    echo "Linux aarch64 under qemu: bench $got nodes"
    [ "$got" = "$expected" ] || { echo "FAILED: ARM bench $got nodes, x86-64 $expected" >&2; return 1; }
    cargo test -q --release -p lasker --target aarch64-unknown-linux-gnu --lib nnue::simd 2>&1 | grep -E 'test result|FAILED|panicked'
}

# Each in a subshell of its own with `set -e` on (a function called in an
# `||` list would run on past a failure).
set +e
(set -e; windows); windows_status=$?
(set -e; arm); arm_status=$?
[ $windows_status = 0 ] || echo "FAILED: the Windows checks" >&2
[ $arm_status = 0 ] || echo "FAILED: the ARM checks" >&2
[ $windows_status = 0 ] && [ $arm_status = 0 ]
