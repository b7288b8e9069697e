#!/usr/bin/env bats
# dft-compare: alignment by stable keys, deltas, Cohen's d, bottleneck set
# changes, the verdict and its tolerance, trace directories, exit 3.

load test_helper


C="$FIXTURES/compare"

@test "dft-compare --help prints the usage on stdout" { checklist_help dft-compare; }
@test "dft-compare --version prints the version" { checklist_version dft-compare; }
@test "dft-compare rejects an unknown option" { checklist_unknown_option dft-compare; }
@test "dft-compare rejects an option without its argument" { checklist_missing_argument dft-compare --tolerance --threshold --alpha --before-label --after-label --applied --top; }
@test "dft-compare names the option and the value of a bad value" {
	checklist_bad_value dft-compare --tolerance x "a number from 0 to 1e+06"
	checklist_bad_value dft-compare --top -1 "an integer from 0 to 1000000"
}
@test "dft-compare --help and --version fail on a full disk" { checklist_help_dev_full dft-compare; }
@test "dft-compare fails on a full disk" {
	run -2 --separate-stderr bash -o pipefail -c "dft-compare '$C/before.ndjson' '$C/after.ndjson' >/dev/full"
	[[ "$stderr" == *"dft-compare: write error"* ]] || fail "$stderr"
}
@test "dft-compare man page lints and documents every option" { checklist_man dft-compare; }

@test "two analyses compare to the golden deltas and verdict" {
	dft-compare --before-label baseline --after-label opt1 --applied B1.small_write.L2.cb \
		"$C/before.ndjson" "$C/after.ndjson" >"$BATS_TEST_TMPDIR/out"
	without_steps "$BATS_TEST_TMPDIR/out" >"$BATS_TEST_TMPDIR/got"
	diff -u "$C/improved.out.ndjson" "$BATS_TEST_TMPDIR/got"
	run -0 tail -n 1 "$BATS_TEST_TMPDIR/out"
	assert_output --partial '"type":"step","v":1,"step":"compare","tool":"dft-compare"'
}

@test "files are aligned by pattern and processes by rank, not by name" {
	run -0 bash -o pipefail -c "dft-compare '$C/before.ndjson' '$C/after.ndjson' |
		jq -r 'select(.type==\"delta\" and (.group==\"file\" or .group==\"process\") and .metric==\"count\") | [.group, .key, .before, .after] | @tsv'"
	assert_output "$(printf 'file\t/out/ckpt_#.h#\t2000\t500\nprocess\trank0\t3000\t900\nprocess\trank1\t3100\t850')"
}

@test "Cohen's d comes from the per-window distributions, with its label" {
	run -0 bash -o pipefail -c "dft-compare '$C/before.ndjson' '$C/after.ndjson' |
		jq -r 'select(.type==\"delta\" and .group==\"io\" and .key==\"all\" and .metric==\"time_s\") | [.cohens_d, .significance, .windows_before] | @tsv'"
	# windows 4, 3.5, 4.5, 3 -> 1.8, 1.6, 1.9, 1.7: d = -2 / sqrt((0.3125 + 0.0125) / 2)
	assert_output "$(printf -- '-4.96139\tLARGE\t4')"
}

@test "regressions are more count, time or size, or less bandwidth" {
	run -0 bash -o pipefail -c "dft-compare '$C/after.ndjson' '$C/before.ndjson' |
		jq -r 'select(.type==\"delta\" and .group==\"io\" and .key==\"write\") | [.metric, .regression] | @tsv'"
	assert_output "$(printf 'count\ttrue\ntime_s\ttrue\nbytes\tfalse\nbw_b_s\ttrue')"
}

