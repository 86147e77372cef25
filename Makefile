# Lasker: `make` builds ./lasker (or EXE=path) and the training tools beside
# it (./lasker-tools), `make test` runs every test of both crates, `make
# release` an engine binary per x86-64 level for Linux and Windows and one
# for Linux on ARM, `make dist` the archives users download.
EXE ?= lasker
# The tools binary (`tools/`: datagen, train, convert, fit-wdl), beside EXE.
TOOLS ?= $(patsubst %/,%,$(dir $(EXE)))/lasker-tools
CARGO ?= cargo
RUSTC ?= rustc
SHELL := /bin/bash
# The engine binary the user runs is built for this CPU (`native`); plain
# cargo builds (tests) target x86-64-v2, set in .cargo/config.toml.
CPU ?= native
# Cargo features of the engine binary: `make FEATURES=tune` builds the
# tune build (search parameters as UCI options), as OpenBench's SPSA needs.
FEATURES ?=

# Profile-guided optimisation: an instrumented build plays a fixed workload
# (`bench`, then 300 of `genfens`' openings, each a random game start and
# a 2,000-node search: positions as games reach them), llvm-profdata merges
# what it counted, and the final build lays out and inlines the code for
# it. It
# needs an llvm-profdata of the LLVM rustc was built with (the profile's
# format changes between LLVM versions): rustup's (`rustup component add
# llvm-tools`), a Debian-style llvm-profdata-NN, or PROFDATA=path. Without
# one, or with PGO=off, the build is plain; each build says which it was.
PGO ?= auto
# Builds name the target, so that RUSTFLAGS (the CPU level, PGO) reach the
# engine only, not build scripts and proc macros, which run here: a v4
# proc macro would stop a build on a CPU without AVX-512.
HOST := $(shell $(RUSTC) -vV 2>/dev/null | sed -n 's/^host: //p')
LLVM_MAJOR := $(shell $(RUSTC) -vV 2>/dev/null | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
ifeq ($(origin PROFDATA),undefined)
RUSTLIB_BIN := $(shell $(RUSTC) --print sysroot 2>/dev/null)/lib/rustlib/$(HOST)/bin
PROFDATA := $(shell for p in "$(RUSTLIB_BIN)/llvm-profdata" llvm-profdata-$(LLVM_MAJOR) llvm-profdata; do \
	"$$p" --version 2>/dev/null | grep -q "LLVM version $(LLVM_MAJOR)\." && { echo "$$p"; break; }; done)
endif
PGO_TOOL := $(if $(filter off,$(PGO)),,$(PROFDATA))
PGO_WHY := $(if $(filter off,$(PGO)),PGO=off,no llvm-profdata of LLVM $(LLVM_MAJOR): rustup component add llvm-tools)
FEATURE_ARGS := $(if $(FEATURES),--features $(FEATURES))
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
RELEASE_DIR ?= release
DIST_DIR ?= dist
LEVELS := x86-64-v2 x86-64-v3 x86-64-v4
# Other targets' binaries (`make release`): rustup adds each target's
# standard library where it lacks it; linking needs Debian's
# gcc-mingw-w64-x86-64 (Windows) and, from another host, gcc-aarch64-linux-gnu
# (ARM).
WINDOWS_TARGET := x86_64-pc-windows-gnu
ARM_TARGET := aarch64-unknown-linux-gnu
ARM_LINKER := $(if $(filter aarch64-%,$(HOST)),,CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc)
# The Windows levels `make release` builds (CI builds one: they differ only
# in the CPU flag, and each costs a build of every crate).
WINDOWS_LEVELS ?= $(LEVELS)

.PHONY: all build tools run test bench perft-full tt-report search-report clippy fmt clean lasker-v3 release \
	$(LEVELS:%=release-%) $(LEVELS:%=release-windows-%) release-linux-aarch64 dist

# Whether this CPU runs code built for target-cpu $(1): every target
# feature rustc enables for it is one this CPU has.
can_run = [ -z "$$(comm -23 <($(RUSTC) --print cfg -C target-cpu=$(1) | grep target_feature | sort) \
	<($(RUSTC) --print cfg -C target-cpu=native | grep target_feature | sort))" ]

# $(call pgo_build,CPU,DIR,OUT,CARGO_ARGS,BINARY,WORKLOAD[,BORROWED]):
# cargo's BINARY (of the package CARGO_ARGS selects) built for target-cpu
# CPU under DIR, copied to OUT: with PGO where a profile tool is found and
# this CPU can run the instrumented build, plainly otherwise. WORKLOAD
# names the variable holding the profile's shell commands (the
# instrumented binary is $$exe, the build folder $$dir). The profile is
# made again only when the instrumented binary, or this file (the
# workload), is newer than it.
# BORROWED (optional) is a profile to use where this CPU can't run CPU's
# code: the profile of a lower level, made by the same source and
# workload. Functions whose code differs between the levels (the SIMD
# paths) get no counts from it; the rest (search, move generation) do, as
# the Windows builds take their Linux level's profile.
define pgo_build
	@test -n "$(TARGET_DIR)" || { echo "make: cargo metadata named no target directory" >&2; exit 1; }
	@set -e; flags="-C target-cpu=$(1)"; dir="$(2)"; profile=""; \
	if [ -n "$(PGO_TOOL)" ] && $(call can_run,$(1)); then \
		echo "make: $(3): PGO build for $(1) (profile by $(PGO_TOOL))"; \
		RUSTFLAGS="$$flags -C profile-generate=$$dir/pgo-raw" $(CARGO) build --release $(4) --target $(HOST) --target-dir "$$dir/pgo-generate"; \
		exe="$$dir/pgo-generate/$(HOST)/release/$(5)"; \
		if [ ! -f "$$dir/pgo.profdata" ] || [ "$$exe" -nt "$$dir/pgo.profdata" ] || [ Makefile -nt "$$dir/pgo.profdata" ]; then \
			rm -rf "$$dir/pgo-raw"; \
			$($(6)); \
			"$(PGO_TOOL)" merge -o "$$dir/pgo.profdata" "$$dir/pgo-raw"; \
		fi; \
		profile="$$dir/pgo.profdata"; \
	elif [ -n "$(PGO_TOOL)" ] && [ -n "$(7)" ] && [ -f "$(7)" ]; then \
		echo "make: $(3): build for $(1) with the PGO profile $(7) (this CPU can't run $(1) code to profile it)"; \
		profile="$(7)"; \
	fi; \
	if [ -n "$$profile" ]; then \
		LASKER_PGO=1 RUSTFLAGS="$$flags -C profile-use=$$profile" $(CARGO) build --release $(4) --target $(HOST) --target-dir "$$dir/pgo-use"; \
		cp "$$dir/pgo-use/$(HOST)/release/$(5)" "$(3)"; \
	else \
		echo "make: $(3): plain build for $(1) ($(if $(PGO_TOOL),this CPU can't run $(1) code to profile it,$(PGO_WHY)))"; \
		RUSTFLAGS="$$flags" $(CARGO) build --release $(4) --target $(HOST) --target-dir "$$dir"; \
		cp "$$dir/$(HOST)/release/$(5)" "$(3)"; \
	fi
endef

# The engine's profile: bench and the opening generator.
ENGINE_WORKLOAD = "$$exe" bench > /dev/null; "$$exe" "genfens 300 seed 1 book None" > /dev/null
# $(call compile,CPU,DIR,OUT[,BORROWED]): the engine built for target-cpu
# CPU under DIR, copied to OUT (with PGO where it can be).
compile = $(call pgo_build,$(1),$(2),$(3),$(FEATURE_ARGS),lasker,ENGINE_WORKLOAD,$(4))

all: build tools

# Where cargo puts its builds: target/ unless CARGO_TARGET_DIR (or a
# config's build.target-dir) says otherwise. Cargo knows; ask it.
TARGET_DIR = $(shell $(CARGO) metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
# EXE as a command: a bare name runs from here, a path as given.
RUN_EXE = $(if $(findstring /,$(EXE)),$(EXE),./$(EXE))

# A plain native build goes where cargo puts a release build for the host
# (target/<host>/release); the others get a folder each.
build:
	$(call compile,$(CPU),$(TARGET_DIR)$(if $(PGO_TOOL),/pgo-$(CPU)),$(EXE))

run: build
	$(RUN_EXE)

# The tools' profile, on the same terms as the engine's: the data for the
# nets is made by `datagen` for hours, so its speed is data. The workload
# is what the tools run long: 16 datagen games (one thread, the default
# node budget) and 30 epochs of training on them (code a profile never saw is
# laid out as cold, so training needs its own share).
TOOLS_WORKLOAD = rm -rf "$$dir/pgo-work"; mkdir -p "$$dir/pgo-work"; \
	"$$exe" datagen --out "$$dir/pgo-work/games.vf" --threads 1 --games 16 --seed 1 > /dev/null 2>&1; \
	"$$exe" train --data "$$dir/pgo-work/games.vf" --out "$$dir/pgo-work/net" --epochs 30 \
		--batch 512 --hidden 512 --output-buckets 8 --threads 2 > /dev/null 2>&1
# $(call compile_tools,CPU,DIR,OUT): the tools built for target-cpu CPU
# under DIR, copied to OUT (with PGO where it can be).
compile_tools = $(call pgo_build,$(1),$(2),$(3),-p lasker-tools,lasker-tools,TOOLS_WORKLOAD)

tools:
	$(call compile_tools,$(CPU),$(TARGET_DIR)/tools-$(CPU),$(TOOLS))

# Unit tests, perft suites and the protocol tests against the real binary,
# built with the `invariants` profile (Cargo.toml): optimised, with every
# debug assertion and overflow check on.
test:
	$(CARGO) test --profile invariants --workspace

bench: build
	$(RUN_EXE) bench

# Every perft count in positions/, to the deepest depth (minutes).
perft-full:
	$(CARGO) test --release -- --ignored perft_full --nocapture

# The measurements of docs/transposition-table.md (several minutes) and
# of docs/search.md's ETC table (benches/).
tt-report:
	$(CARGO) bench --features ablation --bench tt_report
search-report:
	$(CARGO) bench --features tune --bench search_report

# Binaries for any x86-64 machine with AVX2 (x86-64-v3: Haswell, Zen and
# later) rather than for this CPU: for a lent machine with many cores that
# runs `lasker-tools-v3 datagen` (docs/evaluation.md, "Generations").
lasker-v3:
	$(call compile,x86-64-v3,$(TARGET_DIR)/x86-64-v3,lasker-v3)
	$(call compile_tools,x86-64-v3,$(TARGET_DIR)/tools-x86-64-v3,lasker-tools-v3)

# One Linux binary per x86-64 level, PGO-built where this CPU can run the
# level (see `compile`), the same levels for Windows (plain builds) and one
# for Linux on ARM (aarch64: NEON, which every such CPU has), in
# $(RELEASE_DIR)/. Each Linux x86-64 binary this CPU runs must answer
# `bench` with the same node count (tests/cross/run.sh checks the Windows
# binaries under Wine and the ARM one under qemu).
release: $(LEVELS:%=release-%) $(WINDOWS_LEVELS:%=release-windows-%) release-linux-aarch64
	@set -e; nodes=""; for level in $(LEVELS); do \
		exe="$(RELEASE_DIR)/lasker-$(VERSION)-linux-$$level"; \
		if $(call can_run,$$level); then \
			line=$$("$$exe" bench 2>&1 | tail -n 1); echo "make: $$exe: $$line"; \
			n=$${line%% nodes*}; [ -z "$$nodes" ] || [ "$$n" = "$$nodes" ] || { echo "make: $$exe: bench $$n nodes, not $$nodes" >&2; exit 1; }; nodes=$$n; \
		else echo "make: $$exe: this CPU can't run $$level, bench not run"; fi; \
	done

# The level below each; a level this CPU can't run is built with the
# profile of the one below (so that is built first).
level_below = $(if $(filter x86-64-v4,$(1)),x86-64-v3,$(if $(filter x86-64-v3,$(1)),x86-64-v2))
profile_below = $(if $(call level_below,$(1)),$(TARGET_DIR)/$(call level_below,$(1))/pgo.profdata)
release-x86-64-v4: release-x86-64-v3
release-x86-64-v3: release-x86-64-v2

$(LEVELS:%=release-%): release-%:
	@mkdir -p "$(RELEASE_DIR)"
	$(call compile,$*,$(TARGET_DIR)/$*,$(RELEASE_DIR)/lasker-$(VERSION)-linux-$*,$(call profile_below,$*))

# $(call cross,TRIPLE,RUSTFLAGS,DIR,BUILT,OUT,LINKER,ENV,PROFILES): a build
# for another target (its standard library added by rustup where missing),
# with the PGO of the first of PROFILES (paths) that exists. Without the
# linker it is skipped, loudly: the other binaries still come.
define cross
	@test -n "$(TARGET_DIR)" || { echo "make: cargo metadata named no target directory" >&2; exit 1; }
	@mkdir -p "$(RELEASE_DIR)"
	@set -e; if ! command -v $(6) > /dev/null; then \
		echo "make: SKIPPED $(5): no $(6) to link it (Debian: apt-get install $(if $(filter x86_64-pc-windows-gnu,$(1)),gcc-mingw-w64-x86-64,gcc-aarch64-linux-gnu))"; \
	else \
		flags="$(2)"; profile=""; \
		for p in $(8); do [ -f "$$p" ] && { profile=$$p; break; }; done; \
		if [ -n "$$profile" ]; then \
			echo "make: $(5): PGO build with the profile $$profile"; flags="$$flags -C profile-use=$$profile"; \
		else echo "make: $(5): plain build"; fi; \
		rustup target list --installed 2>/dev/null | grep -qx "$(1)" || rustup target add "$(1)"; \
		$(7) RUSTFLAGS="$$flags" $(CARGO) build --release -p lasker --target $(1) --target-dir "$(3)"; \
		cp "$(3)/$(1)/release/$(4)" "$(5)"; \
	fi
endef

# A Windows level takes the PGO profile its Linux build made or borrowed
# (the same source's, from the Linux binary's workload): 1.085 times the
# plain build's bench nps under Wine (medians of 7 alternating runs,
# x86-64-v2), the same nodes. So the Linux level is built first.
$(LEVELS:%=release-windows-%): release-windows-%: release-%
	$(call cross,$(WINDOWS_TARGET),-C target-cpu=$*,$(TARGET_DIR)/windows-$*,lasker.exe,$(RELEASE_DIR)/lasker-$(VERSION)-windows-$*.exe,x86_64-w64-mingw32-gcc,,$(TARGET_DIR)/$*/pgo.profdata $(call profile_below,$*))

release-linux-aarch64:
	$(call cross,$(ARM_TARGET),,$(TARGET_DIR)/aarch64,lasker,$(RELEASE_DIR)/lasker-$(VERSION)-linux-aarch64,$(if $(ARM_LINKER),aarch64-linux-gnu-gcc,cc),$(ARM_LINKER))

# The downloads: each release binary with the licence, README and this
# version's release notes (from docs/releases.md), as a .zip for Windows and
# a .tar.gz elsewhere, in $(DIST_DIR)/ with SHA256SUMS of the archives.
# Nothing is rebuilt: run `make release` first.
dist:
	@set -e; ls "$(RELEASE_DIR)"/lasker-$(VERSION)-* > /dev/null || { echo "make: no binaries of $(VERSION) in $(RELEASE_DIR)/: make release first" >&2; exit 1; }; \
	rm -rf "$(DIST_DIR)"; mkdir -p "$(DIST_DIR)"; \
	notes=$$(awk '/^## $(VERSION) /{p=1} /^## / && !/^## $(VERSION) /{p=0} p' docs/releases.md); \
	[ -n "$$notes" ] || { echo "make: docs/releases.md has no section for $(VERSION)" >&2; exit 1; }; \
	for exe in "$(RELEASE_DIR)"/lasker-$(VERSION)-*; do \
		name=$$(basename "$$exe" .exe); dir="$(DIST_DIR)/$$name"; mkdir -p "$$dir"; \
		case "$$exe" in *.exe) cp "$$exe" "$$dir/lasker.exe";; *) cp "$$exe" "$$dir/lasker";; esac; \
		cp COPYING README.md "$$dir/"; \
		{ sed -n '1,/^## /{/^## /!p}' docs/releases.md; echo "$$notes"; } > "$$dir/RELEASE-NOTES.md"; \
		case "$$exe" in \
			*.exe) (cd "$(DIST_DIR)" && python3 -m zipfile -c "$$name.zip" "$$name");; \
			*) tar -C "$(DIST_DIR)" -czf "$(DIST_DIR)/$$name.tar.gz" "$$name";; \
		esac; \
		rm -rf "$$dir"; \
	done; \
	(cd "$(DIST_DIR)" && sha256sum -- *.zip *.tar.gz > SHA256SUMS); \
	cat "$(DIST_DIR)/SHA256SUMS"

clippy:
	$(CARGO) clippy --workspace --release --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --check

clean:
	$(CARGO) clean
	rm -f lasker lasker-tools
	rm -rf "$(RELEASE_DIR)" "$(DIST_DIR)"
