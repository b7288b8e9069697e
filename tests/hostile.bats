#!/usr/bin/env bats
# tests/hostile.bats - hostile inputs (issue 14): no write outside the
# workspace or the -o tree, no lost edit, valid JSON for any name, no silent
# nonsense from impossible numbers. Each test made here failed on the tree
# before the fix.

bats_require_minimum_version 1.5.0
load test_helper

A=$FIXTURES/annotate

# records selecting every function of FILE, made in DIR (its root)
sel_records() { # dir file
	(cd "$1" && dft-funcs "$2") |
		sed '/"type":"function"/s/}$/,"decision":{"annotate":true,"comp":"io"}}/'
}

# a workspace-shaped tree: $ws/source, $ws/annotated (a cp -a of it),
# $ws/artifacts, and $BATS_TEST_TMPDIR/s.ndjson with its session record
make_ws() {
	ws=$BATS_TEST_TMPDIR/ws
	mkdir -p "$ws/source" "$ws/artifacts"
	printf '{"type":"session","v":1,"workspace":"%s","paths":{"source":"%s/source","annotated":"%s/annotated","artifacts":"%s/artifacts"}}\n' \
		"$ws" "$ws" "$ws" "$ws" >"$BATS_TEST_TMPDIR/s.ndjson"
}

@test "annotate: a symlinked directory of the tree does not lead a write out of it" {
	local out=$BATS_TEST_TMPDIR/outside
	mkdir -p "$out"
	cp "$A/corpus/exits.c" "$out/v.c"
	make_ws
	ln -s "$out" "$ws/source/src"
	sel_records "$ws/source" src/v.c >>"$BATS_TEST_TMPDIR/s.ndjson"
	cp -a "$ws/source" "$ws/annotated"
	run -1 --separate-stderr dft-annotate "$BATS_TEST_TMPDIR/s.ndjson"
	[[ "$stderr" == *"outside '$ws/annotated' (a symbolic link leads out of it)"* ]] ||
		fail "no reason: $stderr"
	run -0 jq -r 'select(.type == "annotation") | .status' <<<"$output"
	assert_output refused
	run -0 cmp "$out/v.c" "$A/corpus/exits.c"
	# in place, the same link is refused: it leads out of the record's root
	sel_records "$ws/source" src/v.c >"$BATS_TEST_TMPDIR/r.ndjson"
	run -1 dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson"
	run -0 cmp "$out/v.c" "$A/corpus/exits.c"
}

@test "annotate: '..' in a record's file is refused with -o, in place and in a workspace" {
	local out=$BATS_TEST_TMPDIR/outside o=$BATS_TEST_TMPDIR/o/deep
	mkdir -p "$out" "$o"
	cp "$A/corpus/exits.c" "$out/target.c"
	make_ws
	mkdir -p "$ws/source/sub"
	cp "$A/corpus/exits.c" "$ws/source/sub/target.c"
	# from $o, $ws/source and $ws/annotated the name leads to $out
	sel_records "$ws/source" sub/target.c |
		sed 's#"file":"sub/target.c"#"file":"sub/../../../outside/target.c"#' >"$BATS_TEST_TMPDIR/r.ndjson"
	run -1 --separate-stderr dft-annotate -o "$o" "$BATS_TEST_TMPDIR/r.ndjson"
	run -0 jq -r 'select(.type == "annotation") | .status' <<<"$output"
	assert_output refused
	run -0 cmp "$out/target.c" "$A/corpus/exits.c"
	run -1 --separate-stderr dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson"
	run -0 cmp "$out/target.c" "$A/corpus/exits.c"
	cp -a "$ws/source" "$ws/annotated"
	cat "$BATS_TEST_TMPDIR/r.ndjson" >>"$BATS_TEST_TMPDIR/s.ndjson"
	run -1 --separate-stderr dft-annotate "$BATS_TEST_TMPDIR/s.ndjson"
	[[ "$stderr" == *"outside the session's source tree"* ]] || fail "$stderr"
	run -0 cmp "$out/target.c" "$A/corpus/exits.c"
}

