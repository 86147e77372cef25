# Lasker: `make` builds ./lasker (or EXE=path), `make test` runs every test.
EXE ?= lasker
CARGO ?= cargo
# Native CPU for the engine binary the user runs; plain cargo builds (tests)
# target x86-64-v2, set in .cargo/config.toml.
NATIVE := RUSTFLAGS="-C target-cpu=native"
# Cargo features of the engine binary: `make FEATURES=tune` builds the
# tune build (search parameters as UCI options), as OpenBench's SPSA needs.
FEATURES ?=

.PHONY: all build run test bench perft-full tt-report clippy fmt clean lasker-v3

all: build

# Where cargo puts its builds: target/ unless CARGO_TARGET_DIR (or a
# config's build.target-dir) says otherwise. Cargo knows; ask it.
TARGET_DIR = $(shell $(CARGO) metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
# EXE as a command: a bare name runs from here, a path as given.
RUN_EXE = $(if $(findstring /,$(EXE)),$(EXE),./$(EXE))

build:
	$(NATIVE) $(CARGO) build --release $(if $(FEATURES),--features $(FEATURES))
	@test -n "$(TARGET_DIR)" || { echo "make: cargo metadata named no target directory" >&2; exit 1; }
	cp "$(TARGET_DIR)/release/lasker" "$(EXE)"

run: build
	$(RUN_EXE)

# Unit tests, perft suites and the protocol tests against the real binary,
# built with the `invariants` profile (Cargo.toml): optimised, with every
# debug assertion and overflow check on.
test:
	$(CARGO) test --profile invariants

bench: build
	$(RUN_EXE) bench

# Every perft count in positions/, to the deepest depth (minutes).
perft-full:
	$(CARGO) test --release -- --ignored perft_full --nocapture

# The measurements of docs/transposition-table.md (several minutes).
tt-report:
	$(CARGO) test --release --test tt_experiments -- --ignored --nocapture --test-threads=1

# A binary for any x86-64 machine with AVX2 (x86-64-v3: Haswell, Zen and
# later) rather than for this CPU: for a lent machine with many cores that
# runs `lasker datagen` (docs/evaluation.md, "Generations").
lasker-v3:
	RUSTFLAGS="-C target-cpu=x86-64-v3" $(CARGO) build --release --target-dir "$(TARGET_DIR)/v3"
	cp "$(TARGET_DIR)/v3/release/lasker" lasker-v3

clippy:
	$(CARGO) clippy --release --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --check

clean:
	$(CARGO) clean
	rm -f lasker
