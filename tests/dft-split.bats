#!/usr/bin/env bats
# dft-split: chunk files and records, the 95 % rule, self-contained
# chunks, --by pid / time, --verify, bad input.

load test_helper

BAD="$FIXTURES/traces-bad"
GEN2="$TRACES/gen2-dftracer-2.0.2/app-c02066f3eb9b3ec0-app.pfw.gz"

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "dft-split --help prints the usage on stdout" { checklist_help dft-split; }
@test "dft-split --version prints the suite's version" { checklist_version dft-split; }
@test "dft-split rejects an unknown option" { checklist_unknown_option dft-split; }
@test "dft-split on empty input prints nothing but its step" {
	checklist_empty_input dft-split
	[ ! -e split ]
}
@test "dft-split reads a file operand, stdin and -" { checklist_dash_is_stdin dft-split; }
@test "dft-split reports a missing file" { checklist_missing_file dft-split; }
@test "dft-split reports a write error" { checklist_dev_full dft-split; }
@test "dft-split man page lints and documents every option" { checklist_man dft-split; }

@test "dft-split rejects an option without its argument" {
	checklist_missing_argument dft-split -n --name -o --output -s --size -j --jobs --by
	checklist_usage_error dft-split "option requires an argument: --by time" --by time
}
@test "dft-split --help and --version fail on a full disk" { checklist_help_dev_full dft-split; }

@test "a bad option value names the option and the value" {
	checklist_bad_value dft-split --by nosuch "size, pid or time SECONDS"
	checklist_usage_error dft-split "--by time: bad value '$GEN2' (expected a number from 1e-06 to 1e+09)" --by time "$GEN2"
	checklist_usage_error dft-split "--by time: bad value '0' (expected a number from 1e-06 to 1e+09)" --by time 0 "$GEN2"
	checklist_usage_error dft-split "--size: bad value '0' (expected a number from 1e-06 to 1e+06)" -s 0 "$GEN2"
	checklist_bad_value dft-split --name a/b "a name without '/'"
	checklist_bad_value dft-split --jobs 0 "an integer from 1 to 1024"
}

@test "by default a small trace is one 4 MiB chunk named app-1.pfw.gz under ./split" {
	run -0 --separate-stderr dft-split "$GEN2"
	[ -f split/app-1.pfw.gz ]
	[ "${#lines[@]}" -eq 2 ]
	run -0 bash -o pipefail -c "dft-split '$GEN2' | jq -c 'select(.type==\"chunk\") | [.path,.app,.index,.by,.events,.metadata]'"
	assert_output '["split/app-1.pfw.gz","app",1,"size",517,6]'
	# the chunk is framed like dftracer's and a single gzip member
	run -0 bash -o pipefail -c "zcat split/app-1.pfw.gz | sed -n 1p; zcat split/app-1.pfw.gz | tail -n 1"
	assert_output "$(printf '[\n]')"
}

@test "chunks close at 95 % of the target and hold every event" {
	run -0 --separate-stderr dft-split -n demo -o out -s 0.02 --verify "$GEN2"
	n=$(printf '%s\n' "$output" | grep -c '"type":"chunk"')
	[ "$n" -ge 4 ]
	[ -f out/demo-1.pfw.gz ] && [ -f "out/demo-$n.pfw.gz" ]
	# every chunk but the last reached 95 % of 0.02 MiB
	run -0 bash -o pipefail -c "dft-split -n demo -o out -s 0.02 '$GEN2' | jq -r 'select(.type==\"chunk\") | .bytes' | head -n -1 | awk '\$1 < 0.95 * 0.02 * 1048576' | wc -l"
	assert_output "0"
	run -0 bash -o pipefail -c "dft-split -n demo -o out -s 0.02 --verify '$GEN2' | jq -s -c '[map(select(.type==\"chunk\")) | (map(.events) | add), all(.verified)]'"
	assert_output "[517,true]"
	# the same events as zcat shows, none lost or doubled
	[ "$(zcat out/demo-*.pfw.gz | jq -R -c 'fromjson? | select(.ph=="X") | .id' | sort -n | uniq | wc -l)" = 517 ]
}

@test "every chunk is self-contained: its files and host resolve alone" {
	dft-split -o out -s 0.01 "$TRACES/gen1-cm1/cm1-DEFAULT-3537781-preload.pfw.gz" >chunks.ndjson
	[ "$(grep -c '"type":"chunk"' chunks.ndjson)" -gt 5 ]
	# each chunk analyzed alone; then one jq over the analyses
	for c in out/app-*.pfw.gz; do
		dft-analyze -t 100000 "$c" >"$c.ndjson" || fail "dft-analyze $c: status $?"
	done
	run -0 jq -r 'select(.type=="view" and (.view=="file" or .view=="process")) | "\(input_filename) \(.key)"' out/app-*.pfw.gz.ndjson
	[ "$(printf '%s\n' "$output" | cut -d ' ' -f 1 | sort -u | wc -l)" -eq "$(ls out/app-*.pfw.gz | wc -l)" ]
	refute_output --partial 'fhash:'
	refute_output --partial 'hhash:'
}

