#!/usr/bin/env bats
# dft-report: session_report.md with exactly the structure users asked for
# (golden file), report.html well-formed and self-contained with its SVG
# charts drawn from real numbers, "not run" where there is no data.

load test_helper


R="$FIXTURES/report"

setup() {
	# the report is written next to the records' workspace or in the
	# current directory: keep both inside the test's own directory
	cd "$BATS_TEST_TMPDIR" || return 1
	WS="$BATS_TEST_TMPDIR/ws"
	mkdir -p "$WS/annotated" "$WS/build_ann" "$WS/traces"
	sed -e "s#@WS@#$WS#g" -e "s#@TRACES@#$TRACES#g" "$R/run.ndjson" >"$BATS_TEST_TMPDIR/run.ndjson"
}

@test "dft-report --help prints the usage on stdout" { checklist_help dft-report; }
@test "dft-report --version prints the version" { checklist_version dft-report; }
@test "dft-report rejects an unknown option" { checklist_unknown_option dft-report; }
@test "dft-report rejects an option without its argument" { checklist_missing_argument dft-report -o --output --html --workspace --functions; }
@test "dft-report --help and --version fail on a full disk" { checklist_help_dev_full dft-report; }
@test "dft-report copes with empty input" { checklist_empty_input dft-report; }
@test "dft-report reads files, stdin and -" { checklist_dash_is_stdin dft-report; }
@test "dft-report reports a malformed line and goes on" { checklist_malformed_line dft-report; }
@test "dft-report reports a missing file" { checklist_missing_file dft-report; }
@test "dft-report fails on a full disk" { checklist_dev_full dft-report; }
@test "dft-report man page lints and documents every option" { checklist_man dft-report; }

@test "session_report.md matches the golden file" {
	run -0 dft-report "$BATS_TEST_TMPDIR/run.ndjson"
	sed "s#$WS#@WS@#g" "$WS/session_report.md" >"$BATS_TEST_TMPDIR/got.md"
	diff -u "$R/run.md" "$BATS_TEST_TMPDIR/got.md"
}

@test "the report has the sections of user-facing-formats.md in order" {
	dft-report "$BATS_TEST_TMPDIR/run.ndjson" >/dev/null
	# (the findings' own headings, "### B1 — ...", are left out here)
	run -0 bash -o pipefail -c "grep -E '^#' '$WS/session_report.md' | grep -v '^### B[0-9]'"
	assert_output "# DFTracer Session Report — cm1/20261130_001122
## What Ran Correctly (Pipeline Flow)
### Iteration 1 — L1: —; L2: small_write.L2.cb; L3: —
### Iteration 2 — L1: —; L2: fs_bw.L2.striping_hints; L3: — (rolled back)
## Diagnosis
## Lessons Learned (Pitfalls)
### Pitfall: MPI launcher refused to run as root
## Summary
## Step Timings
## Artifacts"
	run -0 sed -n '2,4p' "$WS/session_report.md"
	assert_output "Application: file:///srv/apps/cm1 @ main (commit 0123456789ab)
Date: 2026-11-30 00:11 UTC
Platform: Linux 6.1.0 / x86_64 / node01"
	run -0 grep -c '^| Iter | Change | Median ± spread | Test | Decision | New bottlenecks | Resolved |$' "$WS/session_report.md"
}

@test "records pass through and a report record follows" {
	run -0 bash -o pipefail -c "dft-report '$BATS_TEST_TMPDIR/run.ndjson' | grep -v '\"type\":\"step\"' | tail -n 2"
	assert_line --index 0 '{"type":"x-test","n":1}'
	assert_line --index 1 --partial '"type":"report","v":1,"run_id":"cm1/20261130_001122"'
	run -0 bash -o pipefail -c "dft-report '$BATS_TEST_TMPDIR/run.ndjson' | grep -c -v '\"type\":\"report\"'"
	assert_output "$(( $(wc -l <"$BATS_TEST_TMPDIR/run.ndjson") + 1 ))"
}