@test "annotate: an edit made while annotating in place is kept, the file refused" {
	command -v strace >/dev/null || skip "strace is not installed"
	local d=$BATS_TEST_TMPDIR/t
	mkdir -p "$d"
	cp "$A/corpus/exits.c" "$d/v.c"
	sel_records "$d" v.c >"$BATS_TEST_TMPDIR/r.ndjson"
	# fsync of the temporary is held one second; the edit lands in it
	strace -f -o /dev/null -e trace=fsync -e inject=fsync:delay_exit=1000000 \
		dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson" \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	local pid=$!
	sleep 0.4
	echo '/* edited meanwhile */' >>"$d/v.c"
	local rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 1 ] || fail "exit $rc: $(cat "$BATS_TEST_TMPDIR/err")"
	run -0 tail -n 1 "$d/v.c"
	assert_output '/* edited meanwhile */'
	run -1 grep -c DFTRACER "$d/v.c"
	grep -q 'changed while annotating' "$BATS_TEST_TMPDIR/err"
	run -0 jq -r 'select(.type == "annotation") | .reason' "$BATS_TEST_TMPDIR/out"
	assert_output --partial 'changed while annotating'
	[ -z "$(ls "$d" | grep dft-tmp)" ]
}

@test "annotate: in place keeps hard links, the mode with set-id bits and the owner" {
	local d=$BATS_TEST_TMPDIR/t
	mkdir -p "$d"
	cp "$A/corpus/exits.c" "$d/v.c"
	ln "$d/v.c" "$d/hard.c"
	chown 1234:5678 "$d/v.c" 2>/dev/null || true
	chmod 6751 "$d/v.c"
	local before
	before=$(stat -c '%i %a %u:%g' "$d/v.c")
	sel_records "$d" v.c >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson"
	run -0 stat -c '%i %a %u:%g' "$d/v.c"
	assert_output "$before"
	run -0 cmp "$d/v.c" "$d/hard.c"
	[ "$(grep -c DFTRACER_C_FUNCTION_START "$d/hard.c")" -gt 0 ]
}

@test "annotate: in place writes through a symbolic link inside the tree, refuses one out of it" {
	local d=$BATS_TEST_TMPDIR/t out=$BATS_TEST_TMPDIR/outside
	mkdir -p "$d/real" "$out"
	cp "$A/corpus/exits.c" "$d/real/v.c"
	cp "$A/corpus/exits.c" "$out/w.c"
	ln -s real/v.c "$d/lnk.c"
	ln -s "$out/w.c" "$d/away.c"
	sel_records "$d" lnk.c >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson"
	[ -L "$d/lnk.c" ]
	[ "$(grep -c DFTRACER_C_FUNCTION_START "$d/real/v.c")" -gt 0 ]
	sel_records "$d" away.c >"$BATS_TEST_TMPDIR/r2.ndjson"
	run -1 --separate-stderr dft-annotate --in-place "$BATS_TEST_TMPDIR/r2.ndjson"
	[ -L "$d/away.c" ]
	run -0 cmp "$out/w.c" "$A/corpus/exits.c"
}

@test "annotate: a stale temporary of a killed run is removed at the next run, and said" {
	local d=$BATS_TEST_TMPDIR/t dead
	mkdir -p "$d"
	cp "$A/corpus/exits.c" "$d/v.c"
	# what kill -9 between the temporary and its rename leaves: the
	# temporary of a process that no longer exists
	dead=$(sh -c 'echo $$')
	while kill -0 "$dead" 2>/dev/null; do dead=$((dead + 1)); done
	echo partial >"$d/v.c.dft-tmp.$dead.AbC123"
	echo mine >"$d/v.c.dft-tmp.$$.XyZ789"	# a live writer's: kept
	sel_records "$d" v.c >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 --separate-stderr dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson"
	[[ "$stderr" == *"removed '$d/v.c.dft-tmp.$dead.AbC123', a stale temporary of pid $dead"* ]] ||
		fail "not said: $stderr"
	[ ! -e "$d/v.c.dft-tmp.$dead.AbC123" ]
	[ -e "$d/v.c.dft-tmp.$$.XyZ789" ]
}

