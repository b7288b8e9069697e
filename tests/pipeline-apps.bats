#!/usr/bin/env bats
# tests/pipeline-apps.bats - dft-pipeline on application shapes made here:
# a Python script, a CMake target whose main is below test/, a submodule
# that cannot be fetched, a packaged Python application in a venv, HDF5 and
# MPI found by detect. (Out of pipeline.bats, whose tests share one run of
# the sample: these make their own, and a file of its own runs beside it
# under make check.)

load test_helper

# The runs time the tracing overhead on one run a side: what they check is
# not the count. With one run a side an overhead over the budget is not
# judged (no spread to tell noise from a cost): the overhead budget's tests
# time 3 a side themselves.
setup() {
	export DFT_PIPELINE_TIMING_RUNS=1
}

@test "a Python application runs without a build, traced with its functions" {
	local repo="$BATS_TEST_TMPDIR/pyapp" root="$BATS_TEST_TMPDIR/wsp" w
	mkdir -p "$repo"
	cat >"$repo/app.py" <<'PY'
import os
import sys


def write_records(d, n):
    with open(os.path.join(d, "records.dat"), "w") as f:
        for i in range(n):
            f.write("record %06d\n" % i)
            f.flush()


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "out"
    os.makedirs(d, exist_ok=True)
    write_records(d, 2000)
    print("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
PY
	git -C "$repo" init -q && git -C "$repo" add . &&
		git -C "$repo" -c user.email=t@example.org -c user.name=t commit -qm py
	# (a budget of -100 % makes any overhead too much; with one timed run
	# a side it is not judged: no spread to tell noise from a cost, so no
	# function is blamed for it)
	DFT_PIPELINE_MAX_OVERHEAD=-100 \
		run -0 dft-pipeline run -y --offline --stop-after analyze -s 'python3 app.py out' -w "$root" "$repo"
	assert_output --partial "Stopped after step_12_analyze_traces as asked"
	local judged="  the overhead is over -100 %: not judged: with 1 timed run a side there is no spread to tell run-to-run noise from a cost, so no function is blamed (DFT_PIPELINE_TIMING_RUNS=3 or more judges it)"
	assert_line "$judged"
	refute_output --partial "an annotated call costs"
	w="$root/$(head -n 1 "$root/pyapp/.current_run")"
	run -0 jq -r -s '[.[] | select(.type == "step" and .step == "step_10_trace_run")] | "\(length) \(.[0].timing_runs) \(.[0].overhead_note) \(.[0].overhead_throttle)"' \
		"$w/records/steps.ndjson"
	assert_output "1 1 ${judged#  } null"
	run -0 jq -r 'select(.decision.rule == "profile-overhead") | .name' "$w/records/08_cost.ndjson"
	assert_output ""
	run -0 jq -r '.[] | select(.step == "step_4_build_install" or .step == "step_7_patch_build") | .status' \
		"$w/step_timings.json"
	assert_output "$(printf 'skipped\nskipped')"
	run -0 grep -c '@_dft.log' "$w/annotated/app.py"
	# the interpreter's writes come through the preload library, inside
	# the annotated function
	run -0 jq -r 'select(.type == "bottleneck" and .class == "small_write") | .functions[]?.name' \
		"$w/records/12_analyze.ndjson"
	assert_line write_records
}

@test "the main of the CMake target the smoke command runs is annotated, though its file is below test/ and named otherwise" {
	# zlib's shape: test/prog.c is compiled for the targets prog and
	# prog_sh; the smoke test runs ./prog_sh
	local app="$BATS_TEST_TMPDIR/capp" root="$BATS_TEST_TMPDIR/wscm" w
	mkdir -p "$app/test"
	cat >"$app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.10)
project(capp C)
add_library(store STATIC store.c)
add_executable(prog test/prog.c)
target_link_libraries(prog store)
add_executable(prog_sh test/prog.c)
target_link_libraries(prog_sh store)
add_executable(other test/other.c)
CM
	cat >"$app/store.c" <<'C'
#include <stdio.h>

int
store(const char *path, int n)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		fprintf(f, "%d\n", i);
	return fclose(f);
}
C
	cat >"$app/test/prog.c" <<'C'
int store(const char *path, int n);

int
main(int argc, char **argv)
{
	return argc > 1 && store(argv[1], 100) == 0 ? 0 : 1;
}
C
	printf 'int\nmain(void)\n{\n\treturn 0;\n}\n' >"$app/test/other.c"
	git -C "$app" init -q && git -C "$app" add . &&
		git -C "$app" -c user.email=t@example.org -c user.name=t commit -qm app
	run -0 dft-pipeline run -y --offline -s './prog_sh out.txt' --stop-after annotate -w "$root" "$app"
	w="$root/$(head -n 1 "$root/capp/.current_run")"
	run -0 grep -c DFTRACER_C_INIT "$w/annotated/test/prog.c"
	run -0 cat "$w/tmp/select.tau"
	refute_line test/prog.c
	assert_line test/other.c
}