@test "report.html is well-formed, self-contained and draws the charts" {
	dft-report "$BATS_TEST_TMPDIR/run.ndjson" >/dev/null
	run -0 xmllint --noout "$WS/report.html"
	# nothing is fetched: no scripts, no external references
	run -1 grep -E '<script|<link|src="|href="http' "$WS/report.html"
	run -0 grep -c '<svg xmlns="http://www.w3.org/2000/svg"' "$WS/report.html"
	assert_output 6
	for t in "I/O timeline per process" "Time by layer" "Time by function (top 15)" \
		"Transfer-size histogram" "Raw write rate before and after each iteration" \
		"Completion time before and after each iteration"; do
		run -0 grep -c "<figcaption>$t" "$WS/report.html"
	done
	# real numbers: the four cm1 processes, the write histogram's 9064
	# requests of 4-16 KiB, the iteration rates
	run -0 grep -c '>pid 3537780<' "$WS/report.html"
	run -0 grep -c '>9064<' "$WS/report.html"
	run -0 grep -c '>0.151<' "$WS/report.html"
	# the one chart not drawn: this analysis (summary v 1) records no
	# time at stake (tests/dft-report-diagnosis.bats draws it)
	run -0 grep -c 'class="notrun"' "$WS/report.html"
	assert_output 1
	run -0 grep -A 2 '<figcaption>Time at stake per finding' "$WS/report.html"
	assert_output --partial 'class="notrun">not run: no finding above info with a time at stake'
}

@test "sections without data say not run and nothing is invented" {
	printf '%s\n' '{"type":"x-test","n":1}' '{"type":"function","v":1}' >"$BATS_TEST_TMPDIR/none.ndjson"
	# an output directory that does not exist is a write error
	run -2 --separate-stderr dft-report -o "$BATS_TEST_TMPDIR/out/r.md" "$BATS_TEST_TMPDIR/none.ndjson"
	[[ "$stderr" == *"cannot write '$BATS_TEST_TMPDIR/out/r.md'"* ]] || fail "$stderr"
	mkdir -p "$BATS_TEST_TMPDIR/out"
	SOURCE_DATE_EPOCH=1795000000 run -0 dft-report -o "$BATS_TEST_TMPDIR/out/r.md" "$BATS_TEST_TMPDIR/none.ndjson"
	sed "s#$BATS_TEST_TMPDIR/out/r.md#@OUT@#" "$BATS_TEST_TMPDIR/out/r.md" >"$BATS_TEST_TMPDIR/got.md"
	diff -u "$R/empty.md" "$BATS_TEST_TMPDIR/got.md"
	run -0 xmllint --noout "$BATS_TEST_TMPDIR/out/report.html"
	run -0 grep -c 'class="notrun"' "$BATS_TEST_TMPDIR/out/report.html"
	assert_output 6
	run -0 bash -o pipefail -c "dft-report -o '$BATS_TEST_TMPDIR/out/r.md' '$BATS_TEST_TMPDIR/none.ndjson' | jq -r 'select(.type==\"report\") | .not_run | length'"
	assert_output 15
}

@test "missing trace files leave the timeline not run, with the reason" {
	sed "s#$TRACES#/nonexistent#g" "$BATS_TEST_TMPDIR/run.ndjson" >"$BATS_TEST_TMPDIR/moved.ndjson"
	dft-report --no-html -o "$BATS_TEST_TMPDIR/a.md" "$BATS_TEST_TMPDIR/moved.ndjson" >/dev/null
	[ ! -e "$BATS_TEST_TMPDIR/report.html" ]
	dft-report --html "$BATS_TEST_TMPDIR/x.html" -o "$BATS_TEST_TMPDIR/a.md" "$BATS_TEST_TMPDIR/moved.ndjson" >/dev/null
	run -0 grep -c 'not run: trace files not found (/nonexistent/gen1-cm1/' "$BATS_TEST_TMPDIR/x.html"
	run -0 xmllint --noout "$BATS_TEST_TMPDIR/x.html"
}

