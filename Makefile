# flakeid — PGXS build.  `make && make install`; tests: see CONTRIBUTING.md.

EXTENSION = flakeid
# the version being built: the control file's (sql/released/README says how a release starts)
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'$$/\1/p" $(EXTENSION).control)

# name:width of every fixed-width type; each is instantiated from
# sql/source/fixed_type.sql.in followed by its own sql/source/<name>.sql
FIXED_TYPES = sno:10 flax:12 siq:14 kuid:8 kuid96:12
TYPE_NAMES = $(foreach t,$(FIXED_TYPES),$(firstword $(subst :, ,$(t))))
# SQL for formats without a type of their own (snowflakes are bigint)
PLAIN_SQL = snowflake snowflake_text generators cluster_identities cluster_identities_acl horizon_holders adopt advance advance_all mask mask_keys partition_upkeep

# src/ in rooms named by what they keep (docs/DESIGN.md, and each room's
# README.md), each using only the rooms below it.  The pure ones, format/,
# rules/ and persisted/ (no postgres.h), are the PURE_DIRS: unit-tested and
# fuzzed without a server, every test/unit/test_<m>.c a unit test of theirs.
# Every .c file of every room is built into the module.
PURE_DIRS = format rules persisted
PURE_OBJS = $(patsubst %.c,%.o,$(sort $(foreach d,$(PURE_DIRS),$(wildcard src/$(d)/*.c))))
PURE_HEADERS = $(foreach d,$(PURE_DIRS),$(wildcard src/$(d)/*.h))
UNIT_TESTS = $(patsubst test/unit/test_%.c,%,$(sort $(wildcard test/unit/test_*.c)))
MODULE_big = flakeid
SERVER_OBJS = $(patsubst %.c,%.o,$(sort $(filter-out $(PURE_OBJS:.o=.c),$(wildcard src/*/*.c))))
OBJS = $(SERVER_OBJS) $(PURE_OBJS)

# The shipped SQL is committed, so that review reads what users install.
# sql/source/ holds the current state of the SQL, each object written once;
# `make sql` generates from it the current install script,
# sql/flakeid--<current>.sql, and the upgrade of the release in development,
# sql/upgrades/flakeid--<previous>--<current>.sql, from its hand-written
# .sql.in: that file holds what only an upgrade does (DROP, ALTER) and a line
# "--@include FILE" for each sql/source/ file of the release's new or
# replaced objects (a template FILE.sql.in is taken once per fixed-width
# type), as Citus's upgrade scripts include udfs/<name>/<version>.sql;
# a line "--@comments FILE" takes in only the COMMENT ON statements of FILE
# (each from a line "COMMENT ON" to the first line ending in ";"), so that
# an object's description is written once, beside it, and an upgrade sets
# it as a fresh install does.
# `make sql-check` checks both (the test command runs it).  Released scripts
# are frozen in sql/released/ and sql/upgrades/ (sql/released/README: how a
# release starts).  upgrade.t installs each release and updates it.
SHIPPED_SQL = sql/$(EXTENSION)--$(EXTVERSION).sql
UPGRADE_IN = $(wildcard sql/upgrades/$(EXTENSION)--*--$(EXTVERSION).sql.in)
UPGRADE_SQL = $(UPGRADE_IN:.in=)
DATA = $(SHIPPED_SQL) $(wildcard sql/released/$(EXTENSION)--*.sql) \
	$(sort $(UPGRADE_SQL) $(wildcard sql/upgrades/$(EXTENSION)--*--*.sql))

