#!/usr/bin/env bats
# dft-annotate: the standard checklist, then the acceptance loop on every
# program of the corpus (tests/fixtures/annotate/roundtrip.sh: annotate,
# build with -Wall -Wextra, same output, one event per call, annotate twice
# = once, --strip = original bytes, same line numbers, dft-lint clean).

bats_require_minimum_version 1.5.0
load test_helper

A=$FIXTURES/annotate

@test "dft-annotate --help prints the usage on stdout" { checklist_help dft-annotate; }
@test "dft-annotate --version prints the suite's version" { checklist_version dft-annotate; }
@test "dft-annotate rejects an unknown option" { checklist_unknown_option dft-annotate; }
@test "dft-annotate names the short option at fault inside a cluster, also after a long option" {
	checklist_usage_error dft-annotate "unknown option: -q" --strip -dq
	checklist_usage_error dft-annotate "option requires an argument: -o" -do
	checklist_usage_error dft-annotate "option requires an argument: --output" --out
}
@test "dft-annotate rejects an option without its argument" { checklist_missing_argument dft-annotate -o --output -p --patch --init-args --style; }
@test "dft-annotate names the option and the value of a bad value" {
	checklist_bad_value dft-annotate --style x "generic or ai"
	checklist_bad_value dft-annotate --init-args "a; b" "a non-empty line without ';'"
	checklist_bad_value dft-annotate --init-args "" "a non-empty line without ';'"
	checklist_usage_error dft-annotate "--compile-db: bad value '$BATS_TEST_TMPDIR/none' (expected compile_commands.json or its directory)" \
		--rewrite fdatasync -d --compile-db "$BATS_TEST_TMPDIR/none"
}
@test "dft-annotate --help and --version fail on a full disk" { checklist_help_dev_full dft-annotate; }
@test "dft-annotate on empty input prints only its step" { checklist_empty_input dft-annotate; }
@test "dft-annotate reads - as stdin" { checklist_dash_is_stdin dft-annotate; }
@test "dft-annotate reports a malformed line" { checklist_malformed_line dft-annotate; }
@test "dft-annotate reports a missing file" { checklist_missing_file dft-annotate; }
@test "dft-annotate fails on a full disk" { checklist_dev_full dft-annotate; }
@test "the dft-annotate man page lints and documents every option" { checklist_man dft-annotate; }

roundtrip() {
	local dir=$1 file=$2
	shift 2
	cp -R "$dir/." "$BATS_TEST_TMPDIR/w"
	run sh "$A/roundtrip.sh" "$BATS_TEST_TMPDIR/w" "$file" "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	assert_output --partial "ok $file"
}

@test "the round trip passes on statement shapes (constructs.c)" {
	roundtrip "$A/corpus" constructs.c
}
@test "the round trip passes on MPI-shaped main (mpi_main.c)" {
	roundtrip "$A/corpus" mpi_main.c
}
@test "the round trip passes on MPI under #ifdef, built without MPI" {
	roundtrip "$A/corpus" mpi_ifdef.c
}
@test "the round trip passes on MPI under #ifdef, built with MPI" {
	roundtrip "$A/corpus" mpi_ifdef.c -DUSE_MPI
}
@test "the round trip passes on exit() in main, a BSD-style main and an include under #if" {
	roundtrip "$A/corpus" exits.c
}
@test "the round trip passes on CRLF line endings" {
	roundtrip "$A/corpus" crlf.c
}
@test "the round trip passes on C++ constructors, exceptions, templates, main" {
	roundtrip "$A/corpus" cpp_main.cpp
}
@test "the round trip passes on Python, generic style" {
	roundtrip "$A/corpus" app.py
}
@test "the round trip passes on Python, AI style (dft_ai decorators and loop wrappers)" {
	DFT_STYLE=ai roundtrip "$A/corpus" app.py
}
@test "the round trip passes on Python static methods, class methods and properties (kinds.py)" {
	roundtrip "$A/corpus" kinds.py
}
@test "the round trip passes on Python static methods, class methods and properties, AI style" {
	DFT_STYLE=ai roundtrip "$A/corpus" kinds.py
	run -0 grep -c '^    transform = staticmethod(dft_ai.data.preprocess(transform.__func__))$' \
		"$BATS_TEST_TMPDIR/w/ann/kinds.py"
}
@test "the round trip passes on C++ function-try-blocks, main among them (try_main.cpp)" {
	roundtrip "$A/corpus" try_main.cpp
	run -0 jq -c 'select(.type == "annotation") | [.annotated, .skipped[].name]' \
		"$BATS_TEST_TMPDIR/w/ann.ndjson"
	assert_output '[["read_all","file_size","Loader::size","Loader::Loader","make_label","count_lines"],"main"]'
	run -0 grep -c '^try { DFTRACER_CPP_INIT(NULL, NULL, NULL);$' "$BATS_TEST_TMPDIR/w/ann/try_main.cpp"
	run -0 head -n 1 "$BATS_TEST_TMPDIR/w/events.log"
	assert_output 'I -'
}
@test "the round trip passes on a C main whose returns hide in a macro, which gets INIT only (macro_main.c)" {
	roundtrip "$A/corpus" macro_main.c
	run -0 grep -c '^{ DFTRACER_C_INIT(NULL, NULL, NULL);$' "$BATS_TEST_TMPDIR/w/ann/macro_main.c"
	run -0 grep -c '{ DFTRACER_C_FINI(); abort(); }' "$BATS_TEST_TMPDIR/w/ann/macro_main.c"
	run -0 grep -c '"reason":"main'"'"'s region: a return is hidden in a macro; INIT only' \
		"$BATS_TEST_TMPDIR/w/ann.ndjson"
}
@test "the round trip passes with atexit handlers and static objects' destructors left out (after_fini.cpp)" {
	roundtrip "$A/corpus" after_fini.cpp
	run -0 jq -c 'select(.type == "annotation") | .annotated' "$BATS_TEST_TMPDIR/w/ann.ndjson"
	refute_output --partial 'flush_log'
	refute_output --partial '~Registry'
	refute_output --partial '~Cache'
	assert_output --partial 'Scratch::~Scratch'
}
@test "the round trip passes on calls that do not return and loops that cannot complete (noreturn.c)" {
	roundtrip "$A/corpus" noreturn.c
	w=$BATS_TEST_TMPDIR/w
	# no END at a closing brace that cannot be reached
	run -0 jq -r 'select(.type == "function" and (.falls_through | not)) | .name' "$w/funcs.ndjson"
	assert_output "fail
quit
first_multiple
checked
find
drain
sign
main"
	# END before each call of fail() and quit(), and nothing after it
	run -0 grep -c '{ DFTRACER_C_FUNCTION_END(); fail(2); }' "$w/ann/noreturn.c"
	run -0 grep -c '{ DFTRACER_C_FUNCTION_END(); quit("too big"); }' "$w/ann/noreturn.c"
	run -0 grep -c '{ DFTRACER_C_FUNCTION_END(); DFTRACER_C_FINI(); quit("out of budget"); }' "$w/ann/noreturn.c"
	run -0 jq -r 'select(.name == "checked") | [.exits[].kind] | join(" ")' "$w/funcs.ndjson"
	assert_output "noreturn noreturn return"
	run -1 grep -n 'END(); }$' "$w/ann/noreturn.c"
}
@test "the round trip passes on Python under user decorators (decorators.py)" {
	roundtrip "$A/corpus" decorators.py
	run -0 grep -c '^calls: 1$' "$BATS_TEST_TMPDIR/w/out.ann"
}
@test "the round trip passes on Python under user decorators, AI style" {
	DFT_STYLE=ai roundtrip "$A/corpus" decorators.py
}
@test "the round trip passes on C++ main whose locals do I/O in their destructors (raii_main.cpp)" {
	roundtrip "$A/raii" raii_main.cpp
}
@test "the round trip passes on the dft-funcs C fixture" {
	roundtrip "$FIXTURES/funcs" basic.c
}
@test "the round trip passes on the dft-funcs C++ fixture" {
	roundtrip "$FIXTURES/funcs" shapes.cpp
}