@test "--workspace reads records/ and writes the report there" {
	mkdir -p "$WS/records"
	cp "$BATS_TEST_TMPDIR/run.ndjson" "$WS/records/all.ndjson"
	run -0 dft-report --workspace "$WS"
	[ -s "$WS/session_report.md" ] && [ -s "$WS/report.html" ]
	# without all.ndjson every records/*.ndjson is read, in name order
	rm "$WS/records/all.ndjson" "$WS/session_report.md"
	grep '"type":"session"' "$BATS_TEST_TMPDIR/run.ndjson" >"$WS/records/01_session.ndjson"
	grep -v '"type":"session"' "$BATS_TEST_TMPDIR/run.ndjson" >"$WS/records/13_rest.ndjson"
	run -0 dft-report --workspace "$WS"
	sed "s#$WS#@WS@#g" "$WS/session_report.md" >"$BATS_TEST_TMPDIR/got.md"
	diff -u "$R/run.md" "$BATS_TEST_TMPDIR/got.md"
}

@test "verdicts alone fill the iteration table" {
	grep -v -e '"type":"iteration"' -e '"type":"loop"' "$BATS_TEST_TMPDIR/run.ndjson" >"$BATS_TEST_TMPDIR/v.ndjson"
	dft-compare --after-label opt1 --applied B5.small_write.L2.cb "$FIXTURES/compare/before.ndjson" \
		"$FIXTURES/compare/after.ndjson" >>"$BATS_TEST_TMPDIR/v.ndjson"
	dft-report -o "$BATS_TEST_TMPDIR/v.md" "$BATS_TEST_TMPDIR/v.ndjson" >/dev/null
	# one analysis a side: the traced completion times, no test
	read -r before after verdict < <(jq -r 'select(.type == "verdict")
		| "\(.completion_time.before) \(.completion_time.after) \(.verdict)"' "$BATS_TEST_TMPDIR/v.ndjson")
	run -0 grep -E '^\| [01] \|' "$BATS_TEST_TMPDIR/v.md"
	assert_output "$(printf '| 0 | baseline | %.3f s (one traced run) | — | baseline | — | — |\n| 1 | L2: B5.small_write.L2.cb | %.3f s (one traced run) | — | %s | fs_bw:app:all | metadata_time_pct:app:all |' \
		"$before" "$after" "$verdict")"
	run -0 grep -c '^9. Optimization loop — 1 comparisons, stop reason not recorded$' "$BATS_TEST_TMPDIR/v.md"
}

@test "the iteration table: each iteration's change, median ± spread of its timed runs, test and decision" {
	printf '%s\n' \
		'{"type":"iteration","v":2,"iteration":0,"kind":"baseline","change":"baseline","applied":[],"bottlenecks":["sync_time_share:app"],"new":[],"resolved":[],"samples":{"median_s":0.318,"spread_pct":57.7,"runs":5},"test":null,"verdict":null,"status":"baseline","reason":null}' \
		'{"type":"iteration","v":2,"iteration":1,"kind":"L1","change":"rewrite sync.L1.fdatasync","applied":[],"new":[],"resolved":[],"samples":{"median_s":0.3766,"spread_pct":31.5,"runs":5},"test":{"p":0.222222,"significant":false,"pct":25.9},"verdict":"unchanged","status":"rolled_back","reason":"no significant gain: unchanged (within noise ±42.8 %)"}' \
		'{"type":"iteration","v":2,"iteration":2,"kind":"L1","change":"rewrite sync.L1.fewer","applied":[],"new":[],"resolved":["sync_time_share:app"],"samples":{"median_s":0.0593,"spread_pct":91.6,"runs":5},"test":{"p":0.00793651,"significant":true,"pct":-87.9},"verdict":"improved","status":"accepted","reason":null}' \
		>"$BATS_TEST_TMPDIR/it.ndjson"
	dft-report -o "$BATS_TEST_TMPDIR/it.md" "$BATS_TEST_TMPDIR/it.ndjson" >/dev/null
	run -0 grep -E '^\| [012] \|' "$BATS_TEST_TMPDIR/it.md"
	# median and half the spread, and the test, as the records give them
	local want=() it ch med sp st p pct sig
	while IFS=$'\t' read -r it ch med sp st p pct sig; do
		case $st in
		baseline) want+=("$(printf '| %s | %s | %.3f s ±%.1f %% | — | baseline | sync_time_share:app | — |' "$it" "$ch" "$med" "$(echo "$sp / 2" | bc -l)")") ;;
		rolled_back) want+=("$(printf '| %s | %s | %.3f s ±%.1f %% | %+.1f %%, p = %.2g (not significant) | rolled back: %s | — | — |' "$it" "$ch" "$med" "$(echo "$sp / 2" | bc -l)" "$pct" "$p" "$(jq -r "select(.iteration == $it) | .reason" "$BATS_TEST_TMPDIR/it.ndjson")")") ;;
		accepted) want+=("$(printf '| %s | %s | %.3f s ±%.1f %% | %+.1f %%, p = %.2g | accepted (improved) | — | sync_time_share:app |' "$it" "$ch" "$med" "$(echo "$sp / 2" | bc -l)" "$pct" "$p")") ;;
		esac
	done < <(jq -r '[.iteration, .change, .samples.median_s, .samples.spread_pct, .status, .test.p, .test.pct, .test.significant] | @tsv' "$BATS_TEST_TMPDIR/it.ndjson")
	assert_output "$(printf '%s\n' "${want[@]}")"
	refute_output --partial "GB/s"
}

