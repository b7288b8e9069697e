#!/bin/sh
# shellcheck disable=SC2154 # measure() sets its results through eval
# tests/bench/clone.sh - speed of dft-clone against git(1) and cp(1) on a
# generated repository of 4,000 C files (about 30 MB), as ratios measured
# in the same run:
#   dft-clone PATH      / git clone PATH        (local clone + checkout)
#   dft-clone file://   / git clone file://     (see CAVEATS of dft-clone)
#   dft-clone DIR       / cp -R DIR             (a plain directory copied)
# dft-clone also lays out the workspace and scans the tree (detection), so
# a ratio a little above 1 is its whole overhead. Times are wall seconds
# (the clones are I/O bound) and CPU seconds (user + sys).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin="$repo/build/bin"
dir=${DFT_BENCH_DIR:-${TMPDIR:-/tmp}/dft-bench}/clone
files=${DFT_BENCH_CLONE_FILES:-4000}
mkdir -p "$dir"

if [ ! -x /usr/bin/time ]; then
	echo "bench: /usr/bin/time (GNU time) is needed" >&2
	exit 1
fi

# measure NAME CMD...: runs CMD (output discarded), sets NAME_wall, NAME_cpu
measure() {
	name=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$dir/time.out" "$@" >/dev/null 2>&1
	read -r w u s <"$dir/time.out"
	eval "${name}_wall=$w ${name}_cpu=$(echo "$u + $s" | bc)"
}

ratio() {
	printf '%.2f' "$(echo "scale=4; $1 / $2" | bc)"
}

src="$dir/app-$files"
if [ ! -d "$src/.git" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	awk -v n="$files" -v d="$src" 'BEGIN {
		srand(1);
		for (i = 0; i < n; i++) {
			sub_ = sprintf("%s/d%03d", d, i % 100);
			if (i < 100)
				system("mkdir -p " sub_);
			f = sprintf("%s/f%05d.c", sub_, i);
			printf "#include <stdio.h>\n" > f;
			for (j = 0; j < 100; j++)
				printf "int f%d_%d(int x) { return x * %d + %d; }\n",
				    i, j, int(rand() * 1e6), j > f;
			close(f);
		}
	}'
	printf 'all:\n\tcc -c d*/*.c\n' >"$src/Makefile"
	git -C "$src" init -q
	git -C "$src" add .
	git -C "$src" -c user.name=bench -c user.email=bench@example.com \
		commit -q -m "generated"
fi
plain="$dir/plain-$files"
if [ ! -d "$plain" ]; then
	mkdir -p "$plain"
	(cd "$src" && tar cf - --exclude=.git .) | (cd "$plain" && tar xf -)
fi

out="$dir/out"
fresh_out() {
	rm -rf "$out"
	mkdir -p "$out"
}

fresh_out
measure git_path git clone -q "$src" "$out/git"
measure dft_path "$bin/dft-clone" -w "$out/ws" "$src"
fresh_out
measure git_url git clone -q "file://$src" "$out/git"
measure dft_url "$bin/dft-clone" -w "$out/ws" "file://$src"
fresh_out
measure cp_plain cp -R "$plain" "$out/cp"
measure dft_plain "$bin/dft-clone" -w "$out/ws" "$plain"
rm -rf "$out"

echo "dft-clone on $files files (wall s, cpu s):"
printf '  local path: dft-clone %s/%s  git clone %s/%s  ratio %s (wall)\n' \
	"$dft_path_wall" "$dft_path_cpu" "$git_path_wall" "$git_path_cpu" \
	"$(ratio "$dft_path_wall" "$git_path_wall")"
printf '  file:// URL: dft-clone %s/%s  git clone %s/%s  ratio %s (wall)\n' \
	"$dft_url_wall" "$dft_url_cpu" "$git_url_wall" "$git_url_cpu" \
	"$(ratio "$dft_url_wall" "$git_url_wall")"
printf '  plain dir:  dft-clone %s/%s  cp -R %s/%s  ratio %s (wall)\n' \
	"$dft_plain_wall" "$dft_plain_cpu" "$cp_plain_wall" "$cp_plain_cpu" \
	"$(ratio "$dft_plain_wall" "$cp_plain_wall")"