# records for one file with every function selected (the fake mpi.h on the
# include path through a compile database, as dft-cc would log it)
records() { # dir file
	printf '[{"directory":"%s","file":"%s","arguments":["cc","-I%s","-c","%s"]}]\n' \
		"$1" "$2" "$A/mpistub" "$2" >"$1/compile_commands.json"
	(cd "$1" && dft-funcs -p . "$2") |
		sed '/"type":"function"/s/}$/,"decision":{"annotate":true,"comp":"io"}}/'
}

@test "return values are evaluated inside the traced region" {
	cp "$A/corpus/constructs.c" "$BATS_TEST_TMPDIR/"
	records "$BATS_TEST_TMPDIR" constructs.c >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --diff "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '+	{ int dft_ret_ = (next_id() + next_id()); DFTRACER_C_FUNCTION_END(); return dft_ret_; }'
	assert_output --partial '+		{ const char * dft_ret_ = (strlen(" ") ? "space" : "?"); DFTRACER_C_FUNCTION_END(); return dft_ret_; }'
	line=$(jq -r 'select(.type == "function" and .name == "next_id") | .name_pos.line' "$BATS_TEST_TMPDIR/r.ndjson")
	assert_output --partial "+static int next_id(void) { DFTRACER_C_FUNCTION_START(); DFTRACER_C_FUNCTION_UPDATE_STR(\"comp\", \"io\"); DFTRACER_C_FUNCTION_UPDATE_STR(\"file\", \"constructs.c\"); DFTRACER_C_FUNCTION_UPDATE_INT(\"line\", $line); { int dft_ret_ = (++calls); DFTRACER_C_FUNCTION_END(); return dft_ret_; } }"
	# values without calls need no temporary
	assert_output --partial '+	{ DFTRACER_C_FUNCTION_END(); return k ? add : mul; }'
}

@test "main of an MPI program: INIT after the rank and size, FINI before MPI_Finalize" {
	cp "$A/corpus/mpi_main.c" "$BATS_TEST_TMPDIR/"
	records "$BATS_TEST_TMPDIR" mpi_main.c >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --diff "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '+	MPI_Comm_size(MPI_COMM_WORLD, &size); DFTRACER_C_INIT(NULL, NULL, NULL); DFTRACER_C_FUNCTION_START();'
	assert_output --partial '+	{ DFTRACER_C_FUNCTION_END(); DFTRACER_C_FINI(); MPI_Finalize(); }'
	# the return before MPI_Init and the one after MPI_Finalize stay as they are
	refute_output --partial '+		{ DFTRACER_C_FUNCTION_END(); DFTRACER_C_FINI(); return 2; }'
	refute_output --partial 'return 0; }'
}

@test "C++ main: INIT and a FINI guard at the body's start, nothing at its returns or exit()" {
	cp "$A/raii/raii_main.cpp" "$BATS_TEST_TMPDIR/"
	records "$BATS_TEST_TMPDIR" raii_main.cpp >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --diff "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '+{ DFTRACER_CPP_INIT(NULL, NULL, NULL); struct dft_main_fini_t { ~dft_main_fini_t() { DFTRACER_CPP_FINI(); } } dft_main_fini_; DFTRACER_CPP_REGION(main); DFTRACER_CPP_REGION_UPDATE(main, "comp", "io");'
	refute_output --partial 'return 3; }'
	refute_output --partial 'return 0; }'
	refute_output --partial 'std::exit(0); }'
	refute_output --partial 'REGION_END'
	# abort() runs no exit handler: FINI before it
	assert_output --partial '+		{ DFTRACER_CPP_FINI(); std::abort(); }'
}

