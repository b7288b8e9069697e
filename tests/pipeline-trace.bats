#!/usr/bin/env bats
# tests/pipeline-trace.bats - dft-pipeline's traced run on programs made
# here: the tracing overhead, TAU's throttle, the event budget and the
# overhead budget re-annotating before the analysis, and a traced run that
# hangs. (Out of pipeline.bats, whose tests share one run of the sample:
# these make their own, and a file of its own runs beside it under make
# check.)

load test_helper

# The runs time the tracing overhead on one run a side: what they check is
# not the count. With one run a side an overhead over the budget is not
# judged (no spread to tell noise from a cost): the overhead budget's tests
# time 3 a side themselves.
setup() {
	export DFT_PIPELINE_TIMING_RUNS=1
}

@test "the tracing overhead is measured; hot functions over the throttle or the event budget are re-annotated away before the analysis" {
	local app="$BATS_TEST_TMPDIR/app" root="$BATS_TEST_TMPDIR/wst" w calls=3000
	cp -R "$REPO/tests/apps/sample" "$app"
	# hot::walk(): a loop, a branch and a call: annotated by its shape
	# (score >= 20; called through a pointer, so no call-frequency rule
	# sees the caller's loop), but called $calls times at well under 10 us
	# each. hot::mix(): the same shape, 900 calls (under TAU's 1000),
	# around no I/O, one call in five spinning 20 us (not nine in ten
	# short: the runtime's early throttle leaves all 900 complete events,
	# its limit is 1000): over an event budget of 1.02 events per I/O
	# event (900 records against 0.02 x 0.8 (dft-cost's margin) of the
	# sample's ~1,350 I/O records, under 100 even with 5,500), which the
	# sample's other functions (each around its own I/O, one event each)
	# are not. C++ in a namespace: the profile has their qualified names
	cat >"$app/hot.cpp" <<'CPP'
#include <cstdlib>
#include <ctime>

namespace hot {
long
walk(int n)
{
	long s = 0;

	for (int i = 0; i < 3; i++)
		s += (long)i * n;
	if (n & 1)
		s += labs((long)n);
	return s;
}

long
mix(int n)
{
	volatile long s = 0;

	for (int i = 0; i < 3; i++)
		s += (long)i * n;
	if (n & 1)
		s += labs((long)n);
	if (n % 5 == 0) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		do
			clock_gettime(CLOCK_MONOTONIC, &b);
		while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 20000);
	}
	return s;
}
}