@test "annotate: the record of a failed write says why" {
	local d=$BATS_TEST_TMPDIR/t o=$BATS_TEST_TMPDIR/o
	mkdir -p "$d" "$o/v.c"	# a directory where the output file goes
	cp "$A/corpus/exits.c" "$d/v.c"
	sel_records "$d" v.c >"$BATS_TEST_TMPDIR/r.ndjson"
	run -1 --separate-stderr dft-annotate -o "$o" "$BATS_TEST_TMPDIR/r.ndjson"
	run -0 jq -r 'select(.type == "annotation") | .status + ": " + .reason' <<<"$output"
	assert_output "failed: cannot write '$o/v.c': it is not a regular file"
}

@test "annotate and strip in place move the mtime, so make compiles the file again" {
	local d=$BATS_TEST_TMPDIR/t
	mkdir -p "$d"
	cp "$A/corpus/exits.c" "$d/v.c"
	printf 'v.o: v.c\n\t$(CC) -c -o v.o v.c\n' >"$d/Makefile"
	sel_records "$d" v.c >"$BATS_TEST_TMPDIR/r.ndjson"
	# a tree built an hour after its source was written
	touch -d '2 hours ago' "$d/v.c"
	run -0 make -C "$d" -s v.o
	touch -d '1 hour ago' "$d/v.o"
	run -0 make -C "$d" -q v.o
	run -0 dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson"
	run -1 make -C "$d" -q v.o
	touch -d '2 hours ago' "$d/v.c"
	touch -d '1 hour ago' "$d/v.o"
	run -0 make -C "$d" -q v.o
	dft-annotate --strip --in-place "$BATS_TEST_TMPDIR/r.ndjson" >/dev/null
	run -0 cmp "$d/v.c" "$A/corpus/exits.c"
	run -1 make -C "$d" -q v.o
}

# the sample application in a git repository at $1, with a directory
# src -> $2 outside it whose C files the Makefile also builds
linked_app() { # repo outside
	cp -R "$REPO/tests/apps/sample" "$1"
	mkdir -p "$2"
	printf '#include <stdio.h>\nint\nlinked_write(const char *p)\n{\n\tFILE *f = fopen(p, "w");\n\n\tif (!f)\n\t\treturn -1;\n\tfputs("x", f);\n\treturn fclose(f);\n}\n' >"$2/v.c"
	ln -s "$2" "$1/src"
	sed -i 's/^OBJS = .*/OBJS = main.o records.o meta.o $(patsubst %.c,%.o,$(wildcard src\/*.c))/' "$1/Makefile"
	git -C "$1" init -q && git -C "$1" add . &&
		git -C "$1" -c user.email=t@example.org -c user.name=t commit -qm app
}

@test "clone: links out of the source tree are removed and named, links inside kept" {
	local app=$BATS_TEST_TMPDIR/app out=$BATS_TEST_TMPDIR/outside s
	linked_app "$app" "$out"
	ln -s records.c "$app/rel.c"
	ln -s "$app/sample.h" "$app/abs.h"	# absolute, into the tree copied
	ln -s ../../outside/v.c "$app/up.c"
	git -C "$app" add . &&
		git -C "$app" -c user.email=t@example.org -c user.name=t commit -qm links
	for mode in git copy; do
		set -- -w "$BATS_TEST_TMPDIR/ws-$mode"
		[ "$mode" = copy ] && set -- "$@" --copy
		run -0 --separate-stderr dft-clone "$@" "$app"
		[[ "$stderr" == *"removed the symbolic link 'src' -> '$out': it leads outside the source tree"* ]] ||
			fail "$mode: not said: $stderr"
		[[ "$stderr" == *"removed the symbolic link 'up.c' -> '../../outside/v.c'"* ]] || fail "$stderr"
		s=$(jq -r 'select(.type == "session") | .paths.source' <<<"$output")
		[ ! -e "$s/src" ] && [ ! -L "$s/src" ] && [ ! -L "$s/up.c" ]
		[ "$(readlink "$s/rel.c")" = records.c ]
		[ "$(readlink "$s/abs.h")" = sample.h ]
	done
}

