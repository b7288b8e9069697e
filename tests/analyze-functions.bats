#!/usr/bin/env bats
# Which function a finding names, and where (dft-annotate(1) "Inserted
# macros", dft-analyze(1) "Functions"): programs made here, annotated,
# built against the bundled runtime and run traced; every expected name,
# file and line is taken with jq from dft-funcs' records.

load test_helper

RT="$REPO/runtime/build"

setup() {
	[ -f "$RT/lib/libdftracer_core.so" ] ||
		skip "the bundled runtime is not built (make -C runtime)"
	W=$BATS_TEST_TMPDIR
}

# records DIR FILE...: dft-funcs records of the files (one compile command
# each, in that order), every function selected for annotation
records() {
	local d=$1 f sep=
	shift
	{
		printf '['
		for f in "$@"; do
			printf '%s{"directory":"%s","file":"%s","arguments":["cc","-c","%s"]}' "$sep" "$d" "$f" "$f"
			sep=,
		done
		printf ']\n'
	} >"$d/compile_commands.json"
	(cd "$d" && dft-funcs -p . "$@") |
		sed '/"type":"function"/s/}$/,"decision":{"annotate":true,"comp":"io"}}/'
}

# traced OUT SRC...: build the annotated SRC with the runtime, CC or CXX
traced() {
	local out=$1 c=c++
	shift
	case $1 in *.c) c=cc ;; esac
	$c -o "$out" "$@" -I"$RT/include" -L"$RT/lib" -Wl,-rpath,"$RT/lib" -ldftracer_core
}