extern "C" long
walk_all(int n)
{
	long (*volatile f)(int) = hot::walk, (*volatile g)(int) = hot::mix, s = 0;

	for (int i = 0; i < n; i++)
		s += f(i);
	for (int i = 0; i < 900; i++)
		s += g(i);
	return s;
}
CPP
	sed -i -e 's/^OBJS = main.o records.o meta.o$/OBJS = main.o records.o meta.o hot.o/' \
		-e 's/^\t\$(CC) \$(CFLAGS) \$(LDFLAGS) -o \$@ \$(OBJS) \$(LDLIBS)$/\t$(CXX) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)/' "$app/Makefile"
	printf 'hot.o: hot.cpp\n\t$(CXX) $(CFLAGS) -c hot.cpp\n' >>"$app/Makefile"
	grep -q '^OBJS = .* hot.o$' "$app/Makefile" && grep -q '^	$(CXX) .* -o \$@' "$app/Makefile"
	sed -i -e '1i long walk_all(int n);' -e '1i #include <stdlib.h>' \
		-e 's|^\treturn 0;$|\tif (walk_all(3000) < 0)\n\t\treturn 3;\n\treturn 0;|' "$app/main.c"
	grep -q 'walk_all(3000)' "$app/main.c"
	git -C "$app" init -q && git -C "$app" add . &&
		git -C "$app" -c user.email=t@example.org -c user.name=t commit -qm app
	# (a limit of -100 % makes any overhead too much: the step says why
	# it is still there after the throttle; 3 timed runs a side judge it)
	DFT_PIPELINE_THROTTLE_CALLS=1000 DFT_PIPELINE_TIMING_RUNS=3 DFT_PIPELINE_EVENT_RATIO=1.02 \
		DFT_PIPELINE_MAX_OVERHEAD=-100 \
		run -0 --separate-stderr dft-pipeline run -y --offline --no-optimize -w "$root" "$app"
	assert_line --regexp '^  tracing overhead: -?[0-9]+\.[0-9] % \(smoke test traced [0-9.]+s, untraced [0-9.]+s; medians of 3 runs\)$'
	# noise when the overhead is no more than the larger spread of the
	# two samples after the throttle, else the overhead
	# budget's round, which finds no function to blame: the call cost is
	# the points of overhead the first throttle took out over the calls
	# it took out (the two profiles), at the second run's speed, at most
	# its overhead over its annotated calls; no function left is a point
	w="$root/$(head -n 1 "$root/app/.current_run")"
	local still c f1 out=$output
	still=$(jq -r -s '([.[] | select(.type == "step" and .step == "step_10_trace_run")] | last) as $t
		| ([.[] | select(.type == "samples")] | .[-2:] | map(.spread_pct) | max) as $s
		| if $t.overhead_pct <= $s then "  the overhead is still over -100 % after the throttle: within the spread of the timed runs (\($s * 10 | round | "\(. / 10 | floor).\(. % 10)") % of a median): run-to-run noise"
		  elif $t.overhead_before_throttle_pct <= $t.overhead_pct then "  the overhead is still over -100 % after the throttle: no function is to blame: the first throttle took \($calls + 900) annotated calls out of the run and the overhead did not fall ("
		  else "  the overhead is still over -100 % after the throttle: no function is to blame: the annotated functions'"'"' " end' \
		--argjson calls "$calls" "$w/records/steps.ndjson" "$w/records/samples.ndjson")
	assert_line --partial "$still"
	if jq -e -s '[.[] | select(.type == "step" and .step == "step_10_trace_run")] | last | .overhead_throttle' "$w/records/steps.ndjson" >/dev/null; then
		f1=$(jq -r 'select(.type == "summary") | [.functions[] | select(.io_cat == "app") | .count] | add' "$w/records/10_profile_throttled.ndjson")
		c=$(jq -r -s --slurpfile p0 "$w/records/10_profile.ndjson" --slurpfile p1 "$w/records/10_profile_throttled.ndjson" '
			[.[] | select(.type == "step" and .step == "step_10_trace_run")] as $t
			| ([$p0[] | select(.type == "summary") | .functions[] | select(.io_cat == "app") | .count] | add) as $f0
			| ([$p1[] | select(.type == "summary") | .functions[] | select(.io_cat == "app") | .count] | add) as $f1
			| ([$p1[] | select(.type == "summary") | .functions[] | select(.io_cat != "app" and .io_cat != "none") | .count] | add) as $io
			| ($t[1].traced_median_s - $t[1].untraced_median_s) as $d1
			| if $f0 > $f1 and $t[0].overhead_pct > $t[1].overhead_pct then
				[($t[0].overhead_pct - $t[1].overhead_pct) / 100 * $t[1].untraced_median_s / ($f0 - $f1), $d1 / $f1] | min
			  else $d1 / ($f1 + $io) end | . * 1e6' "$w/records/steps.ndjson" | awk '{ printf "%.4g", $1 }')
		assert_line --partial "no function is to blame: the annotated functions' $f1 calls account for an estimated "
		assert_line --partial " at $c us of tracing a call ("
		run -0 jq -r -s --arg c "$c" --slurpfile p1 "$w/records/10_profile_throttled.ndjson" '
			([.[] | select(.type == "step" and .step == "step_10_trace_run")] | last) as $t
			| "\($t.overhead_throttle.functions) \($t.overhead_throttle.call_cost_us == ($c | tonumber)) \([$p1[] | select(.type == "summary") | .functions[] | select(.io_cat == "app" and .name != "main") | .count * ($c | tonumber) / 1e6] | max < $t.untraced_median_s / 100)"' \
			"$w/records/steps.ndjson"
		assert_output "[] true true"
	fi
	run -0 jq -r 'select(.decision.rule == "profile-overhead") | .name' "$w/records/08_cost.ndjson"
	assert_output ""
	run -0 printf '%s\n' "$out"
	assert_line --partial "over TAU's throttle (1000 calls, under 10 us each): hot::walk ($calls calls,"
	assert_line "  over the event budget (1.02 events per I/O event): hot::mix (900 calls); re-annotating without them before the analysis"
	# the budget counts short reads and writes as the tracer aggregates
	# them after its early decision (25 calls, DFTRACER_THROTTLE_EARLY)
	grep -q -- ' --event-ratio 1.02 --io-early 25 ' "$w/artifacts/10_trace_run.log"
	# the box shown again: the first run's overhead, what was throttled
	first=$(printf '%s\n' "$output" | sed -n 's/^  tracing overhead: \(-\{0,1\}[0-9.]*\) %.*/\1/p' | head -n 1)
	box=$(printf '%s\n' "$output" | box_lines)
	run -0 printf '%s\n' "$box"
	assert_line --regexp "^Tracing overhead: ${first//./\\.} % before throttling 2 functions \\(hot::walk, hot::mix\\); measured again after the trace run\$"
	# a long line wraps: the box stays within a terminal
	run -0 box_too_wide <<<"$out"
	assert_output ""
	w="$root/$(head -n 1 "$root/app/.current_run")"
	# the analyzed trace has no walk or mix event (grep -c: 0 and status
	# 1); the first one had them all
	run -1 bash -o pipefail -c "gzip -dcf '$w'/traces/*.pfw* | grep -c '\"name\":\"hot::\\(walk\\|mix\\)\"'"
	assert_output 0
	run -0 jq -r -s '[.[] | select(.type == "function" and (.name == "walk" or .name == "mix")) | "\(.qualified_name) \(.decision.rule)"] | sort[]' "$w/records/08_cost.ndjson"
	assert_output "hot::mix profile-volume
hot::walk profile-throttle"
	run -0 jq -r 'select(.type == "summary") | [.functions[] | select(.name == "hot::walk" or .name == "hot::mix") | "\(.name) \(.count) \(.io_calls)"] | sort[]' "$w/records/10_profile.ndjson"
	assert_output "hot::mix 900 0
hot::walk $calls 0"
	# the functions around I/O are all still there, each with the I/O
	# calls it encloses (counted here from the trace: the innermost
	# traced function around each I/O event; an aggregated I/O record
	# names its function and counts dft_cnt calls), and the function
	# events are within the budget: at most a tenth of the I/O calls
	run -0 bash -o pipefail -c "gzip -dcf '$w'/traces/*.pfw* | grep '\"ph\":\"[XC]\"' | jq -s -r '
		(map(select(.ph == \"X\" and (.cat == \"C_APP\" or .cat == \"CPP_APP\")))) as \$f
		| (map(select(.cat == \"POSIX\" or .cat == \"STDIO\"))) as \$io
		| [\$io[] | . as \$e | if .ph == \"C\" then {n: (.args.parent // \"(none)\"), c: .args.dft_cnt}
		   else {n: ([\$f[] | select(.tid == \$e.tid and .ts <= \$e.ts and .ts + .dur >= \$e.ts + \$e.dur)]
		   | sort_by(.ts) | last | .name // \"(none)\"), c: 1} end] | group_by(.n) | map(\"\(.[0].n) \(map(.c) | add)\")
		| . + [\"fn \(\$f | length) io \(\$io | map(if .ph == \"C\" then .args.dft_cnt else 1 end) | add)\"] | .[]'"
	local want=$output
	run -0 bash -o pipefail -c "dft-analyze '$w'/traces/*.pfw* | jq -r 'select(.type == \"summary\") | (.functions[] | select(.io_cat == \"app\" and .io_calls > 0) | \"\(.name) \(.io_calls)\"), \"fn \([.functions[] | select(.io_cat == \"app\") | .count] | add) io \([.functions[] | select(.io_cat != \"app\" and .io_cat != \"none\") | .count] | add)\"' | sort"
	assert_equal "$output" "$(printf '%s\n' "$want" | sort)"
	run -0 bash -o pipefail -c "printf '%s\n' \"\$0\" | awk '/^fn / { exit !(\$2 * 10 <= \$4) }'" "$(printf '%s\n' "$want" | grep '^fn ')"
	# samples records: untraced and traced, timed together before and
	# after the throttle
	run -0 jq -r '"\(.config) \(.traced) \(.runs | length)"' "$w/records/samples.ndjson"
	assert_output "untraced false 3
traced true 3
untraced false 3
traced_throttled true 3"
	run -0 grep -F 'throttled before the analysis: `hot::walk`, `hot::mix` (overhead before: ' "$w/session_report.md"
	# dft-cc linked the program with the tracer's RUNPATH: its runs set no
	# LD_LIBRARY_PATH, whose directory ld.so would probe first for every
	# library of every process (strace: only the processes that load the
	# tracer's library look there; sh does not)
	lib=$(sed -n 's/^tracer_lib=//p' "$w/pipeline.state" | tail -n 1)
	[ -e "$lib/libdftracer_core.so" ]
	for s in annotated_smoke annotated timing_traced; do
		run -0 cat "$w/scripts/run_$s.sh"
		refute_output --partial "LD_LIBRARY_PATH="
	done
	if command -v strace >/dev/null; then
		run -0 strace -f -qq -e trace=openat,newfstatat,stat -o "$BATS_TEST_TMPDIR/st" sh "$w/scripts/run_annotated.sh"
		run -0 awk -v lib="$lib/" -v core="$lib/libdftracer_core.so" '
			index($0, core) { app[$1] = 1 } index($0, lib) { seen[$1] = 1 }
			{ pids[$1] = 1 }
			END { for (p in seen) if (!(p in app)) n++; for (p in pids) np++
				for (p in app) na++; print na + 0, n + 0, np + 0 }' "$BATS_TEST_TMPDIR/st"
		# a process loads it; of the others (sh ...), none looks there
		read -r na n np <<<"$output"
		[ "$na" -ge 1 ] && [ "$n" -eq 0 ] && [ "$np" -gt "$na" ] || fail "$output"
	fi
	# a resume with another smoke command times that command untraced,
	# not the first one (a sleep makes it at least 1 s); the program
	# linked again without the RUNPATH (as by a build that ignores CC)
	# runs because its runs now set LD_LIBRARY_PATH
	(cd "$w/build_ann" && c++ -o sample main.o records.o meta.o hot.o -L"$lib" -ldftracer_core)
	! readelf -d "$w/build_ann/sample" | grep -q 'R[UN]*PATH'
	smoke=$(jq -r '.smoke_cmd' "$w/records/pipeline.json")
	# (one timed run a side: an overhead over the budget after the
	# throttle is not judged either)
	DFT_PIPELINE_TIMING_RUNS=1 DFT_PIPELINE_MAX_OVERHEAD=-100 run -0 --separate-stderr dft-pipeline resume -y --from trace_run \
		--stop-after trace_run -s "sleep 1; $smoke" -w "$root" "$(head -n 1 "$root/app/.current_run")"
	still="  the overhead is still over -100 % after the throttle: not judged: with 1 timed run a side there is no spread to tell run-to-run noise from a cost, so no function is blamed (DFT_PIPELINE_TIMING_RUNS=3 or more judges it)"
	assert_line "$still"
	run -0 jq -s -r '[.[] | select(.traced == false)] | "\(length) \(last.median_s >= 1) \(last.runs | length)"' "$w/records/samples.ndjson"
	assert_output "3 true 1"
	run -0 jq -r -s '[.[] | select(.type == "step" and .step == "step_10_trace_run")] | last | .overhead_note' "$w/records/steps.ndjson"
	assert_output "${still#  }"
	grep -q '^sleep 1; ' "$w/scripts/run_baseline.sh"
	run -0 cat "$w/scripts/run_annotated.sh"
	assert_line "LD_LIBRARY_PATH='$lib'\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
}

@test "an overhead over the budget with nothing over TAU's limits: the hot wrapper is throttled by its estimated tracing cost, once" {
	local app="$BATS_TEST_TMPDIR/app" root="$BATS_TEST_TMPDIR/wsb" w n=3000000 out
	# put(): fwrite in a write-all loop (one fwrite a call; a 1:1 wrapper
	# such as tinyxml2's XMLPrinter::Write is skipped by dft-cost's
	# io-wrapper rule before any run), called $n times through a
	# pointer: under TAU's call limit and around
	# every I/O call, so neither TAU's throttle nor the event budget takes
	# it; its tracing is most of the overhead (3 M calls: ~0.3 s of it, over
	# twice the untraced run's ~0.13 s of CPU): the one timed run a side
	# must be slower traced than untraced, so a stall of the untraced run
	# as long as the tracing fails the test (with 300,000 calls one
	# untraced run 3x slower than usual made the overhead -43.6 %; 1.5 M
	# left ~0.15 s of margin)
	mkdir -p "$app"
	cat >"$app/app.c" <<'C'
#include <stdio.h>
#include <stdlib.h>

size_t
put(const void *p, size_t n, FILE *f)
{
	size_t done = 0, k;

	while (done < n && (k = fwrite((const char *)p + done, 1, n - done, f)) > 0)
		done += k;
	return done;
}

int
main(int argc, char **argv)
{
	size_t (*volatile pp)(const void *, size_t, FILE *) = put;
	FILE *f;

	if (argc < 3 || (f = fopen(argv[1], "w")) == NULL)
		return 2;
	for (long i = 0; i < atol(argv[2]); i++)
		if (pp("x", 1, f) != 1)
			return 1;
	return fclose(f) != 0;
}
C
	printf 'CC ?= cc\nCFLAGS ?= -O2 -g\nall: app\napp: app.c\n\t$(CC) $(CFLAGS) $(LDFLAGS) -o $@ app.c\n' >"$app/Makefile"
	git -C "$app" init -q && git -C "$app" add . &&
		git -C "$app" -c user.email=t@example.org -c user.name=t commit -qm app
	# a budget of 0 %: any measured overhead is over it (judged on 3 timed
	# runs a side)
	DFT_PIPELINE_TIMING_RUNS=3 DFT_PIPELINE_MAX_OVERHEAD=0 \
		run -0 --separate-stderr dft-pipeline run -y --offline --no-optimize \
		-s "mkdir -p out && ./app out/o.txt $n" -w "$root" "$app"
	out=$output
	w="$root/$(head -n 1 "$root/app/.current_run")"
	# the first run: nothing over TAU's limits, so the call cost is this
	# run's overhead over every call it traced (the profile's), and put's
	# share is its calls at that cost, in points of the untraced median
	local c pts
	c=$(jq -r -s '([.[] | select(.type == "step" and .step == "step_10_trace_run")] | first) as $t
		| ($t.traced_median_s - $t.untraced_median_s) | tostring' "$w/records/steps.ndjson")
	c=$(jq -r --arg d "$c" 'select(.type == "summary") | .functions
		| ([.[] | select(.io_cat != "none") | .count] | add) as $n
		| ($d | tonumber) / $n * 1e6' "$w/records/10_profile.ndjson" | awk '{ printf "%.4g", $1 }')
	pts=$(jq -r -s --arg c "$c" --argjson n "$n" '([.[] | select(.type == "step" and .step == "step_10_trace_run")] | first)
		| $n * ($c | tonumber) / 1e6 / .untraced_median_s * 100 * 10 | round / 10' "$w/records/steps.ndjson")
	assert_line --partial "  the overhead is over 0 %: an annotated call costs an estimated $c us of tracing (this run's "
	assert_line --partial " annotated and $((n + 2)) I/O calls); by that, put ($n calls, $pts points) cost the most: estimated "
	# the reason in dft-cost's records, and nothing else throttled
	run -0 jq -r 'select(.type == "function") | "\(.name) \(.decision.rule)"' "$w/records/08_cost.ndjson"
	assert_output "put profile-overhead
main main"
	run -0 jq -r 'select(.name == "put") | .decision.reason' "$w/records/08_cost.ndjson"
	# (dft-cost prints one decimal: 28.0 where jq gives 28)
	pts=$(awk -v p="$pts" 'BEGIN { printf "%.1f", p }')
	assert_output --regexp "^called $n times in the traced run at an estimated [0-9.e+-]+ us of tracing each: [0-9.e+-]+ ms, ${pts//./\\.} points of its [0-9.-]+ % overhead, over the 0 % budget; its $n I/O calls go to a traced caller\$"
	# one round of it: the step record of the last run names put, the
	# overhead that started the round and the estimate; its samples are
	# the budget's
	run -0 jq -r -s '[.[] | select(.type == "step" and .step == "step_10_trace_run")]
		| "\(length) \(last.throttled) \(last.overhead_throttle.functions) \(last.overhead_throttle.call_cost_us == ($c | tonumber)) \(last.overhead_throttle.overhead_pct == first.overhead_pct)"' \
		--arg c "$c" "$w/records/steps.ndjson"
	assert_output '2 ["put"] ["put"] true true'
	run -0 jq -r '.config' "$w/records/samples.ndjson"
	assert_output "untraced
traced
untraced
traced_budget"
	run -0 printf '%s\n' "$out"
	box=$(printf '%s\n' "$out" | box_lines)
	run -0 printf '%s\n' "$box"
	assert_line --regexp '^Over the 0 % budget at [0-9.]+ %: 1 by tracing cost \(put\), estimated [0-9.]+ %$'
	# the analyzed trace has no put event and its I/O goes to main, put's
	# caller, where the small-write finding now points
	run -1 bash -o pipefail -c "gzip -dcf '$w'/traces/*.pfw* | grep -c '\"name\":\"put\"'"
	assert_output 0
	run -0 jq -r 'select(.type == "bottleneck" and .metric == "small_write_pct") | .functions[0].name' "$w/records/12_analyze.ndjson"
	assert_output main
	run -0 grep -F '; over the 0 % budget at ' "$w/session_report.md"
	assert_output --partial ', by their estimated tracing cost ('
	assert_output --partial 'call): `put` (estimated '
}

@test "a traced run that hangs is stopped and diagnosed as a hang, with stacks" {
	local app="$BATS_TEST_TMPDIR/app" root="$BATS_TEST_TMPDIR/wsh" w
	cp -R "$REPO/tests/apps/sample" "$app"
	# waits for ever once its work is done, but only when traced: no CPU,
	# no new events, no output
	sed -i -e '1i #include <stdlib.h>' -e '1i #include <unistd.h>' \
		-e 's|^\treturn 0;$|\tif (getenv("DFTRACER_ENABLE") \&\& atoi(getenv("DFTRACER_ENABLE")) == 1)\n\t\tpause();\n\treturn 0;|' \
		"$app/main.c"
	grep -q 'pause();' "$app/main.c"
	git -C "$app" init -q && git -C "$app" add . &&
		git -C "$app" -c user.email=t@example.org -c user.name=t commit -qm app
	SECONDS=0
	DFT_PIPELINE_HANG_S=3 run -1 --separate-stderr dft-pipeline run -y --offline \
		--no-optimize -w "$root" "$app"
	[ "$SECONDS" -lt 120 ] || fail "the hang was not cut short: ${SECONDS}s"
	[[ "$stderr" == *"the traced run hung: hang: no CPU time, no new events and no output for "*" s, so the run was stopped (not an exit before FINI)"* ]] ||
		fail "not diagnosed: $stderr"
	[[ "$stderr" != *"the trace is empty"* ]] || fail "called an empty trace: $stderr"
	w="$root/$(head -n 1 "$root/app/.current_run")"
	[ "$(cat "$w/runs/annotated/hang")" -ge 3 ]
	grep -q '^=== process [0-9]*: ./sample' "$w/runs/annotated/stacks.txt"
	run -0 jq -r 'select(.type == "pitfall") | .title' "$w/records/pitfalls.ndjson"
	assert_line "Traced run hung"
	run -0 jq -r '.[] | select(.step == "step_10_trace_run") | .status' "$w/step_timings.json"
	assert_output failed
}

@test "a traced run killed by SIGTERM is analyzed: not a hang, not an exit before FINI; the analysis and the report say the process was killed" {
	local app="$BATS_TEST_TMPDIR/app" root="$BATS_TEST_TMPDIR/wsk" w
	cp -R "$REPO/tests/apps/sample" "$app"
	# its work done, it is killed by SIGTERM (as by a job's time limit),
	# but only when traced (the variable's name cut in two: dft-annotate
	# leaves a file that names the tracer's unannotated)
	sed -i -e '1i #include <signal.h>' -e '1i #include <stdlib.h>' \
		-e 's|^\treturn 0;$|\tif (getenv("DFT" "RACER_ENABLE") \&\& atoi(getenv("DFT" "RACER_ENABLE")) == 1)\n\t\traise(SIGTERM);\n\treturn 0;|' \
		"$app/main.c"
	grep -q 'raise(SIGTERM);' "$app/main.c"
	git -C "$app" init -q && git -C "$app" add . &&
		git -C "$app" -c user.email=t@example.org -c user.name=t commit -qm app
	DFT_PIPELINE_TIMING_RUNS=0 run --separate-stderr dft-pipeline run -y --offline \
		--no-optimize -w "$root" "$app"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_line --regexp '^  trace collection: .*, exit 143\)$'
	assert_line "  the traced run was killed by SIGTERM (not a hang, not an exit before FINI): the analysis covers what ran, its summary says how each process ended"
	[[ "$stderr" != *"hung"* && "$stderr" != *"before FINI"* ]] || fail "misdiagnosed: $stderr"
	w="$root/$(head -n 1 "$root/app/.current_run")"
	run -0 jq -r 'select(.type == "summary") | "\(.ends.signal) \(.unfinished[0].signal) \(.ends_text)"' "$w/records/12_analyze.ndjson"
	assert_output --regexp '^1 SIGTERM (the process was killed by SIGTERM at [0-9.]+ s: the run did not finish; its trace is whole up to the signal)$'
	text=${output#1 SIGTERM }
	run -0 grep -F "Run end: $text. The verdict and the findings are of the part that ran." "$w/session_report.md"
}