@test "the verdict is judged on raw write rate and completion time within the tolerance" {
	run -0 bash -o pipefail -c "dft-compare '$C/before.ndjson' '$C/regressed.ndjson' | jq -r 'select(.type==\"verdict\") | .verdict, .reason'"
	assert_output "$(printf 'regressed\nraw write rate 16.7 %% lower; completion time 30.0 %% longer')"
	# a 20 % tolerance absorbs the write-rate loss but not the 30 % longer run
	run -0 bash -o pipefail -c "dft-compare --tolerance 20 '$C/before.ndjson' '$C/regressed.ndjson' | jq -r 'select(.type==\"verdict\") | .reason'"
	assert_output "raw write rate within 20 %; completion time 30.0 % longer"
	run -0 bash -o pipefail -c "dft-compare '$C/before.ndjson' '$C/before.ndjson' | jq -r 'select(.type==\"verdict\") | .verdict, .line'"
	assert_output "$(printf 'unchanged\nresolved=0 bottlenecks, new=0, raw_rate 0.1\xe2\x86\x920.1 GB/s (comparator: unchanged)')"
}

@test "--fail-on-regression exits 3 on a regression and 0 otherwise" {
	run -3 dft-compare --fail-on-regression "$C/before.ndjson" "$C/regressed.ndjson"
	assert_output --partial '"verdict":"regressed"'
	run -0 dft-compare --fail-on-regression "$C/before.ndjson" "$C/after.ndjson"
	run -0 dft-compare "$C/before.ndjson" "$C/regressed.ndjson"
}

@test "--threshold keeps only the deltas that moved enough" {
	run -0 bash -o pipefail -c "dft-compare --threshold 60 '$C/before.ndjson' '$C/after.ndjson' |
		jq -r 'select(.type==\"delta\" and .group!=\"bottleneck\") | (.pct | fabs >= 60)' | sort -u"
	assert_output "true"
}

@test "trace directories are analyzed first with dft-analyze" {
	[ -d "$TRACES/gen1-cm1" ] || skip "no shared traces"
	run -0 bash -o pipefail -c "dft-compare '$TRACES/gen1-cm1' '$TRACES/gen1-cm1' | jq -r 'select(.type==\"verdict\") | [.verdict, .raw_write_rate.before, .completion_time.before] | @tsv'"
	assert_output "$(printf 'unchanged\t120058000\t145.331')"
	# every time window is kept, so Cohen's d has the whole distribution
	run -0 bash -o pipefail -c "dft-compare '$TRACES/gen1-cm1' '$TRACES/gen1-cm1' |
		jq -r 'select(.type==\"delta\" and .group==\"io\" and .key==\"all\" and .metric==\"count\") | [.cohens_d, .windows_before] | @tsv'"
	assert_output "$(printf '0\t127')"
}

@test "a stream with several analyses uses the last one, and stdin works" {
	run -0 bash -o pipefail -c "cat '$C/after.ndjson' '$C/before.ndjson' | dft-compare - '$C/before.ndjson' | jq -r 'select(.type==\"verdict\") | .verdict'"
	assert_output "unchanged"
}

@test "bad operands are reported" {
	run -2 --separate-stderr dft-compare "$C/before.ndjson"
	[[ "$stderr" == *"expected two operands, BEFORE and AFTER, got 1"* ]]
	run -2 --separate-stderr dft-compare - -
	[[ "$stderr" == *"only one of BEFORE and AFTER can be standard input"* ]]
	run -1 --separate-stderr dft-compare "$C/before.ndjson" "$BATS_TEST_TMPDIR/none.ndjson"
	[[ "$stderr" == *"cannot open '$BATS_TEST_TMPDIR/none.ndjson'"* ]] || fail "$stderr"
	printf '{"type":"x-test"}\n' >"$BATS_TEST_TMPDIR/x.ndjson"
	run -1 --separate-stderr dft-compare "$C/before.ndjson" "$BATS_TEST_TMPDIR/x.ndjson"
	[[ "$stderr" == *"no summary or samples record"* ]] || fail "$stderr"
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	run -1 --separate-stderr dft-compare "$C/before.ndjson" "$BATS_TEST_TMPDIR/empty"
	[[ "$stderr" == *"no *.pfw or *.pfw.gz trace files"* ]] || fail "$stderr"
}

