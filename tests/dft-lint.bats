#!/usr/bin/env bats
# dft-lint: the standard checklist, each seeded bug caught with its rule id,
# clean instrumentation reported clean, records in and out.

bats_require_minimum_version 1.5.0
load test_helper

B=$FIXTURES/annotate/bugs

@test "dft-lint --help prints the usage on stdout" { checklist_help dft-lint; }
@test "dft-lint --version prints the suite's version" { checklist_version dft-lint; }
@test "dft-lint rejects an unknown option" { checklist_unknown_option dft-lint; }
@test "dft-lint rejects an option without its argument" { checklist_missing_argument dft-lint -p --compile-db --prefix-map; }
@test "dft-lint --help and --version fail on a full disk" { checklist_help_dev_full dft-lint; }
@test "dft-lint on empty input prints only its step" { checklist_empty_input dft-lint; }
@test "dft-lint reads - as stdin" { checklist_dash_is_stdin dft-lint; }
@test "dft-lint reports a malformed line" { checklist_malformed_line dft-lint; }
@test "dft-lint reports a missing file" { checklist_missing_file dft-lint; }
@test "dft-lint fails on a full disk" { checklist_dev_full dft-lint; }
@test "the dft-lint man page lints and documents every option" { checklist_man dft-lint; }

# lint FILE RULE...: exit 1, and each RULE is reported as an error
expect_rules() {
	local f=$1 r
	shift
	run -1 --separate-stderr dft-lint "$B/$f" -- -I"$FIXTURES/annotate/mpistub"
	for r in "$@"; do
		assert_output --partial "\"rule\":\"$r\",\"severity\":\"error\""
		[[ "$stderr" == *"$f:"*": error: "*"[$r]"* ]] || fail "no $r on stderr: $stderr"
	done
}

@test "correct instrumentation is clean" {
	run -0 --separate-stderr dft-lint "$B/clean.c"
	refute_output --partial '"type":"diagnostic"'
	[ -z "$stderr" ]
}
@test "a C++ main finalized by a guard is clean (returns, lambdas, local classes, exit, FINI before abort)" {
	run -0 --separate-stderr dft-lint "$B/clean_main.cpp"
	refute_output --partial '"type":"diagnostic"'
	[ -z "$stderr" ]
}
@test "dft-lint finds the seeded bug: a missing END (L6)" { expect_rules missing_end.c L6; }
@test "dft-lint finds the seeded bug: END after return (L7, L6)" { expect_rules end_after_return.c L7 L6; }
@test "dft-lint finds the seeded bug: START in the wrong scope (L5)" { expect_rules start_scope.c L5; }
@test "dft-lint finds the seeded bug: INIT after START (L1)" { expect_rules init_after_start.c L1; }
@test "dft-lint finds the seeded bug: FINI after MPI_Finalize (L3)" { expect_rules fini_after_finalize.c L3; }
@test "dft-lint finds the seeded bug: END before a hidden-return macro (L4)" { expect_rules hidden_return.c L4; }
@test "dft-lint finds the seeded bug: a C++ main with INIT and no FINI at all (L3)" {
	expect_rules cpp_no_fini.cpp L3
	[[ "$stderr" == *"cpp_no_fini.cpp:9:2: error: return in main after INIT without FINI [L3]"* ]]
}
@test "dft-lint finds the seeded bug: FINI guards after main's region, in a nested scope, across MPI_Finalize, skipped by abort (L3)" {
	expect_rules cpp_guard.cpp L3
	assert_output --partial 'abort in main without FINI: it skips the FINI guard and the exit handlers'
	assert_output --partial "FINI guard after main's region: FINI runs before the region ends"
	assert_output --partial 'FINI guard in a nested scope: FINI runs at the end of that block'
	assert_output --partial "MPI_Finalize before the FINI of a guard (which runs at main's end): FINI after MPI_Finalize"
}
@test "dft-lint finds the seeded bug: START without its comp UPDATE, fall-through without END (L2, L6)" {
	expect_rules no_comp.c L2 L6
}
@test "dft-lint finds the seeded bug: Python decorators before the header, no finalize (PL1-PL4)" {
	expect_rules pl_order.py PL1 PL2 PL3 PL4
}
@test "dft-lint finds the seeded bug: a static method's rebind line before the header (PL1, PL2)" {
	expect_rules pl_rebind.py PL1 PL2
}
@test "dft-lint finds the seeded bug: a missing END in a union member and in a partial specialization's member (L6)" {
	expect_rules member_kinds.cpp L6
	[[ "$stderr" == *"member_kinds.cpp:12:4: error: return without END"* ]] || fail "$stderr"
	[[ "$stderr" == *"member_kinds.cpp:25:4: error: return without END"* ]] || fail "$stderr"
}
@test "a Python syntax error is reported" { expect_rules pl_syntax.py syntax; }