@test "a candidate is reported against the configuration timed beside it, not iteration 0's old median" {
	# iteration 0 timed at 0.106 s; the machine then slowed down: the loop
	# timed the accepted configuration again next to each candidate
	printf '%s\n' \
		'{"type":"iteration","v":2,"iteration":0,"kind":"baseline","change":"baseline","applied":[],"bottlenecks":["small_write_pct:app"],"new":[],"resolved":[],"raw_write_rate_gbs":0.02,"completion_s":0.106,"samples":{"median_s":0.106,"spread_pct":20,"runs":5},"test":null,"verdict":null,"status":"baseline","reason":null}' \
		'{"type":"iteration","v":2,"iteration":1,"kind":"L2","change":"applying L2 a","applied":[],"new":[],"resolved":[],"raw_write_rate_gbs":0.09,"completion_s":0.202,"samples":{"median_s":0.202,"spread_pct":18,"runs":5},"test":{"p":0.84,"significant":false,"pct":3.4,"before_s":0.195},"verdict":"unchanged","status":"rolled_back","reason":"no significant gain"}' \
		'{"type":"iteration","v":2,"iteration":2,"kind":"L2","change":"applying L2 b","applied":[],"new":[],"resolved":[],"raw_write_rate_gbs":0.05,"completion_s":0.150,"samples":{"median_s":0.150,"spread_pct":10,"runs":5},"test":{"p":0.0079,"significant":true,"pct":-40,"before_s":0.250},"verdict":"improved","status":"accepted","reason":null}' \
		'{"type":"iteration","v":2,"iteration":3,"kind":"L2","change":"applying L2 c","applied":[],"new":[],"resolved":[],"raw_write_rate_gbs":0.07,"completion_s":0.120,"samples":{"median_s":0.120,"spread_pct":10,"runs":5},"test":{"p":0.0079,"significant":true,"pct":-25,"before_s":0.160},"verdict":"improved","status":"accepted","reason":null}' \
		>"$BATS_TEST_TMPDIR/it.ndjson"
	run -0 dft-report -o "$BATS_TEST_TMPDIR/it.md" "$BATS_TEST_TMPDIR/it.ndjson"
	local f=$BATS_TEST_TMPDIR/it.md b a ratio c0
	run -0 grep -c '^| 1 | .* | +3.4 % against 0.195 s, p = 0.84 (not significant) | ' "$f"
	run -0 grep -c '^| 3 | .* | -25.0 % against 0.160 s, p = 0.0079 | accepted' "$f"
	# each result line compares the two medians the test compared
	while read -r it b a; do
		run -0 grep -c "^- Result: .*(completion $(printf '%.3f s → %.3f s' "$b" "$a"), timed side by side, verdict " "$f"
	done < <(jq -r 'select(.iteration > 0) | "\(.iteration) \(.test.before_s) \(.completion_s)"' "$BATS_TEST_TMPDIR/it.ndjson")
	# the summary chains the accepted steps' own ratios up to the best (iteration 3)
	ratio=$(jq -s '[.[] | select(.status == "accepted") | .completion_s / .test.before_s] | reduce .[] as $r (1; . * $r)' "$BATS_TEST_TMPDIR/it.ndjson")
	c0=$(jq -s '.[0].completion_s' "$BATS_TEST_TMPDIR/it.ndjson")
	run -0 grep -c "^| Observed completion improvement | $(awk -v r="$ratio" -v c="$c0" 'BEGIN { printf "%+.1f %% (%.3f s → %.3f s", (1 - r) * 100, c, c * r }'), each step timed side by side) |$" "$f"
	refute_output --partial "0.106 s → 0.120 s"
}

@test "an iteration lists the L1 proposal of the bottleneck its change was applied for, not its own analysis' first" {
	# leveldb: gathering the small writes (L2) left the syncs first in that
	# iteration's own analysis; its L1 is still the small writes' one
	printf '%s\n' \
		'{"type":"proposal","v":1,"id":"B1.small_write.L1.batch","bottleneck":"B1","metric":"small_write_pct","level":"L1","strategy":"small_write.L1.batch","change":"Accumulate small writes in a buffer"}' \
		'{"type":"proposal","v":1,"id":"B1.sync.L1.fewer","bottleneck":"B1","metric":"sync_time_share","level":"L1","strategy":"sync.L1.fewer","change":"Move fsync out of the record loop"}' \
		'{"type":"iteration","v":2,"iteration":0,"kind":"baseline","change":"baseline","applied":[],"listed_l1":["B1.small_write.L1.batch"],"bottlenecks":["small_write_pct:app"],"new":[],"resolved":[],"samples":{"median_s":0.437,"spread_pct":33,"runs":5},"test":null,"verdict":null,"status":"baseline","reason":null}' \
		'{"type":"iteration","v":2,"iteration":1,"kind":"L2","change":"applying L2 small_write.L2.tune_gather","applied":[{"id":"small_write.L2.tune_gather","level":"L2","bottleneck":"small_write_pct","change":"gather small writes"}],"listed_l1":["B1.sync.L1.fewer"],"new":["sync_time_share:app"],"resolved":["small_write_pct:app"],"samples":{"median_s":0.341,"spread_pct":85,"runs":5},"test":{"p":0.84,"significant":false,"pct":-14.1,"before_s":0.397},"verdict":"unchanged","status":"rolled_back","reason":"no significant gain"}' \
		'{"type":"iteration","v":2,"iteration":2,"kind":"L1","change":"rewrite sync.L1.fewer","applied":[],"listed_l1":["B1.sync.L1.fewer"],"new":[],"resolved":[],"samples":{"median_s":0.44,"spread_pct":20,"runs":5},"test":{"p":0.5,"significant":false,"pct":1,"before_s":0.43},"verdict":"unchanged","status":"rolled_back","reason":"no significant gain"}' \
		>"$BATS_TEST_TMPDIR/it.ndjson"
	run -0 dft-report -o "$BATS_TEST_TMPDIR/it.md" "$BATS_TEST_TMPDIR/it.ndjson"
	run -0 sed -n '/^### Iteration 1 /,/^### Iteration 2 /p' "$BATS_TEST_TMPDIR/it.md"
	assert_line "- L1 (app): not applied automatically; listed for people: $(jq -r 'select(.id == "B1.small_write.L1.batch") | .change' "$BATS_TEST_TMPDIR/it.ndjson") (\`B1.small_write.L1.batch\`)"
	refute_output --partial "Move fsync"
	# an iteration that applied no action keeps the first listed
	run -0 sed -n '/^### Iteration 2 /,$p' "$BATS_TEST_TMPDIR/it.md"
	assert_line --partial "listed for people: Move fsync out of the record loop (\`B1.sync.L1.fewer\`)"
}

@test "option combinations are checked before any work" {
	checklist_usage_error dft-report "--html and --no-html exclude each other" --html x.html --no-html
	checklist_bad_value dft-report --workspace "$BATS_TEST_TMPDIR/nope" "a directory"
}

@test "control characters and invalid UTF-8 in records keep the HTML well-formed" {
	printf '%s\n' '{"type":"session","v":1,"run_id":"x/1","url":"a<b>&c\"d"}' >"$BATS_TEST_TMPDIR/bad.ndjson"
	printf '{"type":"pitfall","v":1,"title":"bad \\u0001 bytes \xff\xfe here","error":"x\xc3(y"}\n' >>"$BATS_TEST_TMPDIR/bad.ndjson"
	run -0 dft-report -o "$BATS_TEST_TMPDIR/b.md" "$BATS_TEST_TMPDIR/bad.ndjson"
	run -0 xmllint --noout "$BATS_TEST_TMPDIR/report.html"
	run -0 grep -c 'Application: a&lt;b&gt;&amp;c&quot;d @ default branch' "$BATS_TEST_TMPDIR/report.html"
}

@test "the examples of the dft-report man page run" {
	local ex n=0 want
	ln -s "$REPO/tests" "$BATS_TEST_TMPDIR/tests"
	cd "$BATS_TEST_TMPDIR"
	while IFS= read -r ex; do
		n=$((n + 1))
		want=0
		case $ex in *--fail-on-regression*) want=3 ;; esac
		run bash -o pipefail -c "$ex >/dev/null"
		[ "$status" -eq "$want" ] || fail "example '$ex' exited $status"
	done < <(man_examples "$REPO/man/dft-report.1")
	[ "$n" -ge 1 ]
}

