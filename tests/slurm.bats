#!/usr/bin/env bats
# tests/slurm.bats - the Slurm scripts of scripts/slurm/ on a real
# single-node Slurm (Debian's slurm-wlm and munge), started here as root
# with its own munge key, sockets, ports and slurm.conf in a temporary
# directory, and stopped by pid. Without the packages, or when a daemon
# does not come up, every test skips and says why.

load test_helper

# why_no_slurm: empty when this machine can start the daemons.
why_no_slurm() {
	local t
	for t in munged slurmctld slurmd sbatch srun scontrol squeue; do
		command -v "$t" >/dev/null 2>&1 || {
			echo "$t is not installed (scripts/install-deps installs slurm-wlm and munge)"
			return
		}
	done
	[ "$(id -u)" -eq 0 ] || echo "the daemons are started as root, and this is uid $(id -u)"
}

# A free TCP port of the loopback, from bash's /dev/tcp.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 20000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || {
			echo "$p"
			return
		}
	done
	echo 0
}

setup_file() {
	local why host n p1 p2
	export SL="$BATS_FILE_TMPDIR/slurm"
	mkdir -p "$SL/state" "$SL/spool" "$SL/munge"
	why=$(why_no_slurm)
	if [ -n "$why" ]; then
		echo "$why" >"$SL/skip"
		return 0
	fi
	# the key private; the socket in a directory every user can reach
	# (munged checks each parent; bats keeps its own private)
	chmod 700 "$SL/munge"
	MSOCK=$(mktemp -d "${TMPDIR:-/tmp}/dft-munge.XXXXXX")
	chmod 755 "$MSOCK"
	echo "$MSOCK" >"$SL/msock"
	dd if=/dev/urandom of="$SL/munge/key" bs=1024 count=1 2>/dev/null
	chmod 400 "$SL/munge/key"
	if ! munged --key-file="$SL/munge/key" --socket="$MSOCK/sock" \
		--pid-file="$SL/munge/pid" --log-file="$SL/munge/log" \
		--seed-file="$SL/munge/seed" >"$SL/munged.out" 2>&1; then
		echo "munged did not start: $(tail -n 1 "$SL/munged.out")" >"$SL/skip"
		return 0
	fi
	host=$(hostname -s)
	n=$(nproc)
	p1=$(free_port)
	p2=$(free_port)
	cat >"$SL/slurm.conf" <<EOF
ClusterName=dfttest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$p1
SlurmdPort=$p2
AuthType=auth/munge
AuthInfo=socket=$MSOCK/sock
CredType=cred/munge
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool
SlurmctldPidFile=$SL/slurmctld.pid
SlurmdPidFile=$SL/slurmd.pid
SlurmctldLogFile=$SL/slurmctld.log
SlurmdLogFile=$SL/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$n State=UNKNOWN
PartitionName=dft Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
	export SLURM_CONF="$SL/slurm.conf"
	if ! slurmctld -c -f "$SLURM_CONF" >"$SL/slurmctld.out" 2>&1; then
		echo "slurmctld did not start: $(tail -q -n 1 "$SL/slurmctld.out" "$SL/slurmctld.log" 2>/dev/null | tr '\n' ' ')" >"$SL/skip"
		return 0
	fi
	if ! slurmd -f "$SLURM_CONF" -N "$host" >"$SL/slurmd.out" 2>&1; then
		echo "slurmd did not start: $(tail -q -n 1 "$SL/slurmd.out" "$SL/slurmd.log" 2>/dev/null | tr '\n' ' ')" >"$SL/skip"
		return 0
	fi
	# the node is up when sinfo says idle
	for _ in $(seq 150); do
		sinfo -h -o %t 2>/dev/null | grep -x idle >/dev/null && return 0
		sleep 0.2
	done
	echo "the Slurm node did not come up: $(sinfo -h 2>&1 | sed -n 1p); $(tail -n 3 "$SL/slurmd.log" 2>/dev/null | tr '\n' ' ')" >"$SL/skip"
}