@test "the examples of the dft-compare man page run" {
	local ex n=0 want
	ln -s "$REPO/tests" "$BATS_TEST_TMPDIR/tests"
	cd "$BATS_TEST_TMPDIR"
	while IFS= read -r ex; do
		n=$((n + 1))
		want=0
		case $ex in *--fail-on-regression*) want=3 ;; esac
		run bash -o pipefail -c "$ex >/dev/null"
		[ "$status" -eq "$want" ] || fail "example '$ex' exited $status"
	done < <(man_examples "$REPO/man/dft-compare.1")
	[ "$n" -ge 1 ]
}

# samples SIDE CONFIG WALL...: one samples record of timed runs (exit 0, 1 MB
# written and 2 MB read each)
samples() {
	local c=$1
	shift
	jq -n -c --arg c "$c" '$ARGS.positional | map(tonumber) as $w
		| {type: "samples", v: 1, config: $c, traced: false,
		   runs: [$w[] | {wall_s: ., rc: 0, read_bytes: 2000000, write_bytes: 1000000}]}' --args "$@"
}

@test "repeated runs: a change beyond the tolerance and significant is improved, with the exact test" {
	samples base 1.00 1.02 0.99 1.01 1.03 >"$BATS_TEST_TMPDIR/b"
	samples opt 0.80 0.82 0.79 0.81 0.80 >"$BATS_TEST_TMPDIR/a"
	run -0 --separate-stderr dft-compare "$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/a"
	run -0 jq -r 'select(.type == "verdict") | [.v, .verdict, .basis, .test.name, .test.p, .completion_time.before, .completion_time.after, .completion_time.n_before] | @tsv' <<<"$output"
	want=$(mann_whitney_p 1.00,1.02,0.99,1.01,1.03 0.80,0.82,0.79,0.81,0.80)
	# all five after runs are faster: 2 / C(10, 5)
	[ "$want" = 0.00793651 ]
	assert_output "$(printf '2\timproved\tuntraced runs\tMann-Whitney U, exact, two-sided\t%s\t1.01\t0.8\t5' "$want")"
}

@test "repeated runs: a large but noisy difference is unchanged within noise, with ties ranked in the middle" {
	samples base 1.0 1.5 0.9 1.2 1.0 >"$BATS_TEST_TMPDIR/b"
	samples opt 0.9 1.0 1.3 0.7 0.8 >"$BATS_TEST_TMPDIR/a"
	run -0 --separate-stderr dft-compare "$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/a"
	v=$(jq -c 'select(.type == "verdict")' <<<"$output")
	want=$(mann_whitney_p 1.0,1.5,0.9,1.2,1.0 0.9,1.0,1.3,0.7,0.8)
	run -0 jq -r '[.verdict, .test.p, .test.significant, .completion_time.pct] | @tsv' <<<"$v"
	# medians 1.0 -> 0.9: -10 %, beyond the 5 % tolerance, not significant
	assert_output "$(printf 'unchanged\t%s\tfalse\t-10' "$want")"
	# the noise is half the larger spread: after, (1.3 - 0.7) / 0.9 / 2
	run -0 jq -r '.verdict_text, .noise_pct' <<<"$v"
	assert_output "$(printf 'unchanged (within noise \xc2\xb133.3 %%)\n33.3333')"
	run -0 jq -r '.reason' <<<"$v"
	assert_output --partial "completion time 10.0 % shorter (medians of 5 and 5 runs, p = "
	assert_output --partial ": not significant)"
}

