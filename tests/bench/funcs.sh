#!/bin/sh
# tests/bench/funcs.sh - dft-funcs (and dft-cost) on a generated 200-file C
# tree against `clang -fsyntax-only` on the same files with the same flags,
# single-threaded.  Prints the ratios; the target is <= 1.5.
set -eu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
PATH="$REPO/build/bin:$REPO/scripts:$PATH"
export DFT_SHARE_DIR="$REPO/share/dft"
N=${DFT_BENCH_FILES:-200}
T=$(mktemp -d "${TMPDIR:-/tmp}/dft-bench-funcs.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
CLANG=$(command -v clang || command -v clang-14)

mkdir -p "$T/src/include"
cat >"$T/src/include/common.h" <<'H'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
struct rec { int id; double v[8]; char name[32]; };
static inline int rec_valid(const struct rec *r) { return r && r->id >= 0; }
H
i=0
printf '[\n' >"$T/compile_commands.json"
while [ "$i" -lt "$N" ]; do
	f="$T/src/m$i.c"
	{
		printf '#include "common.h"\n'
		j=0
		while [ "$j" -lt 12 ]; do
			cat <<C
static int
m${i}_sum$j(const struct rec *r, int n)
{
	int s = 0;
	for (int k = 0; k < n; k++) {
		if (!rec_valid(&r[k]))
			return -1;
		s += r[k].id * $j;
	}
	return s;
}

int
m${i}_save$j(const char *path, const struct rec *r, int n)
{
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	if (fwrite(r, sizeof(*r), (size_t)n, fp) != (size_t)n) {
		fclose(fp);
		return -1;
	}
	fclose(fp);
	return m${i}_sum$j(r, n);
}

C
			j=$((j + 1))
		done
	} >"$f"
	[ "$i" -gt 0 ] && printf ',\n' >>"$T/compile_commands.json"
	printf '{"directory":"%s","arguments":["cc","-O2","-DNDEBUG","-I%s","-c","m%d.c"],"file":"m%d.c"}' \
		"$T/src" "$T/src/include" "$i" "$i" >>"$T/compile_commands.json"
	i=$((i + 1))
done
printf '\n]\n' >>"$T/compile_commands.json"

now() { date +%s.%N; }

# cpu OUT CMD...: runs CMD, appends "user+sys seconds" of it to OUT
if [ -x /usr/bin/time ]; then
	cpu() {
		out=$1
		shift
		/usr/bin/time -a -o "$out" -f '%U %S' "$@"
	}
else
	cpu() {
		out=$1
		shift
		"$@"
		echo "0 0" >>"$out"
	}
fi

# baseline: clang -fsyntax-only on the same files with the same flags, one
# process for all files (no per-file process start-up on either side)
set --
i=0
while [ "$i" -lt "$N" ]; do
	set -- "$@" "m$i.c"
	i=$((i + 1))
done
t0=$(now)
(cd "$T/src" && cpu "$T/cpu.base" "$CLANG" -fsyntax-only -O2 -DNDEBUG -I"$T/src/include" "$@")
t1=$(now)
cpu "$T/cpu.funcs" dft-funcs -j 1 -p "$T" -r "$T/src" >"$T/funcs.ndjson"
t2=$(now)
cpu "$T/cpu.cost" dft-cost "$T/funcs.ndjson" >"$T/cost.ndjson"
t3=$(now)

nf=$(grep -c '"type":"function"' "$T/funcs.ndjson")
echo "files: $N, functions: $nf"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" \
	-v cb="$(awk '{print $1 + $2}' "$T/cpu.base")" \
	-v cf="$(awk '{print $1 + $2}' "$T/cpu.funcs")" \
	-v cc="$(awk '{print $1 + $2}' "$T/cpu.cost")" 'BEGIN {
	printf "clang -fsyntax-only: %6.2f s cpu, %6.2f s wall\n", cb, b - a
	printf "dft-funcs -j 1:      %6.2f s cpu, %6.2f s wall\n", cf, c - b
	printf "dft-cost:            %6.2f s cpu, %6.2f s wall\n", cc, d - c
	if (cb > 0) {
		printf "ratio dft-funcs / clang -fsyntax-only (cpu): %.2f (target <= 1.5)\n", cf / cb
		printf "ratio (dft-funcs + dft-cost) / clang (cpu): %.2f\n", (cf + cc) / cb
	}
	printf "ratio dft-funcs / clang -fsyntax-only (wall): %.2f\n", (c - b) / (b - a)
}'
