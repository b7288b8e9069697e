#!/usr/bin/env bats
# dft-analyze and dft-report on traces the bundled runtime writes of small
# programs built here (tests/fixtures/analyze/*.c, traced with the preload
# library): how each process ended (dft-analyze(1) "Verdict", dft(7)
# summary v 7); a file truncated and written again (dft-analyze(1)
# write_time, P10). Expected values come from the traces with jq.

load test_helper

RT="$REPO/runtime/build"

setup_file() {
	make_locked -s -C "$REPO/runtime" all >/dev/null
	B="$BATS_FILE_TMPDIR/bin"
	mkdir -p "$B"
	cc -Wall -Wextra -Werror -o "$B/ends" "$REPO/tests/fixtures/analyze/ends.c"
	cc -Wall -Wextra -Werror -o "$B/trunc" "$REPO/tests/fixtures/analyze/trunc.c"
	export B
}

setup() {
	W="$BATS_TEST_TMPDIR/w"
	mkdir -p "$W/data" "$W/traces"
	cd "$W"
	unset DFTRACER_BIND_SIGNALS
}

# traced CMD...: CMD under the preload library, traces in $W/traces; every
# write an event (no aggregation) and a 4 KiB buffer, so that a process
# killed by SIGKILL leaves what it flushed
traced() {
	DFTRACER_ENABLE=1 DFTRACER_INC_METADATA=1 DFTRACER_INIT=PRELOAD \
		DFTRACER_DATA_DIR="$W/data" DFTRACER_LOG_FILE="$W/traces/trace" \
		DFTRACER_THROTTLE_IO=0 DFTRACER_WRITE_BUFFER_SIZE=4096 \
		LD_PRELOAD="$RT/lib/libdftracer_preload.so" "$@"
}

