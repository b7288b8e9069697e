#!/bin/sh
# shellcheck disable=SC2154 # measure() sets its results through eval
# tests/bench/analyze.sh - speed and memory of dft-analyze and dft-split on a
# synthetic dftracer 2.0.x trace of at least 300 MB uncompressed, as ratios
# against baselines measured in the same run (DESIGN.md §7):
#   dft-analyze -j 1 / gzip -dc >/dev/null      (target <= 1.0, with the judgement;
#     medians of DFT_BENCH_REPEAT runs of each, the two run in turn)
#   events per second; peak memory at 1x and 4x the trace (target <= 1.2)
#   zcat | jq aggregation / dft-analyze on the same subset
#   dft-split -s 64 / (gzip -dc | gzip -6)        (target <= 1.2)
#   peak memory of split traces read as streams, 4x / 1x (target <= 1.2)
# Times are CPU seconds (user + sys, what a single thread costs on a shared
# machine) and wall seconds. Traces are cached in $DFT_BENCH_DIR.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin="$repo/build/bin"
dir=${DFT_BENCH_DIR:-${TMPDIR:-/tmp}/dft-bench}
mb=${DFT_BENCH_MB:-320}
reps=${DFT_BENCH_REPEAT:-5}
mkdir -p "$dir"

if [ ! -x /usr/bin/time ]; then
	echo "bench: /usr/bin/time (GNU time) is needed" >&2
	exit 1
fi

# measure NAME CMD...: runs CMD, sets NAME_wall, NAME_cpu, NAME_kb
measure() {
	name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$dir/time.out" "$@"
	read -r w u s k <"$dir/time.out"
	eval "${name}_wall=$w ${name}_cpu=$(printf '%.2f' "$(echo "$u + $s" | bc)") ${name}_kb=$k"
}

# median FILE COLUMN: the median of a column of numbers
median() {
	sort -n -k "$2,$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {print v[int((NR + 1) / 2)]}'
}

# measure_pair A CMD_A B CMD_B: runs the two commands one after the other,
# $reps times (DFT_BENCH_REPEAT, default 5), so that both see the same load;
# A_cpu, A_wall (and B_...) are the medians, A_kb the largest peak
measure_pair() {
	: >"$dir/pair.out"
	i=0
	while [ "$i" -lt "$reps" ]; do
		measure _pa sh -c "$2"
		measure _pb sh -c "$4"
		echo "$_pa_cpu $_pa_wall $_pa_kb $_pb_cpu $_pb_wall $_pb_kb" >>"$dir/pair.out"
		i=$((i + 1))
	done
	eval "$1_cpu=$(median "$dir/pair.out" 1) $1_wall=$(median "$dir/pair.out" 2)"
	eval "$1_kb=$(sort -n -k 3,3 "$dir/pair.out" | tail -n 1 | cut -d' ' -f3)"
	eval "$3_cpu=$(median "$dir/pair.out" 4) $3_wall=$(median "$dir/pair.out" 5)"
	eval "$3_kb=$(sort -n -k 6,6 "$dir/pair.out" | tail -n 1 | cut -d' ' -f6)"
	pair_runs=$(tr '\n' ';' <"$dir/pair.out")
}

ratio() {
	printf '%.2f' "$(echo "scale=4; $1 / $2" | bc)"
}

gen="$dir/gen-trace"
if [ ! -x "$gen" ] || [ -n "$(find "$here/gen-trace.c" -newer "$gen")" ]; then
	${CC:-cc} -O2 -o "$gen" "$here/gen-trace.c" -lz
fi
t1="$dir/trace-${mb}-v2.pfw.gz"
t4="$dir/trace-$((mb * 4))-v2.pfw.gz"
sub="$dir/subset-v2.pfw.gz"
[ -s "$t1" ] || "$gen" "$mb" >"$t1"
[ -s "$t4" ] || "$gen" "$((mb * 4))" >"$t4"

# warm the page cache, then the baseline
gzip -dc "$t1" >/dev/null
raw=$(gzip -dc "$t1" | wc -c)
measure_pair gz "gzip -dc '$t1' >/dev/null" \
	an "'$bin/dft-analyze' -j 1 '$t1' >'$dir/a1.ndjson'"
events=$(jq -r 'select(.type=="summary") | .events' "$dir/a1.ndjson")
measure an4 sh -c "'$bin/dft-analyze' -j 1 '$t4' >'$dir/a4.ndjson'"
events4=$(jq -r 'select(.type=="summary") | .events' "$dir/a4.ndjson")

echo "trace: $t1, $(wc -c <"$t1") bytes gzip, $raw bytes uncompressed, $events events"
echo "gzip -dc >/dev/null:       cpu ${gz_cpu} s, wall ${gz_wall} s (medians of $reps runs, each next to one of dft-analyze)"
echo "dft-analyze -j 1:          cpu ${an_cpu} s, wall ${an_wall} s, peak ${an_kb} KiB"
echo "runs (gzip cpu wall KiB, dft-analyze cpu wall KiB): $pair_runs"
echo "ratio dft-analyze / gzip -dc (cpu): $(ratio "$an_cpu" "$gz_cpu")   (target <= 1.0: one core, with the judgement's classes)"
echo "ratio dft-analyze / gzip -dc (wall): $(ratio "$an_wall" "$gz_wall")"
echo "events per second (cpu): $(echo "$events / $an_cpu" | bc)"
echo "4x trace: $events4 events, cpu ${an4_cpu} s, peak ${an4_kb} KiB; memory 4x / 1x: $(ratio "$an4_kb" "$an_kb")   (target <= 1.2)"