@test "pipeline: a symlinked directory of the repository is not annotated outside the workspace" {
	local app=$BATS_TEST_TMPDIR/app out=$BATS_TEST_TMPDIR/outside
	linked_app "$app" "$out"
	cp "$out/v.c" "$BATS_TEST_TMPDIR/v.orig"
	run -0 --separate-stderr dft-pipeline run -y --offline --stop-after annotate \
		-w "$BATS_TEST_TMPDIR/ws" "$app"
	[[ "$stderr" == *"removed the symbolic link 'src'"* ]] || fail "not said: $stderr"
	run -0 cmp "$out/v.c" "$BATS_TEST_TMPDIR/v.orig"
}

@test "pipeline: a re-annotation that instruments less gives the restored file a new mtime" {
	local app=$BATS_TEST_TMPDIR/app root=$BATS_TEST_TMPDIR/ws id w
	cp -R "$REPO/tests/apps/sample" "$app"
	git -C "$app" init -q && git -C "$app" add . &&
		git -C "$app" -c user.email=t@example.org -c user.name=t commit -qm app
	run -0 dft-pipeline run -y --offline --stop-after annotate -w "$root" "$app"
	id=$(head -n 1 "$root/app/.current_run")
	w=$root/$id
	# scan_metadata is meta.c's only instrumented function
	run -0 jq -r 'select(.type == "annotation" and .file == "meta.c") | .annotated | join(",")' \
		"$w/records/08_annotate.ndjson"
	assert_output scan_metadata
	touch -d '1 hour ago' "$w/source/meta.c"
	touch "$BATS_TEST_TMPDIR/mark"
	run -0 dft-pipeline resume --from annotate --exclude scan_metadata --stop-after annotate \
		-w "$root" "$id"
	run -0 cmp "$w/annotated/meta.c" "$w/source/meta.c"
	# its bytes changed (instrumented -> plain): a build must compile it
	[ "$w/annotated/meta.c" -nt "$BATS_TEST_TMPDIR/mark" ] || fail "meta.c kept an old mtime"
	# a file whose bytes are the same as before keeps the source's time
	[ ! "$w/annotated/sample.h" -nt "$BATS_TEST_TMPDIR/mark" ]
}

# a small trace: N one-second writes of 4 KiB, from t = 0
tiny_trace() { # file n
	local i
	{
		echo '['
		for ((i = 0; i < $2; i++)); do
			printf '{"id":%d,"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":%d,"dur":1000,"ph":"X","args":{"hostname":"h","fname":"/d/f","size":4096,"ret":4096}}\n' \
				"$i" $((i * 1000000))
		done
	} >"$1"
}