# dft-funcs and dft-lint share one suffix list (common/xalloc.c): a header
# operand is checked like a source, not read as a record stream.
@test "a header operand is checked like a source" {
	cp "$B/missing_end.c" "$BATS_TEST_TMPDIR/missing_end.h"
	run -1 --separate-stderr dft-lint "$BATS_TEST_TMPDIR/missing_end.h" \
		-- -I"$FIXTURES/annotate/mpistub"
	assert_output --partial '"rule":"L6","severity":"error"'
	[[ "$stderr" == *"missing_end.h:"*": error: "*"[L6]"* ]] || fail "$stderr"
	[[ "$stderr" != *"malformed"* ]] || fail "$stderr"
}

@test "dft-lint finds the seeded bug: instrumentation in a function dft-cost skipped (L8)" {
	cd "$B"
	run -1 --separate-stderr dft-lint skipped.ndjson
	assert_output --partial '"rule":"L8"'
	assert_output --partial '"function":"tiny"'
	# the records are passed through
	assert_output --partial '"type":"annotation"'
}

@test "the stub header makes scope errors visible (START twice)" {
	cat >"$BATS_TEST_TMPDIR/twice.c" <<'C'
#include <dftracer/dftracer.h>
void f(void)
{
	DFTRACER_C_FUNCTION_START();
	DFTRACER_C_FUNCTION_START();
	DFTRACER_C_FUNCTION_END();
}
C
	run -1 --separate-stderr dft-lint "$BATS_TEST_TMPDIR/twice.c"
	assert_output --partial '"rule":"syntax"'
	assert_output --partial 'redefinition'
}

@test "the stub declares the METADATA macros" {
	cat >"$BATS_TEST_TMPDIR/meta.c" <<'C'
#include <dftracer/dftracer.h>
int main(void)
{
	DFTRACER_C_INIT(NULL, NULL, NULL);
	DFTRACER_C_METADATA(app, "key", "value");
	DFTRACER_C_FINI();
	return 0;
}
C
	run -0 --separate-stderr dft-lint "$BATS_TEST_TMPDIR/meta.c"
	[ -z "$stderr" ]
}

@test "compile flags come from the compile database" {
	cp "$B/fini_after_finalize.c" "$BATS_TEST_TMPDIR/f.c"
	run -1 --separate-stderr dft-lint "$BATS_TEST_TMPDIR/f.c"
	assert_output --partial "'mpi.h' file not found"
	printf '[{"directory":"%s","file":"f.c","arguments":["cc","-I%s","-c","f.c"]}]\n' \
		"$BATS_TEST_TMPDIR" "$FIXTURES/annotate/mpistub" >"$BATS_TEST_TMPDIR/compile_commands.json"
	run -1 --separate-stderr dft-lint -p "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/f.c"
	refute_output --partial "file not found"
	assert_output --partial '"rule":"L3"'
}

@test "annotation records on stdin name the files to check" {
	printf '{"type":"annotation","v":1,"file":"missing_end.c","root":"%s","status":"annotated","path":"%s/missing_end.c"}\n' \
		"$B" "$B" >"$BATS_TEST_TMPDIR/a.ndjson"
	run -1 --separate-stderr dft-lint <"$BATS_TEST_TMPDIR/a.ndjson"
	assert_output --partial '"type":"annotation"'
	assert_output --partial '"rule":"L6"'
	assert_output --partial '"file":"missing_end.c"'
	assert_output --partial '"type":"step","v":1,"step":"lint"'
}

@test "the example of the man page works" {
	cd "$REPO"
	run -1 --separate-stderr dft-lint tests/fixtures/annotate/bugs/missing_end.c
	[[ "$stderr" == *"missing_end.c:10:3: error: return without END: the function's event is never written [L6]"* ]]
}

