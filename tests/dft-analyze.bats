#!/usr/bin/env bats
# dft-analyze: the trace reader on every fixture generation, the summary
# numbers (the expected values derived here from the trace lines with
# Python's json and zlib, see derived), presets, findings with their functions,
# bad input, --partial/--merge, and split -> analyze.

load test_helper

BAD="$FIXTURES/traces-bad"
GEN2="$TRACES/gen2-dftracer-2.0.2/app-c02066f3eb9b3ec0-app.pfw.gz"

# summary SELECTOR: the jq value of the summary record of the last run
summary() {
	printf '%s\n' "$output" | jq -c "select(.type==\"summary\") | $1"
}

# derived FILE...: the summary numbers of the traces FILE..., from their
# lines alone (tests/derive-summary.py says how)
derived() {
	python3 "$BATS_TEST_DIRNAME/derive-summary.py" "$@"
}

# same SELECTOR FILE...: the summary of the last run gives SELECTOR the value
# derived from FILE... (objects compared with their keys sorted)
same() {
	local sel=$1 got want d
	shift
	d="$BATS_TEST_TMPDIR/derived.$(printf '%s\n' "$@" | md5sum | cut -c 1-16)"
	[ -s "$d" ] || derived "$@" >"$d"
	want=$(jq -S -c "$sel" "$d")
	got=$(printf '%s\n' "$output" | jq -S -c "select(.type==\"summary\") | $sel")
	[ -n "$want" ] && [ "$want" != null ] || fail "nothing derived for $sel"
	[ "$got" = "$want" ] || fail "summary $sel: $got; derived from the trace: $want"
}

@test "dft-analyze --help prints the usage on stdout" { checklist_help dft-analyze; }
@test "dft-analyze --version prints the suite's version" { checklist_version dft-analyze; }
@test "dft-analyze rejects an unknown option" { checklist_unknown_option dft-analyze; }
@test "dft-analyze rejects an option without its argument" { checklist_missing_argument dft-analyze -j --jobs -p -c -t --top -f --shard --functions; }
@test "dft-analyze names the option and the value of a bad value" {
	checklist_bad_value dft-analyze --jobs 0 "an integer from 1 to 1024"
	checklist_bad_value dft-analyze --preset x "posix or dlio"
	checklist_bad_value dft-analyze --format html "json or table"
	checklist_bad_value dft-analyze --shard 4/3 "K/N, 1 <= K <= N"
	checklist_bad_value dft-analyze --shard 1 "K/N, 1 <= K <= N"
}
@test "dft-analyze --help and --version fail on a full disk" { checklist_help_dev_full dft-analyze; }
@test "dft-analyze on empty input prints nothing but its step" { checklist_empty_input dft-analyze; }
@test "dft-analyze reads a file operand, stdin and -" { checklist_dash_is_stdin dft-analyze; }
@test "dft-analyze reports a malformed line with its position" { checklist_malformed_line dft-analyze; }
@test "dft-analyze reports a missing file" { checklist_missing_file dft-analyze; }
@test "dft-analyze reports a write error" { checklist_dev_full dft-analyze; }
@test "dft-analyze man page lints and documents every option" { checklist_man dft-analyze; }

@test "usage errors exit 2" {
	run -2 --separate-stderr dft-analyze --preset nosuch "$GEN2"
	run -2 --separate-stderr dft-analyze --format xml "$GEN2"
	run -2 --separate-stderr dft-analyze --partial --merge "$GEN2"
	run -2 --separate-stderr dft-analyze --jobs 0 "$GEN2"
}

@test "the gen0 tiny trace has 12 events, 11 reads and one process" {
	run -0 --separate-stderr dft-analyze "$TRACES/gen0-tiny.pfw"
	same '[.events,.io.read.count,.io.read.bytes,.processes]' "$TRACES/gen0-tiny.pfw"
	same '.functions|map({(.name):.count})|add' "$TRACES/gen0-tiny.pfw"
	[ "$(summary '.formats.gen0')" = 1 ]
}

@test "the gen0 POSIX trace is read with strings as numbers, inline names and a leading space" {
	run -0 --separate-stderr dft-analyze "$TRACES/gen0-posix.pfw"
	same '[.events,.io.read.count,.io.read.bytes,.io.write.count,.io.write.bytes,.processes]' "$TRACES/gen0-posix.pfw"
	same '.functions|map({(.name):.count})|add' "$TRACES/gen0-posix.pfw"
	[ "$(summary '.files')" -ge 1 ]
}

@test "the gen0 DLIO trace gives its numbers and chooses the dlio preset" {
	run -0 --separate-stderr dft-analyze "$TRACES/gen0-dlio-unet3d.pfw.gz"
	same '[.events,.io.read.count,.io.read.bytes,.io.write.bytes,.processes]' "$TRACES/gen0-dlio-unet3d.pfw.gz"
	same '.functions|map({(.name):.count})|add' "$TRACES/gen0-dlio-unet3d.pfw.gz"
	[ "$(summary '.preset')" = '"dlio"' ]
}

