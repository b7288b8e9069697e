#!/usr/bin/env bats
# tests/runtime-mpi.bats - the runtime's MPI-IO and HDF5 layers
# (runtime/src/mpiio.c, hdf5.c): 2-rank Open MPI programs, built here with
# mpicc and h5pcc -shlib, run under libdftracer_preload.so.  Every count,
# size and offset is derived from the programs' arguments and the type
# sizes in the test; the file's length confirms them.

load test_helper

RT="$REPO/runtime/build"
FX="$REPO/tests/fixtures/runtime"
CHECK="$FX/check_trace.py"
NP=2
INT=4	# MPI_INT, H5T_NATIVE_INT
DBL=8	# MPI_DOUBLE

setup_file() {
	make_locked -s -C "$REPO/runtime" all >/dev/null
	B="$BATS_FILE_TMPDIR/bin"
	mkdir -p "$B"
	cd "$B"
	if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
		mpicc -Wall -Wextra -Werror -o mpiio_w "$FX/mpiio_w.c"
		mpicc -Wall -Wextra -Werror -o mpiio_split "$FX/mpiio_split.c"
		mpicc -shared -fPIC -Wall -Wextra -Werror -o mpi_prof.so "$FX/mpi_prof.c"
		# the value of MPI_THREAD_FUNNELED (an enum in Open MPI's mpi.h)
		printf '#include <mpi.h>\n#include <stdio.h>\nint main(void) { printf("%%d\\n", MPI_THREAD_FUNNELED); return 0; }\n' |
			mpicc -x c -o funneled -
		once split ./mpiio_split "$B/split/data/f.bin" "$SPLIT_COUNT" "$SPLIT_CB"
		if command -v mpifort >/dev/null &&
			mpifort -o mpiio_f "$FX/mpiio_f.f90" 2>"$B/mpifort.err"; then
			once fortran ./mpiio_f "$B/fortran/data/f.bin" "$F_NCOLL" "$F_COUNT"
		fi
		if command -v h5pcc >/dev/null; then
			h5pcc -shlib -Wall -Wextra -Werror -o h5_w "$FX/h5_w.c"
			h5pcc -shlib -Wall -Wextra -Werror -o h5_v18 "$FX/h5_v18.c"
			h5pcc -shlib -Wall -Wextra -Werror -o h5_attr "$FX/h5_attr.c"
			h5pcc -shlib -shared -fPIC -Wall -Wextra -Werror \
				-o h5_plugin.so "$FX/h5_plugin.c"
			cc -Wall -Wextra -Werror -o dlopen_local \
				"$FX/dlopen_local.c" -ldl
		fi
	fi
	export B
}

# The runs that several tests read, once per file: mpiio_split (the split
# collectives and the MPI layer: SPLIT_COUNT ints a block, cb_nodes
# SPLIT_CB) and mpiio_f (Fortran: F_NCOLL collective blocks of F_COUNT
# integers and one independent block).  once NAME PROGRAM ARGS... runs
# PROGRAM on NP ranks, data in $B/NAME/data, traces in $B/NAME/traces.
SPLIT_COUNT=100
SPLIT_CB=2
F_NCOLL=3
F_COUNT=50
once() {
	local d="$B/$1"
	shift
	mkdir -p "$d/data" "$d/traces"
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_INC_METADATA=1 \
	DFTRACER_DATA_DIR="$d/data" DFTRACER_LOG_FILE="$d/traces/trace" \
		timeout 60 mpirun --oversubscribe -np "$NP" -x OMPI_ALLOW_RUN_AS_ROOT \
		-x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -x DFTRACER_ENABLE -x DFTRACER_INIT \
		-x DFTRACER_INC_METADATA -x DFTRACER_DATA_DIR -x DFTRACER_LOG_FILE \
		-x LD_PRELOAD="$RT/lib/libdftracer_preload.so" "$@" \
		>"$d/out" 2>&1 || echo "$1: exit $?" >>"$d/out"
}

