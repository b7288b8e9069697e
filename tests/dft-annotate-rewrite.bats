#!/usr/bin/env bats
# dft-annotate --rewrite: the optimization loop's application changes (L1),
# at the call sites of the functions bottleneck records name. Each rewrite
# is checked on a program made here: it builds with -Wall -Werror, prints
# and writes the same bytes, and strace counts show the change acts; each
# pattern that is not exact is left alone with its reason.

bats_require_minimum_version 1.5.0
load test_helper

setup() {
	W=$BATS_TEST_TMPDIR/w
	mkdir -p "$W"
}

# bn FUNCTION...: a bottleneck record naming the functions of prog.c
bn() {
	local f fns=()
	for f in "$@"; do fns+=("{\"name\":\"$f\",\"file\":\"prog.c\"}"); done
	printf '{"type":"bottleneck","v":2,"class":"x","functions":[%s]}\n' "$(IFS=,; echo "${fns[*]}")"
}

# rewrite KINDS FUNCTION...: prog.c rewritten into out/, the records in
# rw.ndjson; dft-annotate's status in $rc
rewrite() {
	local kinds=$1
	shift
	rc=0
	bn "$@" | dft-annotate --rewrite "$kinds" --root "$W" -o "$W/out" -p "$W/change.patch" \
		>"$W/rw.ndjson" 2>"$W/rw.err" || rc=$?
}

# same_behaviour: prog and out/prog print the same and write the same file
# (prog DIR writes DIR/data)
same_behaviour() {
	mkdir -p "$W/a" "$W/b"
	(cd "$W" && ./prog a >a.out 2>&1) || fail "prog: $(cat "$W/a.out")"
	(cd "$W" && ./out/prog b >b.out 2>&1) || fail "out/prog: $(cat "$W/b.out")"
	sed -i 's| b/| a/|' "$W/b.out"
	run -0 cmp "$W/a.out" "$W/b.out"
	run -0 cmp "$W/a/data" "$W/b/data"
}

build_both() {
	cc -Wall -Wextra -Werror -o "$W/prog" "$W/prog.c"
	cc -Wall -Wextra -Werror -o "$W/out/prog" "$W/out/prog.c"
}

# calls BINARY SYSCALL: how many SYSCALL calls BINARY makes on DIR/data
calls() {
	rm -rf "$W/s"
	mkdir -p "$W/s"
	strace -f -qq -e trace="$2" -o "$W/strace.out" "$1" "$W/s" >/dev/null
	grep -c "^[0-9]* *$2(" "$W/strace.out" || true
}

@test "setvbuf: a 1 MiB buffer right after the checked fopen, freed after fclose; same bytes, one write instead of many" {
	cat >"$W/prog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>

static int save(const char *dir)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/data", dir);
	fp = fopen(path, "w");
	if (fp == NULL)
		return -1;
	for (int i = 0; i < 20000; i++)
		fprintf(fp, "line %08d\n", i);
	if (fclose(fp) != 0)
		return -1;
	printf("line %d\n", __LINE__);
	return 0;
}

int main(int argc, char **argv)
{
	return argc == 2 && save(argv[1]) == 0 ? 0 : 1;
}
EOF
	rewrite setvbuf save
	[ "$rc" -eq 0 ] || fail "$(cat "$W/rw.err")"
	run -0 jq -r 'select(.type == "rewrite") | [.status, (.rewritten | length), .rewritten[0].function, .rewritten[0].rewrite, .rewritten[0].line] | @tsv' "$W/rw.ndjson"
	assert_output "$(printf 'rewritten\t1\tsave\tsetvbuf\t11')"
	grep -q 'char \*dft_stdio_buf_fp = (char \*)malloc(1048576); (void)setvbuf(fp, dft_stdio_buf_fp, _IOFBF, 1048576);' "$W/out/prog.c"
	grep -q 'free(dft_stdio_buf_fp);' "$W/out/prog.c"
	build_both
	# the same output, __LINE__ included (#line keeps the numbers)
	same_behaviour
	# 240000 bytes: a 4 KiB buffer needs 59 writes, a 1 MiB one 1
	before=$(calls "$W/prog" write)
	after=$(calls "$W/out/prog" write)
	[ "$before" -ge $((240000 / 4096)) ] || fail "before: $before writes"
	[ "$after" -le 2 ] || fail "after: $after writes"
	# the patch turns the original into the copy
	cp "$W/prog.c" "$W/p.c"
	(cd "$W" && sed 's|^\([-+][-+][-+] \)[ab]/prog.c|\1p.c|' change.patch | patch -s -p0)
	run -0 cmp "$W/p.c" "$W/out/prog.c"
}