# A database written for build/, a copy of source/ configured with
# -DUSE_FAST and holding the generated config.h that source/ lacks.
prefix_tree() {
	d=$BATS_TEST_TMPDIR/pm
	mkdir -p "$d/source" "$d/db"
	cat >"$d/source/a.c" <<'C'
#include "config.h"
#ifndef USE_FAST
#error built without USE_FAST
#endif
int fast(void) { return CONFIG_N; }
C
	cp -a "$d/source" "$d/build"
	printf '#define CONFIG_N 3\n' >"$d/build/config.h"
	printf '[{"directory":"%s/build","arguments":["cc","-DUSE_FAST","-c","a.c"],"file":"a.c"}]\n' \
		"$d" >"$d/db/compile_commands.json"
}

@test "--prefix-map: the flags of a database for another copy of the tree apply" {
	prefix_tree
	run -1 --separate-stderr dft-lint -p "$d/db" "$d/source/a.c"
	assert_output --partial "'config.h' file not found"
	run -0 --separate-stderr dft-lint -p "$d/db" --prefix-map "$d/build=$d/source" "$d/source/a.c"
	refute_output --partial '"type":"diagnostic"'
	[ -z "$stderr" ] || fail "unexpected stderr: $stderr"
}

@test "--prefix-map: the longest OLD wins; a map that matches nothing is named" {
	prefix_tree
	run -0 --separate-stderr dft-lint -p "$d/db" --prefix-map "$d=$d/nowhere" \
		--prefix-map "$d/build=$d/source" "$d/source/a.c"
	refute_output --partial '"type":"diagnostic"'
	[ "$stderr" = "dft-lint: --prefix-map '$d=$d/nowhere' matched no compile database entry" ] ||
		fail "unexpected stderr: $stderr"
}

@test "--prefix-map: a value without '=', with an empty OLD or NEW is a usage error" { checklist_bad_prefix_map dft-lint; }
@test "--compile-db: a path that does not exist is a bad value" {
	checklist_bad_value dft-lint --compile-db "$BATS_TEST_TMPDIR/none" "compile_commands.json or its directory"
}
@test "an unreadable compile database is one message in dft-lint, dft-funcs and dft-annotate, exit 2" {
	local d=$BATS_TEST_TMPDIR/db want
	mkdir "$d"
	echo x >"$d/compile_commands.json"
	want="cannot read the compile database '$d/compile_commands.json': Invalid argument"
	run -2 --separate-stderr dft-lint --compile-db "$d" </dev/null
	[ "$stderr" = "dft-lint: $want" ] || fail "$stderr"
	run -2 --separate-stderr dft-funcs --compile-db "$d" </dev/null
	[ "$stderr" = "dft-funcs: $want" ] || fail "$stderr"
	run -2 --separate-stderr dft-annotate --rewrite fdatasync -d --compile-db "$d" </dev/null
	[ "$stderr" = "dft-annotate: $want" ] || fail "$stderr"
}

# noreturn.c of the annotate corpus, annotated (every function selected)
annotate_noreturn() {
	cp "$FIXTURES/annotate/corpus/noreturn.c" "$BATS_TEST_TMPDIR/"
	(cd "$BATS_TEST_TMPDIR" && dft-funcs noreturn.c) |
		sed '/"type":"function"/s/}$/,"decision":{"annotate":true,"comp":"cpu"}}/' \
		>"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson"
}

@test "lint and annotate agree on calls that do not return and loops that cannot complete" {
	annotate_noreturn
	# for (;;) without break at the end, END before calls of a _Noreturn
	# function ending in longjmp and of one whose every path exits
	run -0 --separate-stderr dft-lint "$BATS_TEST_TMPDIR/noreturn.c"
	refute_output --partial '"type":"diagnostic"'
	[ -z "$stderr" ]
	# the same knowledge finds a missing END before such a call
	sed -i 's/{ DFTRACER_C_FUNCTION_END(); fail(2); }/fail(2);/' "$BATS_TEST_TMPDIR/noreturn.c"
	line=$(grep -n '^		fail(2);$' "$BATS_TEST_TMPDIR/noreturn.c" | cut -d: -f1)
	run -1 --separate-stderr dft-lint "$BATS_TEST_TMPDIR/noreturn.c"
	[[ "$stderr" == *"noreturn.c:$line:3: error: fail without END: the function's event is never written [L6]"* ]]
	run -0 grep -c '"severity":"error"' <<<"$output"
	assert_output 1
}