# The daemons are stopped by the pids they wrote, never by name.
teardown_file() {
	local f p
	for f in "$SL/slurmd.pid" "$SL/slurmctld.pid" "$SL/munge/pid"; do
		[ -f "$f" ] || continue
		p=$(cat "$f")
		kill "$p" 2>/dev/null || continue
		for _ in $(seq 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null || true
	done
	[ ! -f "$SL/msock" ] || rm -rf "$(cat "$SL/msock")"
}

setup() {
	[ ! -f "$SL/skip" ] || skip "$(cat "$SL/skip")"
	export SLURM_CONF="$SL/slurm.conf"
	cd "$BATS_TEST_TMPDIR" || return 1
}

# wait_job ID SECONDS: waits until the job has left the queue; fails when it
# is still there after SECONDS, or ended other than COMPLETED.
wait_job() {
	local st
	for _ in $(seq $(($2 * 5))); do
		st=$(scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' ')
		case "$st" in
		*PENDING* | *RUNNING* | *CONFIGURING* | *COMPLETING* | '') sleep 0.2 ;;
		*) break ;;
		esac
	done
	[ "$st" = "JobState=COMPLETED " ] || fail "job $1: ${st:-not found}; $(tail -n 5 "$SL/slurmctld.log")"
}

@test "the shard analysis as a job array with a dependent merge equals one run over all files" {
	local files whole parts out line array merge
	files=$(ls "$TRACES"/gen1-cm1/*.pfw.gz "$TRACES"/gen0-dlio-unet3d.pfw.gz)
	# shellcheck disable=SC2086
	whole=$(dft-analyze $files | grep -v '"type":"step"' | jq -c 'del(.inputs)')
	out="$BATS_TEST_TMPDIR/sh"
	# shellcheck disable=SC2086
	run -0 sh "$REPO/scripts/slurm/analyze-shards.sh" -n 3 -o "$out" $files
	line=$output
	[[ "$line" =~ ^shards:\ job\ array\ ([0-9]+)\ \(tasks\ 0-2\)\;\ merge:\ ([0-9]+)\; ]] || fail "$line"
	array=${BASH_REMATCH[1]}
	merge=${BASH_REMATCH[2]}
	# the merge waits for the array
	run -0 scontrol show job "$merge"
	assert_output --partial "Dependency=afterok:${array}_*"
	wait_job "$merge" 120
	# three array tasks ran, each wrote its partial records
	run -0 scontrol show job "$array"
	[ "$(grep -c 'ArrayTaskId=' <<<"$output")" -eq 3 ]
	[ "$(ls "$out"/partial-*.ndjson | wc -l)" -eq 3 ]
	parts=$(grep -v '"type":"step"' "$out/analysis.ndjson" | jq -c 'del(.inputs)')
	[ "$parts" = "$whole" ] || fail "the merged analysis differs from one run"
}

@test "the traced run runs the annotated program with srun on 2 tasks" {
	local app="$BATS_TEST_TMPDIR/sample" root="$BATS_TEST_TMPDIR/ws" w job out
	cp -R "$REPO/tests/apps/sample" "$app"
	git -C "$app" init -q && git -C "$app" add . &&
		git -C "$app" -c user.email=t@example.org -c user.name=t commit -qm sample
	run -0 dft-pipeline run -y --offline -s './sample out' --stop-after build_annotated -w "$root" "$app"
	w="$root/$(head -n 1 "$root/sample/.current_run")"
	# each task writes below its own directory (out.$SLURM_PROCID)
	job=$(sbatch --parsable --nodes=1 --ntasks=2 --ntasks-per-node=2 --time=5 \
		--output="$BATS_TEST_TMPDIR/traced.log" \
		--export=ALL,PATH="$PATH" \
		"$REPO/scripts/slurm/traced-run.sh" "$w" sh -c './sample out.$SLURM_PROCID')
	job=${job%%;*}
	wait_job "$job" 120
	out="$w/traces_slurm_$job"
	run -0 cat "$BATS_TEST_TMPDIR/traced.log"
	assert_output --partial "traced-run.sh: "
	# one trace per task, each with the sample's write_records
	[ "$(ls "$out"/*.pfw.gz | wc -l)" -eq 2 ]
	for f in "$out"/*.pfw.gz; do
		run -0 bash -o pipefail -c "gzip -dc '$f' | grep -c '\"name\":\"write_records\"'"
		[ "$output" -ge 1 ]
	done
	# two processes, as srun started them
	run -0 jq -s -r '[.[] | select(.type == "summary")][0].processes' "$out/records.ndjson"
	assert_output 2
	run -0 jq -r 'select(.type == "bottleneck" and .bottleneck == true) | .functions[]?.name' "$out/records.ndjson"
	assert_line write_records
}