@test "numeric options out of range are usage errors (exit 2)" {
	local t=$BATS_TEST_TMPDIR/t.pfw c=$BATS_TEST_TMPDIR/c.conf
	tiny_trace "$t" 20
	cd "$BATS_TEST_TMPDIR"
	# 1e13 s is 1e19 us: beyond int64
	run -2 --separate-stderr dft-split --by time 1e13 -o s1 "$t"
	[[ "$stderr" == *"--by time: bad value '1e13' (expected a number from 1e-06 to 1e+09)"* ]] || fail "$stderr"
	[ ! -d s1 ]
	run -2 dft-split --by time 1e-7 -o s2 "$t"
	run -2 dft-split --by time=nan -o s2 "$t"
	run -2 dft-split --size 1e-9 -o s2 "$t"
	run -0 dft-split --by time 5 -o s3 "$t"
	# 20 events over 19 s in windows of 5 s: 4 chunks
	[ "$(ls s3 | wc -l)" -eq 4 ]
	printf 'time_bin_s = 1e13\n' >"$c"
	run -2 --separate-stderr dft-analyze -c "$c" "$t"
	[[ "$stderr" == *"$c:1: bad value '1e13' for time_bin_s"* ]] || fail "$stderr"
	printf 'time_bin_s = 1e-7\n' >"$c"
	run -2 dft-analyze -c "$c" "$t"
	printf 'small_bytes = 1e300\n' >"$c"
	run -2 dft-analyze -c "$c" "$t"
	mkdir cdir
	run -2 --separate-stderr dft-analyze -c cdir "$t"
	[[ "$stderr" == *"'cdir' is not a regular file"* ]] || fail "$stderr"
	run -2 dft-compare --tolerance 1e300 a b
	run -2 dft-papers --timeout 1e300 search x
	run -2 --separate-stderr dft-pipeline run -y --jobs 99999999999999999999 /nonexistent
	[ "${stderr%%$'\n'*}" = "dft-pipeline: --jobs: bad value '99999999999999999999' (expected an integer from 1 to 1024)" ] || fail "$stderr"
}

# every line of FILE parses as JSON in Python; prints the values of KEY
# (a dotted path into each object that has it) as bytes, os.fsencode'd
py_json() { # file [key]
	python3 - "$@" <<'PY'
import json, os, sys
key = sys.argv[2].split(".") if len(sys.argv) > 2 else None
for n, line in enumerate(open(sys.argv[1], "rb"), 1):
    o = json.loads(line)   # raises on invalid UTF-8
    for k in key or []:
        o = o.get(k) if isinstance(o, dict) else None
    if key and isinstance(o, str):
        sys.stdout.buffer.write(os.fsencode(o) + b"\n")
PY
}

@test "encoding: a file name that is not UTF-8 is valid JSON and reaches dft-annotate unchanged" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	local d=$BATS_TEST_TMPDIR/t f
	f=$(printf 'bad\377name.c')
	mkdir -p "$d"
	cp "$A/corpus/exits.c" "$d/$f"
	(cd "$d" && dft-funcs "$f") >"$BATS_TEST_TMPDIR/f.ndjson"
	run -0 py_json "$BATS_TEST_TMPDIR/f.ndjson" file
	[ "$(printf '%s\n' "$output" | sort -u)" = "$f" ] || fail "names: $output"
	grep -q 'bad\\udcffname.c' "$BATS_TEST_TMPDIR/f.ndjson"
	dft-cost "$BATS_TEST_TMPDIR/f.ndjson" >"$BATS_TEST_TMPDIR/c.ndjson"
	run -0 py_json "$BATS_TEST_TMPDIR/c.ndjson"
	run -0 dft-annotate --in-place "$BATS_TEST_TMPDIR/c.ndjson"
	[ "$(grep -c DFTRACER_C_INIT "$d/$f")" -eq 1 ]
	[ "$(ls "$d" | wc -l)" -eq 1 ]	# the same file, no second one
}

@test "encoding: dft-analyze output is valid JSON for trace strings that are not UTF-8" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	local t=$BATS_TEST_TMPDIR/t.pfw
	printf '[\n{"id":1,"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":10,"dur":5,"ph":"X","args":{"hostname":"h","fname":"/d/bad\377f","size":4096,"ret":4096}}\n{"id":2,"name":"op\377","cat":"AP\377P","pid":1,"tid":1,"ts":20,"dur":5,"ph":"X","args":{"hostname":"h"}}\n' >"$t"
	run -0 dft-analyze "$t"
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/a.ndjson"
	run -0 py_json "$BATS_TEST_TMPDIR/a.ndjson"
	grep -q '\\udcff' "$BATS_TEST_TMPDIR/a.ndjson"
}