@test "the bottlenecks total and its severity breakdown count the same findings" {
	dft-report -o "$BATS_TEST_TMPDIR/f.md" "$R/functions.ndjson" >/dev/null
	# B1 score 5, B2-B3 score 4, B4 score 3, B5 score 2
	run -0 grep -c '^| Bottlenecks diagnosed | 3 bottlenecks (critical or high) of 5 findings: 1 critical, 2 high, 1 medium, 1 low, 0 info |$' "$BATS_TEST_TMPDIR/f.md"
	# the golden run: critical ones are not counted as high
	dft-report "$BATS_TEST_TMPDIR/run.ndjson" >/dev/null
	run -0 grep -c '^| Bottlenecks diagnosed | 16 bottlenecks (critical or high) of 41 findings: 5 critical, 11 high, 3 medium, 5 low, 17 info |$' "$WS/session_report.md"
}

@test "trace analysis names the functions of each bottleneck from its own record" {
	dft-report -o "$BATS_TEST_TMPDIR/f.md" "$R/functions.ndjson" >/dev/null
	# no iteration record names them: they come from bottleneck.functions
	# (first bottleneck of each metric; shares under 0.5% left out)
	run -0 grep '^8\. ' "$BATS_TEST_TMPDIR/f.md"
	assert_output "8. Trace analysis — 3 bottlenecks (critical or high) of 5 findings: 1 critical, 2 high, 1 medium, 1 low, 0 info; small_write_pct (write_records 75% at io.c:57, scan_metadata 25%), misaligned_pct (no enclosing function 100%)"
	run -0 xmllint --noout "$BATS_TEST_TMPDIR/report.html"
	run -0 grep -c '<li value="8">Trace analysis — 3 bottlenecks (critical or high) of 5 findings: 1 critical, 2 high, 1 medium, 1 low, 0 info; small_write_pct (write_records 75% at io.c:57, scan_metadata 25%), misaligned_pct (no enclosing function 100%)</li>' "$BATS_TEST_TMPDIR/report.html"
}