# raii_main.cpp annotated, built with -Wall -Wextra and the bundled runtime,
# run in MODE beside the original; both write out.txt into their own data
# directory: same exit status, output and out.txt, a complete trace in which
# every byte of out.txt went through a traced write. Then the I/O events on
# out.txt inside main's event, by name and count, must be IO, and the
# events of Summary's destructor must number DTORS.
raii_check() { # mode io dtors
	local w=$BATS_TEST_TMPDIR rt=$REPO/runtime/build st out fh key bin
	[ -f "$rt/lib/libdftracer_core.so" ] ||
		skip "the bundled runtime is not built (make -C runtime)"
	mkdir "$w/src" "$w/d0" "$w/d1" "$w/t"
	cp "$A/raii/raii_main.cpp" "$w/src/"
	records "$w/src" raii_main.cpp >"$w/r.ndjson"
	run -0 dft-annotate --output "$w/ann" "$w/r.ndjson"
	# both builds once per file (the four modes run the same programs),
	# kept under the hash of what they are built from
	key=$(cat "$w/src/raii_main.cpp" "$w/ann/raii_main.cpp" "$rt/include/dftracer/dftracer.h" |
		sha256sum | cut -c 1-16)
	bin=$BATS_FILE_TMPDIR/raii-$key
	if [ ! -x "$bin/traced" ]; then
		mkdir -p "$bin.new"
		run -0 c++ -Wall -Wextra -Werror -o "$bin.new/orig" "$w/src/raii_main.cpp"
		run -0 c++ -Wall -Wextra -Werror -I"$rt/include" -o "$bin.new/traced" \
			"$w/ann/raii_main.cpp" -L"$rt/lib" -Wl,-rpath,"$rt/lib" -ldftracer_core
		mv "$bin.new" "$bin"
	fi
	cp "$bin/orig" "$bin/traced" "$w/"
	run "$w/orig" "$1" "$w/d0"
	st=$status out=$output
	DFTRACER_ENABLE=1 DFTRACER_DATA_DIR="$w/d1" DFTRACER_INC_METADATA=1 \
		DFTRACER_LOG_FILE="$w/t/t" run "$w/traced" "$1" "$w/d1"
	[ "$status" -eq "$st" ] || fail "exit status $status, original $st"
	[ "$output" = "$out" ] || fail "output '$output', original '$out'"
	cmp "$w/d0/out.txt" "$w/d1/out.txt"
	# a complete trace: "]" last, ids dense, every event inside its parent
	run -0 python3 "$FIXTURES/runtime/check_trace.py" "$w"/t/*.pfw.gz
	assert_output --partial '"complete": true'
	gzip -dc "$w"/t/*.pfw.gz | grep '^{' >"$w/trace.ndjson"
	fh=$(jq -r 'select(.name == "FH" and (.args.name | endswith("/d1/out.txt"))) | .args.value' \
		"$w/trace.ndjson")
	[ -n "$fh" ] || fail "out.txt is not in the trace"
	jq -c 'select(.name == "main" and .cat == "CPP_APP")' "$w/trace.ndjson" >"$w/main.json"
	run -0 grep -c . "$w/main.json"
	assert_output 1
	run -0 jq -s --arg fh "$fh" \
		'[.[] | select(.name == "write" and .args.fhash == $fh) | .args.ret] | add' \
		"$w/trace.ndjson"
	assert_output "$(wc -c <"$w/d1/out.txt")"
	jq -r -s --arg fh "$fh" --slurpfile m "$w/main.json" \
		'.[] | select(.ph == "X" and .args.fhash == $fh and
			.ts >= $m[0].ts and .ts + .dur <= $m[0].ts + $m[0].dur + 1) | .name' \
		"$w/trace.ndjson" | sed 's/64$//' | sort | uniq -c >"$w/io"
	run -0 cat "$w/io"
	assert_output "$2"
	run -0 jq -s '[.[] | select(.name == "Summary::~Summary")] | length' "$w/trace.ndjson"
	assert_output "$3"
}

# what raii_check expects when main's locals are destroyed, and when not
RAII_CLOSED='      1 fclose
      1 fopen
      1 write'
RAII_OPEN='      1 fopen
      1 write'

@test "C++ main: the I/O of its locals' destructors is traced, inside main's event (return)" {
	raii_check return "$RAII_CLOSED" 1
}

@test "C++ main: the I/O of its locals' destructors is traced after a return from an inner block" {
	raii_check inner "$RAII_CLOSED" 1
}

# exit() and abort() destroy no local, with or without tracing
@test "C++ main: exit() half-way leaves a complete trace with main's event (the runtime finalizes at exit)" {
	raii_check exit "$RAII_OPEN" 0
}

@test "C++ main: abort() half-way leaves a complete trace with main's event (FINI before it)" {
	raii_check abort "$RAII_OPEN" 0
}

@test "C++ main that calls MPI_Finalize keeps END and FINI before it and at its exits" {
	cat >"$BATS_TEST_TMPDIR/m.cpp" <<'EOF'
#include <mpi.h>
#include <cstdio>

int
main(int argc, char **argv)
{
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc > 5)
		return 2;
	std::printf("%d\n", rank);
	MPI_Finalize();
	return 0;
}
EOF
	records "$BATS_TEST_TMPDIR" m.cpp >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --diff "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '+	MPI_Comm_rank(MPI_COMM_WORLD, &rank); DFTRACER_CPP_INIT(NULL, NULL, NULL); DFTRACER_CPP_REGION_START(main); DFTRACER_CPP_REGION_DYN_UPDATE(main, "comp", "io");'
	assert_output --partial '+		{ DFTRACER_CPP_REGION_END(main); DFTRACER_CPP_FINI(); return 2; }'
	assert_output --partial '+	{ DFTRACER_CPP_REGION_END(main); DFTRACER_CPP_FINI(); MPI_Finalize(); }'
	refute_output --partial 'dft_main_fini_'
}

@test "C++ main with a function-try-block: INIT at the try body's start, FINI from the exit handler, main's region skipped" {
	cat >"$BATS_TEST_TMPDIR/t.cpp" <<'EOF'
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

int
main(int argc, char **)
try {
	if (argc > 5)
		throw std::runtime_error("many");
	if (argc > 6)
		std::abort();
	std::puts("ok");
	return 0;
} catch (const std::exception &e) {
	std::puts(e.what());
}
EOF
	sed 's/	std::puts(e.what());/&\n	return 1;/' "$BATS_TEST_TMPDIR/t.cpp" >"$BATS_TEST_TMPDIR/h.cpp"
	for f in t h; do
		records "$BATS_TEST_TMPDIR" $f.cpp >"$BATS_TEST_TMPDIR/$f.ndjson"
		run -0 dft-annotate --diff "$BATS_TEST_TMPDIR/$f.ndjson"
		assert_output --partial '+try { DFTRACER_CPP_INIT(NULL, NULL, NULL);
 	if (argc > 5)'
		# abort() runs no exit handler: FINI before it
		assert_output --partial '+		{ DFTRACER_CPP_FINI(); std::abort(); }'
		refute_output --partial 'REGION'
		refute_output --partial 'FINI(); return'
		refute_output --partial 'dft_main_fini_'
		run -0 dft-annotate --output "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/$f.ndjson"
		assert_output --partial "\"annotated\":[],\"skipped\":[{\"name\":\"main\",\"reason\":\"main's region: its body is a function-try-block (the handlers run outside the region); INIT only, the runtime's exit handler finalizes\"}]"
		run -0 c++ -Wall -Wextra -Werror -fsyntax-only -I"$REPO/runtime/include" "$BATS_TEST_TMPDIR/o/$f.cpp"
		run -0 --separate-stderr dft-lint "$BATS_TEST_TMPDIR/o/$f.cpp"
		[ -z "$stderr" ]
	done
	# lint follows the handlers: the old shape (END and FINI at the try
	# body's exits only) leaves the region open when the handler returns
	sed 's/^try {$/try { DFTRACER_CPP_INIT(NULL, NULL, NULL); DFTRACER_CPP_REGION_START(main); DFTRACER_CPP_REGION_DYN_UPDATE(main, "comp", "io");/; s/	return 0;/	{ DFTRACER_CPP_REGION_END(main); DFTRACER_CPP_FINI(); return 0; }/; 1i #include <dftracer/dftracer.h>' \
		"$BATS_TEST_TMPDIR/h.cpp" >"$BATS_TEST_TMPDIR/old.cpp"
	run -1 --separate-stderr dft-lint "$BATS_TEST_TMPDIR/old.cpp"
	[[ "$stderr" == *"old.cpp:17:2: error: return without END: the function's event is never written [L6]"* ]]
	[[ "$stderr" == *"old.cpp:17:2: error: return in main after INIT without FINI [L3]"* ]]
}

@test "C++ main: auto main() -> int, an empty body, and a body that uses the guard's name" {
	# (<cstdio> for NULL: the runtime's header does not define it)
	printf '#include <cstdio>\nauto main() -> int\n{\n\treturn 0;\n}\n' >"$BATS_TEST_TMPDIR/a.cpp"
	printf '#include <cstdio>\nint main() {}\n' >"$BATS_TEST_TMPDIR/e.cpp"
	printf 'int main()\n{\n\tint dft_main_fini_ = 0;\n\treturn dft_main_fini_;\n}\n' >"$BATS_TEST_TMPDIR/n.cpp"
	for f in a e n; do
		records "$BATS_TEST_TMPDIR" $f.cpp >"$BATS_TEST_TMPDIR/$f.ndjson"
		cp "$BATS_TEST_TMPDIR/$f.cpp" "$BATS_TEST_TMPDIR/$f.orig"
	done
	run -0 dft-annotate --in-place "$BATS_TEST_TMPDIR/a.ndjson" "$BATS_TEST_TMPDIR/e.ndjson" \
		"$BATS_TEST_TMPDIR/n.ndjson"
	assert_output --partial '{"name":"main","reason":"the body uses a name the instrumentation needs"}'
	run -0 cat "$BATS_TEST_TMPDIR/e.cpp"
	assert_line 'int main() { DFTRACER_CPP_INIT(NULL, NULL, NULL); struct dft_main_fini_t { ~dft_main_fini_t() { DFTRACER_CPP_FINI(); } } dft_main_fini_; DFTRACER_CPP_REGION(main); DFTRACER_CPP_REGION_UPDATE(main, "comp", "io"); DFTRACER_CPP_REGION_UPDATE(main, "file", "e.cpp"); DFTRACER_CPP_REGION_UPDATE(main, "line", 2);}'
	run -0 grep -c 'dft_main_fini_; DFTRACER_CPP_REGION(main)' "$BATS_TEST_TMPDIR/a.cpp"
	for f in a e; do
		run -0 dft-lint "$BATS_TEST_TMPDIR/$f.cpp"
		refute_output --partial '"type":"diagnostic"'
		run -0 c++ -Wall -Wextra -Werror -I"$REPO/runtime/include" -fsyntax-only "$BATS_TEST_TMPDIR/$f.cpp"
	done
	run -0 dft-annotate --strip --in-place "$BATS_TEST_TMPDIR/a.ndjson" "$BATS_TEST_TMPDIR/e.ndjson"
	run -0 cmp "$BATS_TEST_TMPDIR/a.cpp" "$BATS_TEST_TMPDIR/a.orig"
	run -0 cmp "$BATS_TEST_TMPDIR/e.cpp" "$BATS_TEST_TMPDIR/e.orig"
}

@test "--init-args changes the INIT arguments" {
	cp "$A/corpus/exits.c" "$BATS_TEST_TMPDIR/"
	records "$BATS_TEST_TMPDIR" exits.c >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --diff --init-args '"/tmp/t", "/data", NULL' "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial 'DFTRACER_C_INIT("/tmp/t", "/data", NULL);'
}

@test "a file changed since its records were made is refused" {
	cp "$A/corpus/exits.c" "$BATS_TEST_TMPDIR/"
	records "$BATS_TEST_TMPDIR" exits.c >"$BATS_TEST_TMPDIR/r.ndjson"
	echo "/* edited */" >>"$BATS_TEST_TMPDIR/exits.c"
	cp "$BATS_TEST_TMPDIR/exits.c" "$BATS_TEST_TMPDIR/before.c"
	run -1 --separate-stderr dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '"reason":"it changed since its records were made","status":"refused"'
	[[ "$stderr" == *"not annotated: it changed since its records were made"* ]]
	cmp "$BATS_TEST_TMPDIR/exits.c" "$BATS_TEST_TMPDIR/before.c"
}