@test "dft-cc: a source named with a newline or a non-UTF-8 byte is one valid entry" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	local d=$BATS_TEST_TMPDIR/t nl bad
	nl=$(printf 'n\nl.c')
	bad=$(printf 'bad\377.c')
	mkdir -p "$d"
	printf 'int f(void) { return 1; }\n' >"$d/$nl"
	printf 'int g(void) { return 2; }\n' >"$d/$bad"
	cd "$d"
	DFT_WRAP_MODE=log DFT_COMPILE_DB=$d/db.json DFT_CC=cc run -0 dft-cc -c "$nl" -o a.o
	DFT_WRAP_MODE=log DFT_COMPILE_DB=$d/db.json DFT_CC=cc run -0 dft-cc -c "$bad" -o b.o
	run -0 python3 -c 'import json, os, sys; print("\n".join(repr(os.fsencode(e["file"])) for e in json.load(open(sys.argv[1]))))' db.json
	assert_output "b'n\\nl.c'
b'bad\\xff.c'"
	# and dft-funcs finds both files through the database
	run -0 dft-funcs -p db.json
	[ "$(jq -r 'select(.type == "function") | .name' <<<"$output" | sort | tr '\n' ' ')" = "f g " ]
}

@test "trace reader: impossible numbers and non-event lines are bad lines with file:line, out of every sum" {
	local t=$REPO/tests/fuzz/seeds/impossible-numbers.pfw
	run -1 --separate-stderr dft-analyze "$t"
	# lines 2, 3 are the only true events: 2 writes of 4096 bytes 1 s apart
	run -0 jq -c 'select(.type == "summary") | [.events, .bad_lines, .io.bytes, .span_s]' <<<"$output"
	assert_output "[2,8,8192,1.001]"
	[[ "$stderr" == *"$t:4: impossible dur (negative or over 3 years)"* ]] || fail "$stderr"
	[[ "$stderr" == *"$t:5: impossible ts"* ]] || fail "$stderr"
	[[ "$stderr" == *"$t:6: ts, dur or size is not a finite number"* ]] || fail "$stderr"
	[[ "$stderr" == *"$t:7: ts, dur or size is not a finite number"* ]] || fail "$stderr"
	[[ "$stderr" == *"$t:8: impossible size"* ]] || fail "$stderr"
	# {"a":1}, 12345 and null are counted too
	[[ "$stderr" == *"$t: 3 more bad lines skipped"* ]] || fail "$stderr"
	# dft-split reads through the same reader: the same 2 events survive
	cd "$BATS_TEST_TMPDIR"
	run -1 dft-split -o sp "$t"
	[ "$(zcat sp/*.pfw.gz | grep -c '"name":"write"')" -eq 2 ]
}

@test "a FIFO operand, or a FIFO in a directory operand, is skipped with a warning instead of hanging" {
	local d=$BATS_TEST_TMPDIR/d
	mkdir -p "$d"
	tiny_trace "$d/a.pfw" 3
	mkfifo "$d/b.pfw" "$BATS_TEST_TMPDIR/op.pfw"
	run -1 --separate-stderr timeout 20 dft-analyze "$d"
	[[ "$stderr" == *"'$d/b.pfw' is not a regular file; skipped"* ]] || fail "$stderr"
	run -0 jq -c 'select(.type == "summary") | .events' <<<"$output"
	assert_output 3
	run -1 --separate-stderr timeout 20 dft-analyze "$BATS_TEST_TMPDIR/op.pfw"
	[[ "$stderr" == *"is not a regular file; skipped"* ]] || fail "$stderr"
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr timeout 20 dft-split -o sp "$d"
	[[ "$stderr" == *"'$d/b.pfw' is not a regular file; skipped"* ]] || fail "$stderr"
	run -1 timeout 20 dft-split -o sp2 "$BATS_TEST_TMPDIR/op.pfw"
	# a process substitution is a pipe too, and is read
	run -0 bash -o pipefail -c "dft-analyze <(cat '$d/a.pfw') | jq -c 'select(.type == \"summary\") | .events'"
	assert_output 3
}

