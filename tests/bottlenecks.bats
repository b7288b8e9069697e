#!/usr/bin/env bats
# tests/bottlenecks.bats - the labeled suite (tests/apps/bottlenecks/): each
# program has one known bottleneck, written in NAME.truth from strace and
# arithmetic.  Each test re-derives the dominant syscall class with strace,
# then runs the program as dft-pipeline would (dft-funcs, dft-cost,
# dft-annotate, a build with the bundled runtime, a traced run, dft-split
# into 1 MiB chunks, dft-analyze) and checks that the first finding has the
# truth's class and names its function first.  The control has no finding
# above "info".

load test_helper

BN="$REPO/tests/apps/bottlenecks"
RT="$REPO/runtime/build"

setup_file() {
	make_locked -s -C "$REPO/runtime" all >/dev/null
	# sync time only means something on a disk: not on tmpfs
	DISK="$BATS_FILE_TMPDIR"
	if [ "$(stat -f -c %T "$DISK")" = tmpfs ]; then
		DISK="$REPO/build/bottlenecks.tmp"
		rm -rf "$DISK"
		mkdir -p "$DISK"
	fi
	export DISK
}

teardown_file() {
	[ "$DISK" = "$BATS_FILE_TMPDIR" ] || rm -rf "$DISK"
}

# truth NAME KEY: a value of NAME.truth, empty when absent.
truth() {
	sed -n "s/^$2=//p" "$BN/$1.truth"
}

# fresh_data NAME DIR: an empty DIR with the input NAME.truth asks for, a
# copy of $W/input (the same bytes for every run of the program).
fresh_data() {
	local mib
	rm -rf "$2"
	mkdir -p "$2"
	mib=$(truth "$1" input_mib)
	[ -n "$mib" ] || return 0
	[ -f "$W/input" ] || head -c "${mib}M" /dev/urandom >"$W/input"
	cp "$W/input" "$2/input.dat"
	[ -z "$(truth "$1" input_sync)" ] || sync "$2/input.dat"
}

# strace_shares FILE: "class seconds" per I/O syscall class of an
# strace -c table, most time first (process and memory calls left out).
strace_shares() {
	awk '$1 ~ /^[0-9.]+$/ && NF >= 5 {
		n = $NF
		if (n ~ /^(open|openat|openat2|creat|close|stat|lstat|fstat|newfstatat|statx|access|faccessat|faccessat2|unlink|unlinkat|mkdir|mkdirat|rmdir|rename|renameat|renameat2|getdents|getdents64|chmod|fchmod|fchmodat|chown|fchown|fchownat|utimensat|truncate|ftruncate|link|linkat|symlink|symlinkat|readlink|readlinkat|statfs|fstatfs|lseek)$/) g = "metadata"
		else if (n ~ /^(fsync|fdatasync|msync|sync|syncfs|sync_file_range)$/) g = "sync"
		else if (n ~ /^(read|pread64|readv|preadv|preadv2)$/) g = "read"
		else if (n ~ /^(write|pwrite64|writev|pwritev|pwritev2)$/) g = "write"
		else next
		t[g] += $2
	}
	END { for (g in t) printf "%s %.6f\n", g, t[g] }' "$1" | sort -k2 -gr
}

