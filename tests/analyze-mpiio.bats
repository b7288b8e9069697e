#!/usr/bin/env bats
# dft-analyze's MPI-IO and HDF5 layers and the Drishti MPI-IO insights
# (dft-analyze(1) "MPI-IO and HDF5"): traces made here by
# tests/gen-mpiio-trace.awk in the event format of the runtime, every
# expected number derived from the trace with jq.

load test_helper

# gen MODE N M: a gzipped trace in $BATS_TEST_TMPDIR/MODE.pfw.gz
gen() {
	awk -v mode="$1" -v n="$2" -v m="${3:-0}" -f "$REPO/tests/gen-mpiio-trace.awk" |
		gzip >"$BATS_TEST_TMPDIR/$1.pfw.gz"
}

# events CAT: the complete events of that category, as one JSON array
events() {
	zcat "$BATS_TEST_TMPDIR/$2.pfw.gz" | grep '"ph":"X"' | jq -s -c --arg c "$1" 'map(select(.cat == $c))'
}

# inner OUTER INNER... TRACE: microseconds of the INNER categories' calls
# inside the OUTER calls of the same process, each OUTER call taking the
# larger of its INNER categories' sums (events of one process never overlap
# within one category here)
inner() {
	zcat "$BATS_TEST_TMPDIR/$3.pfw.gz" | grep '"ph":"X"' | jq -s --arg o "$1" --arg i "$2" '
		. as $all | [$all[] | select(.cat == $o) | . as $x
		| [($i | split(","))[] as $c | [$all[] | select(.cat == $c and .pid == $x.pid
			and .ts >= $x.ts and .ts + .dur <= $x.ts + $x.dur) | .dur] | add // 0]
		| max] | add'
}

thresholds() {
	printf 'collective_operations_absolute = 100\nsmall_requests_absolute = 100\n' >"$BATS_TEST_TMPDIR/t.conf"
}

@test "the MPI-IO layer counts the MPIIO calls; the POSIX calls inside them stay the data layer, counted once" {
	set -o pipefail
	gen mpiio 150 4
	a=$BATS_TEST_TMPDIR/a.ndjson
	dft-analyze "$BATS_TEST_TMPDIR/mpiio.pfw.gz" >"$a"
	m=$(events MPIIO mpiio)
	p=$(events POSIX mpiio)
	want=$(jq -n -c --argjson m "$m" --argjson in "$(inner MPIIO POSIX mpiio)" '
		{count: ($m | length), time_us: ($m | map(.dur) | add),
		 bytes: ($m | map(select(.name | test("read|write")) | .args.size) | add),
		 inner_us: $in, overhead_us: (($m | map(.dur) | add) - $in),
		 read_collective: ($m | map(select(.args.collective == 1 and (.name | test("read")))) | length),
		 write_independent: ($m | map(select(.args.collective == 0 and (.name | test("write")))) | length),
		 read_nonblocking: ($m | map(select(.args.nonblocking == 1 and (.name | test("read")))) | length),
		 threads: ($m | map(.pid) | unique | length)}')
	got=$(jq -c 'select(.type == "layer" and .layer == "mpiio") |
		{count, time_us: (.time_s * 1e6 | round), bytes,
		 inner_us: (.inner.time_s * 1e6 | round), overhead_us: (.overhead_s * 1e6 | round),
		 read_collective: .derived.read_collective.count,
		 write_independent: .derived.write_independent.count,
		 read_nonblocking: .derived.read_nonblocking.count, threads}' "$a")
	[ "$got" = "$want" ]
	# the summary's I/O is the POSIX calls alone; the interface row is the layer
	run -0 jq -r --argjson p "$p" --argjson m "$m" 'select(.type == "summary") |
		[.io.count == ($p | length), (.io.time_s * 1e6 | round) == ($p | map(.dur) | add),
		 .interfaces.mpiio.count == ($m | length), .interfaces.posix.count == ($p | length),
		 .interfaces.hdf5.count == 0] | @tsv' "$a"
	assert_output "$(printf 'true\ttrue\ttrue\ttrue\ttrue')"
	# the posix layer is the data layer, as without MPI-IO
	run -0 jq -r --argjson p "$p" 'select(.type == "layer" and .layer == "posix") | .count == ($p | length)' "$a"
	assert_output true
}

@test "independent MPI-IO writes give M03 over collective_operations_absolute, M07 blocking and small shared writes on the MPI-IO layer" {
	set -o pipefail
	gen mpiio 150 4
	thresholds
	t=$BATS_TEST_TMPDIR/mpiio.pfw.gz
	m=$(events MPIIO mpiio)
	p=$(events POSIX mpiio)
	indep=$(jq -n --argjson m "$m" '$m | map(select((.name | test("write")) and .args.collective == 0) | .dur) | add')
	wr=$(jq -n --argjson m "$m" '$m | map(select(.name | test("write")) | .dur) | add')
	small=$(jq -n --argjson m "$m" --argjson p "$p" '[($m | map(select((.name | test("write")) and .args.size < 1048576) | .dur) | add),
		($p | map(select((.name | test("write")) and .args.ret < 1048576) | .dur) | add)] | max')
	# Drishti's default: more than 1000 MPI-IO writes before M03 speaks
	[ "$(jq -n --argjson m "$m" '$m | map(select(.name | test("write"))) | length')" -le 1000 ]
	run -0 bash -o pipefail -c "dft-analyze --all '$t' | jq -r 'select(.type == \"bottleneck\") | .insights[]'"
	refute_line M03
	run -0 bash -o pipefail -c "dft-analyze --all -c '$BATS_TEST_TMPDIR/t.conf' '$t' | jq -c 'select(.type == \"bottleneck\") | {class, insights, t: (.time_s * 1e6 | round), layer}'"
	assert_line "{\"class\":\"collective_io\",\"insights\":[\"M03\"],\"t\":$indep,\"layer\":\"mpiio\"}"
	assert_line "{\"class\":\"async_io\",\"insights\":[\"M07\"],\"t\":$wr,\"layer\":\"mpiio\"}"
	assert_line --regexp "^\\{\"class\":\"small_write\",\"insights\":\\[[^]]*\"P16\"[^]]*\\],\"t\":$small,"
	refute_output --partial '"M02"'
	refute_output --partial '"M05"'
	# the small-write finding folds the MPI-IO rule; collective reads and
	# non-blocking reads are OK insights of the summary
	run -0 bash -o pipefail -c "dft-analyze --all -c '$BATS_TEST_TMPDIR/t.conf' '$t' | jq -r 'select(.type == \"bottleneck\" and .class == \"small_write\") | .facets[]'"
	assert_line mpiio_shared_small_write_pct
	run -0 bash -o pipefail -c "dft-analyze -c '$BATS_TEST_TMPDIR/t.conf' '$t' | jq -r 'select(.type == \"summary\") | .ok_insights[] | select(.layer == \"mpiio\") | .insight'"
	assert_output "$(printf 'M04\nM06')"
}

# gaps TRACE: microseconds from the end of each blocking MPI-IO read or
# write to the next MPI-IO call of its process, summed; and the blocking
# calls' time, as "gaps blocking"
gaps() {
	zcat "$BATS_TEST_TMPDIR/$1.pfw.gz" | grep '"ph":"X"' | jq -s -r '
		map(select(.cat == "MPIIO")) | group_by(.pid) | map(sort_by(.ts)) as $p
		| ([$p[] | . as $c | range(0; length - 1) as $i
			| select(($c[$i].name | test("read|write")) and $c[$i].args.nonblocking == 0)
			| $c[$i + 1].ts - ($c[$i].ts + $c[$i].dur)] | add) as $g
		| ([$p[][] | select((.name | test("read|write")) and .args.nonblocking == 0) | .dur] | add) as $b
		| "\($g) \($b)"'
}

@test "blocking MPI-IO: what non-blocking calls could hide is the time after each blocking call before the next, so back-to-back requests (IOR) put nothing at stake" {
	set -o pipefail
	d=$BATS_TEST_TMPDIR
	for m in 10 1000; do
		awk -v mode=async -v n=8 -v m=$m -f "$REPO/tests/gen-mpiio-trace.awk" | gzip >"$d/async.pfw.gz"
		read -r g b <<<"$(gaps async)"
		[ "$g" -gt 0 ] && [ "$b" -gt 0 ]
		# nor more than the I/O time itself (the POSIX calls, apart here)
		io=$(zcat "$d/async.pfw.gz" | grep '"ph":"X"' | jq -s '[.[] | select(.cat == "POSIX") | .dur] | add')
		want=$(( g < b ? g : b ))
		want=$(( want < io ? want : io ))
		# 10 us after each request: the gaps bound it, far under the calls' time
		[ "$m" -ne 10 ] || { [ "$want" -eq "$g" ] && [ "$g" -lt "$b" ]; }
		run -0 bash -o pipefail -c "dft-analyze --all '$d/async.pfw.gz' | jq -c 'select(.type == \"bottleneck\" and .class == \"async_io\") | [(.time_s * 1e6 | round), (.saving_s * 1e6 | round), (.evidence.blocking_time_s * 1e6 | round), (.evidence.overlap_window_s * 1e6 | round), .insights, .title]'"
		assert_output "[$want,$want,$b,$g,[\"M06\",\"M07\"],\"Blocking MPI-IO reads and writes only\"]"
		# the description counts both directions
		run -0 bash -o pipefail -c "dft-analyze --all '$d/async.pfw.gz' | jq -r 'select(.type == \"bottleneck\" and .class == \"async_io\") | .description'"
		assert_output --partial "all 16 MPI-IO read calls"
		assert_output --partial "all 16 write calls"
		# split into chunks, the same
		rm -rf "$d/c"
		dft-split -s 0.002 -o "$d/c" "$d/async.pfw.gz" >"$d/c.ndjson"
		[ "$(grep -c '"type":"chunk"' "$d/c.ndjson")" -ge 3 ]
		run -0 bash -o pipefail -c "dft-analyze --all -j 2 <'$d/c.ndjson' | jq -c 'select(.type == \"bottleneck\" and .class == \"async_io\") | (.time_s * 1e6 | round)'"
		assert_output "$want"
	done
}

# h5gaps: 2 ranks, 8 x H5Dwrite (400 us) each holding two blocking
# MPI_File_write_at (300 us, pwrite64 inside) with 100 us of HDF5's own
# work between them, 60 us of computation between the H5Dwrite calls,
# then H5Fclose > MPI_File_close; in end order, inner calls first
h5gaps() {
	awk 'function ev(name, cat, pid, ts, dur, args) {
		printf "{\"id\":0,\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%d,\"dur\":%d,\"ph\":\"X\",\"args\":{\"hhash\":\"h1\",\"fhash\":\"f6\"%s}}\n", name, cat, pid, pid, ts, dur, args
	}
	function w(pid, ts, off) {
		ev("pwrite64", "POSIX", pid, ts + 10, 280, ",\"ret\":1048576,\"offset\":" off)
		ev("MPI_File_write_at", "MPIIO", pid, ts, 300, ",\"count\":1048576,\"dtype_size\":1,\"size\":1048576,\"offset\":" off ",\"collective\":0,\"nonblocking\":0,\"ret\":0")
	}
	BEGIN {
		print "["
		print "{\"id\":0,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":100,\"ph\":\"M\",\"args\":{\"hhash\":\"h1\",\"name\":\"node1\",\"value\":\"h1\"}}"
		print "{\"id\":0,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":100,\"ph\":\"M\",\"args\":{\"hhash\":\"h1\",\"name\":\"/scratch/mpi/h5gaps.h5\",\"value\":\"f6\"}}"
		for (r = 0; r < 2; r++) {
			pid = 100 + r
			ev("open64", "POSIX", pid, 1010, 20, ",\"ret\":3")
			ev("MPI_File_open", "MPIIO", pid, 1005, 40, ",\"amode\":37,\"comm_size\":2,\"ret\":0")
			ev("H5Fcreate", "HDF5", pid, 1000, 100, "")
			t = 2000
			for (i = 0; i < 8; i++) {
				off = (r * 16 + 2 * i) * 1048576
				w(pid, t + 20, off)
				w(pid, t + 420, off + 1048576)
				ev("H5Dwrite", "HDF5", pid, t, 760, ",\"size\":2097152,\"collective\":0")
				t += 760 + 60
			}
			ev("close", "POSIX", pid, t + 30, 10, ",\"ret\":0")
			ev("MPI_File_close", "MPIIO", pid, t + 20, 30, ",\"ret\":0")
			ev("H5Fclose", "HDF5", pid, t, 70, "")
		}
		print "]"
	}' | gzip >"$BATS_TEST_TMPDIR/h5gaps.pfw.gz"
}

@test "async_io over HDF5: the time between MPI-IO calls inside an HDF5 call of the thread is not overlappable; chunks and -j agree" {
	set -o pipefail
	d=$BATS_TEST_TMPDIR
	h5gaps
	# per thread: the gap after each blocking MPI-IO read or write to the
	# next MPI-IO call, minus its overlap with the thread's HDF5 calls
	# (they do not overlap each other here), summed
	read -r g all b <<<"$(zcat "$d/h5gaps.pfw.gz" | grep '"ph":"X"' | jq -s -r '
		. as $ev | [$ev[] | select(.cat == "MPIIO")] | group_by(.pid) | map(sort_by(.ts)) as $p
		| [$p[] | . as $c | range(0; length - 1) as $i
			| select(($c[$i].name | test("read|write")) and $c[$i].args.nonblocking == 0)
			| {pid: $c[$i].pid, s: ($c[$i].ts + $c[$i].dur), e: $c[$i + 1].ts}] as $gaps
		| ([$gaps[] | . as $g | ($g.e - $g.s) - ([$ev[] | select(.cat == "HDF5" and .pid == $g.pid)
			| ([.ts + .dur, $g.e] | min) - ([.ts, $g.s] | max) | select(. > 0)] | add // 0)] | add) as $out
		| ([$gaps[] | .e - .s] | add) as $all
		| ([$p[][] | select((.name | test("read|write")) and .args.nonblocking == 0) | .dur] | add) as $b
		| "\($out) \($all) \($b)"')"
	# 8 x 60 us of computation per rank (the last before H5Fclose) is all
	# that is left
	[ "$g" -eq $((2 * 8 * 60)) ]
	[ "$all" -gt "$g" ]
	[ "$b" -gt "$all" ]
	run -0 bash -o pipefail -c "dft-analyze --all '$d/h5gaps.pfw.gz' | jq -c 'select(.type == \"bottleneck\" and .class == \"async_io\") | [(.time_s * 1e6 | round), (.evidence.overlap_window_s * 1e6 | round), (.evidence.blocking_time_s * 1e6 | round)]'"
	assert_output "[$g,$g,$b]"
	# the whole trace's records from chunks, with -j 1 and -j 2
	dft-analyze --all -j 1 "$d/h5gaps.pfw.gz" | grep -v '"type":"step"' | jq -S -c 'del(.inputs)' >"$d/whole"
	dft-split -s 0.001 -o "$d/c" "$d/h5gaps.pfw.gz" >"$d/c.ndjson"
	[ "$(grep -c '"type":"chunk"' "$d/c.ndjson")" -ge 3 ]
	for j in 1 2; do
		dft-analyze --all -j $j <"$d/c.ndjson" | grep -v '"type":"step"' | jq -S -c 'del(.inputs)' >"$d/parts"
		diff "$d/whole" "$d/parts"
	done
}

@test "HDF5 over MPI-IO gives the HDF5 layer, its H5Pset_fapl_mpio, and collective writes (M05) under it" {
	set -o pipefail
	gen hdf5 6
	a=$BATS_TEST_TMPDIR/a.ndjson
	dft-analyze "$BATS_TEST_TMPDIR/hdf5.pfw.gz" >"$a"
	h=$(events HDF5 hdf5)
	want=$(jq -n -c --argjson h "$h" --argjson in "$(inner HDF5 MPIIO,POSIX hdf5)" '
		{count: ($h | length), time_us: ($h | map(.dur) | add),
		 bytes: ($h | map(select(.name | test("^H5D(read|write)")) | .args.size) | add),
		 inner_us: $in, fapl_mpio: ($h | map(select(.name == "H5Pset_fapl_mpio")) | length),
		 write_collective: ($h | map(select(.name == "H5Dwrite" and .args.collective == 1)) | length)}')
	got=$(jq -c 'select(.type == "layer" and .layer == "hdf5") |
		{count, time_us: (.time_s * 1e6 | round), bytes, inner_us: (.inner.time_s * 1e6 | round),
		 fapl_mpio: .derived.fapl_mpio.count, write_collective: .derived.write_collective.count}' "$a")
	[ "$got" = "$want" ]
	[ "$(jq -n --argjson h "$h" '$h | map(select(.name == "H5Pset_fapl_mpio")) | length')" -ge 1 ]
	run -0 jq -r 'select(.type == "summary") | [.interfaces.hdf5.over_mpiio, (.ok_insights | map(.insight) | index("M05") != null)] | @tsv' "$a"
	assert_output "$(jq -n -r --argjson h "$h" '[($h | map(select(.name == "H5Pset_fapl_mpio")) | length), true] | @tsv')"
	# the MPI-IO layer under HDF5 counts its own calls and their POSIX ones
	run -0 jq -r 'select(.type == "layer" and .layer == "mpiio") | (.inner.time_s * 1e6 | round)' "$a"
	assert_output "$(inner MPIIO POSIX hdf5)"
	# no HDF5 call is data-layer I/O
	run -0 jq -r --argjson p "$(events POSIX hdf5)" 'select(.type == "summary") | .io.count == ($p | length)' "$a"
	assert_output true
}

@test "split collectives: the _begin halves are collective, non-blocking data calls with their bytes; the _end halves complete them" {
	set -o pipefail
	gen split 0 1
	a=$BATS_TEST_TMPDIR/a.ndjson
	dft-analyze "$BATS_TEST_TMPDIR/split.pfw.gz" >"$a"
	m=$(events MPIIO split)
	want=$(jq -n -c --argjson m "$m" '
		($m | map(select(.name | endswith("_begin")))) as $b
		| {wc: ($b | map(select(.name | test("write"))) | length),
		   wb: ($b | map(select(.name | test("write")) | .args.size) | add),
		   rc: ($b | map(select(.name | test("read"))) | length),
		   other: ($m | map(select(.name | endswith("_end"))) | length)}
		| . + {wnb: .wc, rnb: .rc, wind: 0}')
	got=$(jq -c 'select(.type == "layer" and .layer == "mpiio") |
		{wc: .derived.write_collective.count, wb: .derived.write_collective.bytes,
		 rc: .derived.read_collective.count, other: .derived.other.count,
		 wnb: .derived.write_nonblocking.count, rnb: .derived.read_nonblocking.count,
		 wind: .derived.write_independent.count}' "$a")
	[ "$got" = "$want" ]
	# non-blocking used in both directions: the OK forms of M06/M07, no
	# async_io finding; collectives used: M04/M05
	run -0 jq -r 'select(.type == "summary") | .ok_insights | map(.insight | select(startswith("M"))) | sort | join(" ")' "$a"
	assert_output "M04 M05 M06 M07"
	run -0 jq -r 'select(.type == "bottleneck") | .class' "$a"
	refute_line async_io
}

@test "M08-M10: the open's cb_nodes hint against the hosts that opened the file; without the hint none of them" {
	set -o pipefail
	local d=$BATS_TEST_TMPDIR hosts=2 cb nodes
	# the hosts whose processes opened the file, from the trace
	awk -v mode=split -v n=1 -v m="$hosts" -f "$REPO/tests/gen-mpiio-trace.awk" | gzip >"$d/split.pfw.gz"
	nodes=$(events MPIIO split | jq '[.[] | select(.name == "MPI_File_open") | .args.hhash] | unique | length')
	[ "$nodes" -eq "$hosts" ]
	for cb in 1 "$nodes" $((nodes * 2)) 0; do
		awk -v mode=split -v n="$cb" -v m="$hosts" -f "$REPO/tests/gen-mpiio-trace.awk" | gzip >"$d/split.pfw.gz"
		dft-analyze --all "$d/split.pfw.gz" >"$d/a.ndjson"
		ok=$(jq -r 'select(.type == "summary") | .ok_insights | map(.insight | select(test("M0[89]|M10"))) | join(" ")' "$d/a.ndjson")
		found=$(jq -r 'select(.type == "bottleneck") | .insights[] | select(test("M0[89]|M10"))' "$d/a.ndjson")
		if [ "$cb" -eq 0 ]; then
			[ -z "$ok$found" ] || fail "no hint: $ok $found"
		elif [ "$cb" -lt "$nodes" ]; then
			[ "$ok" = M08 ] && [ -z "$found" ] || fail "cb $cb: $ok / $found"
		elif [ "$cb" -eq "$nodes" ]; then
			[ "$ok" = M10 ] && [ -z "$found" ] || fail "cb $cb: $ok / $found"
		else
			[ -z "$ok" ] && [ "$found" = M09 ] || fail "cb $cb: $ok / $found"
			# M09's time at stake: the file's collective data calls
			want=$(events MPIIO split | jq -c --argjson cb "$cb" --argjson nodes "$nodes" '
				{cb: $cb, nodes: $nodes, value: ($cb / $nodes), saving: 0,
				 t: (map(select(.args.collective == 1 and (.name | endswith("_begin"))) | .dur) | add)}')
			got=$(jq -c 'select(.type == "bottleneck" and .insight == "M09") |
				{cb: .evidence.cb_nodes, nodes: .evidence.nodes, value, saving: .saving_s,
				 t: (.time_s * 1e6 | round)}' "$d/a.ndjson")
			[ "$got" = "$want" ] || fail "$got != $want"
		fi
	done
	# partials of one host each merge to the whole's M09 (nodes counted over both)
	awk -v mode=split -v n=4 -v m="$hosts" -f "$REPO/tests/gen-mpiio-trace.awk" >"$d/s.pfw"
	for h in 1 2; do
		awk -v h="h$h" 'NR == 1 || /^\]/ || index($0, "\"hhash\":\"" h "\"")' "$d/s.pfw" >"$d/s$h.pfw"
		dft-analyze --all --partial "$d/s$h.pfw" >"$d/p$h"
	done
	# (one input against two: only the inputs and their formats differ)
	dft-analyze --all "$d/s.pfw" | grep -v '"type":"step"' | jq -S -c 'del(.inputs, .formats)' >"$d/whole"
	dft-analyze --all --merge "$d/p1" "$d/p2" | grep -v '"type":"step"' | jq -S -c 'del(.inputs, .formats)' >"$d/merged"
	grep -q '"insight":"M09"' "$d/merged"
	diff "$d/whole" "$d/merged"
}

@test "M01 (no MPI-IO) only for an MPI run doing POSIX data I/O on a shared file" {
	set -o pipefail
	gen posix 50
	gen posix1 50
	run -0 bash -o pipefail -c "dft-analyze --all '$BATS_TEST_TMPDIR/posix.pfw.gz' | jq -r 'select(.type == \"bottleneck\" and .class == \"collective_io\") | [.insights[0], .evidence.shared_files, .evidence.mpi_events] | @tsv'"
	assert_output "$(printf 'M01\t1\t%s' "$(events MPI posix | jq length)")"
	# a file per process: nothing MPI-IO would coordinate
	run -0 bash -o pipefail -c "dft-analyze --all '$BATS_TEST_TMPDIR/posix1.pfw.gz' | jq -r 'select(.type == \"bottleneck\") | .insights[]'"
	refute_line M01
	# no MPI events: not an MPI run
	zcat "$BATS_TEST_TMPDIR/posix.pfw.gz" | grep -v '"cat":"MPI"' | gzip >"$BATS_TEST_TMPDIR/nompi.pfw.gz"
	run -0 bash -o pipefail -c "dft-analyze --all '$BATS_TEST_TMPDIR/nompi.pfw.gz' | jq -r 'select(.type == \"bottleneck\") | .insights[]'"
	refute_line M01
}

@test "split -> analyze of MPI-IO and HDF5 traces gives every record of the whole" {
	set -o pipefail
	thresholds
	gen mpiio 150 4
	gen hdf5 40
	d=$BATS_TEST_TMPDIR
	for f in "$d/mpiio.pfw.gz" "$d/hdf5.pfw.gz"; do
		dft-analyze -c "$d/t.conf" -j 1 "$f" | grep -v '"type":"step"' | jq -S -c 'del(.inputs)' >"$d/whole"
		rm -rf "$d/c"
		dft-split -s 0.005 -o "$d/c" "$f" >"$d/c.ndjson"
		[ "$(grep -c '"type":"chunk"' "$d/c.ndjson")" -ge 4 ]
		dft-analyze -c "$d/t.conf" -j 2 <"$d/c.ndjson" | grep -v '"type":"step"' | jq -S -c 'del(.inputs)' >"$d/parts"
		diff "$d/whole" "$d/parts"
		grep -q '"layer":"mpiio"' "$d/whole"
	done
	# partials merge to the same records
	dft-analyze -c "$d/t.conf" --partial "$d/mpiio.pfw.gz" >"$d/p1"
	dft-analyze -c "$d/t.conf" --partial "$d/hdf5.pfw.gz" >"$d/p2"
	dft-analyze -c "$d/t.conf" --merge "$d/p1" "$d/p2" | grep -v '"type":"step"' | jq -S -c 'del(.inputs)' >"$d/merged"
	dft-analyze -c "$d/t.conf" -j 1 "$d/mpiio.pfw.gz" "$d/hdf5.pfw.gz" | grep -v '"type":"step"' | jq -S -c 'del(.inputs)' >"$d/both"
	diff "$d/both" "$d/merged"
}

@test "a traced 2-rank MPI program: independent writes give M03, collective ones M05, counted per call" {
	command -v mpicc >/dev/null && command -v mpirun >/dev/null ||
		skip "no mpicc/mpirun: Open MPI is not installed (scripts/install-deps installs it)"
	set -o pipefail
	make_locked -s -C "$REPO/runtime" all >/dev/null
	d=$BATS_TEST_TMPDIR
	mpicc -Wall -Wextra -Werror -o "$d/mpiio_writes" "$REPO/tests/fixtures/analyze/mpiio_writes.c"
	printf 'collective_operations_absolute = 0\n' >"$d/t.conf"
	n=12
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	for mode in ind coll; do
		mkdir -p "$d/$mode/data" "$d/$mode/traces"
		DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_INC_METADATA=1 \
			DFTRACER_DATA_DIR="$d/$mode/data" DFTRACER_LOG_FILE="$d/$mode/traces/trace" \
			timeout 60 mpirun --oversubscribe -np 2 -x DFTRACER_ENABLE -x DFTRACER_INIT \
			-x DFTRACER_INC_METADATA -x DFTRACER_DATA_DIR -x DFTRACER_LOG_FILE \
			-x LD_PRELOAD="$REPO/runtime/build/lib/libdftracer_preload.so" \
			"$d/mpiio_writes" "$d/$mode/data/out.dat" "$n" 256 "$mode"
		dft-analyze -c "$d/t.conf" --all "$d/$mode/traces" >"$d/$mode.ndjson"
	done
	# each rank: n writes of 256 ints, one read back
	run -0 jq -r 'select(.type == "layer" and .layer == "mpiio") |
		[.derived.write_independent.count, .derived.write_collective.count,
		 .derived.write_independent.bytes, .derived.read_independent.count] | @tsv' "$d/ind.ndjson"
	assert_output "$(printf '%s\t0\t%s\t2' $((2 * n)) $((2 * n * 256 * 4)))"
	run -0 jq -r 'select(.type == "layer" and .layer == "mpiio") |
		[.derived.write_independent.count, .derived.write_collective.count] | @tsv' "$d/coll.ndjson"
	assert_output "$(printf '0\t%s' $((2 * n)))"
	run -0 jq -r 'select(.type == "bottleneck") | .insights[]' "$d/ind.ndjson"
	assert_line M03
	run -0 jq -r 'select(.type == "bottleneck") | .insights[]' "$d/coll.ndjson"
	refute_line M03
	run -0 jq -r 'select(.type == "summary") | .ok_insights[].insight' "$d/coll.ndjson"
	assert_line M05
	# the MPI-IO calls are not data-layer I/O: the POSIX events alone are
	for mode in ind coll; do
		want=$(for f in "$d/$mode"/traces/*.pfw.gz; do zcat "$f"; done | grep -c '"cat":"POSIX"')
		run -0 jq -r 'select(.type == "summary") | .io.count' "$d/$mode.ndjson"
		assert_output "$want"
	done
}

@test "a traced 2-rank HDF5 program writing many small attributes: the attribute calls are HDF5 metadata, and X05 puts the HDF5 metadata time first" {
	command -v h5pcc >/dev/null && command -v mpirun >/dev/null ||
		skip "no h5pcc/mpirun: parallel HDF5 is not installed (scripts/install-deps installs it)"
	set -o pipefail
	make_locked -s -C "$REPO/runtime" all >/dev/null
	d=$BATS_TEST_TMPDIR
	h5pcc -shlib -Wall -Wextra -Werror -o "$d/h5_attr" "$REPO/tests/fixtures/runtime/h5_attr.c"
	# 3 calls an attribute on each of 2 ranks: over the 1000 metadata calls
	local NATTR=1000
	mkdir -p "$d/data" "$d/traces"
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_INC_METADATA=1 \
		DFTRACER_DATA_DIR="$d/data" DFTRACER_LOG_FILE="$d/traces/trace" \
		timeout 60 mpirun --oversubscribe -np 2 -x OMPI_ALLOW_RUN_AS_ROOT \
		-x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -x DFTRACER_ENABLE -x DFTRACER_INIT \
		-x DFTRACER_INC_METADATA -x DFTRACER_DATA_DIR -x DFTRACER_LOG_FILE \
		-x LD_PRELOAD="$REPO/runtime/build/lib/libdftracer_preload.so" \
		"$d/h5_attr" "$d/data/a.h5" "$NATTR" 1
	for f in "$d"/traces/*.pfw.gz; do zcat "$f"; done | grep '"ph":"X"' |
		jq -s -c 'map(select(.cat == "HDF5"))' >"$d/h5.json"
	# from the trace: the attribute calls, and the metadata calls (all
	# HDF5 calls but data, flush and H5Pset_fapl_mpio) by kind
	want=$(jq -c '
		map(select(.name | startswith("H5A"))) as $a
		| map(select(.name | test("^(H5D(read|write)|H5Fflush|H5P)") | not)) as $m
		| {attribute: {count: ($a | length), time_us: ($a | map(.dur) | add),
			bytes: ($a | map(select(.name == "H5Aread" or .name == "H5Awrite") | .args.size) | add)},
		   meta_n: ($m | length), meta_us: ($m | map(.dur) | add), all_us: (map(.dur) | add),
		   dominant: ([["attribute", "H5A"], ["file", "H5F"], ["dataset", "H5D"], ["group", "H5G"]]
			| map(.[1] as $p | {k: .[0], t: ($m | map(select(.name | startswith($p)) | .dur) | add // 0)})
			| max_by(.t) | .k)}' "$d/h5.json")
	n=$(jq -n --argjson w "$want" '$w.meta_n')
	# each rank writes NATTR int attributes, 1 double, 1 int; reads back 5 of
	# them as long long, the double and the int
	[ "$(jq -n --argjson w "$want" '$w.attribute.bytes')" -eq $((2 * (NATTR * 4 + 8 + 4 + 5 * 8 + 8 + 4))) ]
	dft-analyze --all "$d/traces" >"$d/a.ndjson"
	got=$(jq -c 'select(.type == "layer" and .layer == "hdf5") | .derived.attribute
		| {count, time_us: (.time_s * 1e6 | round), bytes}' "$d/a.ndjson")
	[ "$got" = "$(jq -n -c --argjson w "$want" '$w.attribute')" ]
	# attribute bytes are metadata: the layer moves no data (no H5Dwrite)
	run -0 jq -r 'select(.type == "layer" and .layer == "hdf5") | [.bytes, .metadata.count] | @tsv' "$d/a.ndjson"
	assert_output "$(printf '0\t%s' "$n")"
	# with the default thresholds X05 is the first finding: the HDF5
	# metadata time (not capped by the POSIX I/O time), the saving the
	# attribute calls beyond one at their mean
	run -0 jq -c 'select(.type == "bottleneck")' "$d/a.ndjson"
	first=$(printf '%s\n' "$output" | head -1)
	# (numbers printed with 6 significant digits: within 1 us below 1 s,
	# a relative 1e-5 above, where a loaded machine can take the run)
	run -0 jq -n -e --argjson f "$first" --argjson w "$want" --arg h5 "$d/data/a.h5" '
		def near($a; $b; $e): ($a - $b | fabs) <= ([$e, ($b | fabs) * 1e-5] | max);
		$f.insight == "X05" and $f.class == "metadata"
		and near($f.time_s * 1e6; $w.meta_us; 1)
		and near($f.saving_s * 1e6; $w.attribute.time_us * (1 - 1 / $w.attribute.count); 1)
		and $f.evidence.hdf5_metadata_ops == $w.meta_n
		and $f.evidence.attribute_ops == $w.attribute.count
		and $f.evidence.attribute_bytes == $w.attribute.bytes
		and $f.evidence.dominant == $w.dominant
		and ($f.files | any(.file == $h5))
		and near($f.value; $w.meta_us / $w.all_us; 1e-5)'
	# the absolute count: at the number of metadata calls it fires, above not
	printf 'hdf5_metadata_operations_absolute = %s\n' "$n" >"$d/t.conf"
	run -0 dft-analyze -c "$d/t.conf" --all "$d/traces"
	printf '%s\n' "$output" | jq -e -s 'map(select(.type == "bottleneck") | .insights[]) | index("X05") != null'
	printf 'hdf5_metadata_operations_absolute = %s\n' $((n + 1)) >"$d/t.conf"
	run -0 dft-analyze -c "$d/t.conf" --all "$d/traces"
	printf '%s\n' "$output" | jq -e -s 'map(select(.type == "bottleneck") | .insights[]) | index("X05") == null'
}