@test "a submodule that cannot be fetched is a warning and the run goes on; --no-submodules skips them" {
	local r="$BATS_TEST_TMPDIR/subs" root="$BATS_TEST_TMPDIR/wssub" w
	mkdir -p "$r/opt"
	git -C "$r/opt" init -q && echo 'int x;' >"$r/opt/x.c" && git -C "$r/opt" add . &&
		git -C "$r/opt" -c user.email=t@example.org -c user.name=t commit -qm opt
	cp -R "$REPO/tests/apps/sample" "$r/app"
	git -C "$r/app" init -q && git -C "$r/app" add . &&
		git -C "$r/app" -c protocol.file.allow=always submodule add -q "file://$r/opt" extern/opt &&
		git -C "$r/app" -c user.email=t@example.org -c user.name=t commit -qm app
	# the optional submodule is gone (unreachable offline)
	rm -rf "$r/opt"
	run -0 --separate-stderr dft-pipeline run -y --offline --stop-after build -s './sample out' -w "$root" "$r/app"
	[[ "$stderr" == *"submodule 'extern/opt' from 'file://$r/opt' could not be fetched"*"the clone went on"* ]] ||
		fail "no warning: $stderr"
	w="$root/$(head -n 1 "$root/app/.current_run")"
	run -0 jq -r 'select(.type == "session") | .warnings[]' "$w/records/01_session.ndjson"
	assert_output --partial "submodule 'extern/opt'"
	run -0 jq -r 'select(.step == "step_1_clone") | .warnings | length' "$w/records/steps.ndjson"
	assert_output 1
	run -0 dft-pipeline status -w "$root" app
	assert_line --regexp '^step_4_build_install +ok'
	run -0 --separate-stderr dft-pipeline run -y --offline --no-submodules --stop-after clone -w "$root" "$r/app"
	[[ "$stderr" != *"could not be fetched"* ]] || fail "$stderr"
	assert_line --partial "Stopped after step_1_clone as asked (--stop-after)"
	refute_line "[02] step_2_detect"
	w="$root/$(head -n 1 "$root/app/.current_run")"
	run -0 jq -r 'select(.type == "session") | .submodules[] | "\(.path) \(.status)"' "$w/records/01_session.ndjson"
	assert_output "extern/opt skipped"
	# a clone that fails leaves nothing behind
	run -1 dft-pipeline run -y --offline -w "$root/none" "$r/nosuch"
	[ ! -e "$root/none/nosuch" ] || fail "left: $(find "$root/none")"
}

# pyproject_app DIR BACKEND REQUIRES: a packaged Python application that
# only runs installed (it reads its own package metadata).
pyproject_app() {
	mkdir -p "$1/recpkg"
	printf '[build-system]\nrequires = [%s]\nbuild-backend = "%s"\n\n[project]\nname = "recpkg"\nversion = "1.2.3"\n' \
		"$3" "$2" >"$1/pyproject.toml"
	cat >"$1/recpkg/__init__.py" <<'PY'
from importlib.metadata import version

__version__ = version("recpkg")
PY
	cat >"$1/recpkg/__main__.py" <<'PY'
import os
import sys

from recpkg import __version__


def write_records(d, n):
    with open(os.path.join(d, "records.dat"), "w") as f:
        for i in range(n):
            f.write("record %06d\n" % i)
            f.flush()


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "out"
    os.makedirs(d, exist_ok=True)
    write_records(d, 500)
    print("recpkg", __version__, "in a venv:", sys.prefix != sys.base_prefix)
    return 0


sys.exit(main())
PY
	git -C "$1" init -q && git -C "$1" add . &&
		git -C "$1" -c user.email=t@example.org -c user.name=t commit -qm py
}

