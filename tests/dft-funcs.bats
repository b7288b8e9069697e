#!/usr/bin/env bats
# dft-funcs: function records from C, C++ and Python sources.

load test_helper

F="$FIXTURES/funcs"

# Function records without the volatile fields (absolute root, step).
funcs_stable() {
	jq -c 'del(.root)' | grep -v '"type":"step"'
}

@test "dft-funcs --help prints the usage on stdout" { checklist_help dft-funcs; }
@test "dft-funcs --version prints the suite's version" { checklist_version dft-funcs; }
@test "dft-funcs rejects an unknown option" { checklist_unknown_option dft-funcs; }
@test "dft-funcs rejects an option without its argument" { checklist_missing_argument dft-funcs -j --jobs -p --prefix-map -r --io-apis; }
@test "dft-funcs: a bad value names the option and the value" {
	checklist_bad_value dft-funcs --jobs 0 "an integer from 1 to 256"
	checklist_bad_value dft-funcs --compile-db "$BATS_TEST_TMPDIR/none" "compile_commands.json or its directory"
}
@test "dft-funcs --help and --version fail on a full disk" { checklist_help_dev_full dft-funcs; }
@test "dft-funcs on empty input prints nothing but its step" { checklist_empty_input dft-funcs; }
@test "dft-funcs reads - as stdin and passes record operands through" { checklist_dash_is_stdin dft-funcs; }
@test "dft-funcs reports a malformed line with its position" { checklist_malformed_line dft-funcs; }
@test "dft-funcs reports a missing file" { checklist_missing_file dft-funcs; }
@test "dft-funcs fails on a full disk" { checklist_dev_full dft-funcs; }
@test "the dft-funcs man page lints and documents every option" { checklist_man dft-funcs; }

@test "the fixtures give the golden function and diagnostic records" {
	cd "$F"
	run -1 --separate-stderr bash -o pipefail -c 'dft-funcs -p . -r . *.c *.cpp *.py >"$BATS_TEST_TMPDIR/out"'
	funcs_stable <"$BATS_TEST_TMPDIR/out" >"$BATS_TEST_TMPDIR/actual"
	diff -u expected/funcs.ndjson "$BATS_TEST_TMPDIR/actual"
}

