#!/usr/bin/env bats
# The top-level Makefile: install, uninstall and lint.

load test_helper

@test "make install puts every tool, script, man page and data file under DESTDIR" {
	local d="$BATS_TEST_TMPDIR/root"
	run make_locked -s -C "$REPO" install DESTDIR="$d" PREFIX=/usr
	assert_success
	for t in "$REPO"/build/bin/dft-*; do
		[ -e "$t" ] || continue
		[ -x "$d/usr/bin/$(basename "$t")" ] || fail "missing $(basename "$t")"
	done
	# the scripts, dft-pipeline-workspace (which dft-pipeline sources) too
	for t in "$REPO"/scripts/dft-*; do
		case "$t" in *.md | *.mk) continue ;; esac
		[ -x "$d/usr/bin/$(basename "$t")" ] || fail "missing $(basename "$t")"
	done
	[ -x "$d/usr/bin/dft-pipeline-workspace" ]
	for m in "$REPO"/man/*.1; do
		[ -e "$m" ] || continue
		[ -f "$d/usr/share/man/man1/$(basename "$m")" ] || fail "missing $m"
	done
	[ -f "$d/usr/share/man/man7/dft.7" ]
	[ -f "$d/usr/share/dft/dft.mk" ]
	for f in $(cd "$REPO/share/dft" && find . -type f); do
		[ -f "$d/usr/share/dft/$f" ] || fail "missing share/dft/$f"
	done
}

@test "make uninstall removes what install put there" {
	local d="$BATS_TEST_TMPDIR/root"
	run make_locked -s -C "$REPO" install DESTDIR="$d" PREFIX=/usr
	assert_success
	run make_locked -s -C "$REPO" uninstall DESTDIR="$d" PREFIX=/usr
	assert_success
	run -0 find "$d" -type f -name 'dft*'
	assert_output ""
}

@test "make lint passes: man pages and shell scripts" {
	run make_locked -s -C "$REPO" lint
	assert_success
}
