#!/usr/bin/env bats
# Unit checks of the shared library (tests/unit/test-common.c).

load test_helper

T="$REPO/build/test/test-common"

@test "paths are normalized, joined and contained lexically" {
	run -0 "$T" paths
}

@test "numbers are parsed whole and range-checked" {
	run -0 "$T" numbers
}

@test "the growable buffer formats text and detaches it" {
	run -0 "$T" buf
}

@test "timestamps are ISO-8601 UTC with milliseconds" {
	run -0 "$T" time
}

@test "atomic writes replace whole files and fail cleanly" {
	run -0 "$T" atomic "$BATS_TEST_TMPDIR"
	run -0 bash -o pipefail -c "ls -A '$BATS_TEST_TMPDIR' | grep -c dft-tmp || true"
	assert_output 0
}

@test "subprocesses get env overlay, cwd, capture and timeout" {
	run -0 "$T" proc "$BATS_TEST_TMPDIR"
}

@test "trees copy with symlinks kept and remove recursively" {
	run -0 "$T" copy "$BATS_TEST_TMPDIR"
}

@test "--prefix-map rewrites a compile database entry: longest OLD, paths and flags" {
	run -0 "$T" compdb-map "$BATS_TEST_TMPDIR"
}

@test "an unknown unit test is a usage error" {
	run -2 --separate-stderr "$T" nonsense
	[[ "$stderr" == *"test-common: unknown test 'nonsense'"* ]]
}