@test "the DLIO trace yields the reader, data_loader and fetch_data layers" {
	run -0 --separate-stderr dft-analyze "$TRACES/gen0-dlio-unet3d.pfw.gz"
	layers=$(printf '%s\n' "$output" | jq -r 'select(.type=="layer") | .layer' | tr '\n' ' ')
	[ "$layers" = "app training compute fetch_data data_loader data_loader_fork reader reader_posix checkpoint checkpoint_posix other_posix " ]
	# the layers' events, from the trace with jq: the categories of the
	# dlio preset (dft-analyze(1)), the loader's without loop.iter and
	# loop.yield; fetch_data has none of its own (*.iter)
	read -r loader reader fetch < <(zcat "$TRACES/gen0-dlio-unet3d.pfw.gz" | jq -R -n -r '[inputs | fromjson? | objects] |
		[map(select((.cat == "data_loader" or .cat == "dataloader") and .name != "loop.iter" and .name != "loop.yield")),
		 map(select(.cat == "reader")), map(select(.name | endswith(".iter")))] | map(length) | @tsv')
	[ "$loader" -gt 0 ] && [ "$reader" -gt 0 ]
	printf '%s\n' "$output" | jq -c 'select(.type=="layer" and (.layer=="reader" or .layer=="data_loader" or .layer=="fetch_data")) | [.layer,.count,.parent,(.time_s>0)]' >"$BATS_TEST_TMPDIR/layers"
	run -0 cat "$BATS_TEST_TMPDIR/layers"
	assert_line "[\"data_loader\",$loader,\"fetch_data\",true]"
	assert_line "[\"reader\",$reader,\"data_loader\",true]"
	assert_line "[\"fetch_data\",$fetch,\"training\",true]"
	run -0 bash -o pipefail -c "dft-analyze '$TRACES/gen0-dlio-unet3d.pfw.gz' | jq -r 'select(.type==\"layer\" and .layer==\"fetch_data\") | .derived_from'"
	assert_output "training - compute"
}

@test "the DLIO trace yields its findings: fetch pressure, stragglers, bandwidth" {
	run -0 bash -o pipefail -c "dft-analyze '$TRACES/gen0-dlio-unet3d.pfw.gz' | jq -r 'select(.type==\"bottleneck\") | \"\(.class) \(.insight) \(.severity) \(.forced) \(.functions[0].name) \(.insights|join(\",\"))\"'"
	# reading at the file system's bandwidth saves most of the run: it
	# comes first (critical); the stall next, the straggler rule a facet
	# of it, its severity what overlapping loading with compute saves
	# (below: medium)
	assert_line --index 0 --partial "fs_bw D04 critical true"
	assert_line --index 1 --regexp "^data_loader D01 [a-z]+ true NPZReader.open D01,D02$"
	sev=${lines[1]#data_loader D01 }
	sev=${sev%% *}
	# the wait: per epoch (DLIOBenchmark._train) the time outside
	# TorchFramework.compute, both de-duplicated (the fixture repeats
	# events); derived independently with jq from the unique events
	want=$(zcat "$TRACES/gen0-dlio-unet3d.pfw.gz" | grep -E '"(DLIOBenchmark._train|TorchFramework.compute)"' | jq -s -r '
		map({n: .name, s: (.ts|tonumber), e: ((.ts|tonumber) + (.dur|tonumber))}) | unique as $u
		| [$u[] | select(.n == "DLIOBenchmark._train")] as $ep
		| [$ep | length, ([$ep[] | . as $x | ($x.e - $x.s) - ([$u[] | select(.n == "TorchFramework.compute" and .s >= $x.s and .e <= $x.e) | .e - .s] | add // 0)]
		| add / 1e6 | . * 1000 | round)] | @tsv')
	run -0 bash -o pipefail -c "dft-analyze '$TRACES/gen0-dlio-unet3d.pfw.gz' | jq -r 'select(.type==\"bottleneck\" and .class==\"data_loader\") | [.evidence.epochs, (.time_s * 1000 | round)] | @tsv'"
	assert_output "$want"
	# the saving: per epoch the smaller of the wait and the compute
	save=$(zcat "$TRACES/gen0-dlio-unet3d.pfw.gz" | grep -E '"(DLIOBenchmark._train|TorchFramework.compute)"' | jq -s -r '
		map({n: .name, s: (.ts|tonumber), e: ((.ts|tonumber) + (.dur|tonumber))}) | unique as $u
		| [$u[] | select(.n == "DLIOBenchmark._train") | . as $x
		  | ([$u[] | select(.n == "TorchFramework.compute" and .s >= $x.s and .e <= $x.e) | .e - .s] | add // 0) as $c
		  | [($x.e - $x.s) - $c, $c] | min] | add')
	run -0 bash -o pipefail -c "dft-analyze '$TRACES/gen0-dlio-unet3d.pfw.gz' | jq -r -s '(.[] | select(.type == \"summary\") | .process_wall_s) as \$w
	  | .[] | select(.type==\"bottleneck\" and .class==\"data_loader\") | \"\\(.saving_s * 1e3 | round) \\($save / 1e6 / \$w | if . >= 0.1 then \"high\" elif . >= 0.03 then \"medium\" else \"low\" end)\"'"
	assert_output "$(( (save + 500) / 1000 )) $sev"
	[ "$sev" = medium ]
}

@test "the gen1 CM1 ranks give their numbers over four files" {
	run -0 --separate-stderr dft-analyze "$TRACES"/gen1-cm1/*.pfw.gz
	same '[.events,.io.read.count,.io.read.bytes,.io.write.count,.io.write.bytes,.processes,.hosts]' "$TRACES"/gen1-cm1/*.pfw.gz
	same '.functions|map({(.name):.count})|add' "$TRACES"/gen1-cm1/*.pfw.gz
	[ "$(summary '.formats.gen1')" = "$(ls "$TRACES"/gen1-cm1/*.pfw.gz | wc -l)" ]
}

@test "gen1 files read with one thread or two give the same records" {
	run -0 bash -o pipefail -c "dft-analyze -j 1 '$TRACES'/gen1-cm1/*.pfw.gz | grep -v '\"type\":\"step\"'"
	one=$output
	run -0 bash -o pipefail -c "dft-analyze -j 2 '$TRACES'/gen1-cm1/*.pfw.gz | grep -v '\"type\":\"step\"'"
	[ "$output" = "$one" ]
}

@test "the gen2 trace gives its numbers, hex hashes resolved to names" {
	run -0 --separate-stderr dft-analyze "$GEN2"
	same '[.events,.io.read.count,.io.read.bytes,.io.write.count,.io.write.bytes,.processes]' "$GEN2"
	same '.functions|map({(.name):.count})|add' "$GEN2"
	[ "$(summary '.formats.gen2')" = 1 ]
	# the files of the I/O events, their FH names found with jq
	want=$(zcat "$GEN2" | jq -R -n -r '[inputs | fromjson? | objects]
		| (map(select(.name == "FH") | {key: .args.value, value: .args.name}) | from_entries) as $fh
		| [.[] | select(.cat == "POSIX" or .cat == "STDIO") | .args.fhash // empty | $fh[.]] | unique[]')
	[ -n "$want" ]
	run -0 bash -o pipefail -c "dft-analyze '$GEN2' | jq -r 'select(.type==\"view\" and .view==\"file\") | .key'"
	assert_output "$want"
}

@test "gen2 plain trace without a final newline reads the same" {
	run -0 --separate-stderr dft-analyze "$TRACES"/gen2-dftracer-2.0.2/plain-*.pfw
	[ -n "$(tail -c 1 "$TRACES"/gen2-dftracer-2.0.2/plain-*.pfw)" ]
	same '[.events,.io.read.bytes,.io.write.count,.io.write.bytes]' "$TRACES"/gen2-dftracer-2.0.2/plain-*.pfw
	same '[.events,.io.read.bytes,.io.write.count,.io.write.bytes]' "$GEN2"
	[ "$(summary '.bad_lines')" = 0 ]
}

@test "the gen2 preload trace has 16 writes of 4 KiB" {
	run -0 --separate-stderr dft-analyze "$TRACES"/gen2-dftracer-2.0.2/pre-*.gz
	same '[.events,.io.write.count,.io.write.bytes,.io.read.bytes,.size_histogram.write]' "$TRACES"/gen2-dftracer-2.0.2/pre-*.gz
}

@test "the small writes are blamed on write_records" {
	# every write is under small_bytes, and write_records encloses them all
	small=$(dft-analyze --thresholds | sed -n 's/^small_bytes = //p')
	n=$(zcat "$GEN2" | jq -R -n --argjson s "$small" '[inputs | fromjson? | objects | select(.name == "write")] as $w
		| if ($w | all(.args.ret < $s)) then $w | length else "not all small" end')
	[ "$n" -gt 0 ]
	run -0 bash -o pipefail -c "dft-analyze '$GEN2' | jq -c 'select(.type==\"bottleneck\" and .insight==\"P06\") | [.metric,.value,.evidence.small_writes,.functions[0].name,.functions[0].share]'"
	assert_output "[\"small_write_pct\",1,$n,\"write_records\",1]"
	run -0 bash -o pipefail -c "dft-analyze -f table '$GEN2'"
	assert_output --partial "small_write: Many small write requests"
	assert_output --partial "-> write_records (C_APP) 100.0%"
}

@test "thresholds: --config overrides, --thresholds prints them" {
	run -0 dft-analyze --thresholds
	assert_line "small_requests_absolute = 1000"
	# one line a threshold, the same set as the shipped defaults file
	diff <(printf '%s\n' "${lines[@]}" | sort) \
		<(grep '^[a-z0-9_]* = ' "$REPO/share/dft/thresholds.conf" | sort)
	printf 'small_requests_absolute = 100 # lower\n' >"$BATS_TEST_TMPDIR/t.conf"
	run -0 dft-analyze --thresholds --config "$BATS_TEST_TMPDIR/t.conf"
	assert_line "small_requests_absolute = 100"
	# the threshold decides whether a rule fires: with 100 the count
	# holds and P06 scores as a HIGH insight; the severity of the finding
	# still comes from its share of wall time
	run -0 bash -o pipefail -c "dft-analyze '$GEN2' | jq -c 'select(.type==\"bottleneck\" and .insight==\"P06\") | .description'"
	assert_output --partial "below the absolute count threshold"
	run -0 bash -o pipefail -c "dft-analyze -c '$BATS_TEST_TMPDIR/t.conf' '$GEN2' | jq -c 'select(.type==\"bottleneck\" and .insight==\"P06\") | .description'"
	refute_output --partial "below the absolute count threshold"
	printf 'no_such_threshold = 1\n' >"$BATS_TEST_TMPDIR/bad.conf"
	run -2 --separate-stderr dft-analyze -c "$BATS_TEST_TMPDIR/bad.conf" "$GEN2"
	[[ "$stderr" == *"bad.conf:1: unknown threshold 'no_such_threshold'"* ]]
}

@test "bottlenecks are ranked by severity, then time at stake, ties by the data-loader stall, then the class name" {
	# two processes at the same time writing 100 kB and 10 kB requests:
	# a size imbalance between processes (the two fixtures alone ran
	# years apart), whose time at stake ties with the DLIO fs_bw finding
	for p in 1 2; do
		for i in $(seq 0 9); do
			printf '{"id":0,"name":"write","cat":"POSIX","pid":%d,"tid":%d,"ts":%d,"dur":1000,"ph":"X","args":{"fname":"/scratch/out%d","ret":%d}}\n' \
				"$p" "$p" $(( (p - 1) * 500 + i * 20000 )) "$p" $(( p == 1 ? 100000 : 10000 ))
		done
	done >"$BATS_TEST_TMPDIR/imb.pfw"
	run -0 bash -o pipefail -c "dft-analyze --all '$TRACES/gen0-dlio-unet3d.pfw.gz' '$GEN2' '$BATS_TEST_TMPDIR/imb.pfw' | jq -c 'select(.type==\"bottleneck\") | [.rank, .time_s, .class, .score]'"
	[ "${#lines[@]}" -gt 3 ]
	# the input can fail the rule: several times at stake and a tie, and
	# a finding of a lower severity with more at stake than a higher one
	[ "$(printf '%s\n' "$output" | jq -s '[.[][1]] | unique | length')" -gt 3 ]
	[ "$(printf '%s\n' "$output" | jq -s 'group_by(.[1]) | map(select(length > 1)) | length')" -ge 1 ]
	[ "$(printf '%s\n' "$output" | jq -s '[.[] as $a | .[] | select(.[3] > $a[3] and .[1] < $a[1])] | length')" -ge 1 ]
	# dft-analyze(1): severity first, then time_s highest first; a tie
	# puts data_loader first, then the class names in order; ranks 1, 2,
	# ... in that order
	want=$(printf '%s\n' "$output" | jq -s -c 'sort_by(-.[3], -.[1], (if .[2] == "data_loader" then 0 else 1 end), .[2])
		| to_entries[] | [.key + 1, .value[1], .value[2], .value[3]]')
	assert_output "$want"
}

@test "gen1 hashes above 2^63 and a crashed file without brackets are read" {
	run -0 --separate-stderr dft-analyze "$BAD/gen1-bighash.pfw"
	same '[.events,.metadata_events,.io.read.bytes,.hosts,.threads]' "$BAD/gen1-bighash.pfw"
	[ "$(summary '.formats.gen1')" = 1 ]
	run -0 bash -o pipefail -c "dft-analyze '$BAD/gen1-bighash.pfw' | jq -r 'select(.type==\"view\") | .key' | sed -n 1,2p"
	assert_line "/data/train/img_0001.npz"
	assert_line "node001#12345"
}

@test "gen2 aggregated C events count their calls" {
	run -0 --separate-stderr dft-analyze "$BAD/gen2-agg.pfw"
	same '[.events,.calls,.io.read.count,.io.read.bytes,.metadata_events]' "$BAD/gen2-agg.pfw"
	[ "$(summary '.calls')" -gt "$(summary '.events')" ]
}

@test "gen3 NDJSON with integer ph gives the source lines of functions" {
	run -0 --separate-stderr dft-analyze "$BAD/gen3.pfw"
	same '[.events,.metadata_events,.io.write.bytes]' "$BAD/gen3.pfw"
	[ "$(summary '.formats.gen3')" = 1 ]
	run -0 bash -o pipefail -c "dft-analyze '$BAD/gen3.pfw' | jq -c 'select(.type==\"bottleneck\" and .insight==\"P01\") | .functions[0] | [.name,.file,.line]'"
	assert_output '["CUSTOM_BLOCK","src/solver.cpp",214]'
}

@test "bad lines are counted, reported with file:line, the rest is read" {
	run -1 --separate-stderr dft-analyze "$BAD/bad-lines.pfw"
	[[ "$stderr" == *"bad-lines.pfw:5: malformed JSON; line skipped"* ]]
	[[ "$stderr" == *"bad-lines.pfw:6: not a JSON object; line skipped"* ]]
	[[ "$stderr" == *"bad-lines.pfw:11: truncated last line; line skipped"* ]]
	same '[.events,.io.write.count]' "$BAD/bad-lines.pfw"
	# bad: not blank, no bracket, and no JSON object once a trailing comma
	# is dropped; the file ends without a newline, cut
	bad=$(jq -R -r 'select(test("\\S") and (test("^\\s*[][]\\s*$") | not)) | sub(",\\s*$"; "")
		| try (fromjson | if type == "object" then empty else "bad" end) catch "bad"' "$BAD/bad-lines.pfw" | wc -l)
	[ "$bad" -gt 0 ]
	[ -n "$(tail -c 1 "$BAD/bad-lines.pfw")" ]
	[ "$(summary '[.bad_lines,.truncated_files]')" = "[$bad,1]" ]
	run -1 bash -o pipefail -c "dft-analyze '$BAD/bad-lines.pfw' 2>/dev/null | jq -r 'select(.type==\"view\" and .view!=\"time\") | .key'"
	assert_line '/tmp/a\b A.dat'
	assert_line 'host "q" é#7'
}

@test "a truncated gzip stream is read up to the cut" {
	run -1 --separate-stderr dft-analyze "$BAD/truncated.pfw.gz"
	[[ "$stderr" == *"truncated.pfw.gz:293: gzip stream is truncated"* ]]
	# zcat reads the same 285 complete event lines before the cut
	n=$({ zcat "$BAD/truncated.pfw.gz" 2>/dev/null || [ $? -eq 1 ]; } | jq -R -c 'fromjson? | select(.ph=="X")' | wc -l)
	[ "$n" -gt 0 ]
	[ "$(summary '.events')" = "$n" ]
	[ "$(summary '.truncated_files')" = "1" ]
}

@test "a corrupt gzip member is skipped and the next member is read" {
	run -1 --separate-stderr dft-analyze "$BAD/corrupt-member.pfw.gz"
	[[ "$stderr" == *"corrupt gzip data skipped"* ]]
	# the intact second member holds 10 writes, a read and the end event
	same '[.io.write.count,.io.read.bytes]' "$BAD/corrupt-member.pfw.gz"
}

@test "garbage after the last gzip member is reported" {
	run -1 --separate-stderr dft-analyze "$BAD/trailing-garbage.pfw.gz"
	[[ "$stderr" == *"garbage after a gzip member"* ]]
	same '.events' "$BAD/trailing-garbage.pfw.gz"
}

@test "a trace on standard input, and trace paths on standard input" {
	n=$(derived "$GEN2" | jq .events)
	run -0 bash -o pipefail -c "zcat '$GEN2' | dft-analyze | jq -c 'select(.type==\"summary\") | [.events,.inputs]'"
	assert_output "[$n,[\"<stdin>\"]]"
	run -0 bash -o pipefail -c "printf '%s\n' '$GEN2' | dft-analyze | jq -c 'select(.type==\"summary\") | .events'"
	assert_output "$n"
}

@test "an operand that is a pipe is read whole (no chunk line is looked for in it)" {
	run -0 --separate-stderr dft-analyze <(zcat "$GEN2")
	same '[.events,.io.write.bytes]' "$GEN2"
}

@test "--partial then --merge equals one run over all inputs" {
	a="$TRACES/gen1-cm1/cm1-DEFAULT-3537780-preload.pfw.gz"
	b="$TRACES/gen1-cm1/cm1-DEFAULT-3537781-preload.pfw.gz"
	c="$TRACES/gen0-dlio-unet3d.pfw.gz"
	run -0 bash -o pipefail -c "dft-analyze -j 1 '$a' '$b' '$c' | grep -v '\"type\":\"step\"'"
	whole=$output
	dft-analyze --partial "$a" "$b" >"$BATS_TEST_TMPDIR/p1.ndjson"
	dft-analyze --partial "$c" >"$BATS_TEST_TMPDIR/p2.ndjson"
	run -0 bash -o pipefail -c "cat '$BATS_TEST_TMPDIR/p1.ndjson' '$BATS_TEST_TMPDIR/p2.ndjson' | dft-analyze --merge | grep -v '\"type\":\"step\"'"
	[ "$output" = "$whole" ]
	run -0 bash -o pipefail -c "dft-analyze --merge '$BATS_TEST_TMPDIR/p1.ndjson' '$BATS_TEST_TMPDIR/p2.ndjson' | grep -v '\"type\":\"step\"'"
	[ "$output" = "$whole" ]
}

# normalized: every record but the step, keys sorted, without the list of
# files read (chunk paths differ from the trace's)
normalized() {
	without_steps "$@" | jq -S -c 'del(.inputs)'
}

# nested_trace LATE: the generated trace of tests/gen-nested-trace.awk
# (200,000 child I/O events under nested functions), made once per file
nested_trace() {
	local f="$BATS_FILE_TMPDIR/nested-$1.pfw"
	[ -s "$f" ] || awk -v n=200000 -v late="$1" -v tmp="$BATS_FILE_TMPDIR/gen-$1" -f "$REPO/tests/gen-nested-trace.awk" >"$f"
	printf '%s\n' "$f"
}

@test "split -> analyze of the chunks gives every record of the whole, on every fixture" {
	d=$BATS_TEST_TMPDIR
	n=0
	for f in "$TRACES"/*.pfw* "$TRACES"/*/*.pfw* "$TRACES/gen1-cm1"; do
		dft-analyze -j 1 "$f" >"$d/whole.ndjson" 2>/dev/null || [ $? -eq 1 ]
		for mb in 1 0.05; do
			rm -rf "$d/chunks"
			dft-split -s "$mb" -o "$d/chunks" "$f" >"$d/chunks.ndjson" 2>/dev/null || [ $? -eq 1 ]
			dft-analyze -j 2 <"$d/chunks.ndjson" >"$d/parts.ndjson" 2>/dev/null || [ $? -eq 1 ]
			[ "$(normalized "$d/parts.ndjson")" = "$(normalized "$d/whole.ndjson")" ] ||
				fail "$f split at $mb MiB differs from the whole"
			n=$((n + $(grep -c '"type":"chunk"' "$d/chunks.ndjson")))
		done
	done
	# the fixtures were cut for real
	[ "$n" -gt 400 ]
}

@test "--by pid chunks read as streams analyze as the whole, though gen1 renames hashes" {
	d=$BATS_TEST_TMPDIR
	# the CM1 rank 0 trace gives hash 5037 a second file later on
	[ "$(zcat "$TRACES/gen1-cm1/cm1-DEFAULT-3537780-preload.pfw.gz" | grep '"name":"FH"' | grep -c '"value":5037}')" = 2 ]
	drop='del(.inputs, .lines, .metadata_events)'
	for f in "$TRACES/gen1-cm1" "$TRACES/gen0-dlio-unet3d.pfw.gz"; do
		dft-analyze -j 1 "$f" >"$d/whole.ndjson"
		for mb in 1 0.1; do
			rm -rf "$d/c"
			dft-split --by pid -s "$mb" -o "$d/c" "$f" >"$d/c.ndjson"
			dft-analyze -j 2 <"$d/c.ndjson" >"$d/p.ndjson"
			[ "$(without_steps "$d/p.ndjson" | jq -S -c "$drop")" = "$(without_steps "$d/whole.ndjson" | jq -S -c "$drop")" ] ||
				fail "$f by pid at $mb MiB"
		done
	done
}

@test "a generated trace of 200,000 children split at 1, 3 and 8 MiB analyzes as the whole" {
	t=$(nested_trace 0)
	d=$BATS_TEST_TMPDIR
	dft-analyze -j 1 "$t" >"$d/whole.ndjson"
	whole=$(normalized "$d/whole.ndjson")
	# independently: every write of the trace, and who encloses the I/O
	writes=$(grep -c '"name":"write",' "$t")
	[ "$(jq -c 'select(.type=="summary") | .functions[] | select(.name=="write") | .count' "$d/whole.ndjson")" = "$writes" ]
	[ "$(jq -s -c '[.[] | select(.type=="bottleneck") | .functions[].name] | unique' "$d/whole.ndjson")" = '["read_block","worker","write_records"]' ]
	# the I/O each function encloses (write_records holds more requests
	# than a thread keeps apart, so most are folded into a bundle), from
	# the trace's own order: thread 1's I/O before write_records' line is
	# its own, then lseek and read are read_block's, the rest read_back's
	expect=$(awk '/"cat":"POSIX"/ && /"tid":1,/ { if (!seen) wr++; else if (/"name":"(read|lseek)"/) rb++; else back++ }
		/"cat":"POSIX"/ && /"tid":2,/ { wk++ }
		/"name":"write_records"/ { seen = 1 }
		END { printf "{\"read_back\":%d,\"read_block\":%d,\"worker\":%d,\"write_records\":%d}", back, rb, wk, wr }' "$t")
	enclosed='select(.type=="partial") | .maps.attr_proc | to_entries | map({(.key | split("\u001f")[0]): .value[0]}) | add'
	dft-analyze --partial "$t" >"$d/partial.ndjson"
	[ "$(jq -S -c "$enclosed" "$d/partial.ndjson")" = "$expect" ]
	# the summary's io_calls of each application function are the same
	# counts (main encloses none of its own)
	io_calls='select(.type=="summary") | [.functions[] | select(.io_cat=="app" and .io_calls > 0) | {(.name): .io_calls}] | add'
	[ "$(jq -S -c "$io_calls" "$d/whole.ndjson")" = "$expect" ]
	[ "$(jq -c 'select(.type=="summary") | .functions[] | select(.name=="main") | .io_calls' "$d/whole.ndjson")" = 0 ]
	# and io_time_s their time: the durations of the same events
	expect_t=$(awk '/"cat":"POSIX"/ { match($0, /"dur":[0-9]+/); u = substr($0, RSTART + 6, RLENGTH - 6) }
		/"cat":"POSIX"/ && /"tid":1,/ { if (!seen) wr += u; else if (/"name":"(read|lseek)"/) rb += u; else back += u }
		/"cat":"POSIX"/ && /"tid":2,/ { wk += u }
		/"name":"write_records"/ { seen = 1 }
		END { printf "{\"read_back\":%d,\"read_block\":%d,\"worker\":%d,\"write_records\":%d}", back, rb, wk, wr }' "$t")
	[ "$(jq -S -c 'select(.type=="summary") | [.functions[] | select(.io_cat=="app" and .io_calls > 0) | {(.name): (.io_time_s * 1e6 | round)}] | add' "$d/whole.ndjson")" = "$expect_t" ]
	for mb in 1 3 8; do
		rm -rf "$d/c"
		dft-split -s "$mb" -o "$d/c" "$t" >"$d/c.ndjson"
		if [ "$mb" = 1 ]; then [ "$(grep -c '"type":"chunk"' "$d/c.ndjson")" -ge 10 ]; fi
		dft-analyze -j 1 <"$d/c.ndjson" >"$d/p.ndjson"
		[ "$(normalized "$d/p.ndjson")" = "$whole" ] || fail "chunk records, $mb MiB"
		[ "$(jq -S -c "$io_calls" "$d/p.ndjson")" = "$expect" ]
		dft-analyze --partial <"$d/c.ndjson" >"$d/partial.ndjson"
		[ "$(jq -S -c "$enclosed" "$d/partial.ndjson")" = "$expect" ]
		# the directory, and the files in reverse order, with two jobs
		dft-analyze -j 2 "$d/c" >"$d/p.ndjson"
		[ "$(normalized "$d/p.ndjson")" = "$whole" ] || fail "directory, $mb MiB"
		# shellcheck disable=SC2046
		dft-analyze -j 2 $(ls "$d"/c/*.pfw.gz | sort -r) >"$d/p.ndjson"
		[ "$(normalized "$d/p.ndjson")" = "$whole" ] || fail "reversed operands, $mb MiB"
	done
	[ "$(jq -c 'select(.type=="summary") | .unattributed_io_time_s' "$d/p.ndjson")" = 0 ]
}

@test "names defined after their events: each chunk alone resolves them, the stream replays them in place" {
	t=$(nested_trace 1)
	d=$BATS_TEST_TMPDIR
	dft-analyze -j 1 "$t" >"$d/whole.ndjson"
	dft-split -s 1 -o "$d/c" "$t" >"$d/c.ndjson"
	dft-analyze <"$d/c.ndjson" >"$d/p.ndjson"
	[ "$(normalized "$d/p.ndjson")" = "$(normalized "$d/whole.ndjson")" ]
	# the first chunk read alone still names the file of thread 2
	run -0 bash -o pipefail -c "dft-analyze -t 100 '$d/c/app-1.pfw.gz' | jq -r 'select(.type==\"view\" and .view==\"file\") | .key'"
	assert_line /scratch/run/shared.bin
}

@test "--partial/--merge on shards and --shard give the whole, with the chunks of a trace in one shard" {
	t=$(nested_trace 0)
	d=$BATS_TEST_TMPDIR
	dft-split -s 1 -o "$d/a" "$t" >"$d/a.ndjson"
	dft-split -s 0.05 -o "$d/b" "$TRACES/gen1-cm1" >"$d/b.ndjson"
	dft-analyze -j 1 "$t" "$TRACES/gen1-cm1" >"$d/whole.ndjson"
	whole=$(normalized "$d/whole.ndjson")
	dft-analyze --partial <"$d/a.ndjson" >"$d/p1.ndjson"
	dft-analyze --partial -j 1 <"$d/b.ndjson" >"$d/p2.ndjson"
	dft-analyze --merge "$d/p1.ndjson" "$d/p2.ndjson" >"$d/m.ndjson"
	[ "$(normalized "$d/m.ndjson")" = "$whole" ]
	# three shards over every chunk file, given in any order
	ls "$d"/a/*.pfw.gz "$d"/b/*.pfw.gz | sort -r >"$d/list"
	for k in 1 2 3; do dft-analyze --partial --shard "$k/3" <"$d/list" >"$d/s$k.ndjson"; done
	cat "$d"/s?.ndjson | dft-analyze --merge >"$d/m.ndjson"
	[ "$(normalized "$d/m.ndjson")" = "$whole" ]
	# the shard scripts keep the chunks of one trace together too
	# shellcheck disable=SC2046
	sh "$REPO/scripts/slurm/analyze-shards.sh" -n 4 -o "$d/sl" --local $(cat "$d/list") >/dev/null
	[ "$(normalized "$d/sl/analysis.ndjson")" = "$whole" ]
	run -2 --separate-stderr dft-analyze --shard 4/3 "$GEN2"
	run -2 --separate-stderr dft-analyze --shard 1 "$GEN2"
	# the chunks of one trace cut between two --partial runs: merged, with
	# a warning naming the trace
	ls "$d"/a/*.pfw.gz | sed -n 1,5p | dft-analyze --partial >"$d/h.ndjson"
	ls "$d"/a/*.pfw.gz | tail -n +6 | dft-analyze --partial >"$d/t.ndjson"
	[ "$(jq -c '.series | map_values(.source)' "$d/h.ndjson" | grep -c "$t")" = 1 ]
	run -0 --separate-stderr dft-analyze --merge "$d/h.ndjson" "$d/t.ndjson"
	[[ "$stderr" == *"the chunks of '$t' (series "*") were analyzed apart"* ]]
	# the counts still add up
	[ "$(printf '%s\n' "$output" | jq -c 'select(.type=="summary") | .events')" = "$(grep -c '"ph":"X"' "$t")" ]
	run -0 --separate-stderr dft-analyze --merge "$d"/s?.ndjson
	[ -z "$stderr" ]
}

@test "the Slurm and Flux shard scripts: --local run equals one run, --dry-run submits shards then a merge" {
	files="$TRACES/gen1-cm1/*.pfw.gz $TRACES/gen0-dlio-unet3d.pfw.gz"
	# shellcheck disable=SC2086
	whole=$(dft-analyze $files | grep -v '"type":"step"' | jq -c 'del(.inputs)')
	for s in slurm flux; do
		# shellcheck disable=SC2086
		run -0 sh "$REPO/scripts/$s/analyze-shards.sh" -n 3 -o "$BATS_TEST_TMPDIR/$s" --local $files
		parts=$(grep -v '"type":"step"' "$BATS_TEST_TMPDIR/$s/analysis.ndjson" | jq -c 'del(.inputs)')
		[ "$parts" = "$whole" ]
		[ "$(ls "$BATS_TEST_TMPDIR/$s"/partial-*.ndjson | wc -l)" -eq 3 ]
	done
	# shellcheck disable=SC2086
	run -0 --separate-stderr sh "$REPO/scripts/slurm/analyze-shards.sh" -n 2 -o "$BATS_TEST_TMPDIR/d" --dry-run $files
	[[ "$stderr" == *"--array=0-1 "*'--shard $((SLURM_ARRAY_TASK_ID + 1))/2'* ]]
	[[ "$stderr" == *"--dependency=afterok:DRYA "* ]]
	# shellcheck disable=SC2086
	run -0 --separate-stderr sh "$REPO/scripts/flux/analyze-shards.sh" -n 2 -o "$BATS_TEST_TMPDIR/f" --dry-run $files
	[[ "$stderr" == *"--dependency=afterok:DRY0 --dependency=afterok:DRY1"* ]]
	run -2 sh "$REPO/scripts/flux/analyze-shards.sh" -n x "$GEN2"
}

@test "the man page examples run" {
	cd "$REPO"
	run -1 --separate-stderr dft-analyze -f table tests/fixtures/traces-bad/truncated.pfw.gz
	# the cut came before write_records ended: its writes are unattributed
	assert_output --partial "small_write: Many small write requests"
	assert_output --partial "-> (no enclosing function)"
	# dft-split exits 1 on the cut stream; the chunks it wrote are whole
	run -1 --separate-stderr dft-split -s 1 -o "$BATS_TEST_TMPDIR/chunks" --verify tests/fixtures/traces-bad/truncated.pfw.gz
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/chunks.ndjson"
	run -0 --separate-stderr dft-analyze <"$BATS_TEST_TMPDIR/chunks.ndjson"
	[ "$(summary '.events')" = "$({ zcat tests/fixtures/traces-bad/truncated.pfw.gz 2>/dev/null || [ $? -eq 1 ]; } | grep -c '"ph":"X"')" ]
}

@test "a directory operand stands for its traces" {
	run -0 bash -o pipefail -c "dft-analyze '$TRACES/gen1-cm1' | jq -c 'select(.type==\"summary\") | [.events, (.inputs|length)]'"
	assert_output "[$(derived "$TRACES"/gen1-cm1/*.pfw.gz | jq .events),$(ls "$TRACES"/gen1-cm1/*.pfw* | wc -l)]"
}

@test "a trace of many gzip members, cut anywhere, reads as one text" {
	zcat "$GEN2" >"$BATS_TEST_TMPDIR/t.pfw"
	# members of 997 bytes: lines are cut in the middle, as a flush may do
	split -b 997 -a 3 "$BATS_TEST_TMPDIR/t.pfw" "$BATS_TEST_TMPDIR/part-"
	for p in "$BATS_TEST_TMPDIR"/part-*; do gzip -n -c "$p"; done >"$BATS_TEST_TMPDIR/multi.pfw.gz"
	[ "$(ls "$BATS_TEST_TMPDIR"/part-* | wc -l)" -gt 50 ]
	run -0 --separate-stderr dft-analyze "$BATS_TEST_TMPDIR/multi.pfw.gz"
	same '[.events,.io.write.bytes]' "$GEN2"
	[ "$(summary '.bad_lines')" = 0 ]
}

@test "a misaligned finding saves at most the two boundary blocks of each request" {
	# ten 2 MiB writes, each 100 bytes past a block boundary, 0.2 s each
	f=$BATS_TEST_TMPDIR/mis.pfw
	s=2097152
	{
		echo '['
		for k in 0 1 2 3 4 5 6 7 8 9; do
			printf '{"id":"%d","name":"pwrite","cat":"POSIX","pid":"1","tid":"1","ts":"%d","dur":"200000","ph":"X","args":{"hostname":"h","fname":"/d/out.h5","count":%d,"ret":%d,"offset":%d}}\n' \
				"$k" $((1000 + k * 300000)) "$s" "$s" $((100 + k * s))
		done
		echo ']'
	} >"$f"
	run --separate-stderr dft-analyze "$f"
	[ "$status" -eq 0 ]
	# 2 s of misaligned time; 2 blocks of 4096 bytes of each 2 MiB request
	want=$(jq -n "2 * (2 * 4096 * 10) / ($s * 10)")
	printf '%s\n' "$output" | jq -e -s --argjson w "$want" \
		'[.[] | select(.type == "bottleneck" and .class == "misaligned")][0] |
		 .time_s == 2 and (.saving_s - $w | fabs) < 1e-9 and (.saving_model | startswith("boundary blocks"))'
}

@test "a function's events are the records that name it, count its calls; split, -j and --partial/--merge alike" {
	d=$BATS_TEST_TMPDIR
	# put: 150 complete events, then 40 aggregated records of 250 calls;
	# its fwrite calls: 150 complete, 60 aggregated records of 200
	awk 'BEGIN {
		print "["
		print "{\"id\":1,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/d/out.xml\",\"value\":\"00000000000000aa\"}}"
		ts = 1000; id = 2
		for (i = 0; i < 150; i++) {
			printf "{\"id\":%d,\"name\":\"fwrite\",\"cat\":\"STDIO\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,\"ph\":\"X\",\"args\":{\"level\":2,\"fhash\":\"00000000000000aa\",\"size\":4,\"ret\":4}}\n", id++, ts + 1
			printf "{\"id\":%d,\"name\":\"put\",\"cat\":\"C_APP\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":3,\"ph\":\"X\",\"args\":{\"level\":1}}\n", id++, ts
			ts += 5
		}
		for (i = 0; i < 60; i++)
			printf "{\"name\":\"fwrite\",\"cat\":\"STDIO\",\"ts\":%d,\"ph\":\"C\",\"pid\":1,\"tid\":1,\"args\":{\"level\":2,\"dft_cnt\":200,\"dur_min\":1,\"dur_max\":2,\"dur_sum\":300,\"size_min\":4,\"size_max\":4,\"size_sum\":800,\"fhash\":\"00000000000000aa\",\"parent\":\"put\",\"pcat\":\"C_APP\",\"end\":%d}}\n", ts + i * 1000, ts + i * 1000 + 900
		for (i = 0; i < 40; i++)
			printf "{\"name\":\"put\",\"cat\":\"C_APP\",\"ts\":%d,\"ph\":\"C\",\"pid\":1,\"tid\":1,\"args\":{\"dft_cnt\":250,\"dur_min\":2,\"dur_max\":4,\"dur_sum\":750}}\n", ts + i * 1500
		print "]"
	}' >"$d/t.pfw"
	# independently: the lines that name each, and the calls they hold
	expect=$(jq -R -s -c '[split("\n")[] | select(startswith("{")) | fromjson | select(.ph == "X" or .ph == "C")] |
		group_by(.name) | map({(.[0].name): [length, (map(.args.dft_cnt // 1) | add)]}) | add' "$d/t.pfw")
	[ "$expect" = '{"fwrite":[210,12150],"put":[190,10150]}' ]
	got='select(.type=="summary") | [.functions[] | {(.name): [.events, .count]}] | add'
	run -0 bash -o pipefail -c "dft-analyze -j 1 '$d/t.pfw' | jq -S -c '$got'"
	[ "$output" = "$expect" ]
	dft-split -s 0.004 -o "$d/c" "$d/t.pfw" >"$d/c.ndjson"
	[ "$(grep -c '"type":"chunk"' "$d/c.ndjson")" -ge 5 ]
	for j in 1 2; do
		run -0 bash -o pipefail -c "dft-analyze -j $j <'$d/c.ndjson' | jq -S -c '$got'"
		[ "$output" = "$expect" ] || fail "chunks, -j $j"
	done
	dft-analyze --partial "$d"/c/*.pfw.gz >"$d/p.ndjson"
	run -0 bash -o pipefail -c "dft-analyze --merge '$d/p.ndjson' | jq -S -c '$got'"
	[ "$output" = "$expect" ] || fail "--partial/--merge of the chunks"
}