# --- tests against a running server (PGXS's targets) ----------------------
# `make installcheck`: pg_regress's classic layout, sql/NAME.sql with its
# output in expected/NAME.out (the extension's own scripts in sql/ are not
# tests); setup.sql (which creates the extension) first, the others in name
# order.  They mint IDs: the server must have flakeid in
# shared_preload_libraries.  REGRESS=name picks one.
REGRESS_FILES = $(sort $(notdir $(basename $(wildcard expected/*.out))))
REGRESS = setup $(filter-out setup,$(REGRESS_FILES))

# A plain `make` warns but never fails on a warning, so that a user's newer
# compiler cannot break an install from source or PGXN; the test command and
# CI build with WERROR=-Werror.  The server headers are system headers here
# so that -Wextra judges our code only (PostgreSQL's own headers have unused
# parameters).
WERROR ?=
PG_CONFIG ?= pg_config
PG_CPPFLAGS = -I$(srcdir)/src -isystem $(shell $(PG_CONFIG) --includedir-server)
PG_CFLAGS = -Wall -Wextra $(WERROR)
# OpenSSL for secure random bytes (flax) and SHA-256 (siq), zlib for CRC-32
# (siq), as API.md asks
SHLIB_LINK = -lcrypto -lz

EXTRA_CLEAN = $(patsubst %,test/unit/test_%,$(UNIT_TESTS))

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track headers: every object depends on all of ours
$(OBJS): $(wildcard src/*/*.h)

SQL_SOURCES = $(wildcard sql/source/*) $(UPGRADE_IN)

# The portable edition (portable/README.md): two committed files generated
# from portable/source/ by portable/generate.sh, which reads the alphabets
# and siq's kinds from src/format/ (one table for both editions).  `make sql`
# writes them too; `make sql-check` fails when a committed one is stale.
PORTABLE_OUTPUTS = plain:portable/flakeid_portable.sql pgtle:portable/flakeid_portable_pgtle.sql
PORTABLE_SOURCES = $(wildcard portable/source/*) portable/generate.sh src/format/sno.c src/format/flax.c \
	src/format/siq.c src/format/siq_forms.c src/format/kuid.c
portable: $(PORTABLE_SOURCES)
	@for out in $(PORTABLE_OUTPUTS); do bash portable/generate.sh $${out%%:*} > $${out#*:}.part && mv $${out#*:}.part $${out#*:} || exit 1; done

# sql_file FILE: sql/source/FILE as the scripts take it in: a template
# (FILE.sql.in) once per fixed-width type, @TYPE@ and @WIDTH@ filled in
define sql_file_function
	sql_file() { \
	  case $$1 in \
	    *.sql.in) for spec in $(FIXED_TYPES); do \
	                sed -e "s/@TYPE@/$${spec%%:*}/g" -e "s/@WIDTH@/$${spec##*:}/g" sql/source/$$1 || return 1; done ;; \
	    *) cat sql/source/$$1 ;; \
	  esac; }; \
	sql_comments() { \
	  [ -f sql/source/$$1 ] || return 1; \
	  sql_file $$1 | awk '/^COMMENT ON / { on = 1 } on { print } on && /;[ \t]*$$/ { on = 0 }'; }
endef

# the templates of every fixed-width type taken after its own file: a
# release's additions in files of their own, so that its upgrade script
# takes them in (1.5: the text functions, pg_partman's uuid encoders)
FIXED_ADDITIONS = text_functions uuid_partitions

# the install script as sql/source/ makes it, on standard output: the head,
# each fixed-width type (the template, its own file, the additions), then
# the rest
define generate_install_script
	{ cat sql/source/head.sql; \
	  for spec in $(FIXED_TYPES); do \
	    name=$${spec%%:*}; width=$${spec##*:}; \
	    sed -e "s/@TYPE@/$$name/g" -e "s/@WIDTH@/$$width/g" sql/source/fixed_type.sql.in; \
	    [ ! -f sql/source/$$name.sql ] || cat sql/source/$$name.sql; \
	    for template in $(FIXED_ADDITIONS); do \
	      sed -e "s/@TYPE@/$$name/g" -e "s/@WIDTH@/$$width/g" sql/source/$$template.sql.in; done; done; \
	  for name in $(PLAIN_SQL); do cat sql/source/$$name.sql; done; }
endef

# generate_upgrade_script IN: the upgrade script IN makes, on standard
# output (a file it includes that does not exist fails)
define generate_upgrade_script
	$(sql_file_function); \
	while IFS= read -r line || [ -n "$$line" ]; do \
	  case $$line in \
	    --@include\ *) sql_file "$${line#--@include }" || exit 1 ;; \
	    --@comments\ *) sql_comments "$${line#--@comments }" || exit 1 ;; \
	    *) printf '%s\n' "$$line" ;; \
	  esac; \
	done < $(1)
endef

sql: $(SQL_SOURCES) portable
	$(generate_install_script) > $(SHIPPED_SQL)
	@for in in $(UPGRADE_IN); do ( $(call generate_upgrade_script,$$in) ) > $${in%.in} || exit 1; done

# TAP: the committed install and upgrade scripts are exactly what sql/source/
# and the .sql.in generate, every file an upgrade includes is in the install
# script, and an upgrade script leads to the current version
sql-check: $(SQL_SOURCES)
	@n=0; check() { n=$$((n + 1)); if [ "$$1" -eq 0 ]; then echo "ok $$n - $$2"; else echo "not ok $$n - $$2"; fi; }; \
	$(generate_install_script) > $(SHIPPED_SQL).generated; \
	cmp -s $(SHIPPED_SQL) $(SHIPPED_SQL).generated; \
	check $$? "$(SHIPPED_SQL) is what sql/source/ generates (else: make sql, and commit it)"; \
	diff -u $(SHIPPED_SQL) $(SHIPPED_SQL).generated | head -40 | sed 's/^/# /'; \
	for in in $(UPGRADE_IN); do \
	  ( $(call generate_upgrade_script,$$in) ) > $$in.generated; \
	  cmp -s $${in%.in} $$in.generated; \
	  check $$? "$${in%.in} is what $$in generates (else: make sql, and commit it)"; \
	  diff -u $${in%.in} $$in.generated | head -40 | sed 's/^/# /'; rm -f $$in.generated; \
	  for file in $$(sed -n 's/^--@include //p' $$in); do \
	    $(sql_file_function); sql_file $$file > $$in.part 2>/dev/null && [ -s $$in.part ] && \
	      head -1 $$in.part > $$in.first && grep -qxFf $$in.first $(SHIPPED_SQL).generated; \
	    check $$? "$$in's include $$file is a file of sql/source/ that the install script takes in too"; \
	    rm -f $$in.part $$in.first; \
	  done; \
	  for file in $$(sed -n 's/^--@comments //p' $$in); do \
	    $(sql_file_function); sql_comments $$file > $$in.part 2>/dev/null && [ -s $$in.part ] && \
	      ! grep -vxFf $(SHIPPED_SQL).generated $$in.part > /dev/null; \
	    check $$? "$$in's comments of $$file are COMMENT statements of a file of sql/source/ that the install script takes in"; \
	    rm -f $$in.part; \
	  done; \
	done; rm -f $(SHIPPED_SQL).generated; \
	ls sql/upgrades/$(EXTENSION)--*--$(EXTVERSION).sql >/dev/null 2>&1 || [ -z "$$(ls sql/released)" ]; \
	check $$? "an upgrade script in sql/upgrades/ leads to $(EXTVERSION)"; \
	for out in $(PORTABLE_OUTPUTS); do \
	  bash portable/generate.sh $${out%%:*} > $${out#*:}.generated 2>/dev/null && cmp -s $${out#*:} $${out#*:}.generated; \
	  check $$? "$${out#*:} is what portable/source/ generates (else: make portable, and commit it)"; \
	  diff -u $${out#*:} $${out#*:}.generated 2>&1 | head -20 | sed 's/^/# /'; rm -f $${out#*:}.generated; \
	done; \
	echo "1..$$n"

# --- tests that need no server ----------------------------------------------
UNIT_CFLAGS = -std=c11 -O2 -g -Wall -Wextra $(WERROR) -Isrc
UNIT_SRCS = $(PURE_OBJS:.o=.c)

# The pure rooms compiled once for the unit tests and once for the
# fuzzers (an archive each), not once per test and per harness: 15 unit
# tests and 8 harnesses compiled it 23 times, about 140 CPU-s of the test
# command's C layer on 2 cores (issue 79)
UNIT_OBJS = $(patsubst src/%.c,test/unit/obj/%.o,$(UNIT_SRCS))
test/unit/obj/%.o: src/%.c $(PURE_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -c -o $@ $<
test/unit/libpure.a: $(UNIT_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

test/unit/test_%: test/unit/test_%.c test/unit/tap.h test/unit/libpure.a $(PURE_HEADERS)
	$(CC) $(UNIT_CFLAGS) -o $@ $< test/unit/libpure.a -lcrypto -lz -lm

unittest: $(patsubst %,test/unit/test_%,$(UNIT_TESTS))
	prove -v $(patsubst %,test/unit/test_%,$(UNIT_TESTS)) :: test/vectors

# the same tests under valgrind (memory errors and leaks fail the run);
# test_mask's million IDs per type become ten thousand
valgrind-unittest: $(patsubst %,test/unit/test_%,$(UNIT_TESTS))
	FLAKEID_MASK_IDS=10000 prove -v --exec 'valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite' \
	  $(patsubst %,test/unit/test_%,$(UNIT_TESTS)) :: test/vectors

# --- fuzzing (libFuzzer, clang, ASan + UBSan) ------------------------------
# one harness per text format: test/fuzz/harness.c built with its name
comma := ,
FUZZ_FORMATS = $(TYPE_NAMES)
FUZZ_SECONDS ?= 30
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc

# (the pure rooms instrumented as the harnesses are, libFuzzer's main linked with each harness only)
FUZZ_OBJS = $(patsubst src/%.c,test/fuzz/obj/%.o,$(UNIT_SRCS))
test/fuzz/obj/%.o: src/%.c $(PURE_HEADERS)
	@mkdir -p $(dir $@)
	clang $(subst -fsanitize=fuzzer$(comma),-fsanitize=fuzzer-no-link$(comma),$(FUZZ_CFLAGS)) -c -o $@ $<
test/fuzz/libpure.a: $(FUZZ_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

test/fuzz/fuzz_%: test/fuzz/harness.c test/fuzz/libpure.a $(PURE_HEADERS)
	clang $(FUZZ_CFLAGS) -DFUZZ_FORMAT='"$*"' -o $@ $< test/fuzz/libpure.a -lcrypto -lz

# the codec of what flakeid persists (persisted/persisted.h): a harness of its own
test/fuzz/fuzz_persisted: test/fuzz/harness_persisted.c test/fuzz/libpure.a $(PURE_HEADERS)
	clang $(FUZZ_CFLAGS) -o $@ $< test/fuzz/libpure.a -lcrypto -lz

# the masks' tokens and key file (format/mask.h): a harness of its own
test/fuzz/fuzz_mask: test/fuzz/harness_mask.c test/fuzz/libpure.a $(PURE_HEADERS)
	clang $(FUZZ_CFLAGS) -D_GNU_SOURCE -o $@ $< test/fuzz/libpure.a -lcrypto -lz

# TAP: one line per harness with its execution count; FUZZ_SECONDS each
fuzz: $(patsubst %,test/fuzz/fuzz_%,$(FUZZ_FORMATS)) test/fuzz/fuzz_persisted test/fuzz/fuzz_mask
	@bash test/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_FORMATS) persisted mask

fuzz-long:
	$(MAKE) fuzz FUZZ_SECONDS=600

EXTRA_CLEAN += $(patsubst %,test/fuzz/fuzz_%,$(FUZZ_FORMATS)) test/fuzz/fuzz_persisted test/fuzz/fuzz_mask test/fuzz/corpus test/fuzz/crashes \
	test/fuzz/obj test/fuzz/libpure.a test/unit/obj test/unit/libpure.a

.PHONY: unittest valgrind-unittest fuzz fuzz-long sql sql-check portable

# `make prove_installcheck`: the TAP files test/t/NNN_name.pl, one per
# test, on PostgreSQL's own PostgreSQL::Test::Cluster (which the server-dev
# package ships with PGXS): each starts the servers it needs with the
# installed PostgreSQL, so any user but root runs them (initdb refuses
# root).  PGXS defines the recipe but no target (core and pgvector do the
# same).  PROVE_TESTS=test/t/012_backfill.pl runs one.  test/lib holds the
# shared helpers (FlakeidTest.pm) and the list of formats the tests go over
# (formats.tsv).  The tests ignore the caller's PG* and make variables.
PROVE_TESTS ?= $(sort $(wildcard test/t/*.pl))
PG_PROVE_FLAGS += -I test/lib
EXTRA_CLEAN += tmp_check
prove_installcheck:
ifneq ($(enable_tap_tests),yes)
	@echo "make prove_installcheck: this PostgreSQL was built without --enable-tap-tests, so its PGXS has no PostgreSQL::Test::Cluster" >&2; exit 1
endif
	@$(prove_installcheck)

.PHONY: prove_installcheck

# --- the PGXN bundle ---------------------------------------------------------
# `make dist` writes $(EXTENSION)-<version>.zip: the committed tree (HEAD),
# less what .gitattributes marks export-ignore, under one
# $(EXTENSION)-<version>/ directory, as PGXN takes it.  The version is
# META.json's.  Uncommitted changes are not in it, so it warns about them.
# test/release/dist.t checks the bundle, and builds and installs from it.
DISTVERSION = $(shell sed -n 's/^[[:space:]]*"version": *"\([^"]*\)".*/\1/p' META.json | head -1)
DISTNAME = $(EXTENSION)-$(DISTVERSION)
dist:
	@git diff --quiet HEAD -- || echo "make dist: warning: uncommitted changes are not in $(DISTNAME).zip" >&2
	git archive --format=zip --prefix=$(DISTNAME)/ -o $(DISTNAME).zip HEAD

.PHONY: dist
