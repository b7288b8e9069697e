#!/usr/bin/env bats
# dft-cc and dft-c++: compiler wrappers (log and trace modes).

load test_helper

setup() {
	W="$BATS_TEST_TMPDIR/w"
	mkdir -p "$W"
	cd "$W"
	printf 'int twice(int x) { return 2 * x; }\n' >a.c
	printf 'int twice(int);\nint main(void) { return twice(0); }\n' >m.c
	export DFT_COMPILE_DB="$W/db/compile_commands.json"
	unset DFT_WRAP_MODE DFTRACER_DIR DFT_CC DFT_CXX
}

@test "dft-cc --dft-help and --dft-version answer for the wrapper itself" {
	run -0 dft-cc --dft-help
	assert_output --partial "usage: dft-cc"
	run -0 dft-cc --dft-version
	assert_output --partial "dft-cc "
}

@test "dft-cc's own options: the suite's usage errors, a failed --dft-help or --dft-version write is exit 2" {
	local usage
	usage=$(dft-cc --dft-help | sed -n '1,2p')
	run -2 --separate-stderr dft-cc --dftracer
	[ "$stderr" = "dft-cc: option requires an argument: --dftracer"$'\n'"$usage" ] || fail "$stderr"
	run -2 --separate-stderr dft-cc --dft-mode=x -c a.c
	[ "$stderr" = "dft-cc: --dft-mode: bad value 'x' (expected log, trace or off)"$'\n'"$usage" ] || fail "$stderr"
	DFT_WRAP_MODE=y run -2 --separate-stderr dft-cc -c a.c
	[ "$stderr" = "dft-cc: DFT_WRAP_MODE: bad value 'y' (expected log, trace or off)" ] || fail "$stderr"
	[ ! -e a.o ]
	for o in --dft-help --dft-version; do
		run -2 --separate-stderr bash -c "dft-c++ $o >/dev/full"
		[ "$stderr" = "dft-c++: write error: No space left on device" ] || fail "$o: $stderr"
	done
}

@test "the dft-cc man page lints and documents the wrapper options" {
	run -0 mandoc -Tlint -Wwarning "$REPO/man/dft-cc.1"
	text=$(mandoc -Tascii "$REPO/man/dft-cc.1" | col -b)
	for o in --dftracer --dft-mode --dft-show-tracer --dft-help --dft-version \
		DFT_CC DFT_CXX DFT_COMPILE_DB DFT_WRAP_MODE DFTRACER_DIR; do
		[[ "$text" == *"$o"* ]] || fail "$o is not documented"
	done
}

@test "log mode records each compile command once, as valid JSON" {
	run -0 dft-cc -O2 -DNAME='"a b"' -c a.c
	run -0 dft-cc -c m.c -o m.o
	run -0 dft-cc a.o m.o -o prog
	run -0 dft-cc -c a.c	# a different command line: a second entry
	run -0 dft-cc -c a.c	# the same again: not repeated
	run -0 jq -c '.[] | [.file, .arguments]' "$DFT_COMPILE_DB"
	assert_output '["a.c",["cc","-O2","-DNAME=\"a b\"","-c","a.c"]]
["m.c",["cc","-c","m.c","-o","m.o"]]
["a.c",["cc","-c","a.c"]]'
	run -0 jq -r '.[0].directory' "$DFT_COMPILE_DB"
	assert_output "$W"
	[ -x prog ]
}

@test "the real compiler's status and output are kept; failures are not logged" {
	printf 'int broken( {\n' >bad.c
	run -1 dft-cc -c bad.c
	assert_output --partial "error"
	[ ! -e "$DFT_COMPILE_DB" ]
	unset DFT_COMPILE_DB
	run -0 dft-cc -c a.c
	[ ! -e "$W/db" ]
}

@test "parallel wrappers (make -j) leave a complete database" {
	for i in $(seq 1 16); do printf 'int f%d(void) { return %d; }\n' "$i" "$i" >"s$i.c"; done
	for i in $(seq 1 16); do dft-cc -c "s$i.c" & done
	wait
	run -0 jq length "$DFT_COMPILE_DB"
	assert_output 16
	run -0 bash -o pipefail -c "ls '$W/db'"
	assert_output "compile_commands.json
compile_commands.json.lock"
}

@test "compiler probes of CMake and configure are not logged" {
	mkdir -p CMakeFiles/CMakeTmp
	cp a.c CMakeFiles/CMakeTmp/testCCompiler.c
	cp a.c conftest.c
	run -0 dft-cc -c CMakeFiles/CMakeTmp/testCCompiler.c -o t.o
	run -0 dft-cc -c conftest.c
	mkdir -p build/CMakeFiles/CMakeScratch/TryCompile-x
	(cd build/CMakeFiles/CMakeScratch/TryCompile-x && dft-cc -c "$W/a.c" -o a.o)
	[ ! -e "$DFT_COMPILE_DB" ]
}

@test "DFT_CC names the real compiler; dft-c++ makes .c files C++ for dft-funcs" {
	printf '#!/bin/sh\necho "$0 $*" >>"%s/calls"\nexec cc "$@"\n' "$W" >mycc
	chmod +x mycc
	DFT_CC="$W/mycc" run -0 dft-cc -c a.c
	assert_equal "$(cat calls)" "$W/mycc -c a.c"
	printf 'namespace n { int g() { return 1; } }\n' >x.c
	run -0 dft-c++ -c x.c
	run -0 jq -r '.[-1].arguments[0]' "$DFT_COMPILE_DB"
	assert_output "c++"
	run -0 bash -o pipefail -c "dft-funcs -p '$DFT_COMPILE_DB' x.c | jq -r 'select(.type==\"function\") | \"\(.qualified_name) \(.language)\"'"
	assert_output "n::g cpp"
}