@test "pipeline: a second resume of a run in use says by whom and exits 2" {
	local app=$BATS_TEST_TMPDIR/app root=$BATS_TEST_TMPDIR/ws id pid rc=0
	cp -R "$REPO/tests/apps/sample" "$app"
	git -C "$app" init -q && git -C "$app" add . &&
		git -C "$app" -c user.email=t@example.org -c user.name=t commit -qm app
	run -0 dft-pipeline run -y --offline --stop-after detect -w "$root" "$app"
	id=$(head -n 1 "$root/app/.current_run")
	# the first one is busy in its smoke test until the flag file goes
	# (at most 60 s)
	touch "$BATS_TEST_TMPDIR/busy"
	dft-pipeline resume -y --stop-after smoke -w "$root" "$id" \
		--smoke "i=0; while [ -f '$BATS_TEST_TMPDIR/busy' ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done" \
		>"$BATS_TEST_TMPDIR/o1" 2>&1 &
	pid=$!
	while ! grep -q 'step_5_smoke_test' "$BATS_TEST_TMPDIR/o1" 2>/dev/null; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	run -2 --separate-stderr dft-pipeline resume -y --stop-after smoke -w "$root" "$id"
	rm "$BATS_TEST_TMPDIR/busy"
	[[ "$stderr" == *"run $id is in use by pid $pid"* ]] || fail "$stderr"
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || fail "the first resume failed: $(cat "$BATS_TEST_TMPDIR/o1")"
	# the smoke step ran once: by the first one
	[ "$(jq -s '[.[] | select(.type == "step" and .step == "step_5_smoke_test")] | length' \
		"$root/$id/records/steps.ndjson")" -eq 1 ]
	# free again: the next resume runs
	run -0 dft-pipeline resume -y --stop-after smoke -w "$root" "$id"
}

@test "control characters from trace strings are shown as \\xHH in --format table and session_report.md" {
	local t=$BATS_TEST_TMPDIR/t.pfw ws=$BATS_TEST_TMPDIR/ws esc
	esc=$(printf '\033')
	printf '[\n{"id":1,"name":"wr\\u001b[2Jite<b>","cat":"POSIX","pid":1,"tid":1,"ts":10,"dur":5,"ph":"X","args":{"hostname":"h\\u0007","fname":"/d/\\u001b]0;owned\\u0007f","size":4096,"ret":4096}}\n' >"$t"
	run -0 dft-analyze -f table "$t"
	[[ "$output" != *"$esc"* ]] || fail "a raw ESC in the table"
	[[ "$output" == *'wr\x1b[2Jite<b>'* ]] || fail "$output"
	# the report: a run id and a function name carrying ESC and HTML
	mkdir -p "$ws/annotated" "$ws/build_ann" "$ws/traces"
	sed -e "s#@WS@#$ws#g" -e "s#@TRACES@#${TRACES:-/t}#g" \
		-e 's#"run_id":"cm1/20261130_001122"#"run_id":"cm1/\\u001b[31mred<script>x</script>"#' \
		"$FIXTURES/report/run.ndjson" >"$BATS_TEST_TMPDIR/run.ndjson"
	run -0 dft-report "$BATS_TEST_TMPDIR/run.ndjson"
	run -1 grep -c "$esc" "$ws/session_report.md"
	run -0 grep -F '# DFTracer Session Report — cm1/\x1b[31mred&lt;script>x&lt;/script>' "$ws/session_report.md"
	# report.html stays well formed
	if command -v xmllint >/dev/null; then run -0 xmllint --noout "$ws/report.html"; fi
}