@test "a file whose parse had errors is refused" {
	cp "$A/corpus/exits.c" "$BATS_TEST_TMPDIR/"
	records "$BATS_TEST_TMPDIR" exits.c | sed 's/"parse_ok":true/"parse_ok":false/' \
		>"$BATS_TEST_TMPDIR/r.ndjson"
	run -1 --separate-stderr dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '"reason":"its parse had errors (see the diagnostic records)","status":"refused"'
	run -0 cmp "$BATS_TEST_TMPDIR/exits.c" "$A/corpus/exits.c"
}

@test "functions whose exits cannot be covered are skipped whole, with the reason" {
	cp -R "$FIXTURES/funcs/." "$BATS_TEST_TMPDIR/"
	records "$BATS_TEST_TMPDIR" basic.c >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --diff "$BATS_TEST_TMPDIR/r.ndjson"
	refute_output --partial 'checked(int x)
-{'
	run -0 dft-annotate --output "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '{"name":"checked","reason":"a return is hidden in a macro"}'
	assert_output --partial '{"name":"get_counter","reason":"the body comes from a macro"}'
	run -1 grep -n 'CHECK(x > 0);.*DFTRACER' "$BATS_TEST_TMPDIR/out/basic.c"
}

@test "only functions with decision.annotate (and main) are instrumented" {
	cp "$A/corpus/constructs.c" "$BATS_TEST_TMPDIR/"
	(cd "$BATS_TEST_TMPDIR" && dft-funcs constructs.c) |
		sed '/"name":"kind"/s/}$/,"decision":{"annotate":true,"comp":"cpu"}}/' \
		>"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --output "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '"annotated":["kind","main"]'
}

@test "session mode writes the annotated tree and artifacts/annotation.patch" {
	ws=$BATS_TEST_TMPDIR/ws
	mkdir -p "$ws/source" "$ws/annotated" "$ws/artifacts"
	cp "$A/corpus/mpi_main.c" "$ws/source/"
	cp "$A/corpus/mpi_main.c" "$ws/annotated/"
	printf '{"type":"session","v":1,"workspace":"%s","paths":{"source":"%s/source","annotated":"%s/annotated","artifacts":"%s/artifacts"}}\n' \
		"$ws" "$ws" "$ws" "$ws" >"$BATS_TEST_TMPDIR/s.ndjson"
	records "$ws/source" mpi_main.c | grep -v '"type":"step"' >>"$BATS_TEST_TMPDIR/s.ndjson"
	run -0 dft-annotate "$BATS_TEST_TMPDIR/s.ndjson"
	assert_output --partial '"type":"session"'
	assert_output --partial '"status":"annotated"'
	run -0 cmp "$ws/source/mpi_main.c" "$A/corpus/mpi_main.c"
	run -0 grep -c DFTRACER_C_INIT "$ws/annotated/mpi_main.c"
	run -0 grep -c '^+++ b/mpi_main.c' "$ws/artifacts/annotation.patch"
	# the patch applies to the original and gives the annotated file
	cp "$ws/source/mpi_main.c" "$BATS_TEST_TMPDIR/p.c"
	run -0 patch -s "$BATS_TEST_TMPDIR/p.c" "$ws/artifacts/annotation.patch"
	run -0 cmp "$BATS_TEST_TMPDIR/p.c" "$ws/annotated/mpi_main.c"
}

@test "--diff writes nothing" {
	cp "$A/corpus/crlf.c" "$BATS_TEST_TMPDIR/"
	records "$BATS_TEST_TMPDIR" crlf.c >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --diff "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '--- a/crlf.c'
	run -0 cmp "$BATS_TEST_TMPDIR/crlf.c" "$A/corpus/crlf.c"
}

@test "files with hand-written dftracer macros are left alone" {
	cp "$A/bugs/clean.c" "$BATS_TEST_TMPDIR/"
	mkdir -p "$BATS_TEST_TMPDIR/inc/dftracer"
	cp "$REPO/share/dft/dftracer_stub.h" "$BATS_TEST_TMPDIR/inc/dftracer/dftracer.h"
	printf '[{"directory":"%s","file":"clean.c","arguments":["cc","-I%s/inc","-c","clean.c"]}]\n' \
		"$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/compile_commands.json"
	(cd "$BATS_TEST_TMPDIR" && dft-funcs -p . clean.c) |
		sed '/"type":"function"/s/}$/,"decision":{"annotate":true,"comp":"io"}}/' \
		>"$BATS_TEST_TMPDIR/r.ndjson"
	run -1 dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial 'did not write'
	run -0 cmp "$BATS_TEST_TMPDIR/clean.c" "$A/bugs/clean.c"
}

@test "--diff, --in-place and --output exclude each other" {
	run -2 --separate-stderr dft-annotate --diff --in-place </dev/null
	[[ "$stderr" == *"exclude each other"* ]]
}

@test "without a session record or a mode the file is refused" {
	cp "$A/corpus/exits.c" "$BATS_TEST_TMPDIR/"
	records "$BATS_TEST_TMPDIR" exits.c >"$BATS_TEST_TMPDIR/r.ndjson"
	run -1 --separate-stderr dft-annotate "$BATS_TEST_TMPDIR/r.ndjson"
	[[ "$stderr" == *"no session record"* ]]
}

# dft-funcs records of FILE (in $BATS_TEST_TMPDIR) with decision.annotate on
# the function records the sed ADDRESS picks (default: all)
py_select() { # file [address]
	local addr=${2:-'/"type":"function"/'}
	(cd "$BATS_TEST_TMPDIR" && dft-funcs "$1") |
		sed "${addr}s/}\$/,\"decision\":{\"annotate\":true,\"comp\":\"cpu\"}}/"
}

@test "Python: the header joins an import line, finalize is registered with atexit" {
	cp "$A/corpus/app.py" "$BATS_TEST_TMPDIR/"
	py_select app.py >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --diff "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '+import sys; from dftracer.python import dftracer, dft_fn as DFTracerFn; _dft = DFTracerFn("app"); _dft_log = dftracer.initialize_log(logfile=None, data_dir=None, process_id=-1); __import__("atexit").register(_dft_log.finalize)  # for exit'
	assert_output --partial '+    __init__ = _dft.log_init(__init__)'
	assert_output --partial '+@_dft.log'
	assert_output --partial '+    kind = staticmethod(_dft.log(kind.__func__))'
	assert_output --partial '+    name = name.getter(_dft.log(name.fget))'
	run -0 dft-annotate --output "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '"skipped":[]'
	run -0 python3 -c 'import ast,sys; ast.parse(open(sys.argv[1]).read())' "$BATS_TEST_TMPDIR/o/app.py"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/o/app.py")" -eq "$(wc -l <"$A/corpus/app.py")" ]
}