@test "repeated runs: several samples records a side are pooled, failed runs left out, and slower is regressed" {
	{
		samples base 1.0 1.01 0.99
		samples base 1.02 0.98
	} >"$BATS_TEST_TMPDIR/b"
	{
		samples opt 1.3 1.31 1.29 1.32
		jq -n -c '{type: "samples", v: 1, config: "opt", runs: [{wall_s: 0.1, rc: 1}, {wall_s: 1.28, rc: 0, read_bytes: 2000000, write_bytes: 1000000}]}'
	} >"$BATS_TEST_TMPDIR/a"
	run -0 --separate-stderr dft-compare "$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/a"
	run -0 jq -r 'select(.type == "verdict") | [.verdict, .completion_time.n_before, .completion_time.n_after, .failed_runs, .test.p] | @tsv' <<<"$output"
	assert_output "$(printf 'regressed\t5\t5\t1\t%s' "$(mann_whitney_p 1.0,1.01,0.99,1.02,0.98 1.3,1.31,1.29,1.32,1.28)")"
	# rates are bytes per wall second, medians: 1 MB / 1.0 s and 1 MB / 1.3 s
	run -0 jq -r 'select(.type == "verdict") | [.write_rate.before, .write_rate.after, .read_rate.before] | @tsv' <<<"$(dft-compare "$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/a")"
	assert_output "$(printf '1000000\t769231\t2000000')"
	run -2 --separate-stderr dft-compare --alpha 1.5 "$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/a"
	[[ "$stderr" == *"--alpha: bad value '1.5' (expected a probability in (0, 1))"* ]] || fail "$stderr"
}

@test "repeated runs: three runs a side can never be significant at 0.05, so nothing is improved" {
	samples base 1.0 1.01 1.02 >"$BATS_TEST_TMPDIR/b"
	samples opt 0.5 0.51 0.52 >"$BATS_TEST_TMPDIR/a"
	run -0 bash -o pipefail -c "dft-compare '$BATS_TEST_TMPDIR/b' '$BATS_TEST_TMPDIR/a' | jq -r 'select(.type == \"verdict\") | [.verdict, .test.p] | @tsv'"
	# the smallest two-sided p of 3 against 3 is 2 / C(6, 3) = 0.1
	assert_output "$(printf 'unchanged\t0.1')"
	run -0 bash -o pipefail -c "dft-compare --alpha 0.2 '$BATS_TEST_TMPDIR/b' '$BATS_TEST_TMPDIR/a' | jq -r 'select(.type == \"verdict\") | .verdict'"
	assert_output improved
}

