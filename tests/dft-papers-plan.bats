#!/usr/bin/env bats
# tests/dft-papers-plan.bats - dft-papers --plan: the optimization loop's
# next iteration planned from proposal records made here. The order is the
# one the pipeline's jq made (the program below), each proposal says what
# should become of it ("fate"), and the numbers the requirements read are
# computed from the summary with jq.

load test_helper

setup() {
	D=$BATS_TEST_TMPDIR
	RUN=$D/run
	mkdir -p "$RUN"
	# an analysis: small writes (averages computed by jq in the tests),
	# STDIO with large fwrite calls, open and read, fsync, HDF5 over MPI-IO
	jq -n -c '{type: "summary", v: 1,
		interfaces: {mpiio: {count: 0}, hdf5: {count: 4, over_mpiio: 2}},
		functions: [
			{cat: "POSIX", name: "write", count: 50, bytes: 5000},
			{cat: "POSIX", name: "pwrite", count: 3, bytes: 3000000},
			{cat: "STDIO", name: "fopen", count: 2, bytes: 0},
			{cat: "STDIO", name: "fwrite", count: 10, bytes: 2000000},
			{cat: "POSIX", name: "open", count: 1, bytes: 0},
			{cat: "POSIX", name: "read", count: 5, bytes: 500},
			{cat: "POSIX", name: "fsync", count: 3, bytes: 0}]}' >"$D/analysis.ndjson"
	FACTS=(--fact "data_dir=$D/data" --fact "local_dir=$D/local"
		--fact physical_cores=4 --fact "tune_lib=$D/libdft_tune.so"
		--fact "work_dir=$D/build" --fact "env_script=$D/env.sh"
		--fact os=Linux --fact 'fs=ext4   rw,relatime' --fact fs_type=ext2/ext3
		--fact numactl=/usr/bin/numactl --fact numa_nodes=1 --fact mpi=MPICH
		--fact openmp=false)
}

# proposal STRATEGY FATE ACTION: one proposal record, its level the
# strategy's second part
proposal() {
	local l=${1#*.}
	jq -n -c --arg s "$1" --arg l "${l%%.*}" --arg f "$2" --argjson a "$3" \
		'{type: "proposal", v: 1, id: ("B1." + $s), strategy: $s, level: $l,
		  metric: "small_io", change: ("do " + $s), risk: "LOW", fate: $f,
		  score: 87.50, action: $a}'
}

