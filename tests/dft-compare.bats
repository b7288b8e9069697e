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
	run -2 --separate-stderr bash -c "dft-compare '$C/before.ndjson' '$C/after.ndjson' >/dev/full"
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
	run -0 bash -c "dft-compare '$C/before.ndjson' '$C/after.ndjson' |
		jq -r 'select(.type==\"delta\" and (.group==\"file\" or .group==\"process\") and .metric==\"count\") | [.group, .key, .before, .after] | @tsv'"
	assert_output "$(printf 'file\t/out/ckpt_#.h#\t2000\t500\nprocess\trank0\t3000\t900\nprocess\trank1\t3100\t850')"
}

@test "Cohen's d comes from the per-window distributions, with its label" {
	run -0 bash -c "dft-compare '$C/before.ndjson' '$C/after.ndjson' |
		jq -r 'select(.type==\"delta\" and .group==\"io\" and .key==\"all\" and .metric==\"time_s\") | [.cohens_d, .significance, .windows_before] | @tsv'"
	# windows 4, 3.5, 4.5, 3 -> 1.8, 1.6, 1.9, 1.7: d = -2 / sqrt((0.3125 + 0.0125) / 2)
	assert_output "$(printf -- '-4.96139\tLARGE\t4')"
}

@test "regressions are more count, time or size, or less bandwidth" {
	run -0 bash -c "dft-compare '$C/after.ndjson' '$C/before.ndjson' |
		jq -r 'select(.type==\"delta\" and .group==\"io\" and .key==\"write\") | [.metric, .regression] | @tsv'"
	assert_output "$(printf 'count\ttrue\ntime_s\ttrue\nbytes\tfalse\nbw_b_s\ttrue')"
}

@test "the verdict is judged on raw write rate and completion time within the tolerance" {
	run -0 bash -c "dft-compare '$C/before.ndjson' '$C/regressed.ndjson' | jq -r 'select(.type==\"verdict\") | .verdict, .reason'"
	assert_output "$(printf 'regressed\nraw write rate 16.7 %% lower; completion time 30.0 %% longer')"
	# a 20 % tolerance absorbs the write-rate loss but not the 30 % longer run
	run -0 bash -c "dft-compare --tolerance 20 '$C/before.ndjson' '$C/regressed.ndjson' | jq -r 'select(.type==\"verdict\") | .reason'"
	assert_output "raw write rate within 20 %; completion time 30.0 % longer"
	run -0 bash -c "dft-compare '$C/before.ndjson' '$C/before.ndjson' | jq -r 'select(.type==\"verdict\") | .verdict, .line'"
	assert_output "$(printf 'unchanged\nresolved=0 bottlenecks, new=0, raw_rate 0.1\xe2\x86\x920.1 GB/s (comparator: unchanged)')"
}

@test "--fail-on-regression exits 3 on a regression and 0 otherwise" {
	run -3 dft-compare --fail-on-regression "$C/before.ndjson" "$C/regressed.ndjson"
	assert_output --partial '"verdict":"regressed"'
	run -0 dft-compare --fail-on-regression "$C/before.ndjson" "$C/after.ndjson"
	run -0 dft-compare "$C/before.ndjson" "$C/regressed.ndjson"
}

@test "--threshold keeps only the deltas that moved enough" {
	run -0 bash -c "dft-compare --threshold 60 '$C/before.ndjson' '$C/after.ndjson' |
		jq -r 'select(.type==\"delta\" and .group!=\"bottleneck\") | (.pct | fabs >= 60)' | sort -u"
	assert_output "true"
}

@test "trace directories are analyzed first with dft-analyze" {
	[ -d "$TRACES/gen1-cm1" ] || skip "no shared traces"
	run -0 bash -c "dft-compare '$TRACES/gen1-cm1' '$TRACES/gen1-cm1' | jq -r 'select(.type==\"verdict\") | [.verdict, .raw_write_rate.before, .completion_time.before] | @tsv'"
	assert_output "$(printf 'unchanged\t120058000\t145.331')"
	# every time window is kept, so Cohen's d has the whole distribution
	run -0 bash -c "dft-compare '$TRACES/gen1-cm1' '$TRACES/gen1-cm1' |
		jq -r 'select(.type==\"delta\" and .group==\"io\" and .key==\"all\" and .metric==\"count\") | [.cohens_d, .windows_before] | @tsv'"
	assert_output "$(printf '0\t127')"
}

@test "a stream with several analyses uses the last one, and stdin works" {
	run -0 bash -c "cat '$C/after.ndjson' '$C/before.ndjson' | dft-compare - '$C/before.ndjson' | jq -r 'select(.type==\"verdict\") | .verdict'"
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
		run bash -c "set -o pipefail; $ex >/dev/null"
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
	run -0 bash -c "dft-compare '$BATS_TEST_TMPDIR/b' '$BATS_TEST_TMPDIR/a' | jq -r 'select(.type == \"verdict\") | [.verdict, .test.p] | @tsv'"
	# the smallest two-sided p of 3 against 3 is 2 / C(6, 3) = 0.1
	assert_output "$(printf 'unchanged\t0.1')"
	run -0 bash -c "dft-compare --alpha 0.2 '$BATS_TEST_TMPDIR/b' '$BATS_TEST_TMPDIR/a' | jq -r 'select(.type == \"verdict\") | .verdict'"
	assert_output improved
}