# diagnose NAME: builds, straces and traces NAME.c in $W; the analysis is
# $W/analyze.ndjson.  Checks the strace class of the truth on the way.
diagnose() {
	local name=$1 cpu top
	W="$DISK/$name"
	rm -rf "$W"
	mkdir -p "$W/src" "$W/ann" "$W/traces"
	cp "$BN/$name.c" "$W/src/"
	cd "$W/src"
	printf '[{"directory": "%s", "file": "%s.c", "arguments": ["cc", "-O2", "-c", "%s.c"]}]\n' \
		"$PWD" "$name" "$name" >compile_commands.json
	run -0 cc -O2 -Wall -Wextra -Werror -o "$W/orig" "$name.c"

	# the syscall class with the most time, without dft
	fresh_data "$name" "$W/data"
	if [ "$(truth "$name" strace)" = none ]; then
		# I/O syscalls (the dynamic loader's included) under 3 % of
		# the run's CPU time: their system time (strace -c without
		# -w) against the user and system time of the run (bash's
		# times: the program and strace).  Wall time is no measure
		# here: at load 16, strace -w's syscall times, which count
		# the waits for a CPU, were 0.2-23 % of a 0.6-1.3 s run.
		run -0 bash -c 'strace -f -c -o "$1" "$2" "$3"; s=$?
			times >"$4"; exit $s' _ "$W/strace.txt" "$W/orig" "$W/data" "$W/times"
		echo "$output" >"$W/out.orig"
		strace_shares "$W/strace.txt" >"$W/shares"
		cat "$W/shares" "$W/times"
		cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) {
				split($i, p, "m"); s += p[1] * 60 + p[2] }
			print s }' "$W/times")
		awk -v c="$cpu" '{ s += $2 } END { exit !(c > 0 && s < 0.03 * c) }' "$W/shares" ||
			fail "$name: I/O syscalls take 3 % of the run's CPU time or more ($cpu s)"
	else
		run -0 strace -f -c -w -o "$W/strace.txt" "$W/orig" "$W/data"
		echo "$output" >"$W/out.orig"
		strace_shares "$W/strace.txt" >"$W/shares"
		cat "$W/shares"
		top=$(head -n 1 "$W/shares" | cut -d ' ' -f 1)
		[ "$top" = "$(truth "$name" strace)" ] ||
			fail "$name: strace says $top, the truth $(truth "$name" strace)"
	fi

	# annotate as dft-pipeline does, build with the bundled runtime
	dft-funcs -p . "$name.c" >"$W/funcs.ndjson"
	dft-cost <"$W/funcs.ndjson" >"$W/cost.ndjson"
	dft-annotate --output "$W/ann" "$W/cost.ndjson" >"$W/annotate.ndjson"
	grep -q '"status":"annotated"' "$W/annotate.ndjson"
	run -0 cc -O2 -I"$RT/include" -o "$W/traced" "$W/ann/$name.c" \
		-L"$RT/lib" -Wl,-rpath,"$RT/lib" -ldftracer_core

	# the traced run: same output, a trace of the data directory
	fresh_data "$name" "$W/data"
	run -0 env DFTRACER_ENABLE=1 DFTRACER_INC_METADATA=1 \
		DFTRACER_LOG_FILE="$W/traces/trace" DFTRACER_DATA_DIR="$W/data" \
		"$W/traced" "$W/data"
	[ "$output" = "$(cat "$W/out.orig")" ] || fail "traced output differs: $output"
	ls "$W"/traces/*.pfw.gz >/dev/null

	dft-split -n "$name" -s 1 -o "$W/split" "$W"/traces/*.pfw.gz >"$W/split.ndjson"
	dft-analyze <"$W/split.ndjson" >"$W/analyze.ndjson"
	# what came first, for the log of a failure
	jq -r 'select(.type == "summary") | "verdict: \(.verdict_text // .verdict // "-")"' \
		"$W/analyze.ndjson"
	jq -r 'select(.type == "bottleneck") | "\(.rank) \(.class // .metric) \(.severity // .label) time_s=\(.time_s // "-") \(.functions[0].name // "-")"' \
		"$W/analyze.ndjson" | sed -n 1,3p
}

# check_first NAME: the first finding has the truth's class and function.
check_first() {
	local f
	diagnose "$1"
	f=$(jq -c -s '[.[] | select(.type == "bottleneck")] | sort_by(.rank) | .[0]
		| {class, function: .functions[0].name}' "$W/analyze.ndjson")
	[ "$f" = "$(jq -c -n --arg c "$(truth "$1" class)" --arg f "$(truth "$1" function)" \
		'{class: $c, function: $f}')" ] ||
		fail "$1: first finding $f, truth class=$(truth "$1" class) function=$(truth "$1" function)"
}

@test "every program has a truth with a class, and a function unless it is the control" {
	local c n=0
	for c in "$BN"/*.c; do
		c=$(basename "$c" .c)
		[ -f "$BN/$c.truth" ] || fail "no $c.truth"
		[ -n "$(truth "$c" class)" ] || fail "$c.truth: no class"
		[ -n "$(truth "$c" strace)" ] || fail "$c.truth: no strace class"
		[ "$(truth "$c" class)" = none ] || [ -n "$(truth "$c" function)" ] ||
			fail "$c.truth: no function"
		if [ "$(truth "$c" class)" != none ]; then
			grep -q "^$(truth "$c" function)(" "$BN/$c.c" ||
				fail "$c.c has no function $(truth "$c" function)"
			n=$((n + 1))
		fi
	done
	[ "$n" -ge 8 ] || fail "only $n labeled programs"
	[ -f "$BN/control.c" ]
}

@test "a metadata storm is diagnosed as metadata in metadata_storm" {
	check_first metadata
}

@test "an fsync after every 4 KiB write is diagnosed as sync in journal_append" {
	[ "$(stat -f -c %T "$DISK")" != tmpfs ] || skip "no disk-backed directory for the sync storm"
	check_first sync
}

@test "the same file read 8 times is diagnosed as redundant_read in reread_table" {
	check_first redundant
}

@test "64-byte writes are diagnosed as small_write in append_records" {
	check_first small_write
}

@test "64-byte reads are diagnosed as small_read in scan_records" {
	check_first small_read
}

@test "shuffled 4 KiB reads of a cold file are diagnosed as random_access in random_lookup" {
	check_first random
}

@test "unbuffered 24-byte fwrite calls are diagnosed as stdio in log_events" {
	check_first stdio
}

@test "one process given 15 times the other's writes is diagnosed as imbalance in write_part" {
	check_first imbalance
}

@test "the control has no finding above info" {
	diagnose control
	run -0 jq -r 'select(.type == "bottleneck" and .severity != "info")
		| "\(.class // .metric) \(.severity // .label)"' "$W/analyze.ndjson"
	assert_output ""
	run -0 jq -r 'select(.type == "summary") | .verdict' "$W/analyze.ndjson"
	assert_output not-io-bound
}

@test "end to end: the report's Diagnosis shows the redundant reads' first finding, its function at file:line" {
	local first line
	diagnose redundant
	run -0 dft-papers --offline "$W/analyze.ndjson"
	echo "$output" >"$W/papers.ndjson"
	# the function records on the report's input give file:line
	run -0 dft-report -o "$W/r.md" --html "$W/r.html" "$W/funcs.ndjson" "$W/papers.ndjson"
	sed -n '/^## Diagnosis$/,/^## Lessons Learned/p' "$W/r.md" >"$W/diag.md"
	cat "$W/diag.md"
	run -0 grep -Fx "$(jq -r 'select(.type == "summary") | .verdict_text' "$W/analyze.ndjson")" \
		<(sed -n 's/^Verdict: \(.*\) (io_wall_share .*/\1/p' "$W/diag.md")
	first=$(jq -c -s '[.[] | select(.type == "bottleneck")] | sort_by(.rank) | .[0]' "$W/analyze.ndjson")
	run -0 grep -m 1 '^### ' "$W/diag.md"
	assert_output "$(jq -r '"### \(.id) — \(.title) (\(.severity))"' <<<"$first")"
	# its share of wall time, from the summary's wall_s
	run -0 grep -m 1 -F -- "- Time at stake: $(printf '%.3f' "$(jq -r .time_s <<<"$first")") s (" "$W/diag.md"
	assert_output --partial "$(awk -v t="$(jq -r .time_s <<<"$first")" \
		-v w="$(jq -r 'select(.type == "summary") | .wall_s' "$W/analyze.ndjson")" \
		'BEGIN { printf "%.1f %% of wall time)", 100 * t / w }')"
	line=$(jq -r 'select(.type == "function" and .name == "reread_table") | .name_pos.line' "$W/funcs.ndjson")
	run -0 grep -m 1 -F -- "- Functions: reread_table (redundant.c:$line)" "$W/diag.md"
	run -0 grep -m 1 -E -- '^- Proposal: .* (doi:|arXiv:)' "$W/diag.md"
	run -0 grep -c ">$(jq -r .id <<<"$first") redundant_read (reread_table)<" "$W/r.html"
}