# kinds.py annotated into $BATS_TEST_TMPDIR/o, every function selected
annotate_kinds() {
	cp "$A/corpus/kinds.py" "$BATS_TEST_TMPDIR/"
	py_select kinds.py >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --output "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/r.ndjson"
}

@test "Python: static methods, class methods and properties get one rebind line after the body" {
	annotate_kinds
	assert_output --partial '"annotated":["noisy","Box.__init__","Box.transform","Box.make","Box.value","Box.value","Box.value","Box.show","main"]'
	assert_output --partial '{"name":"Box.under","reason":"@staticmethod is not the outermost decorator, so no rebind line can reach the function"}'
	assert_output --partial '{"name":"Box.tight","reason":"no empty line below the body for the rebind line (@staticmethod takes no decorator above it)"}'
	run -1 diff "$A/corpus/kinds.py" "$BATS_TEST_TMPDIR/o/kinds.py"
	assert_output --partial '>     transform = staticmethod(_dft.log(transform.__func__))'
	assert_output --partial '>     make = classmethod(_dft.log(make.__func__))'
	assert_output --partial '>     value = value.getter(_dft.log(value.fget))'
	assert_output --partial '>     value = value.setter(_dft.log(value.fset))'
	assert_output --partial '>     value = value.deleter(_dft.log(value.fdel))'
	assert_output --partial '>     show = _dft.log(show)'
	# only the selected accessor of a property, though all three share a name
	py_select kinds.py '/"decorators":\["value.setter"\]/' >"$BATS_TEST_TMPDIR/r2.ndjson"
	run -0 dft-annotate --diff "$BATS_TEST_TMPDIR/r2.ndjson"
	assert_output --partial '+    value = value.setter(_dft.log(value.fset))'
	refute_output --partial '_dft.log(value.fget)'
	refute_output --partial '_dft.log(value.fdel)'
}