@test "setvbuf: the program's own unbuffered setvbuf gets libc's full buffer (the labeled stdio program)" {
	cp "$REPO/tests/apps/bottlenecks/stdio.c" "$W/prog.c"
	sed -i 's|%s/events.log|%s/data|' "$W/prog.c"
	rewrite setvbuf log_events main
	[ "$rc" -eq 0 ] || fail "$(cat "$W/rw.err")"
	run -0 jq -r 'select(.type == "rewrite") | .rewritten[] | [.function, .from, .to] | @tsv' "$W/rw.ndjson"
	assert_output "$(printf 'main\tsetvbuf(fp, NULL, _IONBF, 0)\tsetvbuf(fp, NULL, _IOFBF, BUFSIZ)')"
	run -0 jq -r 'select(.type == "rewrite") | .skipped[] | "\(.function): \(.reason)"' "$W/rw.ndjson"
	assert_output "log_events: log_events has no fopen() whose result is stored in a variable"
	build_both
	same_behaviour
	# 20000 unbuffered fwrite calls: 20000 writes; buffered: 480000 / BUFSIZ
	before=$(calls "$W/prog" write)
	after=$(calls "$W/out/prog" write)
	[ "$before" -ge 20000 ] || fail "before: $before"
	[ "$after" -le $((480000 / 4096 + 2)) ] || fail "after: $after"
}

@test "the fadvise and fdatasync rewrites put posix_fadvise after the checked open and fdatasync in place of fsync" {
	cat >"$W/prog.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int save(const char *dir)
{
	char path[4096], buf[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 10; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fsync(fd) != 0)
			return -1;
	return close(fd);
}

int main(int argc, char **argv)
{
	return argc == 2 && save(argv[1]) == 0 ? 0 : 1;
}
EOF
	rewrite fadvise,fdatasync save
	[ "$rc" -eq 0 ] || fail "$(cat "$W/rw.err")"
	run -0 jq -r 'select(.type == "rewrite") | .rewritten[] | [.rewrite, .line] | @tsv' "$W/rw.ndjson"
	assert_output "$(printf 'fadvise\t13\nfdatasync\t17')"
	build_both
	same_behaviour
	[ "$(calls "$W/prog" fsync)" -eq 10 ]
	[ "$(calls "$W/out/prog" fsync)" -eq 0 ]
	[ "$(calls "$W/out/prog" fdatasync)" -eq 10 ]
	[ "$(calls "$W/prog" fadvise64)" -eq 0 ]
	[ "$(calls "$W/out/prog" fadvise64)" -eq 1 ]
}

@test "sync-last: the labeled fsync program syncs once, after its last record; same bytes" {
	cp "$REPO/tests/apps/bottlenecks/sync.c" "$W/prog.c"
	sed -i 's|%s/journal.log|%s/data|' "$W/prog.c"
	rewrite sync-last journal_append
	[ "$rc" -eq 0 ] || fail "$(cat "$W/rw.err")"
	run -0 jq -r 'select(.type == "rewrite") | .rewritten[] | [.function, .rewrite, .from] | @tsv' "$W/rw.ndjson"
	assert_output "$(printf 'journal_append\tsync-last\tfsync(fd)')"
	grep -q '(i + 1 < (RECORDS) ? 0 : fsync(fd) /\* dft-annotate --rewrite \*/) != 0' "$W/out/prog.c"
	build_both
	same_behaviour
	records=$(sed -n 's/^#define RECORDS //p' "$W/prog.c")
	[ "$(calls "$W/prog" fsync)" -eq "$records" ]
	[ "$(calls "$W/out/prog" fsync)" -eq 1 ]
}