@test "a packaged Python application is installed into a venv and its smoke test runs with it" {
	local repo="$BATS_TEST_TMPDIR/recpkg" root="$BATS_TEST_TMPDIR/wsvenv" w
	pyproject_app "$repo" setuptools.build_meta '"setuptools>=61"'
	# cp and split run under the preload library too: not the application
	run -0 dft-pipeline run -y --offline --stop-after trace_run \
		-s 'python3 -m recpkg out && cp out/records.dat out/copy.dat && split -l 100 out/records.dat out/part.' \
		-w "$root" "$repo"
	assert_line --regexp '^  Python project: installed into a venv of /.*python3'
	assert_line --regexp '^  traced processes: 1 of the application; 2 others summarized, not analyzed \(--trace-all-procs analyzes them\): (cp|split) \([0-9]+ events\), (cp|split) \([0-9]+ events\)$'
	w="$root/$(head -n 1 "$root/recpkg/.current_run")"
	[ "$(ls "$w"/traces/*.pfw* | wc -l)" -eq 1 ]
	[ "$(ls "$w"/traces/other/*.pfw* | wc -l)" -eq 2 ]
	run -0 jq -r 'select(.kind == "application") | .why' "$w/traces/processes.ndjson"
	assert_output "runs annotated functions"
	run -0 jq -r 'select(.step == "step_10_trace_run") | [.processes.application, (.processes.other | map(.command | split(" ")[0]) | sort | join(","))] | @tsv' \
		"$w/records/steps.ndjson"
	assert_output "$(printf '1\tcp,split')"
	# --trace-all-procs keeps them all
	run -0 dft-pipeline resume -y --trace-all-procs --from trace_run --stop-after trace_run -w "$root" recpkg
	assert_line --partial "others analyzed too (--trace-all-procs)"
	[ "$(ls "$w"/traces/*.pfw* | wc -l)" -eq 3 ]
	for v in install install_ann; do
		run -0 grep -x 'include-system-site-packages = true' "$w/$v/pyvenv.cfg"
		[ -n "$(find "$w/$v" -path '*-packages/recpkg/__main__.py')" ] || fail "recpkg is not installed in $v"
	done
	run -0 cat "$w/runs/baseline/stdout"
	assert_output "recpkg 1.2.3 in a venv: True"
	run -0 grep -c '_dft' "$(find "$w/install_ann" -path '*-packages/recpkg/__main__.py')"
	# the tracer's package is in the annotated venv's site-packages as a
	# symbolic link to the tree's: no directory added to sys.path
	# (PYTHONPATH would put one first, to be searched by every import),
	# and the runs of the annotated build set no PYTHONPATH
	[ -z "$(find "$w/install" -name 'dftracer*')" ] || fail "the baseline venv has the tracer's package"
	run -0 readlink "$(find "$w/install_ann" -path '*-packages/dftracer')"
	assert_output "$(cd "$REPO/runtime/python" && pwd)/dftracer"
	# traced without the preload library or LD_LIBRARY_PATH, the package
	# finds the tree's library from its real place
	run -0 env -u PYTHONPATH -u LD_LIBRARY_PATH -u LD_PRELOAD -u DFTRACER_LIB DFTRACER_ENABLE=1 \
		DFTRACER_LOG_FILE="$BATS_TEST_TMPDIR/pkgtrace/t" "$w/install_ann/bin/python" -c 'import sys, os, sysconfig
import dftracer.python as p
d = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(p.__file__))))
print(os.path.dirname(p.__file__) == os.path.join(sysconfig.get_path("purelib"), "dftracer", "python"),
    d, d in sys.path, p._lib_or_none() is not None)'
	assert_output "True $(cd "$REPO/runtime/python" && pwd -P) False True"
	# nor LD_LIBRARY_PATH (the bundled package finds its library), whose
	# directory ld.so would probe first for every library: strace counts
	# what the annotated run's processes look up there
	for s in annotated_smoke annotated; do
		run -0 cat "$w/scripts/run_$s.sh"
		refute_output --partial PYTHONPATH
		refute_output --partial "LD_LIBRARY_PATH="
	done
	if command -v strace >/dev/null; then
		run -0 strace -f -qq -e trace=openat,newfstatat,stat -o "$BATS_TEST_TMPDIR/st" sh "$w/scripts/run_annotated.sh"
		run -0 grep -c -F "$REPO/runtime/build/lib/" "$BATS_TEST_TMPDIR/st"
		# the preload library itself, opened once in each process
		[ "$output" -eq "$(grep -c -F "$REPO/runtime/build/lib/libdftracer_preload.so" "$BATS_TEST_TMPDIR/st")" ]
	fi
	run -0 cat "$w/runs/annotated/stdout"
	assert_output "recpkg 1.2.3 in a venv: True"
	run -0 bash -o pipefail -c "gzip -dcf '$w'/traces/*.pfw* | grep -c '\"name\":\"write_records\"'"
	[ "$output" -ge 1 ]
	# a build backend this machine lacks is named with its Debian package
	repo="$BATS_TEST_TMPDIR/hatchapp"
	pyproject_app "$repo" dft_no_such_backend.build '"dft_no_such_backend"'
	run -1 --separate-stderr dft-pipeline run -y --offline --stop-after configure -s 'python3 -m recpkg' -w "$root" "$repo"
	[[ "$stderr" == *"the project's build backend is not installed ("*"has no dft_no_such_backend"*"(not packaged for Debian 12: pip install dft-no-such-backend)"* ]] ||
		fail "$stderr"
	if ! python3 -c 'import hatchling' 2>/dev/null && ! /usr/bin/python3 -c 'import hatchling' 2>/dev/null; then
		repo="$BATS_TEST_TMPDIR/hatchling"
		pyproject_app "$repo" hatchling.build '"hatchling"'
		run -1 --separate-stderr dft-pipeline run -y --offline --stop-after configure -s 'python3 -m recpkg' -w "$root" "$repo"
		[[ "$stderr" == *"install the Debian package python3-hatchling (apt-get install python3-hatchling)"* ]] ||
			fail "$stderr"
		run -0 jq -r 'select(.type == "pitfall") | .fix' "$root/$(head -n 1 "$root/hatchling/.current_run")/records/pitfalls.ndjson"
		assert_output --partial "apt-get install python3-hatchling"
	fi
}