@test "every offset points at the bytes it names" {
	cd "$F"
	dft-funcs -p . -r . 2>/dev/null >"$BATS_TEST_TMPDIR/out" || true
	dft-funcs -r . model.py >>"$BATS_TEST_TMPDIR/out"
	# file, offset, the text expected there
	jq -r 'select(.type=="function" and .body_from_macro==false) | .file as $f |
		(if .language=="python" then empty else
		"\($f)\t\(.body.open.offset)\t{", "\($f)\t\(.body.close.offset)\t}" end),
		(if .kind=="main_guard" then empty else
		"\($f)\t\(.name_pos.offset)\t\(.name|split("<")[0])" end),
		(.exits[] | select(.in_macro==false) |
		 "\($f)\t\(.offset)\t\(if .kind=="return" then "return" else .callee end)")' \
		"$BATS_TEST_TMPDIR/out" >"$BATS_TEST_TMPDIR/checks"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/checks")" -gt 100 ]
	while IFS="$(printf '\t')" read -r file off want; do
		got=$(dd if="$file" iflag=skip_bytes,count_bytes skip="$off" count=64 status=none)
		[[ "$got" == "$want"* ]] && continue
		# a qualified call: std::abort()
		g=${got%%(*}
		g=${g##*::}
		[ "$g" = "$want" ] || fail "$file@$off: want '$want', got '$got'"
	done <"$BATS_TEST_TMPDIR/checks"
}

@test "line and column agree with the byte offset" {
	cd "$F"
	dft-funcs -r . basic.c >"$BATS_TEST_TMPDIR/out"
	jq -r 'select(.file=="basic.c") | (.signature, .body.open, .body.close, .exits[]) |
		"\(.offset) \(.line) \(.col)"' "$BATS_TEST_TMPDIR/out" >"$BATS_TEST_TMPDIR/pos"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/pos")" -gt 40 ]
	while read -r off line col; do
		pre=$(head -c "$off" basic.c; echo x)
		pre=${pre%x}
		nl=${pre//[!$'\n']/}
		last=${pre##*$'\n'}
		[ "$((${#nl} + 1)) $((${#last} + 1))" = "$line $col" ] ||
			fail "offset $off: $line:$col, want $((${#nl} + 1)):$((${#last} + 1))"
	done <"$BATS_TEST_TMPDIR/pos"
}

@test "size and hash describe the file as parsed" {
	cd "$F"
	run -0 bash -o pipefail -c 'dft-funcs -r . basic.c | jq -r "select(.file==\"basic.c\") | .file_size" | sort -u'
	assert_output "$(wc -c <basic.c)"
	cp basic.c "$BATS_TEST_TMPDIR/b.c"
	mkdir -p "$BATS_TEST_TMPDIR/include" && cp include/util.h "$BATS_TEST_TMPDIR/include/"
	h1=$(dft-funcs "$BATS_TEST_TMPDIR/b.c" | jq -r 'select(.type=="function")|.file_hash' | sed -n 1p)
	echo "/* edit */" >>"$BATS_TEST_TMPDIR/b.c"
	h2=$(dft-funcs "$BATS_TEST_TMPDIR/b.c" | jq -r 'select(.type=="function")|.file_hash' | sed -n 1p)
	[[ "$h1" == fnv1a64:* ]] && [ "$h1" != "$h2" ]
}

@test "every exit is found: early returns, goto, switch, exit family, longjmp" {
	cd "$F"
	dft-funcs -r . basic.c >"$BATS_TEST_TMPDIR/out"
	# die() is not declared noreturn, but its every path ends in exit()
	run -0 jq -r 'select(.name=="guarded") | [.exits[] | "\(.kind):\(.callee // "")"] | join(" ")' "$BATS_TEST_TMPDIR/out"
	assert_output "return: longjmp:longjmp abort:abort noreturn:die return:"
	run -0 jq -r 'select(.name=="name_of") | [.exits[] | .parent] | join(" ")' "$BATS_TEST_TMPDIR/out"
	assert_output "case case compound"
	run -0 jq -r 'select(.name=="bump") | "\(.falls_through) \(.returns_void) \(.exits[0].has_value)"' "$BATS_TEST_TMPDIR/out"
	assert_output "true true false"
	run -0 jq -r 'select(.name=="copy_file") | "\(.gotos) \(.labels) \(.falls_through)"' "$BATS_TEST_TMPDIR/out"
	assert_output "2 1 false"
	run -0 jq -r 'select(.name=="checked") | "\(.returns_in_macro) \(.exits[0].in_macro)"' "$BATS_TEST_TMPDIR/out"
	assert_output "1 true"
	run -0 jq -r 'select(.name=="get_counter") | .body_from_macro' "$BATS_TEST_TMPDIR/out"
	assert_output "true"
	run -0 jq -r 'select(.name=="knr_add" or .name=="sum") | "\(.name) \(.knr) \(.variadic)"' "$BATS_TEST_TMPDIR/out"
	assert_output "knr_add true false
sum false true"
	run -0 jq -r 'select(.name=="classify") | .exits[0] | "\(.has_value) \(.value.offset) \(.value.end) \(.end)"' "$BATS_TEST_TMPDIR/out"
	assert_output "true 407 409 410"
}

@test "a static inline function in a header is reported once, as in_header" {
	cd "$F"
	# a second translation unit including the same header
	printf '#include "util.h"\n' >"$BATS_TEST_TMPDIR/other.c"
	run -0 bash -o pipefail -c 'dft-funcs -r . basic.c "$1" | jq -r "select(.in_header) | \"\(.file) \(.name) \(.storage) \(.inline) \(.variants)\""' _ "$BATS_TEST_TMPDIR/other.c"
	assert_output "include/util.h util_twice static true 2
include/util.h util_write_all static true 2"
}

@test "the same file compiled with two flag sets is reported once with the union" {
	cd "$F"
	run -0 bash -o pipefail -c 'dft-funcs -p . -r . variants.c | jq -r "select(.type==\"function\") | \"\(.name) \(.variants) \([.exits[].line]|join(\",\"))\""'
	assert_output "copy_fast 1 9
copy_slow 1 19
copy_any 2 28,31,32,34"
}

@test "flags after -- reach the parser" {
	cd "$F"
	run -0 bash -o pipefail -c 'dft-funcs -r . variants.c -- -DFAST | jq -r "select(.type==\"function\") | .name"'
	assert_output "copy_fast
copy_any"
}

@test "a .c file built by a C++ compiler is C++" {
	cd "$F"
	run -0 bash -o pipefail -c 'dft-funcs -p . -r . ascxx.c | jq -r "select(.type==\"function\") | \"\(.qualified_name) \(.language) \(.parse_ok)\""'
	assert_output "tiny::Counter::add cpp true
is_even cpp true
count_even cpp true"
}

@test "C++ functions are extracted with scopes, the constructor after its initializer list, templates and lambdas" {
	cd "$F"
	dft-funcs -p . -r . shapes.cpp >"$BATS_TEST_TMPDIR/out"
	run -0 jq -r 'select(.kind=="constructor") | "\(.qualified_name) \(.has_init_list) \(.body.open.line)"' "$BATS_TEST_TMPDIR/out"
	assert_output "geo::Shape::Shape true 18"
	run -0 jq -r 'select(.name=="largest") | "\(.kind) \(.is_template) \(.return_type) \(.loops)"' "$BATS_TEST_TMPDIR/out"
	assert_output "function_template true T 1"
	run -0 jq -r 'select(.name=="sorted_sum") | "\(.qualified_name) \(.storage) \(.lambdas) \(.exits|length)"' "$BATS_TEST_TMPDIR/out"
	assert_output "geo::(anonymous namespace)::sorted_sum static 2 1"
	run -0 jq -r 'select(.name=="area" or .name=="count") | "\(.name) \(.is_virtual) \(.is_static_method) \(.inline)"' "$BATS_TEST_TMPDIR/out"
	assert_output "area true false true
count false true true"
}

@test "I/O reachability follows the project's call graph" {
	cd "$F"
	dft-funcs -p . -r . 2>/dev/null >"$BATS_TEST_TMPDIR/out" || true
	run -0 jq -r 'select(.is_entry and .language!="python") | "\(.file) \(.io_reach) \(.io_via)"' "$BATS_TEST_TMPDIR/out"
	assert_output "basic.c 1 copy_file
mpi_main.c 1 write_block
shapes.cpp 1 geo::Shape::save"
	run -0 jq -r 'select(.name=="write_block") | .io_apis | join(" ")' "$BATS_TEST_TMPDIR/out"
	assert_output "mpiio:MPI_File_open mpiio:MPI_File_write_at_all mpiio:MPI_File_close"
}

@test "a file that does not parse gives diagnostics, parse_ok false and exit 1" {
	cd "$F"
	run -1 --separate-stderr dft-funcs -r . broken.c
	[[ "$stderr" == *"broken.c:2:10: 'no-such-header.h' file not found"* ]] || fail "$stderr"
	echo "$output" | grep '"rule":"parse-fatal"' >/dev/null
	run -0 bash -o pipefail -c "dft-funcs -r . broken.c 2>/dev/null | jq -r 'select(.type==\"function\") | \"\(.name) \(.parse_ok)\"'; true"
	assert_output "ok_before false
broken false"
}

@test "a source file that cannot be read is never reported as having no functions" {
	run -1 --separate-stderr dft-funcs "$BATS_TEST_TMPDIR/nope.c"
	echo "$output" | grep '"rule":"parse-failed"' >/dev/null
	[[ "$stderr" == *"cannot open"* ]] || fail "$stderr"
}

@test "Python functions are extracted with classes, decorators, the main guard and exits" {
	cd "$F"
	dft-funcs -r . model.py >"$BATS_TEST_TMPDIR/out"
	run -0 jq -r 'select(.type=="function") | "\(.qualified_name) \(.kind) \(.is_staticmethod) \(.is_property) \(.jit) \(.is_entry)"' "$BATS_TEST_TMPDIR/out"
	assert_output "Samples.__init__ def false false false false
Samples.__len__ def false false false false
Samples.__getitem__ def false false false false
Samples.norm def true false false false
Samples.size def false true false false
Samples.size def false true false false
Samples.from_env def false false false false
dot def false false true false
fetch async_def false false false false
save def false false false false
save._tmp def false false false false
main def false false false true
__main__ main_guard false false false true"
	run -0 jq -r 'select(.name=="fetch") | [.exits[] | "\(.line):\(.parent)"] | join(" ")' "$BATS_TEST_TMPDIR/out"
	assert_output "51:other 52:compound"
	run -0 jq -r 'select(.name=="__getitem__") | "\(.io_direct) \(.body_indent|length) \(.ml_imports|join(","))"' "$BATS_TEST_TMPDIR/out"
	assert_output "true 8 numpy,numba,torch"
}

@test "a session record names the tree and its compile database; unlisted C files are not parsed" {
	ws="$BATS_TEST_TMPDIR/ws"
	mkdir -p "$ws/source/src" "$ws/baseline"
	printf 'int helper(int x) { return x + 1; }\n' >"$ws/source/src/a.c"
	printf '#ifdef ONE\nint main(void) { return helper(1); }\n#endif\n' >"$ws/source/src/m.c"
	printf 'def run():\n    return 1\n' >"$ws/source/tool.py"
	cat >"$ws/baseline/compile_commands.json" <<JSON
[{"directory":"$ws/source/src","arguments":["cc","-DONE","-c","m.c"],"file":"m.c"}]
JSON
	printf '{"type":"session","v":1,"workspace":"%s","paths":{"source":"%s"}}\n' "$ws" "$ws/source" >"$BATS_TEST_TMPDIR/s.ndjson"
	run -0 bash -o pipefail -c "dft-funcs <'$BATS_TEST_TMPDIR/s.ndjson' | jq -r '\"\(.type) \(.file) \(.name)\"'"
	assert_output "session null null
function src/m.c main
function tool.py run
step null null"
}

@test "-j 2 gives the same records as -j 1" {
	cd "$F"
	# exit 1: the fixtures include files that do not parse
	dft-funcs -j 1 -p . -r . 2>/dev/null | funcs_stable >"$BATS_TEST_TMPDIR/one" || [ $? -eq 1 ]
	dft-funcs -j 2 -p . -r . 2>/dev/null | funcs_stable >"$BATS_TEST_TMPDIR/two" || [ $? -eq 1 ]
	diff -u "$BATS_TEST_TMPDIR/one" "$BATS_TEST_TMPDIR/two"
}

@test "the man page example runs" {
	cd "$F"
	run -0 bash -o pipefail -c "dft-funcs -p . basic.c | jq -c 'select(.exits) | {name, exits: [.exits[].line]}' | sed -n 1,2p"
	assert_output '{"name":"get_counter","exits":[12]}
{"name":"classify","exits":[19,21,22]}'
}

@test "edge cases are extracted: extern C, function-try-block, [[noreturn]], std::abort, endless loops" {
	cd "$F"
	dft-funcs -p . -r . edge.cpp >"$BATS_TEST_TMPDIR/out"
	run -0 jq -r 'select(.type=="function") | "\(.qualified_name) [\(.kind)] \([.exits[] | "\(.kind)@\(.line)\(if .in_macro then "m" else "" end)"] | join(",")) ft=\(.falls_through)"' "$BATS_TEST_TMPDIR/out"
	assert_output "c_api [function] return@5 ft=false
Box::as [method_template] return@10 ft=false
Box::get [method] return@12 ft=false
tryblock [function] return@15,return@17 ft=false
fatal [function] abort@19 ft=false
user [function] noreturn@21,return@23 ft=false
Op::operator== [method] return@25 ft=false
Op::operator int [conversion] return@25 ft=false
loopy [function]  ft=false
loopy2 [function] return@27 ft=false"
}

@test "edge cases are extracted: CRLF lines, a body from an #include, bodies from a macro" {
	cd "$F"
	dft-funcs -p . -r . crlf.c body.c >"$BATS_TEST_TMPDIR/out"
	run -0 jq -r 'select(.type=="function") | "\(.name) \(.body.open.line):\(.body.open.col) \(.body.close.line) \(.body_from_macro) \(.returns_in_macro) \([.exits[] | "\(.line):\(.col)"] | join(","))"' "$BATS_TEST_TMPDIR/out"
	assert_output "inc 3:1 5 false 1 3:1
a1 7:1 7 true 1 7:1
a2 8:1 8 true 1 8:1
callsfp 10:20 10 false 0 10:22
crlf 3:1 7 false 0 5:3,6:2"
}

# A tree like an MPI autotools project: each file built into two targets
# with the same flags, mpi.h found only through the database's -I.
mpi_tree() {
	d=$BATS_TEST_TMPDIR/t
	mkdir -p "$d/src/a" "$d/src/b" "$d/src/c" "$d/inc" "$d/db"
	printf 'int MPI_Init(int *, char ***);\n' >"$d/inc/mpi.h"
	printf '#include <mpi.h>\nint one(void) { return MPI_Init(0, 0); }\n' >"$d/src/a/one.c"
	printf '#include <mpi.h>\nint two(void) { return 2; }\n' >"$d/src/b/two.c"
	printf '#include <mpi.h>\nint unlisted(void) { return 3; }\n' >"$d/src/c/extra.c"
	for o in 1 2; do
		for f in a/one.c b/two.c; do
			printf '{"directory":"%s/src","arguments":["cc","-I../inc","-c","-o","x%s.o","%s"],"file":"%s"}\n' \
				"$d" "$o" "$f" "$f"
		done
	done | jq -s . >"$d/db/compile_commands.json"
}

@test "session mode: a file the database lists several times is parsed once, with its flags" {
	mpi_tree
	printf '{"type":"session","v":1,"paths":{"source":"%s/src"}}\n' "$d" >"$d/s.ndjson"
	run -0 --separate-stderr bash -o pipefail -c 'dft-funcs -p "$1/db" <"$1/s.ndjson" | jq -c "select(.type==\"diagnostic\" or .type==\"step\") | [.type, .file, .files, .files_with_errors]"' _ "$d"
	assert_output '["step",null,2,0]'
	run -0 bash -o pipefail -c 'dft-funcs -p "$1/db" <"$1/s.ndjson" | jq -r "select(.type==\"function\") | .file + \" \" + .name"' _ "$d"
	assert_output 'a/one.c one
b/two.c two'
}

@test "a source operand given twice is parsed once" {
	mpi_tree
	run -0 bash -o pipefail -c 'cd "$1/src" && dft-funcs -p ../db a/one.c b/two.c a/one.c | jq -c "select(.type==\"step\") | [.files, .files_with_errors]"' _ "$d"
	assert_output '[2,0]'
}

@test "session mode: a source tree reached through a symbolic link matches the database's real paths" {
	mpi_tree
	ln -s "$d/src" "$d/link"
	printf '{"type":"session","v":1,"paths":{"source":"%s/link"}}\n' "$d" >"$d/s.ndjson"
	run -0 bash -o pipefail -c 'dft-funcs -p "$1/db" <"$1/s.ndjson" | jq -r "select(.type==\"function\" or .type==\"step\") | \"\(.file) \(.name) \(.files) \(.files_with_errors)\""' _ "$d"
	assert_output 'a/one.c one null null
b/two.c two null null
null null 2 0'
}

# A database written for another copy of the tree: build/ was configured
# with -DUSE_FAST and holds config.h, which source/ (the tree we read)
# lacks; api.h is found through a relative -I.
prefix_tree() {
	d=$BATS_TEST_TMPDIR/pm
	mkdir -p "$d/source/src" "$d/source/inc" "$d/db"
	printf '#define API_N 2\n' >"$d/source/inc/api.h"
	cat >"$d/source/src/a.c" <<'C'
#include "config.h"
#include <api.h>
int slow(void) { return CONFIG_N + API_N; }
#ifdef USE_FAST
int fast(void) { return CONFIG_N; }
#endif
C
	cp -a "$d/source" "$d/build"
	printf '#define CONFIG_N 3\n' >"$d/build/src/config.h"
	printf '[{"directory":"%s/build/src","arguments":["cc","-DUSE_FAST","-I../inc","-c","a.c"],"file":"a.c"}]\n' \
		"$d" >"$d/db/compile_commands.json"
}

# dft-funcs on source/src/a.c into $d/out; pm_list: its functions and
# diagnostics.
pm_funcs() {
	cd "$d/source/src" && dft-funcs -p "$d/db" -r "$d/source" "$@" a.c >"$d/out"
}
pm_list() {
	jq -r 'select(.type=="function" or .type=="diagnostic") | "\(.type) \(.name // .rule)"' "$d/out"
}

@test "--prefix-map: without it a database of another copy is not used, with it the file gets its flags" {
	prefix_tree
	run -1 --separate-stderr pm_funcs
	[[ "$stderr" == *"a.c:"*"'config.h' file not found"* ]] || fail "config.h found: $stderr"
	run -0 pm_list
	assert_line "diagnostic not-in-compile-db"
	refute_line "function fast"
	run -0 --separate-stderr pm_funcs --prefix-map "$d/build=$d/source"
	[ -z "$stderr" ] || fail "unexpected stderr: $stderr"
	run -0 pm_list
	assert_output "function slow
function fast"
}

@test "--prefix-map: the longest OLD wins, whatever the order" {
	prefix_tree
	run -0 --separate-stderr pm_funcs --prefix-map "$d=$d/nowhere" --prefix-map "$d/build=$d/source"
	[ "$stderr" = "dft-funcs: --prefix-map '$d=$d/nowhere' matched no compile database entry" ] ||
		fail "unexpected stderr: $stderr"
	run -0 pm_list
	assert_output "function slow
function fast"
	run -0 --separate-stderr pm_funcs --prefix-map "$d/build=$d/source" --prefix-map "$d=$d/nowhere"
	run -0 pm_list
	assert_output "function slow
function fast"
}

@test "--prefix-map: a map that matches no entry is named in one warning" {
	prefix_tree
	run -0 --separate-stderr pm_funcs --prefix-map "$d/build=$d/source" --prefix-map /no/such=/x
	[ "$stderr" = "dft-funcs: --prefix-map '/no/such=/x' matched no compile database entry" ] ||
		fail "unexpected stderr: $stderr"
	run -0 pm_list
	assert_output "function slow
function fast"
}

@test "--prefix-map: a value without '=', with an empty OLD or NEW is a usage error" { checklist_bad_prefix_map dft-funcs; }

@test "--prefix-map: include directories of a tree that is not here move to the mapped tree" {
	prefix_tree
	# the database of a CI machine: its tree at $d/ci does not exist here,
	# config.h was generated into gen/ (here: source/gen)
	mkdir -p "$d/source/gen"
	mv "$d/build/src/config.h" "$d/source/gen/config.h"
	printf '[{"directory":"%s/ci/src","command":"cc -DUSE_FAST -I%s/ci/gen -I ../inc -c a.c","file":"a.c"}]\n' \
		"$d" "$d" >"$d/db/compile_commands.json"
	run -0 --separate-stderr pm_funcs --prefix-map "$d/ci=$d/source"
	[ -z "$stderr" ] || fail "unexpected stderr: $stderr"
	run -0 pm_list
	assert_output "function slow
function fast"
}

@test "C++: calls in member initializers, default arguments and lambdas count toward io_reach" {
	cp "$FIXTURES/annotate/corpus/try_main.cpp" "$BATS_TEST_TMPDIR/"
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr dft-funcs try_main.cpp -- -std=c++17
	echo "$output" >out
	# the I/O is in read_all and file_size; the others reach it in one call
	run -0 jq -r 'select(.io_direct) | .name' out
	assert_output "read_all
file_size"
	run -0 jq -r 'select(.type == "function" and (.io_direct | not)) | "\(.qualified_name) \(.io_reach) \(.io_via)"' out
	assert_output "Loader::size null null
Loader::Loader 1 read_all
make_label 1 file_size
count_lines 1 read_all
main 2 Loader::Loader"
	# the calls count, the exits stay the body's own: the lambda's return is not one
	run -0 jq -r 'select(.name == "Loader") | .calls.read_all' out
	assert_output 1
	run -0 jq -r 'select(.name == "count_lines") | "\(.calls.read_all) \(.lambdas) \([.exits[].kind] | join(","))"' out
	assert_output "1 1 return"
	# dft-cost scores the constructor as doing I/O
	run -0 bash -o pipefail -c "dft-cost out | jq -r 'select(.name == \"Loader\") | \"\(.decision.annotate) \(.decision.rule) \(.decision.comp)\"'"
	assert_output "true io-reach cpu"
}

@test "without a compile database the language follows the suffix: .cc is C++, .h is C" {
	local d="$BATS_TEST_TMPDIR/lang"
	mkdir -p "$d"
	printf 'int f(void) { return 0; }\n' >"$d/a.cc"
	printf 'int g(void);\nstatic inline int g2(void) { return 1; }\n' >"$d/b.h"
	printf 'int h(void) { return 2; }\n' >"$d/c.c"
	printf 'int k(void) { return 3; }\n' >"$d/e.hpp"
	run -0 bash -o pipefail -c "dft-funcs -r '$d' '$d/a.cc' '$d/b.h' '$d/c.c' '$d/e.hpp' |
		jq -r 'select(.type == \"function\") | \"\(.file) \(.language)\"'"
	assert_line "a.cc cpp"
	assert_line "b.h c"
	assert_line "c.c c"
	assert_line "e.hpp cpp"
}

@test "a do { } while (0) or while (false) macro body is no loop; a do loop with a real condition is one" {
	cd "$BATS_TEST_TMPDIR"
	cat >once.c <<'SRC'
#include <stdio.h>
#include <stdlib.h>
#define CHECK(x) do { if (!(x)) abort(); } while (0)
FILE *open_log(const char *p)
{
	CHECK(p);
	return fopen(p, "w");
}
int drain(FILE *f)
{
	int n = 0;
	do {
		n++;
	} while (fgetc(f) != EOF);
	return n;
}
SRC
	cat >once.cpp <<'SRC'
#include <cstdio>
#include <cstdlib>
#define CHECK(x) do { if (!(x)) std::abort(); } while (false)
FILE *open_out(const char *p)
{
	CHECK(p);
	CHECK(p[0]);
	return std::fopen(p, "w");
}
SRC
	run -0 --separate-stderr dft-funcs once.c once.cpp
	echo "$output" >out
	run -0 jq -r 'select(.type == "function") | "\(.name) \(.loops) \(.calls_in_loops | keys | join(","))"' out
	assert_output "open_log 0 
drain 1 fgetc
open_out 0 "
	# with no loop left, dft-cost sees the 1:1 fopen wrappers they are
	run -0 bash -o pipefail -c "dft-cost out | jq -r 'select(.type == \"function\" or .decision) | \"\(.name) \(.decision.rule)\"'"
	assert_line "open_log io-wrapper"
	assert_line "open_out io-wrapper"
}