@test "each pattern that is not exact is left alone, with the reason" {
	cat >"$W/prog.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#define SYNC fsync

static void unchecked(const char *p)
{
	FILE *fp = fopen(p, "w");
	fputs("x", fp);
	fclose(fp);
}

static int escapes(const char *p, FILE **out)
{
	FILE *fp = fopen(p, "w");
	if (fp == NULL)
		return -1;
	*out = fp;
	return 0;
}

static int loud(int fd)
{
	for (int i = 0; i < 10; i++) {
		if (write(fd, "x", 1) != 1)
			return -1;
		printf("record %d\n", i);
		if (fsync(fd) != 0)
			return -1;
	}
	return 0;
}

static int early(int fd, int n)
{
	for (int i = 0; i < n; i++) {
		if (write(fd, "x", 1) != 1)
			break;
		fsync(fd);
	}
	return SYNC(fd);
}

int main(void)
{
	FILE *f = NULL;
	unchecked("a");
	return escapes("b", &f) + loud(1) + early(1, 3);
}
EOF
	rewrite setvbuf,sync-last,fdatasync unchecked escapes loud early
	[ "$rc" -eq 0 ] || fail "$(cat "$W/rw.err")"
	run -0 jq -r 'select(.type == "rewrite") | .skipped[] | select(.reason | test("has no") | not)
		| "\(.function) \(.rewrite) \(.line): \(.reason)"' "$W/rw.ndjson"
	assert_line "unchecked setvbuf 9: the statement after the fopen is not an if that tests fp"
	assert_line "escapes setvbuf 16: fp is not closed exactly once in escapes (the buffer must be freed after fclose)"
	assert_line "loud sync-last 29: the loop body calls printf(), which may make the records visible before they are synced"
	assert_line "early sync-last 40: the loop body has break, continue, goto, a switch or another loop"
	assert_line "early sync-last 42: the sync is not in a loop"
	assert_line "early fdatasync 42: the call is written through a macro"
	# the plain fsync calls became fdatasync, nothing else changed
	run -0 jq -r 'select(.type == "rewrite") | .rewritten[] | "\(.function) \(.rewrite) \(.line)"' "$W/rw.ndjson"
	assert_output "$(printf 'loud fdatasync 29\nearly fdatasync 40')"
}

@test "a rewrite that would not compile is refused (C++: a jump over the new declaration)" {
	cat >"$W/prog.cpp" <<'EOF'
#include <cstdio>
#include <cstdlib>

static int save(const char *p, int skip)
{
	FILE *fp;
	if (skip)
		goto out;
	fp = fopen(p, "w");
	if (fp == NULL)
		return -1;
	fputs("x", fp);
	if (fclose(fp) != 0)
		return -1;
out:
	return 0;
}

int main() { return save("a", 0); }
EOF
	c++ -fsyntax-only "$W/prog.cpp"
	run -1 --separate-stderr dft-annotate --rewrite setvbuf --root "$W" -o "$W/out" \
		<<<'{"type":"bottleneck","functions":[{"name":"save","file":"prog.cpp"}]}'
	run -0 jq -r 'select(.type == "rewrite") | [.status, .reason] | @tsv' <<<"$output"
	assert_output --regexp '^refused	the rewritten file does not compile: .*prog\.cpp:[0-9]+:[0-9]+: error: .*(jump|goto).*'
	[[ "$stderr" == *"prog.cpp: not rewritten: the rewritten file does not compile"* ]] || fail "$stderr"
	[ ! -e "$W/out/prog.cpp" ]
}

@test "--rewrite is checked" {
	run -2 --separate-stderr dft-annotate --rewrite nosuch -d </dev/null
	[[ "$stderr" == *"--rewrite: bad value 'nosuch'"* ]] || fail "$stderr"
	run -2 --separate-stderr dft-annotate --rewrite setvbuf=12 -d </dev/null
	[[ "$stderr" == *"--rewrite: bad value 'setvbuf=12'"* ]] || fail "$stderr"
	run -2 --separate-stderr dft-annotate --rewrite setvbuf </dev/null
	[[ "$stderr" == *"--rewrite needs --in-place, --output or --diff"* ]] || fail "$stderr"
	run -2 --separate-stderr dft-annotate --root /tmp -d </dev/null
	[[ "$stderr" == *"--root, --compile-db and --prefix-map go with --rewrite"* ]] || fail "$stderr"
}