@test "Python: with the bundled runtime, each call of a static method, class method or property accessor is one event" {
	[ -f "$REPO/runtime/build/lib/libdftracer_core.so" ] ||
		skip "the bundled runtime is not built (make -C runtime)"
	annotate_kinds
	run -0 python3 "$A/corpus/kinds.py"
	orig=$output
	mkdir "$BATS_TEST_TMPDIR/t"
	DFTRACER_ENABLE=1 DFTRACER_LOG_FILE="$BATS_TEST_TMPDIR/t/t" DFTRACER_DATA_DIR=/nonexistent \
		PYTHONPATH="$REPO/runtime/python" run -0 python3 "$BATS_TEST_TMPDIR/o/kinds.py"
	[ "$output" = "$orig" ]
	gzip -dc "$BATS_TEST_TMPDIR"/t/*.pfw.gz | grep -v '"cat":"dftracer"' |
		sed -n 's/.*"name":"\([^"]*\)".*/\1/p' | sort | uniq -c >"$BATS_TEST_TMPDIR/names"
	run -0 cat "$BATS_TEST_TMPDIR/names"
	# Box.value is 1 get + 2 sets + 4 deletes: any accessor missing shows
	assert_output - <<'EOF'
      2 Box.__init__
      2 Box.make
      3 Box.show
      1 Box.transform
      7 Box.value
      1 main
      1 noisy
EOF
}