@test "an Open MPI wrapper's flags are recorded so that mpi.h is found" {
	mkdir -p bin mpi/include
	printf 'int MPI_Init(int *, char ***);\n' >mpi/include/mpi.h
	cat >bin/mpicc <<SH
#!/bin/sh
if [ "\$1" = "--showme:compile" ]; then echo "-I$W/mpi/include -pthread"; exit 0; fi
exec cc -I$W/mpi/include "\$@"
SH
	chmod +x bin/mpicc
	printf '#include <mpi.h>\nint main(int c, char **v) { return MPI_Init(&c, &v); }\n' >p.c
	DFT_CC="$W/bin/mpicc" run -0 dft-cc -c p.c
	run -0 jq -c '.[0].arguments' "$DFT_COMPILE_DB"
	assert_output "[\"$W/bin/mpicc\",\"-I$W/mpi/include\",\"-pthread\",\"-c\",\"p.c\"]"
	run -0 bash -o pipefail -c "dft-funcs -p '$DFT_COMPILE_DB' p.c | jq -r 'select(.type==\"function\") | \"\(.name) \(.parse_ok)\"'"
	assert_output "main true"
}

@test "an MPICH wrapper's flags come from -compile-info" {
	mkdir -p bin
	cat >bin/mpicc <<SH
#!/bin/sh
case "\$1" in --showme:compile) exit 1 ;; -compile-info) echo "gcc -I/opt/mpich/include -DMPICH_X=1 -O2"; exit 0 ;; esac
exec cc "\$@"
SH
	chmod +x bin/mpicc
	DFT_CC="$W/bin/mpicc" run -0 dft-cc -c a.c
	run -0 jq -c '.[0].arguments' "$DFT_COMPILE_DB"
	assert_output "[\"$W/bin/mpicc\",\"-I/opt/mpich/include\",\"-DMPICH_X=1\",\"-c\",\"a.c\"]"
}

# A stand-in tracer: the header and libdftracer_core.so.
make_tracer() {
	mkdir -p "$1/include/dftracer" "$1/lib"
	printf 'int dft_probe(void);\n#define DFTRACER_C_INIT(a, b, c) dft_probe()\n' >"$1/include/dftracer/dftracer.h"
	printf 'int dft_probe(void) { return 0; }\n' >"$1/probe.c"
	cc -shared -fPIC -o "$1/lib/libdftracer_core.so" "$1/probe.c"
}

@test "trace mode adds the include directory, and the library first of the program's libraries" {
	make_tracer "$W/tr"
	printf '#include <dftracer/dftracer.h>\nint other(void);\nint main(void) { return DFTRACER_C_INIT(0, 0, 0) + other(); }\n' >t.c
	printf '#!/bin/sh\necho "$*" >>"%s/calls"\nexec cc "$@"\n' "$W" >mycc
	chmod +x mycc
	# a library of the link line (as -lhdf5 is): the tracer comes before it
	mkdir -p "$W/o"
	printf 'int other(void) { return 0; }\n' >"$W/o/o.c"
	cc -shared -fPIC -o "$W/o/libother.so" "$W/o/o.c"
	DFT_CC="$W/mycc" DFT_WRAP_MODE=trace run -0 dft-cc --dftracer "$W/tr" -c t.c
	DFT_CC="$W/mycc" DFT_WRAP_MODE=trace run -0 dft-cc --dftracer="$W/tr" t.o -o t -L"$W/o" -lother -Wl,-rpath,"$W/o" -Wl,--as-needed
	run -0 cat calls
	assert_output "-I$W/tr/include -c t.c
-I$W/tr/include -L$W/tr/lib -Wl,--push-state,--no-as-needed -ldftracer_core -Wl,--pop-state t.o -o t -L$W/o -lother -Wl,-rpath,$W/o -Wl,--as-needed -Wl,-rpath,$W/tr/lib"
	run -0 bash -o pipefail -c "readelf -d t | sed -n 's/.*(NEEDED).*\\[\\(lib[a-z_]*\\).*/\\1/p' | sed -n 1,2p"
	assert_output "libdftracer_core
libother"
	run -0 ./t
	DFTRACER_DIR="$W/tr" run -0 dft-cc --dft-show-tracer
	assert_output "source=DFTRACER_DIR include=$W/tr/include lib=$W/tr/lib library=dftracer_core"
}

@test "trace mode without a tracer is an error that says what to do" {
	DFT_WRAP_MODE=trace run -2 dft-cc --dftracer "$W/none" -c a.c
	assert_output --partial "no dftracer in '$W/none'"
}

@test "the bundled runtime is found when nothing else is given" {
	[ -f "$REPO/runtime/build/include/dftracer/dftracer.h" ] || skip "runtime not built"
	[ -f "$REPO/runtime/build/lib/libdftracer_core.so" ] || skip "runtime not built"
	command -v pkg-config >/dev/null && pkg-config --exists dftracer && skip "a dftracer is installed"
	run -0 dft-cc --dft-show-tracer
	assert_output "source=bundled include=$REPO/runtime/build/include lib=$REPO/runtime/build/lib library=dftracer_core"
}

@test "a database from dft-cc feeds dft-funcs with the real flags" {
	printf '#ifdef WANT\nint wanted(void) { return 1; }\n#endif\n' >w.c
	run -0 dft-cc -DWANT -c w.c
	run -0 bash -o pipefail -c "dft-funcs -p '$W/db' | jq -r 'select(.type==\"function\") | .name'"
	assert_output "wanted"
}