@test "annotation counts functions skipped by dft-cost and by dft-annotate, as the pipeline box does" {
	dft-report -o "$BATS_TEST_TMPDIR/f.md" "$R/functions.ndjson" >/dev/null
	# fnv1a and path_of not annotated by decision (fnv1a repeated: counted
	# once), odd_exit skipped by dft-annotate, and one more given as a count
	run -0 grep '^4\. ' "$BATS_TEST_TMPDIR/f.md"
	assert_output "4. Annotation — 2 files annotated (2 functions), 4 functions skipped (2 by dft-cost, 2 by dft-annotate)"
}

@test "trace collection names at most 8 throttled functions, then how many more, and the overhead before" {
	# 12 throttled names (the pipeline lists them most called first);
	# the report keeps the first 8 and counts the other 4
	names=$(seq 1 12 | awk '{ printf "%s\"helper_%02d\"", (NR > 1 ? "," : ""), $1 }')
	printf '%s\n' "{\"type\":\"step\",\"v\":1,\"step\":\"step_10_trace_run\",\"status\":\"ok\",\"duration_s\":1,\"trace_files\":2,\"events\":230,\"trace_bytes\":8590,\"overhead_pct\":3.2,\"untraced_median_s\":0.4,\"traced_median_s\":0.41,\"timing_runs\":3,\"throttled\":[$names],\"overhead_before_throttle_pct\":48.5}" >"$BATS_TEST_TMPDIR/s.ndjson"
	run -0 dft-report -o "$BATS_TEST_TMPDIR/t.md" "$BATS_TEST_TMPDIR/s.ndjson"
	want="7. Trace collection — 2 trace files, 230 events, 8.4 KB; tracing overhead 3.2 % (smoke test traced 0.410 s, untraced 0.400 s, medians of 3 runs); throttled before the analysis:$(seq 1 8 | awk '{ printf "%s `helper_%02d`", (NR > 1 ? "," : ""), $1 }') and $((12 - 8)) more (overhead before: 48.5 %)"
	run -0 grep '^7\. ' "$BATS_TEST_TMPDIR/t.md"
	assert_output "$want"
	# the overhead budget's round: the functions it throttled, the
	# budget, the overhead that started it, the cost per call and the
	# estimate; then the step's sentence on what is left
	jq -c '.throttled += ["put"] | .overhead_pct = 9.5
		| .overhead_throttle = {overhead_pct: 21.3, budget_pct: 5, call_cost_us: 0.05432, call_cost_from: "x", functions: ["put"], functions_pct: 4, estimate_pct: 17.3}
		| .overhead_note = "the overhead is still over 5 % after the overhead budget'"'"'s throttle (estimated 17.3 %): y"' \
		"$BATS_TEST_TMPDIR/s.ndjson" >"$BATS_TEST_TMPDIR/s2.ndjson"
	run -0 dft-report -o "$BATS_TEST_TMPDIR/t2.md" "$BATS_TEST_TMPDIR/s2.ndjson"
	run -0 grep '^7\. ' "$BATS_TEST_TMPDIR/t2.md"
	want=${want/3.2 %/9.5 %}
	assert_output "${want/and 4 more/and $((13 - 8)) more}; over the 5 % budget at 21.3 %, by their estimated tracing cost (0.0543 us a call): \`put\` (estimated 17.3 % without them); the overhead is still over 5 % after the overhead budget's throttle (estimated 17.3 %): y"
}
