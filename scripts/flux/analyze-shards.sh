#!/bin/sh
# analyze-shards.sh (Flux) - analyze dftracer traces as separate Flux jobs
# and merge the results: one `dft-analyze --partial` job per shard of the
# trace files, then one `dft-analyze --merge` job that starts when all of
# them succeeded (flux submit --dependency=afterok:ID). The merged records
# equal those of one dft-analyze run over every file; the chunks of one
# split trace go to one shard.
#
# usage: analyze-shards.sh [-n shards] [-o dir] [-p preset] [-t time]
#                          [--wait] [--dry-run | --local] trace...
# Results: dir/partial-K.ndjson per shard, dir/analysis.ndjson merged.
# --wait waits for the merge job; --dry-run prints the flux commands;
# --local runs the same commands here, shards in parallel (no scheduler).
# shellcheck disable=SC2034,SC2154 # shards.sh reads preset, sets popt, merge_cmd
set -eu

shards=4
out=analysis
preset=
limit=30m
wait=0
dry=0
local=0

usage() {
	echo "usage: analyze-shards.sh [-n shards] [-o dir] [-p preset] [-t time]" >&2
	echo "                         [--wait] [--dry-run | --local] trace..." >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; shards=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	-p) [ $# -ge 2 ] || usage; preset=$2; shift 2 ;;
	-t) [ $# -ge 2 ] || usage; limit=$2; shift 2 ;;
	--wait) wait=1; shift ;;
	--dry-run) dry=1; shift ;;
	--local) local=1; shift ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || usage
case $shards in ''|*[!0-9]*|0) usage ;; esac

# shellcheck source=scripts/shards.sh disable=SC1091
. "$(dirname "$0")/../shards.sh"
shards_setup "$@"
[ "$local" = 1 ] && shards_local

submit() {
	if [ "$dry" = 1 ]; then
		echo "flux submit $*" >&2
		echo "DRY$k"
	else
		flux submit "$@"
	fi
}

deps=
ids=
k=0
while [ "$k" -lt "$shards" ]; do
	id=$(submit --job-name="dft-analyze-$k" -t "$limit" -n 1 -c 2 \
		--output="$out/shard-$k.log" \
		sh -c "$(shard_cmd "$k")")
	deps="$deps --dependency=afterok:$id"
	ids="$ids $id"
	k=$((k + 1))
done
# shellcheck disable=SC2086 # $deps holds one option word per shard job
merge=$(submit --job-name=dft-analyze-merge -t "$limit" -n 1 $deps \
	--output="$out/merge.log" \
	sh -c "$merge_cmd")
echo "shards:$ids; merge: $merge; result: $out/analysis.ndjson"
if [ "$wait" = 1 ] && [ "$dry" = 0 ]; then
	flux job wait "$merge"
fi