@test "C++ methods and namespaced functions are named qualified in the trace and the findings, overloads by file:line" {
	mkdir "$W/src"
	cat >"$W/src/log.cpp" <<'EOF'
#include <cstdio>

namespace store {
class Log {
public:
	explicit Log(std::FILE *f) : f_(f) {}
	void Write(const char *s) { std::fwrite(s, 1, 2, f_); }
	void Write(const char *s, int n)
	{
		for (int i = 0; i < n; i++)
			Write(s);
	}
private:
	std::FILE *f_;
};
int flush_all(std::FILE *f) { return std::fflush(f); }
}

int main(int argc, char **argv)
{
	std::FILE *f = std::fopen(argc > 1 ? argv[1] : "out.txt", "w");
	if (!f)
		return 1;
	store::Log log(f);
	log.Write("ab", 400);
	store::flush_all(f);
	return std::fclose(f) != 0;
}
EOF
	records "$W/src" log.cpp >"$W/r.ndjson"
	cp "$W/src/log.cpp" "$W/orig.cpp"
	run -0 dft-annotate --in-place "$W/r.ndjson"
	traced "$W/t" "$W/src/log.cpp"
	# dft-lint knows the named START (its stub declares dftracer's class)
	run -0 --separate-stderr dft-lint -p "$W/src" "$W/src/log.cpp"
	[ -z "$stderr" ]
	refute_output --partial '"type":"diagnostic"'
	mkdir "$W/tr"
	DFTRACER_ENABLE=1 DFTRACER_LOG_FILE="$W/tr/t" DFTRACER_DATA_DIR=all \
		DFTRACER_INC_METADATA=1 "$W/t" "$W/out.txt"
	gzip -dc "$W"/tr/*.pfw.gz | grep '^{' | jq -c 'select(.cat == "CPP_APP")' >"$W/app.ndjson"
	# every complete event: the record's qualified name, file and first
	# line (the inner Write's calls past 100 are an aggregated record,
	# which has no file or line)
	jq -r 'select(.type == "function") | "\(.qualified_name) \(.file) \(.name_pos.line)"' \
		"$W/r.ndjson" | sort >"$W/want"
	jq -r 'select(.ph == "X") | "\(.name) \(.args.file) \(.args.line)"' "$W/app.ndjson" | sort -u >"$W/got"
	run -0 diff "$W/want" "$W/got"
	run -0 grep -c '^store::Log::Write ' "$W/got"
	assert_output 2
	# the stdio finding names the overload that calls fputs, at its line
	want=$(jq -r 'select(.type == "function" and .qualified_name == "store::Log::Write"
		and (.calls | has("fwrite") or has("std::fwrite"))) | "\(.file):\(.name_pos.line)"' "$W/r.ndjson")
	[ -n "$want" ]
	run -0 bash -o pipefail -c "dft-analyze --all '$W/tr' | jq -r 'select(.type == \"bottleneck\" and .class == \"small_write\") | .functions[0] | \"\\(.name) \\(.qualname) \\(.file):\\(.line)\"'"
	assert_output "store::Log::Write store::Log::Write $want"
	# strip gives back the original bytes
	run -0 dft-annotate --strip --in-place "$W/r.ndjson"
	cmp "$W/orig.cpp" "$W/src/log.cpp"
}

@test "two programs of one repository, each with its own main: the finding's main is the traced binary's, at its file:line" {
	mkdir -p "$W/src/a" "$W/src/b"
	cat >"$W/src/a/main.c" <<'EOF'
#include <stdio.h>
int main(void) { return puts("a") < 0; }
EOF
	cat >"$W/src/b/main.c" <<'EOF'
#include <fcntl.h>
#include <unistd.h>

/* writes 300 records of 10 bytes, one write each */
int
main(int argc, char **argv)
{
	int fd = open(argc > 1 ? argv[1] : "b.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return 1;
	for (int i = 0; i < 300; i++)
		if (write(fd, "0123456789", 10) != 10)
			return 1;
	return close(fd) != 0;
}
EOF
	records "$W/src" a/main.c b/main.c >"$W/r.ndjson"
	run -0 jq -r 'select(.type == "function" and .name == "main") | .file' "$W/r.ndjson"
	assert_output "$(printf 'a/main.c\nb/main.c')"
	run -0 dft-annotate --output "$W/ann" "$W/r.ndjson"
	traced "$W/b" "$W/ann/b/main.c"
	mkdir "$W/tr"
	# (the pipeline's tracer environment: UPDATE args are kept)
	DFTRACER_ENABLE=1 DFTRACER_LOG_FILE="$W/tr/t" DFTRACER_DATA_DIR=all \
		DFTRACER_INC_METADATA=1 "$W/b" "$W/b.dat"
	want=$(jq -r 'select(.type == "function" and .file == "b/main.c") | "b/main.c:\(.name_pos.line)"' "$W/r.ndjson")
	# with the repository's function records too, as the pipeline runs it
	run -0 bash -o pipefail -c "dft-analyze --functions '$W/r.ndjson' '$W/tr' | jq -r 'select(.type == \"bottleneck\" and .class == \"small_write\") | .functions[0] | \"\\(.name) \\(.file):\\(.line)\"'"
	assert_output "main $want"
	# a trace without the location (annotated before) names no wrong main
	# (nor the aggregated writes' parent's: pfile, pline)
	gzip -dc "$W"/tr/*.pfw.gz | sed 's/,"p\{0,1\}file":"b\/main.c","p\{0,1\}line":[0-9]*//' >"$W/old.pfw"
	run -0 bash -o pipefail -c "dft-analyze --functions '$W/r.ndjson' '$W/old.pfw' | jq -c 'select(.type == \"bottleneck\" and .class == \"small_write\") | .functions[0] | [.name, .file, .line, .definitions]'"
	assert_output '["main",null,null,2]'
	# nor does the report, which reads the same records
	dft-analyze --functions "$W/r.ndjson" "$W/old.pfw" >"$W/an.ndjson"
	run -0 dft-report --no-html -o "$W/r.md" "$W/r.ndjson" "$W/an.ndjson"
	run -0 grep -m 1 -- '^- Functions:' "$W/r.md"
	assert_output --partial "main (defined at several places; the trace does not say which ran)"
	dft-analyze --functions "$W/r.ndjson" "$W/tr" >"$W/an.ndjson"
	run -0 dft-report --no-html -o "$W/r.md" "$W/r.ndjson" "$W/an.ndjson"
	run -0 grep -m 1 -- '^- Functions:' "$W/r.md"
	assert_output --partial "main (main.c:${want##*:})"
}

@test "a 1:1 I/O wrapper is not traced (dft-cost io-wrapper): its callers get its I/O, the calls and bytes are the same" {
	mkdir "$W/src"
	cat >"$W/src/doc.c" <<'EOF'
#include <stdio.h>
#include <string.h>

static char last[64];

size_t
put(const char *s, size_t n, FILE *f)
{
	if (n < sizeof(last))
		memcpy(last, s, n);
	return fwrite(s, 1, n, f);
}

void
emit_header(FILE *f)
{
	put("<doc>", 5, f);
	put("\n", 1, f);
}

int
emit_rows(FILE *f, int n)
{
	int bad = 0;

	for (int i = 0; i < n; i++)
		if (put("<r/>", 4, f) != 4)
			bad++;
	return bad;
}

int
main(int argc, char **argv)
{
	FILE *f = fopen(argc > 1 ? argv[1] : "out.xml", "w");

	if (!f)
		return 1;
	emit_header(f);
	if (emit_rows(f, 3000))
		return 1;
	return fclose(f) != 0;
}
EOF
	printf '[{"directory":"%s","file":"doc.c","arguments":["cc","-c","doc.c"]}]\n' "$W/src" >"$W/src/compile_commands.json"
	(cd "$W/src" && dft-funcs -p . doc.c) >"$W/f.ndjson"
	cp "$W/src/doc.c" "$W/orig.c"
	for m in wrapper traced; do
		if [ $m = wrapper ]; then
			dft-cost "$W/f.ndjson" >"$W/r.ndjson"
		else
			dft-cost --no-rule io-wrapper "$W/f.ndjson" >"$W/r.ndjson"
		fi
		run -0 jq -r 'select(.type == "function") | "\(.name) \(.decision.annotate) \(.decision.rule)"' "$W/r.ndjson"
		if [ $m = wrapper ]; then
			assert_output "put false io-wrapper
emit_header true io-reach
emit_rows true io-reach
main true main"
		else
			assert_line "put true io-direct"
		fi
		cp "$W/orig.c" "$W/src/doc.c"
		dft-annotate --in-place "$W/r.ndjson" >/dev/null
		traced "$W/t" "$W/src/doc.c"
		mkdir "$W/tr-$m"
		DFTRACER_ENABLE=1 DFTRACER_LOG_FILE="$W/tr-$m/t" DFTRACER_DATA_DIR=all \
			DFTRACER_INC_METADATA=1 "$W/t" "$W/out-$m.xml"
		dft-analyze "$W/tr-$m" >"$W/a-$m.ndjson"
	done
	cmp "$W/out-wrapper.xml" "$W/out-traced.xml"
	# the I/O, either way: 3,002 fwrite calls of 12,006 bytes (the
	# program's arithmetic), an fopen and an fclose
	io='select(.type == "summary") | "\(.io.count) \(.io.bytes) \(.io.write.count)"'
	[ "$(jq -r "$io" "$W/a-wrapper.ndjson")" = "3004 $((3000 * 4 + 5 + 1)) 3002" ]
	[ "$(jq -r "$io" "$W/a-traced.ndjson")" = "3004 12006 3002" ]
	# put has no event; its callers enclose its calls; traced, put
	# enclosed them all
	run -1 bash -o pipefail -c "gzip -dc '$W'/tr-wrapper/*.pfw.gz | grep -c '\"name\":\"put\"'"
	encl='select(.type == "summary") | [.functions[] | select(.io_cat == "app") | "\(.name) \(.io_calls)"] | sort | .[]'
	run -0 jq -r "$encl" "$W/a-wrapper.ndjson"
	assert_output "emit_header 2
emit_rows 3000
main 2"
	run -0 jq -r "$encl" "$W/a-traced.ndjson"
	assert_output "emit_header 0
emit_rows 0
main 2
put 3002"
	# so the small writes are named in the loop that makes them
	run -0 jq -r 'select(.type == "bottleneck" and .class == "small_write") | .functions[0].name' "$W/a-wrapper.ndjson"
	assert_output emit_rows
}