# want_ends DIR: from the traces in DIR with jq, what the summary must say:
# {ends, unfinished} (host#pid from the HH record; a signal record means
# killed, an end record finished, a start record alone no end; end_us the
# end record's ts or the last event's end; at_s from the run's first event)
want_ends() {
	local f
	for f in "$1"/*.pfw*; do
		gzip -dcf "$f" | sed -e '/^\[$/d' -e '/^\]$/d' | jq -s -c '
			(map(select(.name == "HH")) | .[0].args.value) as $hh |
			{process: "\(map(select(.name == "HH" and .args.value == $hh)) | .[0].args.name)#\(.[0].pid)",
			 start: any(.name == "start"), end: (map(select(.name == "end")) | .[0].ts),
			 signal: (map(select(.name == "signal" and .ph == "M")) | .[0].args),
			 t0: (map(select(.ph == "X") | .ts) | min),
			 last: (map(select(.ph == "X") | .ts + .dur) | max)}'
	done | jq -s -c '
		(map(.t0) | min) as $t0 |
		map(. + {how: (if .signal then "signal" elif .end then "finished"
			      elif .start then "no-end" else "unknown" end)}) |
		{ends: {finished: map(select(.how == "finished")) | length,
			signal: map(select(.how == "signal")) | length,
			no_end: map(select(.how == "no-end")) | length,
			unknown: map(select(.how == "unknown")) | length},
		 unfinished: [map(select(.how == "signal" or .how == "no-end") |
			(if .how == "signal" then .end else .last end) as $at |
			{process, end: .how} +
			(if .signal then {signal: .signal.name, signal_value: (.signal.value | tonumber)} else {} end) +
			{end_us: $at, at_s: (($at - $t0) / 1e6)}) |
			sort_by(.end != "signal", .end_us, .process)[]]}'
}

# got_ends FILE: the same from dft-analyze's summary, with each process's
# end in processes_io
got_ends() {
	jq -c 'select(.type == "summary") | {ends, unfinished, ends_text,
		listed: [.processes_io[] | "\(.process) \(.end) \(.signal // "")"] | sort}' "$1"
}

@test "a process killed by SIGTERM, one by SIGKILL, one aborted, and ones that finished: the summary says how each ended, the same split, by pid and with -j" {
	# untraced, the statuses the children end with
	run -0 "$B/ends" "$W/data" f t k a f
	assert_output "0 0
1 143
2 137
3 134
4 0"
	run -0 traced "$B/ends" "$W/data" f t k a f
	assert_output "0 0
1 143
2 137
3 134
4 0"
	[ "$(ls "$W"/traces/*.pfw* | wc -l)" -eq 6 ]
	want=$(want_ends "$W/traces")
	# the parent and two children finished; SIGTERM's child was finished by
	# the tracer; SIGKILL's and SIGABRT's traces stop
	run -0 jq -c '.ends' <<<"$want"
	assert_output '{"finished":3,"signal":1,"no_end":2,"unknown":0}'
	run -0 bash -o pipefail -c "dft-analyze '$W'/traces/*.pfw* >'$W/a.out'"
	run -0 got_ends "$W/a.out"
	got=$output
	# end_us exactly, at_s within a microsecond's rounding
	run -0 jq -n -e --argjson w "$want" --argjson g "$got" '
		$g.ends == $w.ends and ($g.unfinished | length) == 3 and
		([$g.unfinished[] | del(.at_s)] == [$w.unfinished[] | del(.at_s)]) and
		([range(3)] | all(($g.unfinished[.].at_s - $w.unfinished[.].at_s) | fabs < 1e-6))'
	# the sentence names them, with the times at the precision shown
	local term k1 k2 tt kt
	term=$(jq -r '.unfinished[0].process' <<<"$want")
	k1=$(jq -r '.unfinished[1].process' <<<"$want")
	k2=$(jq -r '.unfinished[2].process' <<<"$want")
	tt=$(jq -r '.unfinished[0].at_s' <<<"$want" | awk '{ printf "%.3f", $1 }')
	kt=$(jq -r '[.unfinished[1].at_s, .unfinished[2].at_s] | map(. * 1000 | round / 1000) | unique | map(tostring) | join("-")' <<<"$want")
	run -0 jq -r '.ends_text' <<<"$got"
	assert_output --partial "1 of 6 processes was killed by SIGTERM at $tt s ($term)"
	assert_output --regexp "2 of 6 processes' traces have no end, their events stopping at [0-9.-]+ s \\($k1 and $k2\\), as when killed by SIGKILL, crashed or still running; 3 finished\$"
	[[ "$kt" == *-* ]] || assert_output --partial "stopping at $(printf '%.3f' "$kt") s"
	# the processes listed: each one's end
	run -0 jq -r '.listed[]' <<<"$got"
	assert_line "$term signal SIGTERM"
	assert_line "$k1 no-end "
	assert_line "$k2 no-end "
	[ "$(echo "$output" | grep -c ' finished $')" -eq 3 ]
	# the table says it under the verdict and marks them
	run -0 dft-analyze -f table "$W"/traces/*.pfw*
	assert_line "  ends: $(jq -r '.ends_text' <<<"$got")"
	assert_line --regexp "^  $term +wall .*  killed by SIGTERM\$"
	assert_line --regexp "^  $k1 +wall .*  no end\$"
	# the same from chunks of any size, cut by process, with -j 1 and 2
	local s j
	for s in 0.002 0.01 pid; do
		rm -rf "$W/sp"
		if [ "$s" = pid ]; then
			run -0 dft-split --by pid -o "$W/sp" "$W"/traces/*.pfw*
		else
			run -0 dft-split -s "$s" -o "$W/sp" "$W"/traces/*.pfw*
		fi
		[ "$(ls "$W"/sp/*.pfw.gz | wc -l)" -ge 6 ]
		for j in 1 2; do
			run -0 bash -o pipefail -c "dft-analyze -j $j '$W'/sp/*.pfw.gz >'$W/s.out'"
			run -0 got_ends "$W/s.out"
			assert_equal "$output" "$got"
		done
	done
	[ "$(ls "$W"/sp/*.pfw.gz | wc -l)" -ge 6 ]
	# and from partial records of each trace, merged
	for f in "$W"/traces/*.pfw*; do
		dft-analyze --partial "$f" | grep -v '"type":"step"'
	done >"$W/parts.ndjson"
	run -0 bash -o pipefail -c "dft-analyze --merge <'$W/parts.ndjson' >'$W/m.out'"
	run -0 got_ends "$W/m.out"
	assert_equal "$output" "$got"
	# the report says it where the verdict is, and in the process table
	run -0 bash -o pipefail -c "dft-report -o '$W/r.md' --no-html '$W/a.out' >/dev/null"
	run -0 grep -A 2 '^Verdict: ' "$W/r.md"
	assert_line "Run end: $(jq -r '.ends_text' <<<"$got"). The verdict and the findings are of the part the traces hold."
	run -0 grep -F "| $term |" "$W/r.md"
	assert_output --regexp '\| killed by SIGTERM \|$'
	run -0 grep -F "| $k1 |" "$W/r.md"
	assert_output --regexp '\| no end \(trace stops\) \|$'
}

@test "one process killed by SIGTERM, one by SIGKILL, one that finished: the sentence and the report's run end for each" {
	local m
	for m in t k f; do
		rm -f "$W"/traces/*
		run traced "$B/ends" "$W/data" "-$m"
		case $m in t) [ "$status" -eq 143 ] ;; k) [ "$status" -eq 137 ] ;; f) [ "$status" -eq 0 ] ;; esac
		want=$(want_ends "$W/traces")
		run -0 bash -o pipefail -c "dft-analyze '$W'/traces/*.pfw* >'$W/a.out'"
		run -0 got_ends "$W/a.out"
		got=$output
		run -0 jq -n -e --argjson w "$want" --argjson g "$got" '$g.ends == $w.ends and
			([$g.unfinished[] | del(.at_s)] == [$w.unfinished[] | del(.at_s)])'
		at=$(jq -r '.unfinished[0].at_s // 0' <<<"$want" | awk '{ printf "%.3f", $1 }')
		run -0 jq -r '.ends_text' <<<"$got"
		case $m in
		t) assert_output "the process was killed by SIGTERM at $at s: the run did not finish; its trace is whole up to the signal" ;;
		k) assert_output "the trace has no end: its events stop at $at s, as when the process is killed by SIGKILL, crashes or is still running; what the tracer held after its last flush is lost" ;;
		f) assert_output "the process finished: its trace ends with the tracer's end record" ;;
		esac
		text=$output
		run -0 bash -o pipefail -c "dft-report -o '$W/r.md' --no-html '$W/a.out' >/dev/null"
		if [ "$m" = f ]; then
			run -1 grep -F 'Run end:' "$W/r.md"
		else
			run -0 grep -F 'Run end:' "$W/r.md"
			assert_output --partial "Run end: $text. "
		fi
	done
}

@test "a trace with neither start nor end record: how the process ended is not known, and the report says nothing of it" {
	printf '%s\n' '{"id":1,"name":"write","cat":"POSIX","pid":7,"tid":7,"ts":1000,"dur":10,"ph":"X","args":{"fname":"/scratch/x","ret":100}}' >"$W/t.pfw"
	run -0 bash -o pipefail -c "dft-analyze '$W/t.pfw' >'$W/a.out'"
	run -0 jq -c 'select(.type == "summary") | [.ends, .unfinished, .processes_io[0].end]' "$W/a.out"
	assert_output '[{"finished":0,"signal":0,"no_end":0,"unknown":1},[],"unknown"]'
	run -0 bash -o pipefail -c "dft-report -o '$W/r.md' --no-html '$W/a.out' >/dev/null"
	run -1 grep -F 'Run end:' "$W/r.md"
}

# body FILE...: the trace lines of FILEs, without the brackets
body() {
	local f
	for f in "$@"; do
		gzip -dcf "$f" | sed -e '/^\[$/d' -e '/^\]$/d'
	done
}

# red FILE: the redundant-write finding of dft-analyze's records in FILE, as
# "CLASS REDUNDANT_BYTES" (its P10 facet: "CLASS facet"), or nothing
red() {
	jq -r 'select(.type == "bottleneck" and (.metric == "redundant_write_ratio" or
	  (.facets | index("redundant_write_ratio")))) | "\(.class) \(.evidence.redundant_bytes // "facet")"' "$1"
}

# red_same DIR: red of the traces in DIR, checked the same from chunks of
# two sizes with -j 1 and 2; prints it
red_same() {
	local first s j
	dft-analyze --all "$1"/*.pfw* >"$W/r.out" || return 1
	first=$(red "$W/r.out")
	for s in 0.004 0.02; do
		rm -rf "$W/sp"
		dft-split -s "$s" -o "$W/sp" "$1"/*.pfw* >/dev/null || return 1
		[ "$(ls "$W"/sp/*.pfw.gz | wc -l)" -ge 2 ] || [ "$s" = 0.02 ] ||
			{ echo "no chunks at $s" >&2; return 1; }
		for j in 1 2; do
			dft-analyze --all -j "$j" "$W"/sp/*.pfw.gz >"$W/r.out" || return 1
			[ "$(red "$W/r.out")" = "$first" ] ||
				{ echo "split $s -j $j: $(red "$W/r.out"), whole: $first" >&2; return 1; }
		done
	done
	echo "$first"
}

@test "a file truncated to 0 (ftruncate, truncate) and written again holds new contents: no redundant writes; to a size, what is below it is written twice; grown or not truncated, all of the rewrite; the same split and with -j" {
	local how want
	for how in none ftrunc0 trunc0 ftrunc50k grow; do
		rm -rf "$W"/traces/* "$W"/data/*
		run -0 traced "$B/trunc" "$W/data/f.bin" "$how"
		# the bytes written, the highest offset; each truncation to 0
		# lets it be written once more, each to a size L below it its
		# part past L (the open does not truncate: one contents to
		# begin with)
		want=$(body "$W"/traces/*.pfw* | jq -s -r '
			map(select(.name == "pwrite")) as $w |
			($w | map(.args.ret) | add) as $bytes |
			($w | map(.args.offset + .args.ret) | max) as $e |
			map(select(.name | test("truncate"))) as $t |
			($e * (1 + ($t | map(select(.args.length == 0)) | length)) +
			 ($t | map(select(.args.length > 0 and .args.length < $e) | $e - .args.length) | add // 0)) as $allow |
			if $bytes > $allow then "write_time \($bytes - $allow)" else "" end')
		case $how in
		none | grow) [ "$want" = "write_time 100000" ] ;;
		ftrunc50k) [ "$want" = "write_time 50000" ] ;;
		*) [ -z "$want" ] ;;
		esac
		run -0 red_same "$W/traces"
		assert_equal "$output" "$want"
	done
}

@test "MPI_File_set_size(fh, 0) between two passes of a 2-rank program's writes: no redundant writes, from the MPI-IO call alone too; without it the rewrite is redundant" {
	command -v mpicc >/dev/null && command -v mpirun >/dev/null ||
		skip "no mpicc/mpirun: Open MPI is not installed (scripts/install-deps installs it)"
	mpicc -Wall -Wextra -Werror -o "$B/mpi_trunc" "$REPO/tests/fixtures/analyze/mpi_trunc.c"
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	local how want
	for how in none setsize0; do
		rm -rf "$W"/traces/* "$W"/data/*
		DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_INC_METADATA=1 \
			DFTRACER_DATA_DIR="$W/data" DFTRACER_LOG_FILE="$W/traces/trace" \
			DFTRACER_THROTTLE_IO=0 run -0 timeout 60 mpirun --oversubscribe -np 2 \
			-x DFTRACER_ENABLE -x DFTRACER_INIT -x DFTRACER_INC_METADATA \
			-x DFTRACER_DATA_DIR -x DFTRACER_LOG_FILE -x DFTRACER_THROTTLE_IO \
			-x LD_PRELOAD="$RT/lib/libdftracer_preload.so" \
			"$B/mpi_trunc" "$W/data/out.dat" "$how"
		# the ranks' set_size calls, with their size
		sizes=$(body "$W"/traces/*.pfw* | jq -r 'select(.name == "MPI_File_set_size") | .args.size')
		case $how in none) [ -z "$sizes" ] ;; *) [ "$sizes" = "0
0" ] ;; esac
		run -0 red_same "$W/traces"
		case $how in
		none)
			# the POSIX writes under the MPI-IO calls: bytes less
			# the highest offset
			want=$(body "$W"/traces/*.pfw* | jq -s -r '
				map(select(.cat == "POSIX" and .name == "pwrite")) |
				"write_time \((map(.args.ret) | add) - (map(.args.offset + .args.ret) | max))"')
			[ "$want" = "write_time 200000" ]
			assert_output "$want" ;;
		*)
			assert_output ""
			# where the POSIX ftruncate under it is not traced, the
			# MPI-IO call alone says the same
			mkdir -p "$W/nopx"
			for f in "$W"/traces/*.pfw*; do
				body "$f" | grep -v '"name":"ftruncate"' >"$W/nopx/${f##*/}.pfw"
			done
			! grep -q '"name":"ftruncate"' "$W"/nopx/*
			run -0 red_same "$W/nopx"
			assert_output "" ;;
		esac
	done
}