@test "Python: strip removes the rebind shapes only, hand-written staticmethod() lines stay" {
	cat >"$BATS_TEST_TMPDIR/hw.py" <<'EOF'
import os


def g(x):
    return x


class A:
    x = staticmethod(g)
    y = property(g)

    def h():
        return 2
    h = staticmethod(h)

    @staticmethod
    def k():
        return 3

EOF
	cp "$BATS_TEST_TMPDIR/hw.py" "$BATS_TEST_TMPDIR/hw.orig"
	py_select hw.py >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --in-place "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '"annotated":["g","A.h","A.k"]'
	run -0 grep -c -e '^    x = staticmethod(g)$' -e '^    h = staticmethod(h)$' \
		-e '^    k = staticmethod(_dft.log(k.__func__))$' "$BATS_TEST_TMPDIR/hw.py"
	assert_output 3
	run -0 dft-annotate --strip --in-place "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '"status":"stripped"'
	run -0 cmp "$BATS_TEST_TMPDIR/hw.py" "$BATS_TEST_TMPDIR/hw.orig"
}

@test "Python: other decorator stacks with descriptors are skipped with the reason" {
	cat >"$BATS_TEST_TMPDIR/sk.py" <<'EOF'
import abc
import functools


class A(abc.ABC):
    @functools.cached_property
    def c(self):
        return 1

    @property
    @abc.abstractmethod
    def p(self):
        return 2

    @classmethod
    @property
    def cp(cls):
        return 3

    @abc.abstractproperty
    def ap(self):
        return 4

EOF
	py_select sk.py >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --output "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '"annotated":[]'
	assert_output --partial '{"name":"A.c","reason":"a cached_property (only staticmethod, classmethod and property have a rebind shape)"}'
	assert_output --partial '{"name":"A.p","reason":"an abstract method under @property"}'
	assert_output --partial '{"name":"A.cp","reason":"@property is not the outermost decorator, so no rebind line can reach the function"}'
	assert_output --partial '{"name":"A.ap","reason":"an abstract descriptor (@abc.abstractproperty) has no rebind shape"}'
}

@test "Python: under user decorators the trace is innermost or the function is skipped with the reason" {
	cp "$A/corpus/decorators.py" "$BATS_TEST_TMPDIR/"
	py_select decorators.py >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --output "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/r.ndjson"
	for f in produce Job.checked cached; do
		assert_output --partial "{\"name\":\"$f\",\"reason\":\"user decorators: tracing would wrap their result\"}"
	done
	ann=$output
	for f in tallied square section; do
		jq -n -e --arg f "$f" 'any(inputs | select(.type == "annotation") | .annotated[]; . == $f)' \
			<<<"$ann" >/dev/null || fail "$f is not annotated"
	done
	# tallied: under @counted, on the comment line right above its def
	run -0 grep -B1 -A1 '^@_dft.log  # a comment line' "$BATS_TEST_TMPDIR/o/decorators.py"
	assert_line --index 0 '@counted'
	assert_line --index 2 'def tallied(n):'
	# square and section: above lru_cache and contextmanager
	run -0 grep -A1 '^@_dft.log$' "$BATS_TEST_TMPDIR/o/decorators.py"
	assert_line '@functools.lru_cache(maxsize=None)'
	assert_line '@contextlib.contextmanager'
	refute_line '@register("produce")'
	# the counter the program reads is the one the calls went through
	(cd "$BATS_TEST_TMPDIR/o" && DFTC_LOG=/dev/null PYTHONPATH="$A/pycount" \
		python3 decorators.py) >"$BATS_TEST_TMPDIR/out"
	run -0 python3 "$A/corpus/decorators.py"
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/out")" ]
	assert_line 'calls: 1'
}

@test "the dlio preset chooses the AI style" {
	cp "$A/corpus/app.py" "$BATS_TEST_TMPDIR/"
	{
		printf '{"type":"session","v":1,"preset":"dlio","paths":{"annotated":"%s"}}\n' "$BATS_TEST_TMPDIR"
		(cd "$BATS_TEST_TMPDIR" && dft-funcs app.py) |
			sed '/"type":"function"/s/}$/,"decision":{"annotate":true,"comp":"cpu"}}/'
	} >"$BATS_TEST_TMPDIR/r.ndjson"
	run -0 dft-annotate --diff "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output --partial '+@dft_ai.pipeline.train'
	assert_output --partial 'for epoch in dft_ai.pipeline.epoch.iter(range(epochs)):'
}

@test "the examples of the man page work" {
	cd "$A/corpus"
	run -0 bash -o pipefail -c 'dft-funcs exits.c | dft-cost | dft-annotate --diff'
	assert_output --partial '--- a/exits.c'
	cp exits.c "$BATS_TEST_TMPDIR/exits.c"
	run -0 bash -o pipefail -c "dft-funcs '$BATS_TEST_TMPDIR/exits.c' | dft-cost | dft-annotate --in-place | dft-lint"
	assert_output --partial '"status":"annotated"'
	# dft-funcs exits 1 on the annotated file: dftracer/dftracer.h is not
	# on its include path; its records still name every function
	run -1 --separate-stderr dft-funcs "$BATS_TEST_TMPDIR/exits.c"
	[[ "$stderr" == *"'dftracer/dftracer.h' file not found"* ]] || fail "$stderr"
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/funcs.ndjson"
	run -0 dft-annotate --strip --in-place "$BATS_TEST_TMPDIR/funcs.ndjson"
	assert_output --partial '"status":"stripped"'
	run -0 cmp "$BATS_TEST_TMPDIR/exits.c" exits.c
}

