#!/bin/sh
# annotate.sh - dft-annotate against clang -fsyntax-only on a generated tree
# of 200 C files (each includes the usual system headers and holds 6
# functions with loops, switches, gotos, early returns and I/O calls).
# Prints two ratios, from one run on the same files:
#   dft-annotate            (records in, files written)   / clang -fsyntax-only
#   dft-funcs + dft-cost + dft-annotate (the whole step)  / clang -fsyntax-only
# Target (issue 4): dft-annotate <= 1.5x.  Times are CPU seconds (user +
# system, children included), steadier than wall time on a shared machine.
# Informational: it never fails on time, only when files are not annotated.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
PATH=$here/build/bin:$PATH
export PATH
N=${N:-200}
tmp=$(mktemp -d /tmp/dft-bench-annotate.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/src"

i=0
while [ "$i" -lt "$N" ]; do
	f=$tmp/src/file$i.c
	{
		printf '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n'
		printf '#include <fcntl.h>\n#include <unistd.h>\n#include <errno.h>\n\n'
		printf 'static int state_%d;\n\n' "$i"
		j=0
		while [ "$j" -lt 6 ]; do
			cat <<C
static long
f${i}_$j(const char *path, char *buf, size_t n, int mode)
{
	int fd, k;
	long total = 0;

	if (!path)
		return -1;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		goto fail;
	for (k = 0; k < mode; k++) {
		ssize_t r = read(fd, buf, n);
		if (r < 0)
			goto fail_close;
		if (r == 0)
			break;
		total += r;
	}
	switch (mode) {
	case 0:
		state_$i++;
		break;
	case 1:
		close(fd);
		return total * 2 + strlen(buf);
	default:
		if (total > 100)
			memset(buf, 0, n);
	}
	close(fd);
	return total;
fail_close:
	close(fd);
fail:
	return -errno;
}

C
			j=$((j + 1))
		done
		printf 'int\nentry_%d(void)\n{\n\tchar b[64];\n\treturn (int)f%d_0("/dev/null", b, sizeof(b), 1);\n}\n' "$i" "$i"
	} >"$f"
	i=$((i + 1))
done
(
	cd "$tmp/src"
	printf '['
	sep=
	for f in file*.c; do
		printf '%s{"directory":"%s","file":"%s","arguments":["cc","-O2","-c","%s"]}' \
			"$sep" "$tmp/src" "$f" "$f"
		sep=,
	done
	printf ']\n'
) >"$tmp/src/compile_commands.json"

files=$(cd "$tmp/src" && ls file*.c)
# CPU seconds (user + system, children included) of a command: the machine
# is shared, so wall time says more about the neighbours than about us
if [ -x /usr/bin/time ]; then
	cpu() { /usr/bin/time -f '%U %S' -o "$tmp/t" "$@" && awk '{ print $1 + $2 }' "$tmp/t"; }
else
	cpu() {
		a=$(date +%s.%N); "$@"; b=$(date +%s.%N)
		awk -v a="$a" -v b="$b" 'BEGIN { print b - a }'
	}
fi

cd "$tmp/src"
base=$(cpu clang -fsyntax-only -O2 $files)
funcs=$(cpu sh -c "dft-funcs -p . $(echo $files) >'$tmp/funcs.ndjson'")
cost=$(cpu sh -c "dft-cost '$tmp/funcs.ndjson' >'$tmp/cost.ndjson'")
sed '/"type":"function"/s/}$/,"decision":{"annotate":true,"comp":"io"}}/' \
	"$tmp/funcs.ndjson" >"$tmp/all.ndjson"
mkdir -p "$tmp/out"
ann=$(cpu sh -c "dft-annotate --output '$tmp/out' --patch '$tmp/p.patch' '$tmp/all.ndjson' >'$tmp/ann.ndjson'")
n_ann=$(grep -c '"status":"annotated"' "$tmp/ann.ndjson" || true)
awk -v base="$base" -v funcs="$funcs" -v cost="$cost" -v ann="$ann" \
    -v n="$N" -v k="$n_ann" 'BEGIN {
	if (base <= 0) base = 0.001
	all = funcs + cost + ann
	printf "files %d, annotated %d (CPU seconds, user + system)\n", n, k
	printf "clang -fsyntax-only          %7.3f s\n", base
	printf "dft-annotate                 %7.3f s  ratio %.2f (target <= 1.5)\n", ann, ann / base
	printf "dft-funcs+cost+annotate      %7.3f s  ratio %.2f\n", all, all / base
}'
[ "$n_ann" -eq "$N" ] || { echo "annotate.sh: only $n_ann of $N files annotated" >&2; exit 1; }