@test "detect's HDF5 and MPI reach the build; the lesson names the fix that worked" {
	local app="$BATS_TEST_TMPDIR/h5app" root="$BATS_TEST_TMPDIR/wsh5" w h5home
	[ -f /usr/include/hdf5/openmpi/H5public.h ] && command -v mpicc >/dev/null ||
		skip "needs Debian's libhdf5-openmpi-dev and mpicc"
	h5home=$(ls -d /usr/lib/*/hdf5/openmpi | sed -n 1p)
	cp -R "$REPO/tests/apps/h5app" "$app"
	git -C "$app" init -q && git -C "$app" add . &&
		git -C "$app" -c user.email=t@example.org -c user.name=t commit -qm h5
	# a wrong --hdf5-dir: the build cannot find hdf5.h
	run -1 dft-pipeline run -y --offline --hdf5-dir /nonexistent/hdf5 --stop-after build \
		-s './h5app version.txt' -w "$root" "$app"
	w="$root/$(head -n 1 "$root/h5app/.current_run")"
	run -0 jq -r 'select(.title == "Baseline build failed") | .error' "$w/records/pitfalls.ndjson"
	assert_output --partial "hdf5.h: No such file or directory"
	# resumed with the HDF5 that is there: detect runs again, the build
	# gets it, and the pitfall says what worked
	run -0 dft-pipeline resume -y --hdf5-dir "$h5home" --stop-after build -w "$root" h5app
	assert_line "--hdf5-dir or --mpicc changed: running again from step_2_detect"
	assert_line "  (step step_4_build_install failed before; what worked: resumed with --hdf5-dir '$h5home' (was '/nonexistent/hdf5'))"
	run -0 jq -r 'select(.title == "Baseline build failed") | .fixed_by' "$w/records/pitfalls.ndjson"
	assert_output "resumed with --hdf5-dir '$h5home' (was '/nonexistent/hdf5')"
	# without --hdf5-dir, what detect finds is exported to every build
	run -0 dft-pipeline run -y --offline --stop-after build -s './h5app version.txt' -w "$root" "$app"
	assert_line --partial "  HDF5: 1."
	w="$root/$(head -n 1 "$root/h5app/.current_run")"
	run -0 cat "$w/scripts/env.sh"
	assert_line "export HDF5_HOME='$h5home' HDF5_DIR='$h5home' HDF5_ROOT='$h5home'"
	assert_line --regexp "^export MPICC='[^']*mpicc' MPICXX='[^']*mpic(xx|\+\+)'$"
	run -0 jq -r '.hdf5.dir' "$w/records/pipeline.json"
	assert_output "$h5home"
}