@test "each chunk names its source, series and part: in its record and in its second line" {
	a="$TRACES/gen1-cm1/cm1-DEFAULT-3537780-preload.pfw.gz"
	b="$TRACES/gen1-cm1/cm1-DEFAULT-3537781-preload.pfw.gz"
	dft-split -o out -s 0.05 "$a" "$b" >chunks.ndjson
	# two sources, two series; parts 1..parts in index order within each
	run -0 jq -s -c '[.[] | select(.type=="chunk")] | group_by(.series) | map([.[0].sources[0], length, (map(.part) == [range(1; length + 1)]), (map(.parts) | unique), (map(.index) | . == sort)]) | sort' chunks.ndjson
	n1=$(jq -s '[.[] | select(.type=="chunk" and .sources[0]=="'"$a"'")] | length' chunks.ndjson)
	n2=$(jq -s '[.[] | select(.type=="chunk" and .sources[0]=="'"$b"'")] | length' chunks.ndjson)
	[ "$n1" -gt 1 ] && [ "$n2" -gt 1 ]
	assert_output "[[\"$a\",$n1,true,[$n1],true],[\"$b\",$n2,true,[$n2],true]]"
	# the dft_chunk line says the same; it is no event and no name
	run -0 jq -c 'select(.type=="chunk") | ["dft_chunk", "M", .series, .part, .sources[0]]' chunks.ndjson
	want=$output
	run -0 bash -o pipefail -c "jq -r 'select(.type==\"chunk\") | .path' chunks.ndjson |
		while read -r p; do zcat \"\$p\" | sed -n 2p; done |
		jq -c '[.name, .ph, .args.series, .args.part, .args.source]'"
	assert_output "$want"
	[ "$(jq -s '[.[] | select(.type=="chunk") | .events] | add' chunks.ndjson)" = "$(zcat "$a" "$b" | grep -c -e '"ph":"X"' -e '"ph":"C"')" ]
	# splitting the chunks again writes one dft_chunk line per new chunk
	dft-split -o again -s 1 <chunks.ndjson >again.ndjson
	[ "$(zcat again/*.pfw.gz | grep -c '"name":"dft_chunk"')" = "$(grep -c '"type":"chunk"' again.ndjson)" ]
	# a split of the same trace elsewhere is another series
	dft-split -o other -s 0.05 "$a" >other.ndjson
	[ "$(jq -r 'select(.type=="chunk" and .part==1) | .series' other.ndjson)" != "$(jq -r 'select(.type=="chunk" and .part==1 and .sources[0]=="'"$a"'") | .series' chunks.ndjson)" ]
}

@test "--by pid cuts one series per process" {
	run -0 --separate-stderr dft-split --by pid -o out "$TRACES"/gen1-cm1/*.pfw.gz
	run -0 bash -o pipefail -c "dft-split --by pid -o out '$TRACES'/gen1-cm1/*.pfw.gz | jq -r 'select(.type==\"chunk\") | .pid' | sort -u"
	assert_output "$(printf 'corona173#3537780\ncorona173#3537781\ncorona173#3537782\ncorona173#3537783')"
}

@test "--by time cuts chunks per time window" {
	run -0 bash -o pipefail -c "dft-split --by time 10 -o out '$TRACES/gen0-dlio-unet3d.pfw.gz' | jq -s -c '[map(select(.type==\"chunk\")) | length, (map(.events)|add)]'"
	# the trace spans about 105 s: eleven or more windows of 10 s
	[ "$(printf '%s' "$output" | jq '.[0]')" -ge 11 ]
	[ "$(printf '%s' "$output" | jq '.[1]')" = 93894 ]
	run -0 bash -o pipefail -c "dft-split --by time=10 -o out2 '$TRACES/gen0-dlio-unet3d.pfw.gz' | jq -c 'select(.type==\"chunk\") | .by' | sort -u"
	assert_output '"time"'
}

@test "chunk records on stdin are split again, other records pass through" {
	dft-split -o a -s 0.02 "$GEN2" >first.ndjson
	printf '%s\n' "$PASS_RECORD" >>first.ndjson
	run -0 bash -o pipefail -c "dft-split -o b -s 1 <first.ndjson | grep -v '\"type\":\"step\"'"
	assert_line "$PASS_RECORD"
	[ "$(printf '%s\n' "$output" | jq -s '[.[] | select(.type=="chunk") | .events] | add')" = 517 ]
}

@test "trace paths are read from stdin" {
	run -0 bash -o pipefail -c "printf '%s\n' '$GEN2' | dft-split -o p | jq -c 'select(.type==\"chunk\") | .events'"
	assert_output "517"
}

@test "a truncated input is split up to the cut and reported" {
	run -1 --separate-stderr dft-split -o t --verify "$BAD/truncated.pfw.gz"
	[[ "$stderr" == *"gzip stream is truncated"* ]]
	[ "$(printf '%s\n' "$output" | jq -s '[.[] | select(.type=="chunk") | .events] | add')" = 285 ]
}

@test "bad lines are reported with file:line and skipped" {
	run -1 --separate-stderr dft-split -o t "$BAD/bad-lines.pfw"
	[[ "$stderr" == *"bad-lines.pfw:5: malformed JSON; line skipped"* ]]
	[ "$(printf '%s\n' "$output" | jq -s '[.[] | select(.type=="chunk") | .events] | add')" = 3 ]
}

@test "an unwritable output directory is fatal" {
	mkdir ro && chmod 500 ro
	if [ "$(id -u)" = 0 ]; then skip "root can write anywhere"; fi
	run -2 --separate-stderr dft-split -o ro/x "$GEN2"
}

@test "a directory operand stands for its traces" {
	run -0 bash -o pipefail -c "dft-split --by pid -o d '$TRACES/gen1-cm1' | jq -s -c '[.[] | select(.type==\"chunk\") | .events] | add'"
	assert_output "25736"
}
