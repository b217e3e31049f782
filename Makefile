# SPDX-License-Identifier: GPL-2.0-or-later
# A thin front for meson, the way QEMU's tree puts configure + Makefile in
# front of it.  The two commands a newcomer needs:
#   make demo    deps, build, then the main job on the default profile
#   make check   deps, build, every test suite
# Everything lands under build/: our meson build, build/qemu (QEMU's build),
# build/qemu-src (the pinned Debian source with our overlay), build/guest.

SHELL := /bin/sh
BUILD := build
MESON ?= meson
NINJA ?= ninja

.PHONY: all deps qemu nvmimic guest dbguest sqldb sqldb-quick nvme-cli-tests check check-sanitizers check-tsan check-crash demo test fuzz qemu-fuzz install clean distclean help

all: qemu nvmimic guest

help:
	@echo "make demo      install deps, build everything, run the demo job"
	@echo "make check     install deps, build everything, run every test suite"
	@echo "make deps      install the Debian packages nvmimic needs (root)"
	@echo "make qemu      fetch, overlay and build build/qemu/qemu-system-x86_64"
	@echo "make nvmimic   build the model, the CLI and the tests (build/)"
	@echo "make guest     build the minimal Linux guest (build/guest/)"
	@echo "make dbguest   build the database guest for run --suite sql (build/dbguest/)"
	@echo "make sqldb     load its TPC-C database once, SQL_W warehouses (20): build/sqldb/"
	@echo "make nvme-cli-tests  fetch nvme-cli's test suite for the conformance test"
	@echo "make test      run the test suites without the deps/build steps"
	@echo "make fuzz      run each libFuzzer target on the model for FUZZ_S seconds (default 60)"
	@echo "make qemu-fuzz build QEMU's generic-fuzz target with the device (build/qemu-fuzz/)"
	@echo "make check-crash  power cuts at 10 random instants under ext4 + fsync"
	@echo "make check-sanitizers  device and unit suites under ASan+UBSan"
	@echo "               (a second QEMU build, build/qemu-asan; not in check)"
	@echo "make check-tsan  the real-time device tests under ThreadSanitizer"
	@echo "               (a third QEMU build, build/qemu-tsan; not in check)"
	@echo "make install   build, then install under PREFIX (default /usr/local; DESTDIR too):"
	@echo "               bin/nvmimic, share/nvmimic/, libexec/nvmimic/ (QEMU), nvmimic.1"

deps:
	@sh scripts/deps.sh

qemu: deps
	@sh scripts/qemu-build.sh

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) .

nvmimic: deps $(BUILD)/build.ninja
	$(NINJA) -C $(BUILD)

guest: deps
	@sh vm-images/build-guest.sh $(BUILD)/guest

# Debian + PostgreSQL 15 by debootstrap (~3 min the first time, then ~1 min:
# the tree is cached in build/dbguest/rootfs).  Not part of `all`: only the
# sql suite needs it; `make check` builds it for the suite tests.
dbguest: deps
	@sh vm-images/dbguest/build.sh $(BUILD)/dbguest

# The sql suite's loaded database: SQL_W warehouses loaded once with the
# host's PostgreSQL 15 into a read-only image (build/sqldb/tpcc-wW.img) that
# every run puts under a throwaway overlay; ~3.5 min for W=20 here.
# `make check` loads W=1 (~30 s) for its quick runs.
SQL_W ?= 20
sqldb: dbguest
	@sh vm-images/dbguest/build-db.sh $(BUILD)/dbguest $(BUILD)/sqldb $(SQL_W)

sqldb-quick: dbguest
	@sh vm-images/dbguest/build-db.sh $(BUILD)/dbguest $(BUILD)/sqldb 1

# nvme-cli's own test suite, from Debian's nvme-cli source package, for the
# conformance test (tests/vm/conformance.sh); fetched once.
nvme-cli-tests: deps
	@sh scripts/nvme-cli-tests.sh

test:
	@sh scripts/run-tests.sh $(BUILD)

# libFuzzer targets on backends/ (tests/fuzz/), clang + ASan + UBSan in their
# own build folder build/fuzz; reproducers of crashes in build/fuzz/crashes/.
# With build/qemu-fuzz (make qemu-fuzz) it also runs QEMU's generic-fuzz.
FUZZ_S ?= 60
fuzz: deps
	@sh scripts/fuzz.sh $(BUILD) $(FUZZ_S)

# QEMU with --enable-fuzzing, ASan and UBSan (clang-14): qemu-fuzz-x86_64,
# which make fuzz then runs too (scripts/qemu-fuzz.sh).  Not part of check.
qemu-fuzz: deps
	@QEMU_VARIANT=fuzz sh scripts/qemu-build.sh

# meson install: nvmimic finds everything relative to PREFIX/bin/nvmimic,
# so the installed tree may move (harness/cli/paths.c).
PREFIX ?= /usr/local
install: all
	$(MESON) configure $(BUILD) -Dprefix=$(PREFIX)
	$(MESON) install -C $(BUILD) $(if $(DESTDIR),--destdir $(DESTDIR))

check: all dbguest sqldb-quick nvme-cli-tests
	@sh scripts/run-tests.sh $(BUILD)

# Not part of check: a second QEMU build (build/qemu-asan, ~2x the time of
# build/qemu) and a second meson build of ours (build/asan).
check-sanitizers: deps
	@QEMU_VARIANT=asan sh scripts/qemu-build.sh
	@sh scripts/check-sanitizers.sh $(BUILD)

# Not part of check either: QEMU built once more with ThreadSanitizer
# (build/qemu-tsan, gcc; ~25 min on 2 cores) and the real-time device tests,
# whose timing thread posts completions off the main loop, run against it.
check-tsan: deps $(BUILD)/build.ninja
	@QEMU_VARIANT=tsan sh scripts/qemu-build.sh
	@sh scripts/check-tsan.sh $(BUILD)

# The crash-consistency check at length (docs/faults.md): ten seeds, each
# run twice, and both controls; ~2 guest boots a run, minutes each on a
# loaded 2-core host.  make check runs seed 1 of it and one control.
CRASH_SEEDS ?= 1,2,3,4,5,6,7,8,9,10
check-crash: all
	python3 tests/vm/crash_consistency.py $(BUILD)/qemu/qemu-system-x86_64 \
	    $(BUILD)/guest profiles crucial-p2-500g --seeds $(CRASH_SEEDS) \
	    --repeat 10 --controls fsync-off,false-plp

demo: all
	@sh scripts/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD)/meson-* $(BUILD)/build.ninja $(BUILD)/guest

distclean:
	rm -rf $(BUILD)