@test "AI style: the batch loop over a loader is measured, one fetch event per batch; checkpoints only on checkpoint functions" {
	local w="$BATS_TEST_TMPDIR/ai" n
	mkdir -p "$w"
	cd "$w"
	# a training script with a DataLoader-like iterable (no torch needed)
	cat >train.py <<'PY'
import os
import sys


class BatchLoader:
    """A DataLoader-like iterable: (x, y) pairs read from the batch files."""

    def __init__(self, d, n):
        self.d = d
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            with open(os.path.join(self.d, "b%d.dat" % i), "rb") as f:
                x = f.read()
            yield x, len(x)


def make_dataset(d, n):
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        with open(os.path.join(d, "b%d.dat" % i), "wb") as f:
            f.write(bytes([i + 1]) * 65536)


def save_checkpoint(d, state):
    with open(os.path.join(d, "ckpt.dat"), "wb") as f:
        f.write(state)


def train(loader, epochs):
    total = seen = 0
    for epoch in range(epochs):
        for x, y in loader:
            total += y * x[0]
            seen += 1
    return total, seen


def main():
    d = sys.argv[1]
    make_dataset(d, 6)
    total, seen = train(BatchLoader(d, 6), 2)
    save_checkpoint(d, b"state" * 1000)
    print("batches", seen, "total", total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
PY
	cp train.py train.py.orig
	run -0 python3 train.py "$w/d0"
	echo "$output" >out.orig
	# the number of batches, as the program counts them
	n=$(sed -n 's/^batches \([0-9]*\) .*/\1/p' out.orig)
	[ "$n" -eq 12 ]
	dft-funcs train.py | dft-cost >cost.ndjson
	run -0 dft-annotate --style ai --in-place cost.ndjson
	echo "$output" >ann.ndjson
	assert_output --partial '"status":"annotated"'
	run -0 grep -c 'for x, y in dft_ai.dataloader.fetch.iter(loader):$' train.py
	run -0 grep -c 'for epoch in dft_ai.pipeline.epoch.iter(range(epochs)):$' train.py
	# the loop inside BatchLoader.__iter__ is not a batch loop
	run -0 grep -c '        for i in range(self.n):$' train.py
	# the checkpoint decorator is on save_checkpoint and nowhere else
	run -0 grep -c 'dft_ai.checkpoint' train.py
	assert_output 1
	run -0 grep -A 1 '^@dft_ai.checkpoint.capture$' train.py
	assert_line --index 1 'def save_checkpoint(d, state):'
	# traced with the bundled runtime: same output, one fetch.iter (the
	# wait for the batch) and one fetch.block per batch
	mkdir traces
	run -0 env DFTRACER_ENABLE=1 DFTRACER_INC_METADATA=1 DFTRACER_LOG_FILE="$w/traces/t" \
		DFTRACER_DATA_DIR="$w/d1" PYTHONPATH="$REPO/runtime/python" python3 train.py "$w/d1"
	[ "$output" = "$(cat out.orig)" ] || fail "traced output differs: $output"
	gzip -dc traces/*.pfw.gz | sed -e '1{/^\[$/d;}' -e '${/^\]$/d;}' >events.json
	run -0 jq -s '[.[] | select(.cat == "dataloader" and .name == "fetch.iter")] | length' events.json
	assert_output "$n"
	run -0 jq -s '[.[] | select(.cat == "dataloader" and .name == "fetch.block")] | length' events.json
	assert_output "$n"
	# counted 1..6 in each of the two epochs
	run -0 jq -s -c '[.[] | select(.name == "fetch.iter") | .args.count]' events.json
	assert_output '[1,2,3,4,5,6,1,2,3,4,5,6]'
	run -0 jq -s '[.[] | select(.cat == "pipeline" and .name == "epoch.iter")] | length' events.json
	assert_output 2
	# one checkpoint event, from save_checkpoint; make_dataset is no checkpoint
	run -0 jq -r -s '.[] | select(.cat == "checkpoint") | .name' events.json
	assert_output capture
	run -0 jq -r -s '.[] | select(.name == "make_dataset") | .cat' events.json
	assert_output train
	# untraced: the same output too
	run -0 env PYTHONPATH="$REPO/runtime/python" python3 train.py "$w/d2"
	[ "$output" = "$(cat out.orig)" ]
	# strip gives back the original bytes
	run -0 dft-annotate --strip --in-place ann.ndjson
	assert_output --partial '"status":"stripped"'
	run -0 cmp train.py train.py.orig
}

@test "AI style: a loader iterable makes a batch loop whatever its targets; other loops are left alone" {
	cd "$BATS_TEST_TMPDIR"
	cat >loops.py <<'PY'
import sys


def train(train_loader, self_like, results, epochs):
    n = 0
    for i, (x, y) in enumerate(train_loader):
        n += x
    for a, b in self_like.val_loader:
        n += a
    for r in results:
        n += r
    for epoch in range(epochs):

        def inner(loader):
            s = 0
            for u, v in loader:
                s += u
            return s
        n += inner(train_loader)
    return n


class Holder:
    val_loader = [(1, 2)]


def main():
    print(train([(1, 2), (3, 4)], Holder(), [5], 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
PY
	cp loops.py loops.py.orig
	run -0 python3 loops.py
	echo "$output" >out.orig
	dft-funcs loops.py |
		sed '/"type":"function"/s/}$/,"decision":{"annotate":true,"comp":"cpu"}}/' >dec.ndjson
	run -0 dft-annotate --style ai --in-place dec.ndjson
	echo "$output" >ann.ndjson
	run -0 grep -c 'for i, (x, y) in dft_ai.dataloader.fetch.iter(enumerate(train_loader)):$' loops.py
	run -0 grep -c 'for a, b in dft_ai.dataloader.fetch.iter(self_like.val_loader):$' loops.py
	run -0 grep -c '    for r in results:$' loops.py
	# the loop of a nested def is wrapped once, though both defs are annotated
	run -0 grep -c '"annotated":\["train","train.inner","main"\]' ann.ndjson
	run -0 grep -c 'for u, v in dft_ai.dataloader.fetch.iter(loader):$' loops.py
	run -1 grep -c 'fetch.iter(dft_ai' loops.py
	run -0 env PYTHONPATH="$REPO/runtime/python" python3 loops.py
	[ "$output" = "$(cat out.orig)" ]
	run -0 dft-annotate --strip --in-place ann.ndjson
	run -0 cmp loops.py loops.py.orig
}