# The pipeline's jq that chose and ordered the untried actions.
untried_by_jq() {
	jq -s -c --argjson tried "$(jq -R . "$D/tried" | jq -s -c .)" \
		--argjson ps "$(jq -s -c '[.[] | select(.type == "proposal" and .action != null)]' "$D/earlier.ndjson")" '
		def akey: .action | {env, wrapper, before, hint_file, rewrite} | tostring;
		[.[] | select(.type == "proposal" and .action != null)] as $all
		| ([($ps + $all)[] | select((.strategy // .id // "") as $s | $tried | index($s)) | akey]) as $done
		| [$all[] | select((.level == "L2" or .level == "L3")
			and ((.strategy // .id // "") as $s | ($tried | index($s)) == null)
			and (akey as $a | $done | index($a) | not))]
		| unique_by(.strategy // .id)
		| reduce .[] as $p ([]; if any(.[]; akey == ($p | akey)) then . else . + [$p] end)
		| .[]' "$1"
}

actions_fixture() {
	{
		proposal z.L2.env applied '{"env":{"DFT_A":"{data_dir}/x"},"requires":["Linux"]}'
		proposal b.L2.same applied '{"env":{"DFT_A":"{data_dir}/x"},"requires":["Linux"]}'
		proposal c.L2.conflict deferred '{"env":{"DFT_A":"2"}}'
		proposal c.L2.conflict second '{"env":{"DFT_C":"3"}}'
		proposal d.L3.wrap applied '{"wrapper":["numactl","--interleave=all"],"requires":["numactl"]}'
		proposal e.L3.wrap deferred '{"wrapper":["taskset","-c","0"]}'
		proposal f.L3.stripe 'na:the data directory is not on Lustre' '{"before":["lfs","setstripe","{data_dir}"],"requires":["lustre"]}'
		proposal g.L2.priv 'na:needs root: listed for the administrator, not applied' '{"env":{"DFT_G":"1"},"privilege":"root"}'
		proposal h.L2.unfilled 'na:a placeholder of the action cannot be filled in here' '{"env":{"DFT_H":"{nowhere}"}}'
		proposal i.L2.hint applied '{"env":{"ROMIO_HINTS":"{hint_file}"},"hint_file":{"name":"romio hints","content":"cb_buffer_size 1048576\n"}}'
		proposal j.L2.preload applied '{"env":{"LD_PRELOAD":"{tune_lib}","DFT_TUNE_X":"{physical_cores}"},"requires":["the dft tuning library","small POSIX write() calls in the trace"]}'
		proposal k.L3.before applied '{"before":["touch","{local_dir}/it'"'"'s"],"privilege":"owner of the directory"}'
		proposal l.L2.tried tried '{"env":{"DFT_L":"1"}}'
		proposal m.L2.alias tried '{"env":{"DFT_L":"1"}}'
		proposal n.L2.alias tried '{"env":{"DFT_N":"1"}}'
		proposal o.L1.code l1 '{"rewrite":"setvbuf"}'
		proposal q.L2.req 'na:cannot check here: MPI_THREAD_MULTIPLE' '{"env":{"DFT_Q":"1"},"requires":["MPI_THREAD_MULTIPLE"]}'
		proposal r.L2.mpiio applied '{"env":{"DFT_R":"1"},"requires":["MPI-IO"]}'
		proposal s.L2.hdf5 'na:cannot check here: hdf5 >= 1.13' '{"env":{"DFT_S":"1"},"requires":["hdf5 >= 1.13"]}'
		proposal t.L2.omp 'na:the application does not use OpenMP' '{"env":{"DFT_T":"1"},"requires":["OpenMP application"]}'
		proposal u.L3.numa 'na:this machine has one NUMA node' '{"wrapper":["numactl","-N","0"],"requires":["more than one NUMA node"]}'
		proposal v.L2.mpich applied '{"env":{"MPIR_CVAR_X":"1"},"requires":["MPICH >= 3.3"]}'
	} >"$D/papers.ndjson"
	printf 'l.L2.tried\nn0.L2.old\n' >"$D/tried"
	proposal n0.L2.old tried '{"env":{"DFT_N":"1"}}' >"$D/earlier.ndjson"
	printf 'export BASE=1\n' >"$D/base.env"
}

@test "--plan orders the untried actions as the pipeline's jq did, one per strategy and per action" {
	actions_fixture
	run -0 dft-papers --plan --run-dir "$RUN" --tried "$D/tried" --earlier "$D/earlier.ndjson" \
		--analysis "$D/analysis.ndjson" --env "$D/base.env" "${FACTS[@]}" "$D/papers.ndjson"
	untried_by_jq "$D/papers.ndjson" >"$D/expected.ndjson"
	[ -s "$D/expected.ndjson" ]
	# the records themselves, compact as jq writes them (87.50 is 87.5)
	diff "$D/expected.ndjson" "$RUN/actions.ndjson"
	# b.L2.same and z.L2.env are one action: b first; c's first record
	run -0 jq -r .strategy "$RUN/actions.ndjson"
	[[ "$output" != *z.L2.env* && "$output" == *b.L2.same* && "$output" != *tried* && "$output" != *o.L1* ]]
	[ "$(jq -r 'select(.strategy == "c.L2.conflict") | .fate' "$RUN/actions.ndjson")" = deferred ]
}

@test "--plan applies, defers and refuses each action for its reason, and writes the records" {
	actions_fixture
	run -0 dft-papers --plan --run-dir "$RUN" --tried "$D/tried" --earlier "$D/earlier.ndjson" \
		--analysis "$D/analysis.ndjson" --env "$D/base.env" "${FACTS[@]}" "$D/papers.ndjson"
	# the small writes the requirement sees, derived from the summary
	small=$(jq '[.functions[] | select(.cat == "POSIX" and (.name == "write" or .name == "pwrite"))
		| select(.bytes / .count < 65536) | .count] | add' "$D/analysis.ndjson")
	[ "$small" -eq 50 ]
	# applied: in the planned order, as the pipeline's record
	diff <(jq -c 'select(.fate == "applied") | {id: .strategy, level, bottleneck: .metric, change, action}' \
		"$RUN/actions.ndjson") "$RUN/applied.ndjson"
	diff <(jq -c 'select(.fate == "deferred")' "$RUN/actions.ndjson") "$RUN/deferred.ndjson"
	diff <(jq -c 'select(.fate | startswith("na:")) | {id: .strategy, level, reason: .fate[3:]}' \
		"$RUN/actions.ndjson") "$RUN/not_applicable.ndjson"
	diff <(jq -r 'select(.fate | startswith("na:")) | "not applicable here: \(.strategy) (\(.fate[3:]))"' \
		"$RUN/actions.ndjson") <(printf '%s\n' "$output")
	# the exports after the accepted ones, in the order applied
	cat >"$D/env.expected" <<-EOF
	export BASE=1
	export DFT_A='$D/data/x'
	export ROMIO_HINTS='$RUN/romio_hints'
	case ":\${LD_PRELOAD:-}:" in *:'$D/libdft_tune.so':*) ;; *) LD_PRELOAD='$D/libdft_tune.so'\${LD_PRELOAD:+:\$LD_PRELOAD}; export LD_PRELOAD ;; esac
	export DFT_TUNE_X='4'
	export DFT_R='1'
	export MPIR_CVAR_X='1'
	EOF
	diff "$D/env.expected" "$RUN/env"
	[ "$(cat "$RUN/wrapper")" = "'numactl' '--interleave=all' " ]
	diff <(jq -j 'select(.strategy == "i.L2.hint") | .action.hint_file.content' "$D/papers.ndjson") "$RUN/romio_hints"
	# the before command, quoted, for the pipeline to run
	[ "$(cat "$RUN/before")" = "k.L3.before	$RUN/before_k.L3.before.sh" ]
	printf '#!/bin/sh\n. %s\ncd %s\n %s %s\n' "'$D/env.sh'" "'$D/build'" "'touch'" "'$D/local/it'\\''s'" |
		diff - "$RUN/before_k.L3.before.sh"
	diff <(jq -r 'select(.fate == "applied") | .strategy' "$RUN/actions.ndjson"
		jq -r 'select(.fate | startswith("na:")) | .strategy' "$RUN/actions.ndjson") "$RUN/tried"
	[ "$(cat "$RUN/change")" = "$(jq -s -r 'map("\(.level) \(.id)") | join(", ")' "$RUN/applied.ndjson")" ]
}

@test "--plan --failed: a before command that failed is not applicable and frees what it took" {
	actions_fixture
	# k also takes DFT_K, which w wants after it
	jq -c 'if .strategy == "k.L3.before" then .action.env = {"DFT_K": "1"} else . end' "$D/papers.ndjson" >"$D/p2"
	proposal w.L2.after deferred '{"env":{"DFT_K":"2"}}' >>"$D/p2"
	run -0 dft-papers --plan --run-dir "$RUN" --tried "$D/tried" --analysis "$D/analysis.ndjson" "${FACTS[@]}" "$D/p2"
	[ "$(jq -r .id "$RUN/deferred.ndjson" | grep -c w.L2.after)" -eq 1 ]
	cp "$RUN/applied.ndjson" "$D/applied.first"
	echo k.L3.before >"$D/failed"
	run -0 dft-papers --plan --run-dir "$RUN" --tried "$D/tried" --failed "$D/failed" \
		--analysis "$D/analysis.ndjson" "${FACTS[@]}" "$D/p2"
	[ "$(jq -r 'select(.id == "k.L3.before") | .reason' "$RUN/not_applicable.ndjson")" = \
		"the command failed here: 'touch' '$D/local/it'\\''s'" ]
	[ ! -s "$RUN/before" ]
	# w now applies; everything else is decided as before
	diff <(jq -c 'select(.id != "k.L3.before")' "$D/applied.first") <(jq -c 'select(.id != "w.L2.after")' "$RUN/applied.ndjson")
	[ "$(jq -r 'select(.id == "w.L2.after") | .action.env.DFT_K' "$RUN/applied.ndjson")" = 2 ]
}

@test "--plan --rewrites: the untried L1 rewrites LOW risk first, the first whose requirements the trace meets" {
	{
		proposal r1.L1.sync x '{"rewrite":"sync-last","requires":["fsync calls in the trace","a data directory whose file system writes the data before the new size (ext4 in ordered or journal mode, xfs, btrfs)"]}' |
			jq -c '.risk = "MEDIUM"'
		proposal r2.L1.setvbuf x '{"rewrite":"setvbuf","requires":["fopen and small fwrite calls in the trace"]}'
		proposal r9.L1.other x '{"rewrite":"other"}' | jq -c '.risk = "HIGH"'
		proposal r3.L1.fadvise x '{"rewrite":"fadvise=random","requires":["open and read calls in the trace","Linux"]}' |
			jq -c '.class = "random_access"'
		proposal r2.L1.setvbuf x '{"rewrite":"setvbuf2"}'
		proposal r4.L1.tried x '{"rewrite":"fdatasync"}'
		proposal r5.L1.norewrite x '{"env":{"X":"1"}}'
		proposal r6.L2.env x '{"rewrite":"setvbuf"}' | jq -c '.level = "L2"'
	} >"$D/papers.ndjson"
	echo r4.L1.tried >"$D/tried"
	# the order: untried L1 rewrites, one per strategy, by risk (stable)
	order=$(jq -s -r --arg t r4.L1.tried '[.[] | select(.level == "L1" and .action.rewrite != null and .strategy != $t)]
		| reduce .[] as $p ([]; if any(.[]; .strategy == $p.strategy) then . else . + [$p] end)
		| sort_by(if .risk == "LOW" then 0 elif .risk == "MEDIUM" then 1 else 2 end) | map(.strategy) | join(" ")' "$D/papers.ndjson")
	[ "$order" = "r2.L1.setvbuf r3.L1.fadvise r1.L1.sync r9.L1.other" ]
	# r2 needs fwrite calls under 64 KiB: the trace's average is
	avg=$(jq '.functions[] | select(.name == "fwrite") | .bytes / .count' "$D/analysis.ndjson")
	[ "$avg" -ge 65536 ]
	run -0 dft-papers --plan --rewrites --run-dir "$RUN" --tried "$D/tried" --analysis "$D/analysis.ndjson" \
		"${FACTS[@]}" "$D/papers.ndjson"
	[ "$output" = "not applicable here: r2.L1.setvbuf (the trace has no fopen with fwrite calls under 64 KiB)" ]
	[ "$(cat "$RUN/rewrite")" = "r3.L1.fadvise	fadvise=random	random_access" ]
	diff <(jq -c 'select(.strategy == "r3.L1.fadvise") | {id: .strategy, level, bottleneck: .metric, change, action}' \
		"$D/papers.ndjson") "$RUN/applied.ndjson"
	[ "$(cat "$RUN/tried")" = "r2.L1.setvbuf"$'\n'"r3.L1.fadvise" ]
	# the pipeline could not make r3's change: r1 next, then on a
	# writeback journal nothing but r9
	printf 'r3.L1.fadvise\tnothing was rewritten\n' >"$D/failed"
	run -0 dft-papers --plan --rewrites --run-dir "$RUN" --tried "$D/tried" --failed "$D/failed" \
		--analysis "$D/analysis.ndjson" "${FACTS[@]}" "$D/papers.ndjson"
	[ "$(cut -f 1 "$RUN/rewrite")" = r1.L1.sync ]
	[ "${lines[1]}" = "not applicable here: r3.L1.fadvise (nothing was rewritten)" ]
	run -0 dft-papers --plan --rewrites --run-dir "$RUN" --tried "$D/tried" --failed "$D/failed" \
		--analysis "$D/analysis.ndjson" "${FACTS[@]}" --fact 'fs=ext4 rw,data=writeback' "$D/papers.ndjson"
	[ "${lines[2]}" = "not applicable here: r1.L1.sync (the data directory's file system (ext4) may make a new size durable before its data)" ]
	[ "$(cut -f 1 "$RUN/rewrite")" = r9.L1.other ]
	# without the analysis no trace requirement is met
	run -0 dft-papers --plan --rewrites --run-dir "$RUN" --tried "$D/tried" "${FACTS[@]}" "$D/papers.ndjson"
	[ "${lines[1]}" = "not applicable here: r3.L1.fadvise (the trace has no open() with read() calls)" ]
}

# requirement_table ID PROPOSALS EXPORT: plans PROPOSALS (one proposal,
# ID) once per stdin line "MPI|MPI_IO|WANT" with those facts; WANT is
# "na:REASON" (not applicable) or what the met requirement found, and then
# the env has the line EXPORT
requirement_table() {
	local mpi io want
	while IFS='|' read -r mpi io want; do
		rm -rf "$RUN"
		mkdir -p "$RUN"
		run -0 dft-papers --plan --run-dir "$RUN" --analysis "$D/analysis.ndjson" \
			"${FACTS[@]}" --fact "mpi=$mpi" --fact "mpi_io=$io" "$2"
		case "$want" in
		na:*)
			assert_output "not applicable here: $1 (${want#na:})"
			[ ! -s "$RUN/applied.ndjson" ]
			;;
		*)
			assert_output "requirement met here: $1 ($want)"
			[ "$(jq -r '.found[0]' "$RUN/applied.ndjson")" = "$want" ]
			grep -qxF "$3" "$RUN/env"
			;;
		esac
	done
}

@test "--plan: a ROMIO action needs MPI-IO calls and ROMIO, MPICH's or Open MPI's romio io component, and says which it found" {
	local req="mpi-io (ROMIO: MPICH, or Open MPI's romio component)"
	proposal x.L2.romio applied "$(jq -n -c --arg r "$req" '{env: {ROMIO_HINTS: "/h", OMPI_MCA_io: "^ompio"}, requires: [$r]}')" >"$D/romio.ndjson"
	# the trace opens HDF5 files over MPI-IO: MPI-IO is met, from the summary
	[ "$(jq '.interfaces.hdf5.over_mpiio' "$D/analysis.ndjson")" -gt 0 ]
	requirement_table x.L2.romio "$D/romio.ndjson" "export OMPI_MCA_io='^ompio'" <<-EOF
	MPICH||ROMIO: the MPI-IO of MPICH
	Open MPI|ompio romio321|ROMIO: Open MPI's romio321 io component, selected over ompio with OMPI_MCA_io=^ompio
	Open MPI|ompio|na:Open MPI without a romio io component (ompi_info lists: ompio), and its ompio ignores ROMIO_HINTS
	Open MPI||na:Open MPI without a romio io component (ompi_info lists: none), and its ompio ignores ROMIO_HINTS
	||na:no MPI library was found, so no ROMIO
	EOF
	# no MPI-IO in the trace: not applicable whatever the MPI
	jq -c '.interfaces = {mpiio: {count: 0}, hdf5: {count: 0, over_mpiio: 0}}' "$D/analysis.ndjson" >"$D/nompi.ndjson"
	run -0 dft-papers --plan --run-dir "$RUN" --analysis "$D/nompi.ndjson" "${FACTS[@]}" \
		--fact mpi=MPICH "$D/romio.ndjson"
	assert_output "not applicable here: x.L2.romio (the traced run made no MPI-IO calls)"
}

@test "--plan: an ompio action needs MPI-IO calls and Open MPI's ompio io component, and says it found it" {
	local req="mpi-io (ompio: Open MPI's ompio io component)"
	proposal x.L2.ompio applied "$(jq -n -c --arg r "$req" '{env: {OMPI_MCA_io: "ompio", OMPI_MCA_fcoll: "vulcan"}, requires: [$r]}')" >"$D/ompio.ndjson"
	requirement_table x.L2.ompio "$D/ompio.ndjson" "export OMPI_MCA_io='ompio'" <<-EOF
	Open MPI|ompio romio321|ompio: Open MPI's ompio io component, selected with OMPI_MCA_io=ompio
	Open MPI|romio321|na:Open MPI without an ompio io component (ompi_info lists: romio321)
	Open MPI||na:Open MPI without an ompio io component (ompi_info lists: none)
	MPICH||na:the MPI (MPICH) has no ompio: its MPI-IO ignores Open MPI's MCA parameters
	||na:no MPI library was found, so no ompio
	EOF
	jq -c '.interfaces = {mpiio: {count: 0}, hdf5: {count: 0, over_mpiio: 0}}' "$D/analysis.ndjson" >"$D/nompi.ndjson"
	run -0 dft-papers --plan --run-dir "$RUN" --analysis "$D/nompi.ndjson" "${FACTS[@]}" \
		--fact "mpi=Open MPI" --fact "mpi_io=ompio" "$D/ompio.ndjson"
	assert_output "not applicable here: x.L2.ompio (the traced run made no MPI-IO calls)"
}

# catalogue_proposal ID...: the catalogue's strategies as the proposals of
# one small-write bottleneck, in the catalogue's order
catalogue_proposal() {
	jq -c 'select(.type == "strategy" and (.id as $i | $ARGS.positional | index($i)))
		| {type: "proposal", v: 1, id: ("B1." + .id), strategy: .id, level, class,
		   metric: "small_write_pct", change, risk, action}' "$REPO/share/dft/proposals.ndjson" --args "$@"
}

@test "--plan on Open MPI: the catalogue's ROMIO and ompio actions take turns (both set OMPI_MCA_io), and this Open MPI reads every MCA variable the ompio actions set" {
	# the plan's order is the strategies' text: the ROMIO one first
	local ids=(imbalance.L2.aggregators imbalance.L2.ompio_aggregators small_write.L2.ompio_aggregate)
	catalogue_proposal "${ids[@]}" >"$D/cat.ndjson"
	[ "$(jq -s -c 'map(.strategy) | sort' "$D/cat.ndjson")" = "$(printf '%s\n' "${ids[@]}" | jq -R . | jq -s -c .)" ]
	jq -c '.interfaces.mpiio.count = 12' "$D/analysis.ndjson" >"$D/mpi.ndjson"
	local F=("${FACTS[@]}" --fact "mpi=Open MPI" --fact "mpi_io=romio321 ompio")
	# iteration 1: the ROMIO action; the ompio ones wait for OMPI_MCA_io
	run -0 dft-papers --plan --run-dir "$RUN" --analysis "$D/mpi.ndjson" "${F[@]}" "$D/cat.ndjson"
	[ "$(jq -r .id "$RUN/applied.ndjson")" = imbalance.L2.aggregators ]
	[ "$(jq -r .strategy "$RUN/deferred.ndjson" | tr '\n' ' ')" = "imbalance.L2.ompio_aggregators small_write.L2.ompio_aggregate " ]
	grep -qx "export OMPI_MCA_io='^ompio'" "$RUN/env"
	# iteration 2, after it: its exports, then the ompio one's, which
	# selects ompio again ({physical_cores} filled in); the other waits
	local R2=$D/run2
	mkdir -p "$R2"
	echo imbalance.L2.aggregators >"$D/tried"
	run -0 dft-papers --plan --run-dir "$R2" --analysis "$D/mpi.ndjson" "${F[@]}" \
		--tried "$D/tried" --env "$RUN/env" "$D/cat.ndjson"
	assert_output "requirement met here: imbalance.L2.ompio_aggregators (ompio: Open MPI's ompio io component, selected with OMPI_MCA_io=ompio)"
	[ "$(jq -r .id "$R2/applied.ndjson")" = imbalance.L2.ompio_aggregators ]
	[ "$(jq -r .strategy "$R2/deferred.ndjson")" = small_write.L2.ompio_aggregate ]
	run -0 sh -c ". '$R2/env'; echo \"\$OMPI_MCA_io \$OMPI_MCA_fcoll \$OMPI_MCA_io_ompio_max_aggregators_ratio\""
	assert_output "ompio vulcan 4"
	# iteration 3: the last one
	local R3=$D/run3
	mkdir -p "$R3"
	printf 'imbalance.L2.aggregators\nimbalance.L2.ompio_aggregators\n' >"$D/tried"
	run -0 dft-papers --plan --run-dir "$R3" --analysis "$D/mpi.ndjson" "${F[@]}" \
		--tried "$D/tried" --env "$R2/env" "$D/cat.ndjson"
	[ "$(jq -r .id "$R3/applied.ndjson")" = small_write.L2.ompio_aggregate ]
	[ ! -s "$R3/deferred.ndjson" ]
	# every OMPI_MCA_ variable of the catalogue's ompio actions is a
	# parameter of this Open MPI, read from the environment
	command -v ompi_info >/dev/null || skip "no ompi_info: Open MPI is not installed (scripts/install-deps installs it)"
	jq -r 'select(.type == "strategy" and any(.action.requires[]?; test("ompio")))
		| .action.env | to_entries[] | "\(.key)=\(.value)"' "$REPO/share/dft/proposals.ndjson" |
		sort -u | sed 's/{physical_cores}/4/' >"$D/vars"
	[ "$(wc -l <"$D/vars")" -ge 3 ]
	# one value a variable (the actions agree on each)
	[ "$(cut -d= -f1 "$D/vars" | sort | uniq -d)" = "" ]
	# shellcheck disable=SC2046
	env $(cat "$D/vars") ompi_info --param all all --level 9 --parsable >"$D/ompi_info"
	local v name val
	while IFS= read -r v; do
		name=${v%%=*} val=${v#*=}
		name=${name#OMPI_MCA_}
		grep -qxE "mca:[a-z0-9_]+:[a-z0-9_]+:param:$name:value:$val" "$D/ompi_info" ||
			fail "ompi_info does not read $v"
		grep -qxE "mca:[a-z0-9_]+:[a-z0-9_]+:param:$name:source:environment" "$D/ompi_info" ||
			fail "ompi_info does not take $name from the environment"
	done <"$D/vars"
}

@test "the catalogue's ompio aggregation action aggregates: under it one rank writes the interleaved collective data that every rank wrote itself before" {
	command -v mpicc >/dev/null && command -v mpirun >/dev/null ||
		skip "no mpicc/mpirun: Open MPI is not installed (scripts/install-deps installs it)"
	make_locked -s -C "$REPO/runtime" all >/dev/null
	mpicc -Wall -Wextra -Werror -o "$D/mpiio_view" "$REPO/tests/fixtures/runtime/mpiio_view.c"
	catalogue_proposal small_write.L2.ompio_aggregate >"$D/cat.ndjson"
	jq -c '.interfaces.mpiio.count = 1' "$D/analysis.ndjson" >"$D/mpi.ndjson"
	run -0 dft-papers --plan --run-dir "$RUN" --analysis "$D/mpi.ndjson" "${FACTS[@]}" \
		--fact "mpi=Open MPI" --fact "mpi_io=romio321 ompio" "$D/cat.ndjson"
	[ "$(jq -r .id "$RUN/applied.ndjson")" = small_write.L2.ompio_aggregate ]
	local N=64 B=16 NP=2 mode
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	for mode in before after; do
		mkdir -p "$D/$mode/data" "$D/$mode/traces"
		(
			[ "$mode" = after ] && . "$RUN/env"
			# every write a complete event with its MPI-IO parent (an
			# aggregated record names no MPI-IO span: DFTRACER_THROTTLE_IO)
			DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_INC_METADATA=1 DFTRACER_THROTTLE_IO=0 \
				DFTRACER_DATA_DIR="$D/$mode/data" DFTRACER_LOG_FILE="$D/$mode/traces/trace" \
				timeout 60 mpirun --oversubscribe -np "$NP" -x DFTRACER_ENABLE -x DFTRACER_INIT \
				-x DFTRACER_INC_METADATA -x DFTRACER_THROTTLE_IO -x DFTRACER_DATA_DIR -x DFTRACER_LOG_FILE \
				-x LD_PRELOAD="$REPO/runtime/build/lib/libdftracer_preload.so" \
				"$D/mpiio_view" "$D/$mode/data/v.dat" "$N" "$B"
		)
		[ "$(stat -c %s "$D/$mode/data/v.dat")" -eq $((NP * N * B * 4)) ]
		# per rank: the POSIX writes inside its MPI_File_write_all, bytes
		for f in "$D/$mode"/traces/*.pfw.gz; do
			zcat "$f" | grep '"ph":"X"' | jq -s -c '
				(map(select(.name == "MPI_File_write_all") | .id)) as $w
				| map(select(.cat == "POSIX" and (.name | test("write"))
					and (.args.p_idx as $p | $w | index($p))))
				| [length, (map(.args.ret) | add // 0)]'
		done | sort >"$D/$mode.w"
	done
	# before (ompio's own choice here, individual): each rank its N blocks
	printf '[%s,%s]\n' "$N" $((N * B * 4)) "$N" $((N * B * 4)) | diff - "$D/before.w"
	# after (vulcan): one aggregator writes all the ranks' data
	printf '[0,0]\n' | diff - <(head -1 "$D/after.w")
	[ "$(sed -n 2p "$D/after.w" | jq '.[1]')" -eq $((NP * N * B * 4)) ]
	[ "$(wc -l <"$D/after.w")" -eq "$NP" ]
}

@test "--plan --rollback: the rollback commands of the applied actions, filled in, in order" {
	{
		echo '{"id":"a","action":{"rollback":{"command":["lfs","setstripe","-d","{data_dir}"]}}}'
		echo '{"id":"b","action":{"rollback":{"env_unset":["X"]}}}'
		echo '{"id":"c","action":{"rollback":{"command":["rm","-rf","{local_dir}/it'"'"'s"]}}}'
		echo '{"id":"d","action":{"rollback":{"command":["echo","{nowhere}"]}}}'
		echo '{"id":"e","action":{"rollback":{"command":["x","","{physical_cores}","{hint_file}"]}}}'
	} >"$D/applied.ndjson"
	run -0 dft-papers --plan --rollback --run-dir "$RUN" "${FACTS[@]}" "$D/applied.ndjson"
	# one script per command that can be filled in (d cannot), in order
	n=$(jq -s '[.[] | select(.action.rollback.command)
		| select(any(.action.rollback.command[]; test("{(?!data_dir|local_dir|physical_cores|hint_file|tune_lib)[a-z_]")) | not)] | length' "$D/applied.ndjson")
	[ "$n" -eq 3 ]
	diff <(for k in $(seq 1 "$n"); do echo "$RUN/rollback_$k.sh"; done) "$RUN/rollback"
	printf '#!/bin/sh\ncd %s\n %s\n' "'$D/build'" "'lfs' 'setstripe' '-d' '$D/data'" | diff - "$RUN/rollback_1.sh"
	printf '#!/bin/sh\ncd %s\n %s\n' "'$D/build'" "'rm' '-rf' '$D/local/it'\\''s'" | diff - "$RUN/rollback_2.sh"
	printf '#!/bin/sh\ncd %s\n %s\n' "'$D/build'" "'x' '4' ''" | diff - "$RUN/rollback_3.sh"
	[ ! -e "$RUN/applied.ndjson" ]
}

@test "the options of --plan go with --plan and are checked" {
	usage=$(usage_of dft-papers)
	run -2 --separate-stderr dft-papers --run-dir "$D"
	[ "${stderr%%$'\n'*}" = "dft-papers: --rewrites, --rollback, --run-dir, --tried, --failed, --analysis, --env, --earlier and --fact go with --plan" ]
	run -2 --separate-stderr dft-papers --plan
	[ "${stderr%%$'\n'*}" = "dft-papers: --plan needs --run-dir" ]
	run -2 --separate-stderr dft-papers --plan --run-dir "$D" --fact cores=2
	[ "${stderr%%$'\n'*}" = "dft-papers: --fact: bad value 'cores=2' (expected NAME=VALUE, NAME one of data_dir, local_dir, physical_cores, tune_lib, work_dir, env_script, os, fs, fs_type, numactl, numa_nodes, mpi, openmp, mpi_io)" ]
	[ "$stderr" = "${stderr%%$'\n'*}"$'\n'"$usage" ]
	run -2 --separate-stderr dft-papers --plan --rewrites --env "$D/x" --run-dir "$D"
	[ "${stderr%%$'\n'*}" = "dft-papers: --env and --earlier do not go with --rewrites or --rollback" ]
	run -2 --separate-stderr dft-papers --plan --rewrites --rollback --run-dir "$D"
	[ "${stderr%%$'\n'*}" = "dft-papers: --rewrites and --rollback exclude each other" ]
	run -2 --separate-stderr dft-papers --plan --learn --run-dir "$D"
	[ "${stderr%%$'\n'*}" = "dft-papers: --plan and --learn exclude each other" ]
	run -2 --separate-stderr dft-papers --plan --format box --run-dir "$D"
	[ "${stderr%%$'\n'*}" = "dft-papers: --plan and --format box exclude each other" ]
	run -2 --separate-stderr dft-papers --plan --run-dir "$D/none" </dev/null
	[ "$stderr" = "dft-papers: --run-dir '$D/none' is not a directory" ]
	# a malformed line is reported with its place, the rest planned
	printf '{"type":"proposal"\n' >"$D/bad.ndjson"
	run -1 --separate-stderr dft-papers --plan --run-dir "$RUN" "$D/bad.ndjson"
	[[ "$stderr" == "dft-papers: $D/bad.ndjson:1: "* ]]
	[ -f "$RUN/applied.ndjson" ]
}