# The traces of run NAME of once (checked) as $W/ev.json, like events().
once_events() {
	local n=0 f
	grep -q 'exit' "$B/$1/out" && fail "$(cat "$B/$1/out")"
	for f in "$B/$1"/traces/*.pfw.gz; do
		run -0 python3 "$CHECK" "$f"
		n=$((n + 1))
	done
	[ "$n" -eq "$NP" ] || fail "$n trace files, want $NP"
	for f in "$B/$1"/traces/*.pfw.gz; do
		gzip -dc "$f" | sed -e '1{/^\[$/d;}' -e '${/^\]$/d;}' |
			jq -s '(map(select(.name == "PR"))[0].args.value | tonumber) as $r
				| map(. + {rank: $r})'
	done | jq -s add > "$W/ev.json"
}

setup() {
	set -o pipefail
	W="$BATS_TEST_TMPDIR/w"
	mkdir -p "$W/data" "$W/traces"
	cd "$W"
	export DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_INC_METADATA=1
	export DFTRACER_DATA_DIR="$W/data" DFTRACER_LOG_FILE="$W/traces/trace"
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	unset DFTRACER_DISABLE_MPIIO DFTRACER_DISABLE_HDF5 LD_PRELOAD
}

need_mpi() {
	[ -x "$B/mpiio_w" ] || skip "no mpicc/mpirun: Open MPI is not installed (scripts/install-deps installs it)"
}

need_h5() {
	need_mpi
	[ -x "$B/h5_w" ] || skip "no h5pcc: parallel HDF5 is not installed (scripts/install-deps installs it)"
}

# Runs a program on NP ranks, the preload library in the ranks only.
traced_run() {
	local x=() v
	for v in DFTRACER_DISABLE_MPIIO DFTRACER_DISABLE_HDF5; do
		[ -n "${!v-}" ] && x+=(-x "$v")
	done
	timeout 60 mpirun --oversubscribe -np "$NP" -x DFTRACER_ENABLE \
		-x DFTRACER_INIT -x DFTRACER_INC_METADATA -x DFTRACER_DATA_DIR \
		-x DFTRACER_LOG_FILE "${x[@]}" \
		-x LD_PRELOAD="$RT/lib/libdftracer_preload.so" "$@"
}

# The NP traces, each checked, as one array of events with .rank (from
# the file's PR record) in ev.json.
events() {
	local f n=0
	for f in "$W"/traces/*.pfw.gz; do
		run -0 python3 "$CHECK" "$f"
		n=$((n + 1))
	done
	[ "$n" -eq "$NP" ] || fail "$n trace files, want $NP"
	for f in "$W"/traces/*.pfw.gz; do
		gzip -dc "$f" | sed -e '1{/^\[$/d;}' -e '${/^\]$/d;}' |
			jq -s '(map(select(.name == "PR"))[0].args.value | tonumber) as $r
				| map(. + {rank: $r})'
	done | jq -s add > "$W/ev.json"
}

h16() {
	python3 -c 'import hashlib,sys; print(hashlib.md5(sys.argv[1].encode()).digest()[0::2].hex())' "$1"
}

# jq -e over ev.json with the test's numbers as $vars
q() {
	jq -e --argjson NP "$NP" --argjson INT "$INT" --argjson DBL "$DBL" \
		"$@" "$W/ev.json" >/dev/null || fail "jq: ${*: -1}"
}

@test "the runtime links neither libmpi nor libhdf5 and exports the MPI-IO and HDF5 wrappers" {
	local lib
	for lib in libdftracer_preload.so libdftracer_core.so; do
		run -0 readelf -d "$RT/lib/$lib"
		[[ "$output" != *libmpi* && "$output" != *hdf5* ]] || fail "$lib: $output"
		run -0 nm -D --defined-only "$RT/lib/$lib"
		[[ "$output" == *" T MPI_File_write_at_all"* && "$output" == *" T PMPI_File_write_at_all"* &&
			"$output" == *" T H5Dwrite"* ]]
		# the MPI layer only in the preload library
		if [ "$lib" = libdftracer_preload.so ]; then
			[[ "$output" == *" T MPI_Init"* && "$output" == *" T PMPI_Finalize"* ]]
		else
			[[ "$output" != *" T MPI_Init"* && "$output" != *" T MPI_Finalize"* ]]
		fi
	done
}

@test "MPI-IO on 2 ranks: collective and independent writes are MPIIO events with counts, sizes, offsets, flags and the file's hash" {
	need_mpi
	local NCOLL=3 NIND=2 COUNT=100 inc
	run -0 traced_run "$B/mpiio_w" data/f.bin "$NCOLL" "$NIND" "$COUNT"
	# each rank: NCOLL+1 int blocks (the last nonblocking) and NIND doubles
	local per=$(( (NCOLL + 1) * COUNT * INT + NIND * COUNT * DBL ))
	[ "$(stat -c %s data/f.bin)" -eq $(( NP * per )) ]
	events
	local h
	h=$(h16 "$W/data/f.bin")
	q --arg h "$h" --arg p "$W/data/f.bin" \
		'[.[] | select(.name == "FH" and .args.name == $p)] | length == $NP and all(.args.value == $h)'
	inc=$(mpicc --showme:incdirs | cut -d' ' -f1)
	local amode
	amode=$(( $(awk '$2 == "MPI_MODE_CREATE" { print $3 }' "$inc/mpi.h") |
		$(awk '$2 == "MPI_MODE_RDWR" { print $3 }' "$inc/mpi.h") ))
	local r
	for r in $(seq 0 $((NP - 1))); do
		q --argjson r "$r" --argjson nc "$NCOLL" --argjson ni "$NIND" \
			'[.[] | select(.cat == "MPIIO" and .rank == $r) | .name] | group_by(.)
			 | map({key: .[0], value: length}) | from_entries
			 == {"MPI_File_open": 1, "MPI_File_set_view": 1, "MPI_File_write_at_all": $nc,
			     "MPI_File_write_at": $ni, "MPI_File_iwrite_at": 1, "MPI_File_sync": 1,
			     "MPI_File_read_at_all": 1, "MPI_File_close": 1}'
		# offsets in bytes (a byte view): rank r's region starts at r * per
		q --argjson r "$r" --argjson c "$COUNT" --argjson nc "$NCOLL" \
			--argjson ni "$NIND" --argjson per "$per" --argjson amode "$amode" '
			def ev($n): [.[] | select(.rank == $r and .name == $n) | .args];
			(ev("MPI_File_open")[0] | .amode == $amode and .comm_size == $NP and .ret == 0
				and .hints == null and .cb_nodes == null)
			and (ev("MPI_File_set_view")[0] | .disp == 0 and .etype_size == 1)
			and (ev("MPI_File_write_at_all") | all(.count == $c and .dtype_size == $INT
				and .size == $c * $INT and .collective == 1 and .nonblocking == 0 and .ret == 0)
				and (map(.offset) | sort) == [range($nc) | $r * $per + . * $c * $INT])
			and (ev("MPI_File_write_at") | all(.count == $c and .dtype_size == $DBL
				and .size == $c * $DBL and .collective == 0 and .nonblocking == 0)
				and (map(.offset) | sort) ==
				[range($ni) | $r * $per + $nc * $c * $INT + . * $c * $DBL])
			and (ev("MPI_File_iwrite_at")[0] | .size == $c * $INT and .nonblocking == 1
				and .collective == 0 and .offset == $r * $per + $nc * $c * $INT + $ni * $c * $DBL)
			and (ev("MPI_File_read_at_all")[0] | .size == $c * $INT and .collective == 1
				and .offset == $r * $per)'
	done
	q --arg h "$h" '[.[] | select(.cat == "MPIIO")] | all(.args.fhash == $h)'
	# POSIX under MPI-IO: every POSIX call on the file has an MPIIO parent
	# of its rank that encloses it in time, and the bytes the blocking
	# writes' POSIX children wrote are the bytes those writes asked for
	q --arg h "$h" '
		(map(select(.cat == "MPIIO")) | INDEX("\(.rank):\(.id)")) as $m
		| map(select(.cat == "POSIX" and .args.fhash == $h)) as $px
		| ($px | length > 0)
		and ($px | all($m["\(.rank):\(.args.p_idx)"] as $p | $p != null
			and $p.ts <= .ts and .ts + .dur <= $p.ts + $p.dur
			and .args.level == $p.args.level + 1))'
	q --arg h "$h" '
		(map(select(.name == "MPI_File_write_at_all" or .name == "MPI_File_write_at"))) as $w
		| ($w | INDEX("\(.rank):\(.id)")) as $m
		| [.[] | select(.cat == "POSIX" and (.name | test("write"))
			and $m["\(.rank):\(.args.p_idx)"] != null) | .args.ret] | add
		== ($w | map(.args.size) | add)'
}

@test "parallel HDF5 on 2 ranks: HDF5 events enclose the MPI-IO calls they make, which enclose POSIX ones" {
	need_h5
	local COUNT=100
	run -0 traced_run "$B/h5_w" data/f.h5 "$COUNT"
	events
	local h r
	h=$(h16 "$W/data/f.h5")
	for r in $(seq 0 $((NP - 1))); do
		q --argjson r "$r" \
			'[.[] | select(.cat == "HDF5" and .rank == $r) | .name] | group_by(.)
			 | map({key: .[0], value: length}) | from_entries
			 == {"H5Pset_fapl_mpio": 1, "H5Fcreate": 1, "H5Gcreate2": 1, "H5Dcreate2": 1,
			     "H5Dwrite": 1, "H5Dclose": 1, "H5Gclose": 1, "H5Fclose": 1}'
		q --argjson r "$r" --argjson c "$COUNT" --arg h "$h" '
			map(select(.rank == $r)) as $e
			| ($e | map(select(.cat == "HDF5")) | all(if .name == "H5Pset_fapl_mpio"
				then .args.fhash == null else .args.fhash == $h end))
			and ($e | map(select(.name == "H5Dwrite"))[0].args
				| .size == $c * $INT and .collective == 1 and .ret == 0)
			and (($e | map(select(.name == "H5Fcreate"))[0].id) as $fc
				| $e | map(select(.name == "MPI_File_open"))[0].args.p_idx == $fc)
			and (($e | map(select(.name == "H5Dwrite"))[0].id) as $dw
				| $e | any(.name == "MPI_File_write_at_all" and .args.p_idx == $dw
					and .args.collective == 1))'
	done
	# the data: MPI-IO writes under H5Dwrite ask for the ranks' bytes, and
	# the POSIX writes under those MPI-IO calls write them
	q --argjson c "$COUNT" '
		(map(select(.name == "H5Dwrite")) | INDEX("\(.rank):\(.id)")) as $dw
		| map(select(.cat == "MPIIO" and (.name | test("write"))
			and $dw["\(.rank):\(.args.p_idx)"] != null)) as $mw
		| ($mw | map(.args.size) | add) == $NP * $c * $INT
		and (($mw | INDEX("\(.rank):\(.id)")) as $m
			| [.[] | select(.cat == "POSIX" and (.name | test("write"))
				and $m["\(.rank):\(.args.p_idx)"] != null) | .args.ret] | add
			== $NP * $c * $INT)'
}

@test "DFTRACER_DISABLE_MPIIO and DFTRACER_DISABLE_HDF5 switch one layer off; the layers under it stay" {
	need_h5
	DFTRACER_DISABLE_HDF5=1 run -0 traced_run "$B/h5_w" data/f.h5 10
	events
	q '(map(select(.cat == "HDF5")) | length == 0)
		and (map(select(.name == "MPI_File_write_at_all")) | length >= $NP)
		and (map(select(.name == "MPI_File_open")) | all(.args.level == 1))'
	rm -f "$W"/traces/*
	DFTRACER_DISABLE_MPIIO=1 run -0 traced_run "$B/mpiio_w" data/f.bin 2 1 10
	events
	q '(map(select(.cat == "MPIIO" or .cat == "MPI")) | length == 0)
		and (map(select(.cat == "POSIX" and .name == "pwrite")) | length > 0 and all(.args.level == 1))'
}

@test "HDF5 loaded with RTLD_LOCAL, as Python loads h5py, is traced: the real functions are found outside the global scope" {
	need_h5
	local COUNT=50
	LD_PRELOAD="$RT/lib/libdftracer_preload.so" run -0 "$B/dlopen_local" \
		"$B/h5_plugin.so" data/x.h5 "$COUNT"
	local f
	f=$(echo "$W"/traces/*.pfw.gz)
	run -0 python3 "$CHECK" "$f"
	gzip -dc "$f" | sed -e '1{/^\[$/d;}' -e '${/^\]$/d;}' | jq -s . > "$W/ev.json"
	# H5S_ALL: the whole dataset, COUNT ints
	q --arg h "$(h16 "$W/data/x.h5")" --argjson c "$COUNT" '
		([.[] | select(.cat == "HDF5") | .name] | group_by(.)
		 | map({key: .[0], value: length}) | from_entries
		 == {"H5Fcreate": 1, "H5Dcreate2": 1, "H5Dwrite": 1, "H5Dclose": 1, "H5Fclose": 1})
		and (map(select(.cat == "HDF5")) | all(.args.fhash == $h))
		and (map(select(.name == "H5Dwrite"))[0].args
			| .size == $c * $INT and .collective == 0 and .ret == 0)'
}

@test "a trace that starts before MPI_Init, with no launcher's rank, gets PR and process_name when MPI_Init returns" {
	need_mpi
	# a singleton run: no mpirun, so no launcher variable gives the rank
	run -0 timeout 60 env MPIIO_W_PRE=1 \
		LD_PRELOAD="$RT/lib/libdftracer_preload.so" "$B/mpiio_w" data/f.bin 1 1 10
	local f
	f=$(echo "$W"/traces/*.pfw.gz)
	run -0 python3 "$CHECK" "$f"
	gzip -dc "$f" | sed -e '1{/^\[$/d;}' -e '${/^\]$/d;}' | jq -s . > "$W/ev.json"
	# the file was opened before MPI was up: the header had no rank; the
	# records follow the MPI_Init event, when MPI_Init has returned
	q --arg pre "$(h16 "$W/data/f.bin.pre")" '
		(map(select(.name == "PR")) | length == 1 and .[0].args.value == "0")
		and (map(select(.name == "process_name")) | length == 1
			and .[0].args.name == "Rank 0")
		and ((map(.name == "PR") | index(true)) as $pr
			| (map(.args.fhash == $pre) | index(true)) < $pr
			and (map(.name == "MPI_Init") | index(true)) == $pr - 1
			and (map(.name == "MPI_File_open") | index(true)) > $pr)'
}

@test "split collectives on 2 ranks: each _begin carries count, size, offset and the collective and nonblocking flags; each _end completes it" {
	need_mpi
	once_events split
	local c=$SPLIT_COUNT blk=$((SPLIT_COUNT * INT)) r h
	# three blocks a rank, each in its own third of the file
	[ "$(stat -c %s "$B/split/data/f.bin")" -eq $((3 * NP * blk)) ]
	h=$(h16 "$B/split/data/f.bin")
	for r in $(seq 0 $((NP - 1))); do
		q --argjson r "$r" '
			[.[] | select(.cat == "MPIIO" and .rank == $r and (.name | test("_begin$|_end$"))) | .name]
			| sort == (["read_all", "read_at_all", "read_ordered", "write_all",
				"write_at_all", "write_ordered"]
				| map("MPI_File_\(.)_begin", "MPI_File_\(.)_end") | sort)'
		q --argjson r "$r" --argjson c "$c" --argjson blk "$blk" --arg h "$h" '
			map(select(.rank == $r and .cat == "MPIIO")) as $e
			| ($e | map(select(.name | endswith("_begin"))) | all(.args
				| .count == $c and .dtype_size == $INT and .size == $c * $INT
				and .collective == 1 and .nonblocking == 1 and .ret == 0
				and .fhash == $h))
			and ($e | map(select(.name | endswith("_end"))) | all(.args
				| .collective == 1 and .nonblocking == 1 and .ret == 0
				and .size == null and .count == null and .fhash == $h))
			and ($e | map(select(.name | test("_at_all_begin")) | .args.offset)
				== [$r * $blk, $r * $blk])
			and ($e | map(select(.name | test("_(all|ordered)_begin") and (test("_at_") | not)))
				| all(.args.offset == null))
			and ([$e[] | .name] | index("MPI_File_write_at_all_begin") + 1
				== index("MPI_File_write_at_all_end"))'
	done
}

@test "the MPI layer: MPI_Init_thread and MPI_Finalize are MPI events around every MPI-IO call; the open event carries the file's hints" {
	need_mpi
	once_events split
	local funneled r
	funneled=$("$B/funneled")
	for r in $(seq 0 $((NP - 1))); do
		q --argjson r "$r" --argjson fun "$funneled" --argjson cb "$SPLIT_CB" '
			map(select(.rank == $r)) as $e
			| ($e | map(select(.cat == "MPI")) | map(.name)
				== ["MPI_Init_thread", "MPI_Finalize"])
			and ($e | map(select(.cat == "MPI")) | all(.args.level == 1 and .args.ret == 0
				and .args.fhash == null))
			and ($e | map(select(.name == "MPI_Init_thread"))[0].args
				| .required == $fun and .provided >= $fun)
			and (($e | map(select(.name == "MPI_Init_thread"))[0] | .ts + .dur) as $t0
				| ($e | map(select(.name == "MPI_Finalize"))[0].ts) as $t1
				| $e | map(select(.cat == "MPIIO")) | length > 0
				and all(.ts >= $t0 and .ts + .dur <= $t1))
			and ($e | map(select(.name == "MPI_File_open"))[0].args
				| .cb_nodes == $cb and .comm_size == $NP
				and (.hints | split(";") | sort) == (["cb_nodes=\($cb)", "romio_cb_write=enable"] | sort))
			and ($e | map(select(.name == "PR")) | length == 1
				and .[0].args.value == "\($r)")'
	done
}

@test "MPI-IO from Fortran (use mpi): the bindings' PMPI_File_* calls are traced as the MPI_File_* events" {
	need_mpi
	[ -x "$B/mpiio_f" ] || skip "no mpifort: $(cat "$B/mpifort.err" 2>/dev/null)"
	once_events fortran
	local isz=$INT per r	# MPI_INTEGER: default integer, 4 bytes with gfortran
	per=$(( (F_NCOLL + 1) * F_COUNT * isz ))
	[ "$(stat -c %s "$B/fortran/data/f.bin")" -eq $((NP * per)) ]
	for r in $(seq 0 $((NP - 1))); do
		q --argjson r "$r" --argjson nc "$F_NCOLL" --argjson c "$F_COUNT" \
			--argjson per "$per" --argjson isz "$isz" --arg h "$(h16 "$B/fortran/data/f.bin")" '
			map(select(.rank == $r and (.cat == "MPIIO" or .cat == "MPI"))) as $e
			| ([$e[] | .name] == ["MPI_Init", "MPI_File_open"]
				+ [range($nc) | "MPI_File_write_at_all"]
				+ ["MPI_File_write_at", "MPI_File_close", "MPI_Finalize"])
			and ($e | map(select(.cat == "MPIIO")) | all(.args.fhash == $h and .args.level == 1))
			and ($e | map(select(.name | test("write"))) | all(.args.size == $c * $isz)
				and (map(.args.offset) == [range($nc + 1) | $r * $per + . * $c * $isz]))'
	done
}

@test "HDF5 through its 1.8 names (H5Gcreate1, H5Dcreate1, H5Gopen1, H5Dopen1) is traced like the 2 forms" {
	need_h5
	local COUNT=40
	LD_PRELOAD="$RT/lib/libdftracer_preload.so" run -0 "$B/h5_v18" data/v.h5 "$COUNT"
	local f
	f=$(echo "$W"/traces/*.pfw.gz)
	run -0 python3 "$CHECK" "$f"
	gzip -dc "$f" | sed -e '1{/^\[$/d;}' -e '${/^\]$/d;}' | jq -s . > "$W/ev.json"
	q --arg h "$(h16 "$W/data/v.h5")" --argjson c "$COUNT" '
		([.[] | select(.cat == "HDF5") | .name] == ["H5Fcreate", "H5Gcreate1", "H5Dcreate1",
			"H5Dwrite", "H5Dclose", "H5Gclose", "H5Fclose", "H5Fopen", "H5Gopen1",
			"H5Dopen1", "H5Dread", "H5Dclose", "H5Gclose", "H5Fclose"])
		and (map(select(.cat == "HDF5")) | all(.args.fhash == $h))
		and (map(select(.name == "H5Gcreate1" or .name == "H5Dcreate1" or .name == "H5Gopen1"
			or .name == "H5Dopen1")) | all(.args.ret > 0))
		and (map(select(.name == "H5Dwrite" or .name == "H5Dread")) | all(.args.size == $c * $INT))'
}

@test "HDF5 attributes on 2 ranks: create (2, 1, by_name), open (plain, by_name, name, idx, by_idx), read, write, close, with sizes of the memory type" {
	need_h5
	local NATTR=4 ALEN=5 LL=8
	run -0 traced_run "$B/h5_attr" data/a.h5 "$NATTR" "$ALEN"
	events
	local r
	for r in $(seq 0 $((NP - 1))); do
		# the program's HDF5 calls in order, from its arguments
		q --argjson r "$r" --argjson na "$NATTR" '
			[.[] | select(.rank == $r and .cat == "HDF5") | .name]
			== ["H5Pset_fapl_mpio", "H5Fcreate", "H5Gcreate2", "H5Dcreate2"]
				+ ([range($na) | ["H5Acreate2", "H5Awrite", "H5Aclose"]] | add)
				+ ["H5Acreate_by_name", "H5Awrite", "H5Aclose",
				   "H5Acreate1", "H5Awrite", "H5Aclose",
				   "H5Dclose", "H5Gclose", "H5Fclose", "H5Fopen", "H5Dopen2"]
				+ (["H5Aopen", "H5Aopen_by_name", "H5Aopen_name", "H5Aopen_idx",
				    "H5Aopen_by_idx"] | map([., "H5Aread", "H5Aclose"]) | add)
				+ ["H5Gopen2", "H5Aopen", "H5Aread", "H5Aclose",
				   "H5Aopen", "H5Aread", "H5Aclose", "H5Gclose", "H5Dclose", "H5Fclose"]'
	done
	# sizes: the attribute's points times the memory type's size (ints
	# written, long long read back; the scalar double and int: 1 point)
	q --arg h "$(h16 "$W/data/a.h5")" --argjson na "$NATTR" --argjson al "$ALEN" --argjson ll "$LL" '
		(map(select(.cat == "HDF5" and (.name | startswith("H5A")))) as $a
		| ($a | all(.args.fhash == $h and .args.level == 1))
		and ($a | map(select(.name | test("create|open"))) | all(.args.ret > 0))
		and ($a | map(select(.name | test("Aread|Awrite|Aclose"))) | all(.args.ret == 0))
		and ($a | map(select(.name | test("create|open|close"))) | all(.args.size == null)))
		and ([.[] | select(.name == "H5Awrite") | .args.size]
			== ([range($NP) | [range($na) | $al * $INT] + [$DBL, $INT]] | add))
		and ([.[] | select(.name == "H5Aread") | .args.size]
			== ([range($NP) | [range(5) | $al * $ll] + [$DBL, $INT]] | add))'
}

@test "a PMPI profiling layer between the program and MPI: each call is one event, not one for MPI_ and one for PMPI_" {
	need_mpi
	local NIND=3
	# a singleton run (no mpirun): the tracer first, the layer after it,
	# so MPI_File_write_at goes tracer -> layer -> PMPI_File_write_at
	run -0 timeout 60 env LD_PRELOAD="$RT/lib/libdftracer_preload.so $B/mpi_prof.so" \
		"$B/mpiio_w" data/f.bin 1 "$NIND" 10
	assert_line "mpi_prof: $NIND calls"
	local f
	f=$(echo "$W"/traces/*.pfw.gz)
	run -0 python3 "$CHECK" "$f"
	gzip -dc "$f" | sed -e '1{/^\[$/d;}' -e '${/^\]$/d;}' | jq -s . > "$W/ev.json"
	q --argjson n "$NIND" '(map(select(.name == "MPI_File_write_at")) | length == $n
		and all(.args.level == 1))
		and (map(select(.name == "MPI_File_write_at_all")) | length == 1)'
}