# The iteration record as jq builds it from the same files (the loop's
# record before dft-compare --iteration wrote it): the expected line.
iteration_by_jq() {
	local an=$1 prev=$2 dir=$3 pp=$4 smp=$5 cmp=$6
	local bl='[.[] | select(.type == "bottleneck" and (.bottleneck == true or .score >= 4))
		| {key: "\(.metric):\(.view // "app")",
		   fns: [(.functions // [])[] | select((.share // 0) >= 0.1
			and (.name | startswith("(") | not)) | .name][:2]}]
		| group_by(.key) | map({key: .[0].key, fns: (map(.fns[]) | unique)})
		| map(. + {show: (.key + (if (.fns | length) > 0
			then " (" + (.fns | join(", ")) + ")" else "" end))})'
	jq -n -c --argjson bn "$(jq -s -c "$bl" "$an")" --argjson old "$(jq -s -c "$bl" "$prev")" \
		--argjson applied "$(jq -s -c . "$dir/applied.ndjson")" \
		--argjson na "$(jq -s -c . "$dir/not_applicable.ndjson")" \
		--argjson l1 "$(jq -s -c '[.[] | select(.type == "proposal" and .level == "L1") | .id]' "$pp")" \
		--argjson smp "$(jq -c '{median_s, min_s, max_s, spread_pct, runs: (.runs | length), failed,
			read_b_s: .read_b_s.median, write_b_s: .write_b_s.median}' "$smp")" \
		--argjson test "$(jq -c 'select(.type == "verdict") | {name: .test.name, p: .test.p,
			significant: .test.significant, alpha: .test.alpha, pct: .completion_time.pct,
			before_s: .completion_time.before, noise_pct, text: .verdict_text}' "$cmp" | sed -n 1p)" \
		--arg verdict "$(jq -r 'select(.type == "verdict") | .verdict' "$cmp" | sed -n 1p)" \
		--arg rate "$(jq -r 'select(.type == "summary") | (.io.write.bytes // 0) as $b
			| (.io.write.time_s // 0) as $t | if $t > 0 then $b / $t / 1e9 else 0 end' "$an" | sed -n 1p)" \
		--arg comp "$(jq -r 'select(.type == "summary") | .span_s // 0' "$an" | sed -n 1p)" '
		([$old[].key]) as $ok | ([$bn[].key]) as $nk
		| {type: "iteration", v: 2, iteration: 1, run: "opt1", kind: "L2",
		 change: "applying L2 x.y", applied: $applied, not_applicable: $na, listed_l1: $l1,
		 bottlenecks: [$bn[].show],
		 new: [$bn[] | select(.key as $k | $ok | index($k) | not) | .show],
		 resolved: [$old[] | select(.key as $k | $nk | index($k) | not) | .show],
		 raw_write_rate_gbs: ($rate | tonumber? // 0), traced_completion_s: ($comp | tonumber? // 0),
		 completion_s: $smp.median_s, samples: $smp, test: $test,
		 verdict: $verdict, status: "rolled_back", reason: "no significant gain"}'
}

@test "--iteration writes the loop's iteration record from its files, as jq made it" {
	local d=$BATS_TEST_TMPDIR/it
	mkdir -p "$d"
	# a finding that names functions (one below 10 %, one a "(...)" bucket)
	{ cat "$C/after.ndjson"
	  printf '%s\n' '{"type":"bottleneck","v":2,"metric":"stdio_pct","score":5,"functions":[{"name":"log_line","share":0.5},{"name":"(other)","share":0.3},{"name":"flush","share":0.05}]}'
	} >"$d/an.ndjson"
	printf '%s\n' '{"id":"x.y","level":"L2","bottleneck":"small_write_pct","change":"buffer","action":{"env":{"A":"1.0"}}}' >"$d/applied.ndjson"
	printf '%s\n' '{"id":"z.w","level":"L3","reason":"needs root"}' >"$d/not_applicable.ndjson"
	printf '%s\n' '{"type":"proposal","id":"a.L1.b","level":"L1"}' '{"type":"proposal","id":"c.L2.d","level":"L2"}' >"$d/papers.ndjson"
	printf '%s\n' '{"type":"samples","v":1,"config":"iter1","median_s":1.50,"min_s":1.25,"max_s":2.0,"spread_pct":50.0,"failed":0,"runs":[{"wall_s":1.5,"rc":0},{"wall_s":1.25,"rc":0},{"wall_s":2.0,"rc":0}],"read_b_s":{"median":100.0},"write_b_s":{"median":2.5e-5}}' >"$d/samples.ndjson"
	run -0 dft-compare "$C/samples_before.ndjson" "$C/samples_after.ndjson"
	printf '%s\n' "$output" >"$d/compare.ndjson"
	run -0 dft-compare --iteration 1 --run opt1 --status rolled_back --kind L2 \
		--change "applying L2 x.y" --reason "no significant gain" --previous "$C/before.ndjson" \
		--actions "$d" --papers "$d/papers.ndjson" --samples "$d/samples.ndjson" \
		--compared "$d/compare.ndjson" "$d/an.ndjson"
	assert_output "$(iteration_by_jq "$d/an.ndjson" "$C/before.ndjson" "$d" "$d/papers.ndjson" \
		"$d/samples.ndjson" "$d/compare.ndjson")"
	# the functions found: only the named ones over 10 %
	run -0 jq -r '.bottlenecks[] | select(startswith("stdio_pct"))' <<<"$output"
	assert_output "stdio_pct:app (log_line)"
}

@test "--iteration without the optional files: none applied, no samples, no test, nothing new" {
	run -0 dft-compare --iteration 0 --run traces --status baseline --kind baseline \
		--change baseline --actions "$BATS_TEST_TMPDIR/none" "$C/before.ndjson"
	run -0 jq -c '[.applied, .not_applicable, .listed_l1, .new, .resolved, .samples, .test, .verdict, .reason,
		(.completion_s == .traced_completion_s)]' <<<"$output"
	assert_output '[[],[],[],[],[],null,null,null,null,true]'
	# the traced span of the analysis, written as jq writes it
	run -0 dft-compare --iteration 0 --run traces --status baseline "$C/before.ndjson"
	[[ "$output" == *"\"traced_completion_s\":$(jq -r 'select(.type == "summary") | .span_s' "$C/before.ndjson"),"* ]] ||
		fail "$output"
}

@test "--loop recommends the changes accepted up to the best iteration" {
	local d=$BATS_TEST_TMPDIR/loop
	mkdir -p "$d"
	printf '%s\n' '{"type":"iteration","iteration":0,"status":"baseline","change":"baseline"}' \
		'{"type":"iteration","iteration":1,"status":"accepted","change":"patch a.patch"}' \
		'{"type":"iteration","iteration":2,"status":"rolled_back","change":"patch b.patch"}' \
		'{"type":"iteration","iteration":3,"status":"accepted","change":null,"applied":[{"id":"x","change":"buffer"},{"id":"y"}]}' \
		'{"type":"iteration","iteration":4,"status":"accepted","change":"late"}' >"$d/it.ndjson"
	printf '%s\n' '{"id":"z","level":"L3","reason":"needs root"}' >"$d/na.ndjson"
	run -0 dft-compare --loop --iterations 4 --stop-reason MAX_ITERS --best 3 --repeat 5 \
		--not-applicable "$d/na.ndjson" "$d/it.ndjson"
	assert_output "$(jq -s -c --argjson na "$(jq -s -c . "$d/na.ndjson")" '{type: "loop", v: 2, iterations: 4,
		stop_reason: "MAX_ITERS", best_iteration: 3,
		recommended: [.[] | select(.iteration <= 3 and .status == "accepted") | .change // (.applied[] | .change // .id)],
		not_applicable: $na, repeat: 5}' "$d/it.ndjson")"
	# skipped: nothing run, nothing recommended
	run -0 dft-compare --loop --stop-reason SKIPPED
	assert_output '{"type":"loop","v":2,"iterations":0,"stop_reason":"SKIPPED","best_iteration":0,"recommended":[],"not_applicable":[],"repeat":0}'
}

@test "the options of --iteration and --loop go with their mode" {
	run -2 --separate-stderr dft-compare --run opt1 "$C/before.ndjson" "$C/after.ndjson"
	assert_equal "${stderr_lines[0]}" "dft-compare: --run goes with --iteration"
	run -2 --separate-stderr dft-compare --best 1 "$C/before.ndjson" "$C/after.ndjson"
	assert_equal "${stderr_lines[0]}" "dft-compare: --best goes with --loop"
	run -2 --separate-stderr dft-compare --iteration 1 --loop --stop-reason X "$C/before.ndjson"
	assert_equal "${stderr_lines[0]}" "dft-compare: --iteration and --loop exclude each other"
	run -2 --separate-stderr dft-compare --iteration 1 --run opt1 "$C/before.ndjson"
	assert_equal "${stderr_lines[0]}" "dft-compare: --iteration needs --run and --status"
	run -2 --separate-stderr dft-compare --loop
	assert_equal "${stderr_lines[0]}" "dft-compare: --loop needs --stop-reason"
	run -2 --separate-stderr dft-compare --iteration x --run r --status s "$C/before.ndjson"
	[[ "${stderr_lines[0]}" == "dft-compare: --iteration: bad value 'x'"* ]] || fail "$stderr"
}