@test "dft-report: a run without step records passes no NULL to qsort (UBSan build)" {
	local b=$BATS_TEST_TMPDIR/ubsan
	mkdir -p "$b" "$BATS_TEST_TMPDIR/ws"
	# dft-report's own code built here with -fsanitize=undefined, aborting
	# on a finding, over the common library of the build
	cc -std=c11 -D_GNU_SOURCE -O0 -fsanitize=undefined -fno-sanitize-recover=all \
		-I"$REPO/common" $(pkg-config --cflags json-c) -DDFT_VERSION='"t"' \
		-DDFT_DATADIR='"/nonexistent"' -o "$b/dft-report" \
		"$REPO"/tools/dft-report/*.c "$REPO/build/libdft.a" \
		$(pkg-config --libs json-c libcurl zlib) -lm -lpthread 2>"$b/cc.err" ||
		fail "the UBSan build failed: $(head -n 3 "$b/cc.err")"
	grep -v '"type":"step"' "$FIXTURES/report/run.ndjson" |
		sed "s#@WS@#$BATS_TEST_TMPDIR/ws#g; s#@TRACES@#/t#g" >"$BATS_TEST_TMPDIR/r.ndjson"
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr "$b/dft-report" "$BATS_TEST_TMPDIR/r.ndjson"
	[[ "$stderr" != *"runtime error"* ]] || fail "$stderr"
	run -0 grep -c '^## Step Timings' "$BATS_TEST_TMPDIR/ws/session_report.md"
}

@test "clone: a file:// submodule is refused unless --allow-file-submodules" {
	local r=$BATS_TEST_TMPDIR/repos g
	g() { git -c user.name=t -c user.email=t@example.org -c init.defaultBranch=main \
		-c protocol.file.allow=always "$@" >/dev/null 2>&1; }
	g init "$r/secret" && echo 'key' >"$r/secret/id" && g -C "$r/secret" add . &&
		g -C "$r/secret" commit -m s
	g init "$r/app" && echo 'int main(void) { return 0; }' >"$r/app/m.c" &&
		g -C "$r/app" add . && g -C "$r/app" submodule add "file://$r/secret" sub &&
		g -C "$r/app" commit -m app
	run -1 --separate-stderr dft-clone -w "$BATS_TEST_TMPDIR/ws1" "$r/app"
	[[ "$stderr" == *"submodule 'sub' from 'file://$r/secret': a file:// submodule is refused (use --allow-file-submodules)"* ]] ||
		fail "$stderr"
	run -0 jq -r 'select(.type == "session") | .submodules[0].status, .paths.source' <<<"$output"
	assert_line --index 0 refused
	[ ! -e "${lines[1]}/sub/id" ]
	run -0 dft-clone --allow-file-submodules -w "$BATS_TEST_TMPDIR/ws2" "$r/app"
	run -0 jq -r 'select(.type == "session") | .submodules[0].status, .paths.source' <<<"$output"
	assert_line --index 0 ok
	[ -f "${lines[1]}/sub/id" ]
}

@test "analyze: a file name holding a NUL byte does not crash the metadata directories" {
	# a JSON string may carry \u0000; the directory table once looked its
	# rows up again by strlen and dereferenced a missing row
	f=$BATS_TEST_TMPDIR/nul.pfw
	{
		echo '['
		for i in 1 2 3; do
			printf '{"id":"%d","name":"open","cat":"POSIX","pid":"1","tid":"1","ts":"%d00","dur":"50","ph":"X","args":{"hostname":"h","fname":"/d/a\\u0000b/f%d"}}\n' "$i" "$i" "$i"
		done
		echo ']'
	} >"$f"
	run --separate-stderr dft-analyze "$f"
	[ "$status" -eq 0 ]
	# three opens of 50 us each under one directory (its name ends at the NUL)
	want=$(jq -n '3 * 50 / 1e6')
	printf '%s\n' "$output" | jq -e -s --argjson w "$want" \
		'[.[] | select(.type == "bottleneck" and .class == "metadata")][0].time_s == $w'
	printf '%s\n' "$output" | jq -e -s 'map(select(.type == "summary")) | length == 1'
}
