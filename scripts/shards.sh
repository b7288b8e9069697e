# shellcheck shell=sh disable=SC2154 # $out, $shards, $preset are the caller's
# shards.sh - the part of slurm/analyze-shards.sh and flux/analyze-shards.sh
# that does not depend on the scheduler, sourced by both: the trace list,
# the commands of a shard and of the merge, and --local.
#
# shards_setup TRACE...: needs $out, $shards and $preset; writes
# $out/traces.list (every shard reads the whole list and keeps its K-th of
# every N traces; the chunks of one split trace count as one, so they stay
# in one shard: dft-analyze --shard) and caps $shards at the trace count.
shards_setup() {
	mkdir -p "$out"
	popt=
	[ -n "$preset" ] && popt="--preset $preset"
	: >"$out/traces.list"
	for f in "$@"; do printf '%s\n' "$f" >>"$out/traces.list"; done
	[ "$shards" -le $# ] || shards=$#
	merge_cmd="cat '$out'/partial-*.ndjson | dft-analyze --merge >'$out/analysis.ndjson'"
}

# shard_cmd K: the shell command of shard K (from 0)
shard_cmd() {
	echo "dft-analyze --partial --shard $(($1 + 1))/$shards $popt <'$out/traces.list' >'$out/partial-$1.ndjson'"
}

# shards_local: every shard here, in parallel, then the merge; exits
shards_local() {
	rm -f "$out"/partial-*.ndjson
	pids=
	k=0
	while [ "$k" -lt "$shards" ]; do
		sh -c "$(shard_cmd "$k")" &
		pids="$pids $!"
		k=$((k + 1))
	done
	status=0
	for p in $pids; do wait "$p" || status=1; done
	[ "$status" = 0 ] || { echo "analyze-shards.sh: a shard failed" >&2; exit 1; }
	sh -c "$merge_cmd"
	echo "result: $out/analysis.ndjson"
	exit 0
}
