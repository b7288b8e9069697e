#!/usr/bin/env bats
# dft-analyze's judgement (dft-analyze(1) "Verdict", "Time at stake",
# "Classes", "Noise"): the numbers are derived here with jq and arithmetic
# from the traces, never from dft-analyze's own output.

load test_helper

GEN2="$TRACES/gen2-dftracer-2.0.2/app-c02066f3eb9b3ec0-app.pfw.gz"

# ev NAME CAT TS DUR [ARGS]: one event line of pid 1, tid 1
ev() {
	printf '{"id":0,"name":"%s","cat":"%s","pid":1,"tid":1,"ts":%s,"dur":%s,"ph":"X","args":{%s}}\n' \
		"$1" "$2" "$3" "$4" "${5:-}"
}

bottlenecks() {
	jq -c "select(.type==\"bottleneck\") | $1"
}

@test "CM1: the verdict is the processes' I/O unions over their summed spans, and metadata comes first" {
	# per file (one process each): its span and the union of its sorted I/O intervals, in us
	for f in "$TRACES"/gen1-cm1/*.pfw.gz; do
		zcat "$f" | grep '"ts"' | jq -s -r '
			((map((.ts|tonumber) + ((.dur // 0)|tonumber)) | max) - (map(.ts|tonumber) | min)) as $span
			| [.[] | select(.cat == "POSIX" or .cat == "STDIO")]
			| map({s: (.ts|tonumber), e: ((.ts|tonumber) + ((.dur // 0)|tonumber))}) | sort_by(.s)
			| reduce .[] as $i ({t: 0, s: null, e: null};
				if .e == null then .s = $i.s | .e = $i.e
				elif $i.s <= .e then .e = ([.e, $i.e] | max)
				else .t += (.e - .s) | .s = $i.s | .e = $i.e end)
			| "\(.t + (.e - .s)) \($span)"'
	done >"$BATS_TEST_TMPDIR/procs"
	want=$(awk '{ io += $1; w += $2 } END { printf "%d\t%d\t%d", io / 1000 + 0.5, w / 1000 + 0.5, 1e4 * io / w + 0.5 }' "$BATS_TEST_TMPDIR/procs")
	run -0 bash -o pipefail -c "dft-analyze '$TRACES/gen1-cm1' | jq -r 'select(.type==\"summary\") | [(.io_wall_s * 1e3 | round), (.process_wall_s * 1e3 | round), (.io_wall_share * 1e4 | round), .verdict] | @tsv'"
	assert_output "$(printf '%s\tnot-io-bound' "$want")"
	# metadata first; no system or runtime file is named by any finding
	run -0 bash -o pipefail -c "dft-analyze --all '$TRACES/gen1-cm1' | jq -r 'select(.type==\"bottleneck\") | \"\\(.class) \\([.files[].file] | join(\" \"))\"'"
	assert_line --index 0 --partial "metadata cm1out_stats.ctl"
	refute_output --regexp '/proc/|/sys/|ompi\.|/dev/shm'
	run -0 bash -o pipefail -c "dft-analyze '$TRACES/gen1-cm1' | jq -r 'select(.type==\"summary\") | [.system_io.count > 0, .system_io.ranked] | @tsv'"
	assert_output "$(printf 'true\tfalse')"
	# --include-system ranks them, with a system finding
	run -0 bash -o pipefail -c "dft-analyze --all --include-system '$TRACES/gen1-cm1' | jq -r 'select(.type==\"bottleneck\") | .class'"
	assert_line "system"
}

@test "time at stake of small writes is their summed duration; severity is the band of the share of the saving, at least low when the time at stake is medium or more" {
	want=$(zcat "$GEN2" | grep '"name":"write"' | jq -s '[.[] | select((.args.ret|tonumber) < 1048576) | (.dur|tonumber)] | add')
	run -0 bash -o pipefail -c "dft-analyze '$GEN2' | jq -r 'select(.type==\"bottleneck\" and .class==\"small_write\") | (.time_s * 1e6 | round)'"
	assert_output "$want"
	# every finding: severity = the band of saving_s over the process
	# time, but low when that is info and the time at stake is medium or
	# more; at most medium when the run is not I/O-bound; score = its rank
	for tr in "$GEN2" "$TRACES/gen0-dlio-unet3d.pfw.gz" "$TRACES/gen1-cm1"; do
		run -0 bash -o pipefail -c "dft-analyze --all '$tr' | jq -s -r 'def band: if . >= 0.25 then 5 elif . >= 0.1 then 4 elif . >= 0.03 then 3 elif . >= 0.01 then 2 else 1 end;
		  (.[] | select(.type == \"summary\")) as \$s | .[] | select(.type==\"bottleneck\")
		  | ((.saving_s / \$s.process_wall_s) | band) as \$sb | (.wall_share | band) as \$wb
		  | ([if \$sb < 2 and \$wb >= 3 then 2 else \$sb end, \$wb] | min) as \$e
		  | (if \$s.verdict == \"not-io-bound\" and \$e > 3 then 3 else \$e end) as \$e
		  | [.severity, ([\"info\", \"low\", \"medium\", \"high\", \"critical\"][\$e - 1]), .score, .label] | @tsv'"
		printf '%s\n' "$output" >>"$BATS_TEST_TMPDIR/sev"
	done
	[ "$(wc -l <"$BATS_TEST_TMPDIR/sev")" -ge 10 ]
	while read -r sev band score label; do
		[ "$sev" = "$band" ]
		[ "$label" = "$sev" ]
		case $sev in info) [ "$score" = 1 ] ;; low) [ "$score" = 2 ] ;;
			medium) [ "$score" = 3 ] ;; high) [ "$score" = 4 ] ;;
			critical) [ "$score" = 5 ] ;; esac
	done <"$BATS_TEST_TMPDIR/sev"
}

@test "a run with I/O at 6 % of wall time is not I/O-bound and has nothing above medium" {
	t="$BATS_TEST_TMPDIR/light.pfw"
	( untraced
		ev main C_APP 0 1000000
		for i in $(seq 0 59); do
			ev write POSIX $((i * 10000)) 1000 "\"fname\":\"/scratch/out.bin\",\"ret\":100"
		done
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"summary\") | [.io_wall_share, .verdict, .verdict_text] | @tsv'"
	assert_output "$(printf '0.06\tnot-io-bound\tI/O is 6.0 %% of wall time: not I/O-bound')"
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -r 'select(.type==\"bottleneck\") | .severity' | sort -u"
	refute_output --regexp 'high|critical'
	run -0 dft-analyze -f table "$t"
	assert_line --index 2 "Verdict: I/O is 6.0 % of wall time: not I/O-bound"
}

@test "sequential processes: the verdict and the findings share one time base, the summed process spans" {
	t="$BATS_TEST_TMPDIR/seq.pfw"
	# two runs 10 s apart, each 1 s long with 60 writes of 5 ms (0.3 s)
	for p in 1 2; do
		t0=$(( (p - 1) * 11000000 ))
		( untraced
			ev main C_APP $t0 1000000
			for i in $(seq 0 59); do
				ev write POSIX $((t0 + i * 15000)) 5000 "\"fname\":\"/scratch/r$p.bin\",\"ret\":100"
			done
		) | sed "s/\"pid\":1/\"pid\":$p/"
	done >"$t"
	share=$(jq -s '([.[] | select(.cat == "POSIX") | .dur] | add) / ([.[] | select(.cat == "C_APP") | .dur] | add)' "$t")
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"summary\") | [.io_wall_share, .process_wall_s, .verdict_text] | @tsv'"
	assert_output "$(printf '%s\t2\tI/O is %.1f %% of process time (2 processes'"'"' spans summed): partly I/O-bound' "$share" "$(echo "$share * 100" | bc -l)")"
	# no finding takes a larger share of the time than the verdict's I/O
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -s -r '(.[] | select(.type==\"summary\") | .io_wall_share) as \$v | .[] | select(.type==\"bottleneck\") | \"\\(.class) \\(.wall_share <= \$v)\"'"
	assert_line "small_write true"
	refute_output --partial false
}

@test "a process alone in a higher band than the run is named in the verdict" {
	t="$BATS_TEST_TMPDIR/straggler.pfw"
	( untraced
		ev main C_APP 0 1000000
		for i in $(seq 0 59); do
			ev write POSIX $((i * 15000)) 10000 "\"fname\":\"/scratch/ckpt.bin\",\"ret\":100"
		done
		ev main C_APP 0 1000000 | sed 's/"pid":1/"pid":2/'
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"summary\") | [.io_wall_share, .verdict, .verdict_text] | @tsv'"
	assert_output "$(printf '0.3\tpartly\tI/O is 30.0 %% of process time (2 processes'"'"' spans summed): partly I/O-bound; busiest process unknown#1 60.0 %%: I/O-bound')"
}

@test "sync storm: fsync after every write is one sync finding with the saving of all but one sync" {
	t="$BATS_TEST_TMPDIR/journal.pfw"
	( untraced
		ts=0
		for i in $(seq 1 50); do
			ev write POSIX $ts 100 "\"fname\":\"/scratch/journal\",\"ret\":4096"
			ev fsync POSIX $((ts + 100)) 2000 "\"fname\":\"/scratch/journal\",\"ret\":0"
			ts=$((ts + 2200))
		done
		ev append_record C_APP 0 $ts
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"bottleneck\") | [.class, .insight, .time_s, .saving_s, .evidence.syncs_per_write, .functions[0].name] | @tsv' | sed -n 1p"
	# 50 syncs of 2 ms; keeping one: 49 x 2 ms
	assert_output "$(printf 'sync\tX02\t0.1\t0.098\t1\tappend_record')"
}

@test "metadata storm: open/stat/unlink on many files is the metadata finding with its calls and directory" {
	t="$BATS_TEST_TMPDIR/meta.pfw"
	( untraced
		ts=0
		for i in $(seq 1 300); do
			for c in open64 __xstat64 unlink; do
				ev $c POSIX $ts 30 "\"fname\":\"/scratch/tmp/f$i\",\"ret\":3"
				ts=$((ts + 40))
			done
		done
		ev make_files C_APP 0 $ts
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"bottleneck\") | [.class, .io_share, (.time_s * 1e6 | round), .functions[0].name, .evidence.directories[0].dir, .evidence.directories[0].files, ([.calls[].name] | sort | join(\",\"))] | @tsv' | sed -n 1p"
	assert_output "$(printf 'metadata\t1\t%s\tmake_files\t/scratch/tmp\t300\t__xstat64,open64,unlink' $((900 * 30)))"
}

@test "the same 1 MiB read 8 times is a redundant read, charged to the function that re-reads" {
	t="$BATS_TEST_TMPDIR/reread.pfw"
	( untraced
		ts=0
		for pass in $(seq 1 8); do
			for off in $(seq 0 65536 983040); do
				ev pread64 POSIX $ts 50 "\"fname\":\"/scratch/in.bin\",\"ret\":65536,\"offset\":$off"
				ts=$((ts + 60))
			done
		done
		ev load_again C_APP 0 $ts
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"bottleneck\" and .class==\"redundant_read\") | [.insight, .evidence.bytes_read, .evidence.distinct_bytes, .value, (.time_s * 1e6 | round), .functions[0].name] | @tsv'"
	# 7 of the 8 passes re-read: 7 x 16 reads x 50 us
	assert_output "$(printf 'X03\t%s\t%s\t8\t%s\tload_again' $((8 * 1048576)) 1048576 $((7 * 16 * 50)))"
}

@test "a data-loader stall is fetch.iter's wait against fetch.block's compute, per epoch" {
	t="$BATS_TEST_TMPDIR/loader.pfw"
	( untraced
		ts=0
		for e in 1 2; do
			start=$ts
			for s in $(seq 1 10); do
				ev fetch.iter dataloader $ts 3000 "\"count\":$s"
				ev fetch.block dataloader $((ts + 3000)) 1000 "\"count\":$s"
				ts=$((ts + 4000))
			done
			ev epoch.block pipeline $start $((ts - start)) "\"count\":$e"
		done
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"bottleneck\" and .class==\"data_loader\") | [.insight, .evidence.epochs, .evidence.wait_time_s, .evidence.compute_time_s, .saving_s, .evidence.per_epoch[0].waits] | @tsv'"
	# 2 epochs x 10 waits of 3 ms and 10 bodies of 1 ms; overlap hides
	# the smaller: 20 ms
	assert_output "$(printf 'D01\t2\t0.06\t0.02\t0.02\t10')"
}

@test "checkpoint findings come from checkpoint functions, never from other large writes" {
	t="$BATS_TEST_TMPDIR/ckpt.pfw"
	( untraced
		ev write POSIX 100 50000 "\"fname\":\"/scratch/dataset.bin\",\"ret\":8388608"
		ev make_dataset py 0 60000
		ev write POSIX 70000 20000 "\"fname\":\"/scratch/model.pt\",\"ret\":8388608"
		ev save_checkpoint py 65000 30000
		ev train py 0 200000
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -r 'select(.type==\"bottleneck\" and .class==\"checkpoint\") | [.time_s, ([.functions[].name] | join(\",\"))] | @tsv'"
	assert_output "$(printf '0.03\tsave_checkpoint')"
}

@test "a file is shared by two processes in overlapping time; a writer then a reader is not sharing" {
	t="$BATS_TEST_TMPDIR/handoff.pfw"
	( untraced
		ev write POSIX 0 100 "\"fname\":\"/scratch/x\",\"ret\":10"
		printf '{"id":0,"name":"read","cat":"POSIX","pid":2,"tid":2,"ts":1000,"dur":100,"ph":"X","args":{"fname":"/scratch/x","ret":10}}\n'
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"summary\") | .sharing.shared_files'"
	assert_output 0
	printf '{"id":0,"name":"read","cat":"POSIX","pid":2,"tid":2,"ts":50,"dur":100,"ph":"X","args":{"fname":"/scratch/x","ret":10}}\n' >>"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"summary\") | .sharing.shared_files'"
	assert_output 1
}

@test "function records give file:line and the qualified name" {
	printf '{"type":"function","v":1,"file":"src/rec.c","name":"write_records","qualified_name":"write_records","lines":{"start":42,"end":60}}\n' >"$BATS_TEST_TMPDIR/f.ndjson"
	run -0 bash -o pipefail -c "dft-analyze --functions '$BATS_TEST_TMPDIR/f.ndjson' '$GEN2' | jq -r 'select(.type==\"bottleneck\" and .class==\"small_write\") | .functions[0] | [.name, .qualname, .file, .line] | @tsv'"
	assert_output "$(printf 'write_records\twrite_records\tsrc/rec.c\t42')"
	# the same records on standard input, passed through
	run -0 bash -o pipefail -c "{ cat '$BATS_TEST_TMPDIR/f.ndjson'; echo '$GEN2'; } | dft-analyze | jq -r 'select(.type==\"function\" or (.type==\"bottleneck\" and .class==\"small_write\")) | .type + \" \" + (.functions[0].file // .file)'"
	assert_line "function src/rec.c"
	assert_line "bottleneck src/rec.c"
	# a Python qualified name
	t="$BATS_TEST_TMPDIR/py.pfw"
	( untraced
		for i in $(seq 1 2000); do
			ev read POSIX $((i * 10)) 5 "\"fname\":\"/data/a.npz\",\"ret\":100"
		done
		ev NpzDataset.__getitem__ py 0 30000
	) >"$t"
	printf '{"type":"function","v":1,"file":"train.py","name":"__getitem__","qualified_name":"NpzDataset.__getitem__","lines":{"start":7,"end":9}}\n' >"$BATS_TEST_TMPDIR/p.ndjson"
	run -0 bash -o pipefail -c "dft-analyze --functions '$BATS_TEST_TMPDIR/p.ndjson' '$t' | jq -r 'select(.type==\"bottleneck\") | .functions[0] | [.qualname, .file, .line] | @tsv' | sed -n 1p"
	assert_output "$(printf 'NpzDataset.__getitem__\ttrain.py\t7')"
}

@test "one finding per cause: at most findings_shown by default, --all prints all" {
	run -0 bash -o pipefail -c "dft-analyze '$TRACES/gen1-cm1' | jq -r 'select(.type==\"summary\") | [.findings_total, .findings_shown] | @tsv'"
	read -r total shown <<<"$output"
	[ "$shown" -le 5 ] && [ "$total" -ge "$shown" ]
	run -0 bash -o pipefail -c "dft-analyze --all '$TRACES/gen1-cm1' | jq -r 'select(.type==\"bottleneck\") | .class'"
	[ "${#lines[@]}" -eq "$total" ]
	# classes are unique
	[ "$(printf '%s\n' "${lines[@]}" | sort -u | wc -l)" -eq "$total" ]
}

@test "small and scattered, small and shifted, small and appended: one finding whose class is the cause" {
	# 400 reads of 4 KiB in a shuffled block order: the order is the cost
	t="$BATS_TEST_TMPDIR/scatter.pfw"
	( untraced
		ts=0
		for b in $(seq 0 399 | awk 'BEGIN { srand(7) } { print rand() "\t" $1 }' | sort -n | cut -f 2); do
			ev pread64 POSIX $ts 100 "\"fname\":\"/scratch/db\",\"ret\":4096,\"offset\":$((b * 4096))"
			ts=$((ts + 110))
		done
		ev random_lookup C_APP 0 $ts
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"bottleneck\") | [.class, (.insights | sort | join(\",\")), ((.evidence.nonconsecutive_time_s // 0) * 1e6 | round), (.time_s * 1e6 | round), .functions[0].name] | @tsv' | sed -n 1p"
	# the reads that do not start where the previous one ended (the
	# position starts at 0)
	nc=$(grep pread64 "$t" | awk -F'"offset":' '{ split($2, a, "}"); print a[1] }' | awk 'BEGIN { e = 0; n = 0 } { if ($1 != e) n++; e = $1 + 4096 } END { print n }')
	# the finding blames all 400 small reads (the union of its facets)
	assert_output "$(printf 'random_access\tP05,P11\t%s\t%s\trandom_lookup' $((nc * 100)) $((400 * 100)))"
	# 200 writes of 64 KiB, each 512 bytes past a page boundary
	t="$BATS_TEST_TMPDIR/shifted.pfw"
	( untraced
		for i in $(seq 0 199); do
			ev pwrite64 POSIX $((i * 300)) 250 "\"fname\":\"/scratch/img\",\"ret\":65536,\"offset\":$((i * 65536 + 512))"
		done
		ev patch_blocks C_APP 0 60000
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"bottleneck\") | [.class, (.insights | sort | join(\",\")), (.time_s * 1e6 | round)] | @tsv' | sed -n 1p"
	assert_output "$(printf 'misaligned\tP06,P08\t%s' $((200 * 250)))"
	# 300 appended records of 100 bytes: misaligned by their size
	t="$BATS_TEST_TMPDIR/append.pfw"
	( untraced
		for i in $(seq 0 299); do
			ev write POSIX $((i * 20)) 10 "\"fname\":\"/scratch/log\",\"ret\":100"
		done
		ev append_records C_APP 0 6000
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type==\"bottleneck\") | [.class, (.insights | sort | join(\",\"))] | @tsv' | sed -n 1p"
	assert_output "$(printf 'small_write\tP06,P08')"
}

@test "dft-papers takes the finding's class: a sync storm gets the sync catalogue, cited" {
	t="$BATS_TEST_TMPDIR/journal.pfw"
	( untraced
		for i in $(seq 0 49); do
			ev write POSIX $((i * 2200)) 100 "\"fname\":\"/scratch/journal\",\"ret\":4096"
			ev fsync POSIX $((i * 2200 + 100)) 2000 "\"fname\":\"/scratch/journal\",\"ret\":0"
		done
		ev append_record C_APP 0 110000
	) >"$t"
	run -0 bash -o pipefail -c "dft-analyze '$t' | dft-papers --offline --no-cache --store '$BATS_TEST_TMPDIR/l.ndjson' 2>/dev/null | jq -r 'select(.type==\"literature\" and .bottleneck==\"B1\") | [.class, .status, (.best.doi // .best.arxiv)] | @tsv'"
	assert_output --regexp $'^sync\tcited\t10\\.'
	run -0 bash -o pipefail -c "dft-analyze '$t' | dft-papers --offline --no-cache --store '$BATS_TEST_TMPDIR/l.ndjson' 2>/dev/null | jq -r 'select(.type==\"proposal\" and .bottleneck==\"B1\") | .strategy'"
	assert_line "sync.L1.fewer"
}

@test "write size imbalance is between processes that ran at the same time: a compressor, then a decompressor, is none" {
	t="$BATS_TEST_TMPDIR/imb.pfw"
	# process 1 writes 10 x 100 kB to its own file, process 2 10 x 10 kB
	# to its own, starting at $1 us (process 1 runs 0 .. 1 s)
	gen() (
		untraced
		for p in 1 2; do
			t0=$(( (p - 1) * $1 ))
			{
				ev main C_APP "$t0" 1000000
				for i in $(seq 0 9); do
					ev write POSIX $((t0 + 1000 + i * 20000)) 1000 "\"fname\":\"/scratch/out$p\",\"ret\":$(( p == 1 ? 100000 : 10000 ))"
				done
			} | sed "s/\"pid\":1/\"pid\":$p/"
		done
	)
	gen 2000000 >"$t"
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -r 'select(.type==\"bottleneck\") | .class'"
	refute_line imbalance
	# the same two processes overlapping in time: imbalance, with the
	# bytes each wrote (summed here from the trace)
	gen 500000 >"$t"
	want=$(jq -s -r '[group_by(.pid)[] | [.[] | select(.name == "write") | .args.ret] | add] | "\(max) \(min)"' "$t")
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -r 'select(.type==\"bottleneck\" and .class==\"imbalance\") | \"\\(.evidence.largest_bytes) \\(.evidence.smallest_bytes)\"'"
	assert_output "$want"
}

@test "a bandwidth model that finds the trace's own requests no faster caps the severity at low" {
	t="$BATS_TEST_TMPDIR/stdio.pfw"
	# 4 fwrite of 2 MiB at 100 ms each (0.4 s of a 1.5 s process: over a
	# quarter, critical) and 4 POSIX writes of 2 MiB at $1 us each
	gen() (
		untraced
		ev main C_APP 0 1500000
		for i in 0 1 2 3; do
			ev fwrite STDIO $((1000 + i * 100000)) 100000 "\"fname\":\"/scratch/a\",\"size\":1,\"ret\":2097152"
			ev write POSIX $((500000 + i * 250000)) "$1" "\"fname\":\"/scratch/b\",\"ret\":2097152"
		done
	)
	# POSIX at 10 ms: the large requests (both kinds) move faster than
	# the fwrite calls, the saving is positive: the 8 MiB of fwrite at the
	# rate of all 16 MiB (0.44 s), and the severity is its band
	gen 10000 >"$t"
	share=$(jq -s '([.[] | select(.cat == "STDIO") | .dur] | add) / 1500000' "$t")
	read -r save sev <<<"$(awk 'BEGIN { s = 0.4 - 8 / 16 * (0.4 + 4 * 0.01); h = s / 1.5
		print s * 1000, (h >= 0.25 ? "critical" : h >= 0.1 ? "high" : h >= 0.03 ? "medium" : "low") }')"
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -r 'select(.type==\"bottleneck\" and .class==\"stdio\") | \"\\(.severity) \\(.saving_s * 1000 | round) \\((.wall_share - $share | fabs) < 1e-4) \\(.wall_share >= 0.25)\"'"
	assert_output "$sev $save true true"
	[ "$sev" = high ]
	# POSIX at 200 ms: all large requests together are slower than the
	# fwrite calls (16 MiB in 1.2 s against 8 MiB in 0.4 s): no saving,
	# at most low, and the model says why
	gen 200000 >"$t"
	awk 'BEGIN { exit !((16 * 1048576 / 1.2) < (8 * 1048576 / 0.4)) }'
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -r 'select(.type==\"bottleneck\" and .class==\"stdio\") | \"\\(.severity) \\(.saving_s) \\((.wall_share - $share | fabs) < 1e-4) \\(.saving_model | endswith(\"no faster than now, so at most low\"))\"'"
	assert_output "low 0 true true"
}

@test "small reads and small writes: each finding's small_time_s is its own direction's" {
	t="$BATS_TEST_TMPDIR/rw.pfw"
	( untraced
		for i in $(seq 0 1999); do
			ev read POSIX $((i * 20)) 5 "\"fname\":\"/scratch/a\",\"ret\":100"
		done
		for i in $(seq 0 1499); do
			ev write POSIX $((40000 + i * 20)) 3 "\"fname\":\"/scratch/b\",\"ret\":100"
		done
		ev move C_APP 0 80000
	) >"$t"
	# the sums of the reads' and the writes' durations (us), from the trace
	want=$(jq -s -r '[(map(select(.name == "read") | .dur) | add), (map(select(.name == "write") | .dur) | add)] | @tsv' "$t")
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -s -r '[(map(select(.type == \"bottleneck\" and .class == \"small_read\"))[0].evidence.small_time_s * 1e6 | round),
	  (map(select(.type == \"bottleneck\" and .class == \"small_write\"))[0].evidence.small_time_s * 1e6 | round)] | @tsv'"
	assert_output "$want"
	# the mean the description gives is of all the direction's requests
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -r 'select(.type == \"bottleneck\" and .class == \"small_read\") | .description'"
	assert_output --partial "2000 of 2000 reads (100.0%) are smaller than 1048576 bytes (mean of all 2000: $(jq -s 'map(select(.name == "read") | .args.ret) | add / length' "$t") bytes)"
}

@test "a metadata finding of the per-file view alone lists the run's metadata calls, by time" {
	# /scratch/a: opens, stats and closes hold most of its I/O time (W01);
	# the run's metadata share stays under metadata_time_share (no X01)
	t="$BATS_TEST_TMPDIR/meta.pfw"
	( untraced
		for i in $(seq 0 49); do
			ev open64 POSIX $((i * 100)) 60 "\"fname\":\"/scratch/a\",\"ret\":3"
			ev __xstat POSIX $((i * 100 + 70)) 4 "\"fname\":\"/scratch/a\",\"ret\":0"
			ev read POSIX $((i * 100 + 80)) 2 "\"fname\":\"/scratch/a\",\"ret\":4096"
			ev close POSIX $((i * 100 + 90)) 6 "\"fname\":\"/scratch/a\",\"ret\":0"
		done
		for i in $(seq 0 99); do
			ev read POSIX $((10000 + i * 200)) 150 "\"fname\":\"/scratch/b\",\"ret\":1048576"
		done
		ev job C_APP 0 40000
	) >"$t"
	want=$(jq -s -c 'map(select(.name == "open64" or .name == "__xstat" or .name == "close")) | group_by(.name) |
	  map({name: .[0].name, count: length, time_s: (map(.dur) | add / 1e6)}) | sort_by(-.time_s)' "$t")
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -c 'select(.type == \"bottleneck\" and .class == \"metadata\") | [.insights, (.calls | map({name, count, time_s}))]'"
	assert_output "[[\"W01\"],$want]"
}

@test "a close of a file its process wrote is the flush of that data, not metadata: no metadata finding, the same split and with -j" {
	# /scratch/out: 50 fwrites of 1 KiB and 10 fseeks, then an fclose
	# holding the stdio flush (3 ms); /scratch/out2: written by thread 2,
	# closed by thread 1, whose close comes first in the trace (thread
	# 2's buffer written later); /scratch/in: only read, its close is
	# metadata
	t="$BATS_TEST_TMPDIR/flush.pfw"
	evt() {
		printf '{"id":0,"name":"%s","cat":"%s","pid":1,"tid":%s,"ts":%s,"dur":%s,"ph":"X","args":{%s}}\n' \
			"$1" "$2" "$3" "$4" "$5" "${6:-}"
	}
	( untraced
		evt fopen STDIO 1 0 10 '"fname":"/scratch/in"'
		evt fread STDIO 1 20 4000 '"fname":"/scratch/in","ret":4194304,"size":1'
		evt fclose STDIO 1 4030 5 '"fname":"/scratch/in"'
		evt fopen STDIO 1 5000 10 '"fname":"/scratch/out"'
		for i in $(seq 0 49); do
			evt fwrite STDIO 1 $((5100 + i * 10)) 2 '"fname":"/scratch/out","ret":1024,"size":1'
			[ $((i % 5)) != 0 ] ||
				evt fseek STDIO 1 $((5105 + i * 10)) 1 '"fname":"/scratch/out","offset":0,"whence":1,"ret":0'
		done
		evt fclose STDIO 1 6000 3000 '"fname":"/scratch/out"'
		evt fopen STDIO 1 10000 10 '"fname":"/scratch/out2"'
		evt fclose STDIO 1 12000 2500 '"fname":"/scratch/out2"'
		for i in $(seq 0 49); do
			evt fwrite STDIO 2 $((10100 + i * 10)) 2 '"fname":"/scratch/out2","ret":1024,"size":1'
		done
		evt main C_APP 1 0 15000
	) >"$t"
	# flushes: the fcloses of the files with fwrites; metadata: the other
	# opens, seeks and closes (count, us)
	want=$(jq -s -r '(map(select(.name == "fwrite") | .args.fname) | unique) as $w |
	  map(select(.name == "fclose" and (.args.fname | IN($w[])))) as $fl |
	  map(select(.name == "fopen" or .name == "fseek" or (.name == "fclose" and (.args.fname | IN($w[]) | not)))) as $md |
	  "\($md | length) \($md | map(.dur) | add) \($fl | length) \($fl | map(.dur) | add)"' "$t")
	got() {
		jq -s -r '(.[] | select(.type == "summary") | .io | "\(.metadata.count) \(.metadata.time_s * 1e6 | round) \(.flush.count) \(.flush.time_s * 1e6 | round)"),
		  ([.[] | select(.type == "bottleneck") | .class] | sort | join(","))' "$@"
	}
	run -0 bash -o pipefail -c "dft-analyze --all '$t' >'$BATS_TEST_TMPDIR/flush.out'"
	run -0 got "$BATS_TEST_TMPDIR/flush.out"
	assert_line -n 0 "$want"
	# the fcloses' time is not a metadata finding (it was: W01 on
	# /scratch/out, X01 over the run, the saving claiming the flushes)
	refute_line -n 1 --partial metadata
	first=$output
	for s in 0.002 0.005; do
		rm -rf "$BATS_TEST_TMPDIR/sp"
		run -0 dft-split -s "$s" -o "$BATS_TEST_TMPDIR/sp" "$t"
		for j in 1 2; do
			run -0 bash -o pipefail -c "dft-analyze --all -j $j '$BATS_TEST_TMPDIR'/sp/*.pfw.gz >'$BATS_TEST_TMPDIR/flush.out'"
			run -0 got "$BATS_TEST_TMPDIR/flush.out"
			assert_equal "$output" "$first"
		done
	done
	[ "$(ls "$BATS_TEST_TMPDIR"/sp/*.pfw.gz | wc -l)" -ge 3 ]
}

@test "a small-read finding takes only the reads' part of the misaligned facet, a small-write finding the writes'" {
	# hacc-io's shape: 16 reads of 800000 bytes and 4 of 3000000, 20
	# writes of 800000, every one 100 bytes past a 1 MB boundary
	# (misaligned, not whole pages: the misaligned facet joins the small
	# findings)
	t="$BATS_TEST_TMPDIR/misal.pfw"
	( untraced
		for i in $(seq 0 19); do
			ev pwrite64 POSIX $((i * 1000)) 350 "\"fname\":\"/scratch/p\",\"ret\":800000,\"offset\":$((i * 1000000 + 100))"
		done
		for i in $(seq 0 19); do
			ev pread64 POSIX $((100000 + i * 3000)) $((i < 16 ? 500 : 2000)) "\"fname\":\"/scratch/p\",\"ret\":$((i < 16 ? 800000 : 3000000)),\"offset\":$((i * 4000000 + 100))"
		done
		ev restart C_APP 0 200000
	) >"$t"
	# per direction: the larger of the small requests' time and the
	# misaligned (offset not a multiple of 4096) requests' time, in us
	want=$(jq -s -r 'def side(n): map(select(.name == n)) |
	    [(map(select(.args.ret < 1048576) | .dur) | add), (map(select(.args.offset % 4096 != 0) | .dur) | add)] | max;
	  "\(side("pread64")) \(side("pwrite64"))"' "$t")
	got() {
		jq -s -r '[(.[] | select(.type == "bottleneck" and .class == "small_read") | .time_s * 1e6 | round),
		  (.[] | select(.type == "bottleneck" and .class == "small_write") | .time_s * 1e6 | round)] | join(" ")' "$@"
	}
	run -0 bash -o pipefail -c "dft-analyze --all '$t' >'$BATS_TEST_TMPDIR/m.out'"
	run -0 got "$BATS_TEST_TMPDIR/m.out"
	assert_output "$want"
	# both carry the misaligned facet
	run -0 bash -o pipefail -c "jq -r 'select(.type == \"bottleneck\") | [.class, (.insights | sort | join(\",\"))] | @tsv' '$BATS_TEST_TMPDIR/m.out'"
	assert_line "$(printf 'small_read\tP05,P08')"
	assert_line "$(printf 'small_write\tP06,P08')"
	for s in 0.002 0.004; do
		rm -rf "$BATS_TEST_TMPDIR/sp"
		run -0 dft-split -s "$s" -o "$BATS_TEST_TMPDIR/sp" "$t"
		for j in 1 2; do
			run -0 bash -o pipefail -c "dft-analyze --all -j $j '$BATS_TEST_TMPDIR'/sp/*.pfw.gz >'$BATS_TEST_TMPDIR/m.out'"
			run -0 got "$BATS_TEST_TMPDIR/m.out"
			assert_output "$want"
		done
	done
}

@test "two runs of one program whose request times differ get the same WisIO imbalance rules (W02, W04): rows are judged by requests and bytes" {
	# file k (0..9): 20 writes and 20 - 2k reads of 4 KiB; run a: every
	# request 10 us; run b: /scratch/f0's take 100 us, so the other files'
	# time shares fall under view_min_share
	gen() (
		untraced
		ts=0
		for k in $(seq 0 9); do
			d=10
			[ "$k" != 0 ] || d=$1
			for i in $(seq 0 19); do
				ev pwrite64 POSIX $ts $d "\"fname\":\"/scratch/f$k\",\"ret\":4096,\"offset\":$((i * 4096))"
				ts=$((ts + d + 5))
			done
			for i in $(seq 1 $((20 - 2 * k))); do
				ev pread64 POSIX $ts $d "\"fname\":\"/scratch/f$k\",\"ret\":4096,\"offset\":$((i * 4096 - 4096))"
				ts=$((ts + d + 5))
			done
		done
		ev main C_APP 0 $ts
	)
	gen 10 >"$BATS_TEST_TMPDIR/a.pfw"
	gen 100 >"$BATS_TEST_TMPDIR/b.pfw"
	# the files whose share of the run's requests reaches view_min_share
	# (0.1) and whose reads and writes differ by more than 10 %
	rows=$(jq -s -r 'map(select(.cat == "POSIX")) | length as $n | group_by(.args.fname) |
	  map(select(length / $n >= 0.1) | (map(select(.name == "pread64")) | length) as $r | (length - $r) as $w |
	    select(((($w - $r) | fabs) / length) > 0.1) | .[0].args.fname) | join(" ")' "$BATS_TEST_TMPDIR/a.pfw")
	[ -n "$rows" ]
	mix() {
		jq -r 'select(.type == "bottleneck" and .class == "io_mix") | .insights | sort | join(",")' "$@"
	}
	for r in a b; do
		run -0 bash -o pipefail -c "dft-analyze --all '$BATS_TEST_TMPDIR/$r.pfw' >'$BATS_TEST_TMPDIR/$r.out'"
		run -0 mix "$BATS_TEST_TMPDIR/$r.out"
		assert_output --partial W02
		assert_output --partial W04
		eval "mix_$r=\$output"
	done
	assert_equal "$mix_b" "$mix_a"
	rm -rf "$BATS_TEST_TMPDIR/sp"
	run -0 dft-split -s 0.004 -o "$BATS_TEST_TMPDIR/sp" "$BATS_TEST_TMPDIR/b.pfw"
	for j in 1 2; do
		run -0 bash -o pipefail -c "dft-analyze --all -j $j '$BATS_TEST_TMPDIR'/sp/*.pfw.gz >'$BATS_TEST_TMPDIR/s.out'"
		run -0 mix "$BATS_TEST_TMPDIR/s.out"
		assert_output "$mix_a"
	done
}

@test "a metadata finding saves only the opens, closes, stats and seeks beyond one of each per file and process, not one expensive call" {
	# process 1 opens /scratch/z once (5 ms: truncating a large file),
	# seeks 20 times and stats it twice; process 2 opens it once to read
	t="$BATS_TEST_TMPDIR/once.pfw"
	( untraced
		ev open64 POSIX 0 5000 '"fname":"/scratch/z","ret":3'
		for i in $(seq 0 19); do
			ev lseek64 POSIX $((5100 + i * 100)) $((10 + i)) '"fname":"/scratch/z","ret":0'
			ev write POSIX $((5150 + i * 100)) 20 '"fname":"/scratch/z","ret":4096'
		done
		ev __xstat64 POSIX 8000 12 '"fname":"/scratch/z","ret":0'
		ev __xstat64 POSIX 8100 30 '"fname":"/scratch/z","ret":0'
		ev main C_APP 0 9000
		ev open64 POSIX 10000 40 '"fname":"/scratch/z","ret":3' | sed 's/"pid":1/"pid":2/'
		ev read POSIX 10100 50 '"fname":"/scratch/z","ret":81920' | sed 's/"pid":1/"pid":2/'
		ev main C_APP 10000 1000 | sed 's/"pid":1/"pid":2/'
	) >"$t"
	# per process and kind: (n - 1) / n of the kind's time, in us
	want=$(jq -s -r 'map(select(.cat == "POSIX" and (.name | test("open|seek|stat")))) |
	  group_by([.pid, (.name | sub("[0-9]+$"; ""))]) |
	  map((map(.dur) | add) * (length - 1) / length) | add | round' "$t")
	meta=$(jq -s -r 'map(select(.cat == "POSIX" and (.name | test("open|seek|stat"))) | .dur) | add' "$t")
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type == \"bottleneck\" and .class == \"metadata\") | \"\\(.time_s * 1e6 | round) \\(.saving_s * 1e6 | round)\"'"
	assert_output "$meta $want"
}

# split_same TRACE FUNC S1 S2: FUNC (reading one dft-analyze --all output
# file) prints the same after dft-split at chunk sizes S1 and S2 MiB (two
# chunks or more each), read with -j 1 and 2
split_same() {
	local t=$1 fn=$2 first s j
	run -0 bash -o pipefail -c "dft-analyze --all '$t' >'$BATS_TEST_TMPDIR/ss.out'"
	run -0 "$fn" "$BATS_TEST_TMPDIR/ss.out"
	first=$output
	for s in "$3" "$4"; do
		rm -rf "$BATS_TEST_TMPDIR/sp"
		run -0 dft-split -s "$s" -o "$BATS_TEST_TMPDIR/sp" "$t"
		[ "$(ls "$BATS_TEST_TMPDIR"/sp/*.pfw.gz | wc -l)" -ge 2 ]
		for j in 1 2; do
			run -0 bash -o pipefail -c "dft-analyze --all -j $j '$BATS_TEST_TMPDIR'/sp/*.pfw.gz >'$BATS_TEST_TMPDIR/ss.out'"
			run -0 "$fn" "$BATS_TEST_TMPDIR/ss.out"
			assert_equal "$output" "$first"
		done
	done
	output=$first
}

@test "many small files one process writes in one directory: the metadata saving is their calls but one file's, the advice is fewer files" {
	# the demo's scan_metadata: 40 files of 8 bytes created (2 ms each),
	# written, closed, stat-ed and unlinked in /scratch/m, the directory
	# made and removed; /scratch/log opened three times to read
	t="$BATS_TEST_TMPDIR/meta.pfw"
	( untraced
		ev main C_APP 0 150000
		ev mkdir POSIX 0 500 '"fname":"/scratch/m","ret":0'
		for i in $(seq 0 39); do
			ev open64 POSIX $((1000 + i * 2500)) 2000 "\"fname\":\"/scratch/m/f$i\",\"flags\":577,\"ret\":3"
			ev write POSIX $((3010 + i * 2500)) 5 "\"fname\":\"/scratch/m/f$i\",\"ret\":8"
			ev close POSIX $((3020 + i * 2500)) 3 "\"fname\":\"/scratch/m/f$i\",\"ret\":0"
		done
		for i in $(seq 0 39); do
			ev __xstat64 POSIX $((102000 + i * 100)) 10 "\"fname\":\"/scratch/m/f$i\",\"ret\":0"
			ev unlink POSIX $((106100 + i * 100)) $((20 + i % 3)) "\"fname\":\"/scratch/m/f$i\",\"ret\":0"
		done
		ev rmdir POSIX 111000 800 '"fname":"/scratch/m","ret":0'
		for i in 0 1 2; do
			ev open64 POSIX $((120000 + i * 1000)) 30 '"fname":"/scratch/log","flags":0,"ret":3'
			ev read POSIX $((120100 + i * 1000)) 40 '"fname":"/scratch/log","ret":100'
			ev close POSIX $((120200 + i * 1000)) 4 '"fname":"/scratch/log","ret":0'
		done
	) >"$t"
	# the saving (us): the small files' metadata (their closes flush the
	# data written: not metadata) but one file's share, and /scratch/log's
	# opens and closes beyond one; the band of saving / process time
	want=$(jq -s -r '
	  (map(select((.args.fname // "") | test("^/scratch/m/")) | select(.name != "write" and .name != "close") | .dur) | add) as $sm
	  | ([.[] | select(.args.fname == "/scratch/log" and .name != "read")] | group_by(.name) | map((map(.dur) | add) * (length - 1) / length) | add) as $rep
	  | ($sm * 39 / 40 + $rep) as $s | ($s / 150000) as $sh
	  | "\($s | round) \(if $sh >= 0.25 then "critical" elif $sh >= 0.1 then "high" elif $sh >= 0.03 then "medium" elif $sh >= 0.01 then "low" else "info" end)"' "$t")
	got() {
		jq -r 'select(.type == "bottleneck" and .class == "metadata") |
		  "\(.saving_s * 1e6 | round) \(.severity)", .evidence.parts.small_files.files, .recommendation' "$1"
	}
	split_same "$t" got 0.004 0.01
	assert_line -n 0 "$want"
	assert_line -n 1 40
	assert_line -n 2 --partial "create fewer, larger files: 40 files of at most 8 B written by one process in /scratch/m ("
}

@test "nine output files are no 'many small files' (small_files_min, 16): their creates are not saved, the log's repeated opens are" {
	# tinyxml2's shape: a test program writes its 9 results of ~1 kB in
	# /scratch/out (creates of 500 us); /scratch/log opened three times
	t="$BATS_TEST_TMPDIR/out9.pfw"
	( untraced
		ev main C_APP 0 60000
		for i in $(seq 0 8); do
			ev fopen64 STDIO $((1000 + i * 5000)) 500 "\"fname\":\"/scratch/out/r$i.xml\",\"mode\":\"w\""
			ev fwrite STDIO $((1600 + i * 5000)) 5 "\"fname\":\"/scratch/out/r$i.xml\",\"ret\":1024"
			ev fclose STDIO $((1700 + i * 5000)) 30 "\"fname\":\"/scratch/out/r$i.xml\",\"ret\":0"
		done
		for i in 0 1 2; do
			ev open64 POSIX $((50000 + i * 1000)) 30 '"fname":"/scratch/log","flags":0,"ret":3'
			ev read POSIX $((50100 + i * 1000)) 40 '"fname":"/scratch/log","ret":100'
			ev close POSIX $((50200 + i * 1000)) 4 '"fname":"/scratch/log","ret":0'
		done
	) >"$t"
	want=$(jq -s -r '[.[] | select(.args.fname == "/scratch/log" and .name != "read")] | group_by(.name) | map((map(.dur) | add) * (length - 1) / length) | add | round' "$t")
	got() {
		jq -r 'select(.type == "bottleneck" and .class == "metadata") | "\(.saving_s * 1e6 | round) \(.evidence.parts.small_files.files)"' "$1"
	}
	split_same "$t" got 0.002 0.004
	assert_output "$want 0"
	# with the threshold at 9 they are many again
	printf 'small_files_min = 9\n' >"$BATS_TEST_TMPDIR/thr.conf"
	run -0 bash -o pipefail -c "dft-analyze --all -c '$BATS_TEST_TMPDIR/thr.conf' '$t' | jq -r 'select(.type == \"bottleneck\" and .class == \"metadata\") | .evidence.parts.small_files.files'"
	assert_output 9
}

@test "one expensive truncate at create: the metadata finding is at most low (nothing to save) and its advice names the ftruncate calls" {
	# h5bench's shape: two ranks create an HDF5 file that exists from a
	# former run; each truncates it to 0 (~50 ms: the old blocks freed),
	# then writes 20 MiB at 1 MiB a call
	t="$BATS_TEST_TMPDIR/trunc.pfw"
	for p in 1 2; do
		( untraced
			ev main C_APP 0 200000
			ev open64 POSIX 10 50 '"fname":"/scratch/h.h5","flags":66,"ret":3'
			ev ftruncate64 POSIX 100 $((50000 + p * 2000)) '"fname":"/scratch/h.h5","length":0,"ret":0'
			for i in $(seq 0 19); do
				ev pwrite64 POSIX $((60000 + i * 2000)) 1000 "\"fname\":\"/scratch/h.h5\",\"ret\":1048576,\"offset\":$(((p - 1) * 20971520 + i * 1048576))"
			done
			ev close POSIX 150000 20 '"fname":"/scratch/h.h5","ret":0'
		) | sed "s/\"pid\":1/\"pid\":$p/"
	done >"$t"
	# at stake: the opens and ftruncates (the closes flush the writes);
	# a critical share of the process time, saving nothing
	want=$(jq -s -r '(map(select(.name | test("open|truncate")) | .dur) | add) as $m
	  | (map(select(.name | test("truncate")) | .dur) | add) as $tr
	  | "\($m) \($m / 400000 >= 0.25) \($tr / 1e6 * 1000 | round / 1000)"' "$t")
	got() {
		jq -r 'select(.type == "bottleneck" and .class == "metadata") |
		  "\(.time_s * 1e6 | round) \(.wall_share >= 0.25) \(.severity) \(.saving_s)", .recommendation' "$1"
	}
	split_same "$t" got 0.002 0.004
	read -r mt crit trs <<<"$want"
	assert_line -n 0 "$mt $crit low 0"
	[ "$crit" = true ]
	assert_line -n 1 --partial "in calls that do not repeat, most in ftruncate64 (x2, $(printf '%.3f' "$trs") s): truncating a file frees the blocks of its old contents"
}

# prog RUN [STALLS]: one run of a program that writes 40 x 4 KiB into each
# of 4 files and reads them back with 40 preads, request times jittered by
# the run; STALLS: "KIND:I" calls held up to 4 ms (pread or write number I)
prog() (
	untraced
	local r=$1 st=" ${2:-} " k i d
	ev main C_APP 0 20000
	for k in 0 1 2 3; do
		ev open64 POSIX $((1000 + k * 4000)) $((90 + (r + k) % 4 * 5)) "\"fname\":\"/scratch/d/f$k\",\"ret\":3"
		for i in $(seq 0 39); do
			d=$((4 + (r + i) % 3))
			case $st in *" write:$((k * 40 + i)) "*) d=4000 ;; esac
			ev write POSIX $((1200 + k * 4000 + i * 20)) $d "\"fname\":\"/scratch/d/f$k\",\"ret\":4096"
		done
		for i in $(seq 0 39); do
			d=$(((r + i) % 2 + 1))
			case $st in *" pread:$((k * 40 + i)) "*) d=4000 ;; esac
			ev pread64 POSIX $((2100 + k * 4000 + i * 50)) $d "\"fname\":\"/scratch/d/f$k\",\"ret\":4096,\"offset\":$((i * 4096))"
		done
		ev close POSIX $((4200 + k * 4000)) 3 "\"fname\":\"/scratch/d/f$k\",\"ret\":0"
	done
)

@test "runs of one program with one call held up in some of them give the same findings: a stall's time beyond 16 times its kind's median is not judged" {
	prog 1 >"$BATS_TEST_TMPDIR/r1.pfw"
	prog 2 "pread:57" >"$BATS_TEST_TMPDIR/r2.pfw"
	prog 3 "write:100" >"$BATS_TEST_TMPDIR/r3.pfw"
	prog 4 "pread:3 write:151" >"$BATS_TEST_TMPDIR/r4.pfw"
	prog 5 "pread:10 pread:130" >"$BATS_TEST_TMPDIR/r5.pfw"
	# the stalls' time beyond the cap: 16 x the upper edge of the power
	# of two bucket holding the median of the run's calls of that name
	want() {
		jq -s -r 'map(select(.name == "pread64" or .name == "write")) | group_by(.name)
		  | map((map(.dur) | sort | .[(length - 1) / 2 | floor]) as $m
		    | (if $m < 2 then 2 else pow(2; ($m | log2 | floor) + 1) end * 16) as $cap
		    | map(select(.dur >= $cap) | .dur - $cap)) | flatten | "\(length) \(add // 0)"' "$1"
	}
	got() {
		jq -r 'if .type == "summary" then "stalls \(.stalls.count) \(.stalls.time_s * 1e6 | round)"
		  elif .type == "bottleneck" then "\(.class) \(.severity) \(.insights | join(","))" else empty end' "$1"
	}
	for r in 1 2 3 4 5; do
		run -0 bash -o pipefail -c "dft-analyze --all '$BATS_TEST_TMPDIR/r$r.pfw' >'$BATS_TEST_TMPDIR/r$r.out'"
		run -0 got "$BATS_TEST_TMPDIR/r$r.out"
		assert_line -n 0 "stalls $(want "$BATS_TEST_TMPDIR/r$r.pfw")"
		printf '%s\n' "${lines[@]:1}" >"$BATS_TEST_TMPDIR/f$r"
	done
	[ -s "$BATS_TEST_TMPDIR/f1" ]
	for r in 2 3 4 5; do
		diff "$BATS_TEST_TMPDIR/f1" "$BATS_TEST_TMPDIR/f$r"
	done
	# the summary's sums are as measured, stalls in
	run -0 bash -o pipefail -c "jq -r 'select(.type == \"summary\") | .io.read.time_s * 1e6 | round' '$BATS_TEST_TMPDIR/r5.out'"
	assert_output "$(jq -s 'map(select(.name == "pread64") | .dur) | add' "$BATS_TEST_TMPDIR/r5.pfw")"
	# the same after dft-split at two sizes, read with -j 1 and 2
	split_same "$BATS_TEST_TMPDIR/r5.pfw" got 0.01 0.02
	assert_line -n 0 "stalls $(want "$BATS_TEST_TMPDIR/r5.pfw")"
}

@test "slow calls that are not rare are no stalls: 20 cold reads of 160 count in full" {
	t="$BATS_TEST_TMPDIR/cold.pfw"
	prog 1 >"$t.0"
	# the first 5 preads of each file take 40 us (read from disk; the rest
	# from the page cache), over 16 times the median
	jq -c 'if .name == "pread64" and (.args.offset < 20480) then .dur = 40 else . end' "$t.0" >"$t"
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -r 'if .type == \"summary\" then .stalls.count else empty end'"
	assert_output 0
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -r 'select(.type == \"bottleneck\" and .class == \"small_read\") | .time_s * 1e6 | round'"
	assert_output "$(jq -s 'map(select(.name == "pread64") | .dur) | add' "$t")"
}

# xml N "I:D J:D ...": tinyxml2's shape: N fopen/fread/fclose of 7 files
# in turn, each fopen ~30 us but those at the indexes given, held up D us
xml() (
	untraced
	local n=$1 st=" ${2:-} " t=1000 i d
	for i in $(seq 0 $((n - 1))); do
		d=$((28 + i % 5))
		case $st in *" $i:"*) d=${st#* "$i":} d=${d%% *} ;; esac
		ev fopen STDIO $t $d "\"fname\":\"/scratch/x/doc$((i % 7)).xml\",\"mode\":\"rb\""
		ev fread STDIO $((t + d + 10)) 5 "\"fname\":\"/scratch/x/doc$((i % 7)).xml\",\"ret\":512"
		ev fclose STDIO $((t + d + 30)) 5 "\"fname\":\"/scratch/x/doc$((i % 7)).xml\",\"ret\":0"
		t=$((t + d + 1500))
	done
	ev main C_APP 0 $((t + 1000))
)

@test "in a group of 16 to 63 calls a call held up far beyond the rest is a stall, one in 16 at most: fopens of 24 and 9 ms among 35" {
	xml 35 >"$BATS_TEST_TMPDIR/x1.pfw"
	xml 35 "17:24000 30:9000" >"$BATS_TEST_TMPDIR/x2.pfw"
	# three held up; one far out beside one only 30 times the median; one
	# of a group of 15
	xml 35 "5:24000 17:9000 30:24000" >"$BATS_TEST_TMPDIR/x3.pfw"
	xml 35 "5:24000 17:1000" >"$BATS_TEST_TMPDIR/x4.pfw"
	xml 15 "7:24000" >"$BATS_TEST_TMPDIR/x5.pfw"
	got() {
		jq -r 'if .type == "summary" then "stalls \(.stalls.count) \(.stalls.time_s * 1e6 | round)"
		  elif .type == "bottleneck" then "\(.class) \(.severity) \(.insights | join(","))" else empty end' "$1"
	}
	for r in 1 2 3 4 5; do
		run -0 bash -o pipefail -c "dft-analyze --all '$BATS_TEST_TMPDIR/x$r.pfw' >'$BATS_TEST_TMPDIR/x$r.out'"
	done
	# their time beyond 16 x the upper edge of the median's power of two
	# bucket is left out (both are over 16 x that again), and the findings
	# are the undisturbed run's
	cap=$(jq -s 'map(select(.name == "fopen") | .dur) | sort | .[(length - 1) / 2 | floor] | pow(2; (log2 | floor) + 1) * 16' "$BATS_TEST_TMPDIR/x2.pfw")
	jq -e -s --argjson c "$cap" 'map(select(.name == "fopen" and .dur > $c) | .dur >= 16 * $c) | length == 2 and all' "$BATS_TEST_TMPDIR/x2.pfw" >/dev/null
	run -0 got "$BATS_TEST_TMPDIR/x2.out"
	assert_line -n 0 "stalls 2 $((24000 + 9000 - 2 * cap))"
	printf '%s\n' "${lines[@]:1}" >"$BATS_TEST_TMPDIR/f2"
	run -0 got "$BATS_TEST_TMPDIR/x1.out"
	assert_line -n 0 "stalls 0 0"
	printf '%s\n' "${lines[@]:1}" | diff - "$BATS_TEST_TMPDIR/f2"
	# the same after dft-split at two sizes, read with -j 1 and 2
	split_same "$BATS_TEST_TMPDIR/x2.pfw" got 0.002 0.004
	assert_line -n 0 "stalls 2 $((24000 + 9000 - 2 * cap))"
	# three of 35, a tail of slowish calls, or one of 15: not told from the
	# program's own slow calls; they count in full
	for r in 3 4 5; do
		run -0 jq -r 'select(.type == "summary") | .stalls.count' "$BATS_TEST_TMPDIR/x$r.out"
		assert_output 0
		run -0 jq -r 'select(.type == "bottleneck" and .class == "metadata") | .time_s * 1e6 | round' "$BATS_TEST_TMPDIR/x$r.out"
		# (a close of a file only read is metadata too)
		assert_output "$(jq -s 'map(select(.name == "fopen" or .name == "fclose") | .dur) | add' "$BATS_TEST_TMPDIR/x$r.pfw")"
	done
}

@test "a finding with little at stake (under 3 % of the run) that saves nothing is info: the control's one slow open" {
	# bottlenecks.bats' control under load: one open of 20 ms (2 % of a
	# 1 s run), one 64 KiB write; nothing to save, nothing to show
	t="$BATS_TEST_TMPDIR/ctl.pfw"
	( untraced
		ev main C_APP 0 1000000
		ev open64 POSIX 990000 20000 '"fname":"/scratch/result.dat","flags":577,"ret":3'
		ev write POSIX 999000 100 '"fname":"/scratch/result.dat","ret":65536'
		ev close POSIX 999200 10 '"fname":"/scratch/result.dat","ret":0'
	) >"$t"
	share=$(jq -s '(map(select(.name == "open64") | .dur) | add) / 1000000' "$t")
	awk -v s="$share" 'BEGIN { exit !(s >= 0.01 && s < 0.03) }'
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -r 'select(.type == \"bottleneck\" and .class == \"metadata\") | \"\\(.severity) \\(.saving_s)\"'"
	assert_output "info 0"
}

@test "the STDIO finding's time is its data path's, not the opens the files would cost through POSIX too: expensive creates are the metadata finding's" {
	# tinyxml2's xmltest: 10 files created through fopen (5 ms each, a
	# create after many unlinks), 50 fwrites of 100 bytes each, a
	# flushing fclose
	t="$BATS_TEST_TMPDIR/stdio.pfw"
	( untraced
		ev main C_APP 0 100000
		for i in $(seq 0 9); do
			b=$((1000 + i * 9000))
			ev fopen64 STDIO $b 5000 "\"fname\":\"/out/f$i.xml\",\"ret\":1"
			for k in $(seq 0 49); do
				ev fwrite STDIO $((b + 5100 + k * 10)) 1 "\"fname\":\"/out/f$i.xml\",\"ret\":100"
			done
			ev fclose STDIO $((b + 5700)) 20 "\"fname\":\"/out/f$i.xml\",\"ret\":0"
		done
	) >"$t"
	# STDIO's data time: every STDIO call but the opens
	want=$(jq -s -r '[.[] | select(.cat == "STDIO" and (.name | test("open") | not)) | .dur] | add' "$t")
	[ "$want" = 700 ]
	got() {
		jq -r 'select(.type == "bottleneck") | "\(.rank) \(.class) \(.time_s * 1e6 | round)"' "$1"
	}
	split_same "$t" got 0.004 0.01
	assert_line -n 0 --regexp "^1 metadata "
	assert_line "2 stdio $want"
}

@test "a file removed or truncated and written again holds new data: no redundant writes; the same offsets written twice in one open still are" {
	# leveldb's db_bench: each benchmark destroys the database and writes
	# 000003.log again (open O_TRUNC|O_CREAT|O_WRONLY = 577 after an
	# unlink); the writes come from a worker thread (tid 2, 3) and so lie
	# in the trace before the main thread's opens and unlinks
	w() (	# w TID T0: 100 writes of 1000 B
		untraced
		for i in $(seq 0 99); do
			ev write POSIX $(($2 + i * 20)) 10 '"fname":"/scratch/db/000003.log","ret":1000'
		done | sed "s/\"tid\":1/\"tid\":$1/"
	)
	base="$BATS_TEST_TMPDIR/base.pfw" t="$BATS_TEST_TMPDIR/db.pfw"
	{ ev main C_APP 0 20000; w 2 1000; w 3 11000; } >"$base"
	( untraced
		cat "$base"
		ev open POSIX 900 20 '"fname":"/scratch/db/000003.log","flags":577,"mode":420'
		ev unlink POSIX 10000 50 '"fname":"/scratch/db/000003.log","ret":0'
		ev open POSIX 10900 20 '"fname":"/scratch/db/000003.log","flags":577,"mode":420'
	) >"$t"
	red() {
		jq -r 'select(.type == "bottleneck" and (.metric == "redundant_write_ratio" or
		  (.facets | index("redundant_write_ratio")))) | "\(.class) \(.evidence.redundant_bytes // "facet")"' "$1"
	}
	split_same "$t" red 0.004 0.01
	assert_output ""
	# the same writes with no removal or truncation: the second 100 are
	# written again over the first (bytes written less the highest offset)
	want=$(jq -s '([.[] | select(.name == "write") | .args.ret] | add) - 100 * 1000' "$base")
	[ "$want" -eq 100000 ]
	run -0 bash -o pipefail -c "dft-analyze --all '$base' >'$BATS_TEST_TMPDIR/b.out'"
	run -0 red "$BATS_TEST_TMPDIR/b.out"
	assert_output "write_time $want"
	# an open for reading and writing that does not truncate keeps the data:
	# still redundant; so is an fopen "r+", while fopen "w" truncates
	for o in '"flags":66,"mode":420' '"mode":"r+"' '"mode":"w"'; do
		case $o in *flags*) n=open ;; *) n=fopen ;; esac
		( untraced
			cat "$base"
			ev $n POSIX 900 20 "\"fname\":\"/scratch/db/000003.log\",$o"
			ev $n POSIX 10900 20 "\"fname\":\"/scratch/db/000003.log\",$o"
		) >"$BATS_TEST_TMPDIR/o.pfw"
		run -0 bash -o pipefail -c "dft-analyze --all '$BATS_TEST_TMPDIR/o.pfw' >'$BATS_TEST_TMPDIR/o.out'"
		run -0 red "$BATS_TEST_TMPDIR/o.out"
		case $o in *'"w"'*) assert_output "" ;; *) assert_output "write_time $want" ;; esac
	done
}

@test "findings are ranked by severity, then by time at stake: a low finding with more time at stake comes after a high one" {
	# one truncate of 40 ms (metadata: at stake, nothing to save: low) and
	# 20 fsyncs of 1.5 ms after 20 writes (sync: all but one saved: high)
	t="$BATS_TEST_TMPDIR/rank.pfw"
	( untraced
		ev main C_APP 0 200000
		ev open64 POSIX 10 50 '"fname":"/scratch/j","flags":66,"ret":3'
		ev ftruncate64 POSIX 100 40000 '"fname":"/scratch/j","length":0,"ret":0'
		for i in $(seq 0 19); do
			ev write POSIX $((50000 + i * 2000)) 100 "\"fname\":\"/scratch/j\",\"ret\":4096"
			ev fsync POSIX $((50100 + i * 2000)) 1500 "\"fname\":\"/scratch/j\",\"ret\":0"
		done
	) >"$t"
	# the bands, derived: metadata's stake and saving (0), sync's saving
	# all but one fsync; over the process time 200 ms
	want=$(jq -s -r 'def band: if . >= 0.25 then "critical" elif . >= 0.1 then "high" elif . >= 0.03 then "medium" elif . >= 0.01 then "low" else "info" end;
	  (map(select(.name | test("open|truncate")) | .dur) | add) as $m
	  | (map(select(.name == "fsync") | .dur) | add) as $s
	  | "sync \($s * 19 / 20 / 200000 | band) \($s)", "metadata \(if ($m / 200000) >= 0.03 then "low" else "info" end) \($m)"' "$t")
	[ "$(printf '%s\n' "$want" | sed -n 1p | cut -d' ' -f2)" = high ]
	[ "$(printf '%s\n' "$want" | sed -n 2p | cut -d' ' -f3)" -gt "$(printf '%s\n' "$want" | sed -n 1p | cut -d' ' -f3)" ]
	got() {
		jq -r 'select(.type == "bottleneck" and (.class == "sync" or .class == "metadata")) |
		  "\(.class) \(.severity) \(.time_s * 1e6 | round)"' "$1"
	}
	split_same "$t" got 0.002 0.004
	assert_output "$want"
	# the rank field and the table follow the same order
	run -0 bash -o pipefail -c "dft-analyze '$t' | jq -r 'select(.type == \"bottleneck\") | \"\\(.rank) \\(.class)\"' | head -n 2"
	assert_output "$(printf '1 sync\n2 metadata')"
}