# attribution across chunks: a trace whose functions enclose many requests
# (tests/gen-nested-trace.awk) at 1x and 4x the children, split at 4 MiB and
# read as one stream per trace; the state kept for requests waiting for
# their function is bounded, so peak memory must not grow with the trace
n1="$dir/nested-500k.pfw"
n4="$dir/nested-2000k.pfw"
[ -s "$n1" ] || awk -v n=500000 -v tmp="$dir/gen" -f "$repo/tests/gen-nested-trace.awk" >"$n1"
[ -s "$n4" ] || awk -v n=2000000 -v tmp="$dir/gen" -f "$repo/tests/gen-nested-trace.awk" >"$n4"
for x in 1 4; do
	rm -rf "$dir/nc$x"
	eval "f=\$n$x"
	"$bin/dft-split" -s 4 -o "$dir/nc$x" "$f" >"$dir/nc$x.ndjson"
done
measure ns1 sh -c "'$bin/dft-analyze' -j 1 <'$dir/nc1.ndjson' >'$dir/ns1.ndjson'"
measure ns4 sh -c "'$bin/dft-analyze' -j 1 <'$dir/nc4.ndjson' >'$dir/ns4.ndjson'"
measure nw4 sh -c "'$bin/dft-analyze' -j 1 '$n4' >'$dir/nw4.ndjson'"
c1=$(grep -c '"type":"chunk"' "$dir/nc1.ndjson")
c4=$(grep -c '"type":"chunk"' "$dir/nc4.ndjson")
same=$(if [ "$(grep -v '"type":"step"' "$dir/ns4.ndjson" | jq -S -c 'del(.inputs)')" = "$(grep -v '"type":"step"' "$dir/nw4.ndjson" | jq -S -c 'del(.inputs)')" ]; then echo yes; else echo NO; fi)
echo "nested trace split at 4 MiB: 1x $c1 chunks peak ${ns1_kb} KiB, 4x $c4 chunks peak ${ns4_kb} KiB (cpu ${ns4_cpu} s); 4x split = 4x whole: $same"
echo "ratio memory 4x / 1x, chunks read as a stream: $(ratio "$ns4_kb" "$ns1_kb")   (target <= 1.2)"
echo "unattributed I/O time of the 4x chunks: $(jq -r 'select(.type=="summary") | .unattributed_io_time_s' "$dir/ns4.ndjson") s"
rm -rf "$dir/nc1"

# zcat | jq on a subset, the same per-function aggregation
[ -s "$sub" ] || gzip -dc "$t1" | head -n 100000 | gzip -1 >"$sub"
measure jq sh -c "zcat '$sub' | jq -n -R 'reduce (inputs | fromjson? | select(.ph==\"X\")) as \$e ({}; .[\$e.name].n += 1 | .[\$e.name].t += \$e.dur | .[\$e.name].b += (\$e.args.ret // 0))' >/dev/null"
measure ans sh -c "'$bin/dft-analyze' -j 1 '$sub' >/dev/null"
subev=$(gzip -dc "$sub" | grep -c '"ph":"X"' || true)
echo "zcat | jq on $subev events: cpu ${jq_cpu} s ($(echo "$subev / $jq_cpu" | bc) events/s); dft-analyze cpu ${ans_cpu} s"
echo "ratio zcat|jq / dft-analyze (cpu): $(ratio "$jq_cpu" "$ans_cpu")"

# dft-split against decompress + recompress at the same level (6)
rm -rf "$dir/split"
measure sp sh -c "'$bin/dft-split' -s 64 -o '$dir/split' '$t1' >/dev/null"
measure rc sh -c "gzip -dc '$t1' | gzip -6 >/dev/null"
echo "dft-split -s 64:           cpu ${sp_cpu} s, wall ${sp_wall} s, peak ${sp_kb} KiB"
echo "gzip -dc | gzip -6:        cpu ${rc_cpu} s, wall ${rc_wall} s"
echo "ratio dft-split / (gzip -dc | gzip -6) (wall): $(ratio "$sp_wall" "$rc_wall")   (target <= 1.2)"
echo "ratio dft-split / (gzip -dc | gzip -6) (cpu): $(ratio "$sp_cpu" "$rc_cpu")"

# traces in parallel: the chunks of two traces of about the same size (the
# chunks of one trace are one stream, read by one thread) with one thread,
# then with all cores
measure p1 sh -c "'$bin/dft-analyze' -j 1 '$dir/split' '$dir/nc4' >/dev/null"
measure pn sh -c "'$bin/dft-analyze' -j $(nproc) '$dir/split' '$dir/nc4' >/dev/null"
echo "dft-analyze on the chunks of two traces ($(find "$dir/split" "$dir/nc4" -name '*.pfw.gz' | wc -l) files): -j 1 wall ${p1_wall} s, -j $(nproc) wall ${pn_wall} s, speed-up $(ratio "$p1_wall" "$pn_wall")"
rm -rf "$dir/split" "$dir/nc4"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (wall ratios suffer when the machine is shared)"
