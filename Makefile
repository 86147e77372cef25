# Lasker: `make` builds ./lasker (or EXE=path), `make test` runs every test.
EXE ?= lasker
CARGO ?= cargo
# Native CPU for the engine binary the user runs; plain cargo builds (tests)
# target x86-64-v2, set in .cargo/config.toml.
NATIVE := RUSTFLAGS="-C target-cpu=native"

.PHONY: all build run test bench perft-full tt-report clippy fmt clean

all: build

build:
	$(NATIVE) $(CARGO) build --release
	cp target/release/lasker $(EXE)

run: build
	./$(EXE)

# Unit tests, perft suites and the protocol tests against the real binary.
test:
	$(CARGO) test --release

bench: build
	./$(EXE) bench

# Every perft count in positions/, to the deepest depth (minutes).
perft-full:
	$(CARGO) test --release -- --ignored perft_full --nocapture

# The transposition-table measurements of README (several minutes).
tt-report:
	$(CARGO) test --release --test tt_experiments -- --ignored --nocapture --test-threads=1

clippy:
	$(CARGO) clippy --release --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --check

clean:
	$(CARGO) clean
	rm -f lasker
