# tests/test_helper.bash - shared set-up for every bats file: `load test_helper`.
#
# Puts the built tools and scripts first on PATH, sets LC_ALL=C, loads
# bats-support and bats-assert, and defines the standard per-tool checklist
# (style.md rule 35). Each checklist_* function is one set of assertions;
# call each from its own @test so a failure names what broke.

bats_require_minimum_version 1.5.0

# A pipeline fails when any of its commands fails, not only the last: so
# `tool | jq -e ...` also asserts the tool's exit status. (A `bash -c` a test
# runs is a new shell: it says `bash -o pipefail -c`.)
set -o pipefail

REPO=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
export REPO
export FIXTURES="$REPO/tests/fixtures"
# Real dftracer traces live in the shared folder beside the checkout.
if [ -z "${TRACES:-}" ]; then
	for t in "$REPO/../shared/fixtures/traces" "$REPO/../../shared/fixtures/traces"; do
		if [ -d "$t" ]; then TRACES=$(cd "$t" && pwd); break; fi
	done
fi
export TRACES
export PATH="$REPO/build/bin:$REPO/scripts:$PATH"
# python3 is the distribution's, the one scripts/install-deps installs, for
# the tests and for what they run: when the first python3 on PATH is
# another (a pyenv shim: three bash scripts and another build of Python,
# ~160 ms of CPU a start against ~20 ms; ~400 starts in the suite), a link
# to /usr/bin/python3 goes first, in the run's temporary directory.
if [ -x /usr/bin/python3 ] && [ -n "${BATS_RUN_TMPDIR:-}" ]; then
	case ":$PATH:" in
	*":$BATS_RUN_TMPDIR/python:"*) ;;
	*)
		if [ "$(command -v python3)" != /usr/bin/python3 ]; then
			# (files start at once under make check: another may
			# have made the link between the test and ln)
			[ -e "$BATS_RUN_TMPDIR/python/python3" ] || {
				mkdir -p "$BATS_RUN_TMPDIR/python" &&
					ln -s /usr/bin/python3 "$BATS_RUN_TMPDIR/python/python3" 2>/dev/null
			} || :
			export PATH="$REPO/build/bin:$REPO/scripts:$BATS_RUN_TMPDIR/python:${PATH#"$REPO/build/bin:$REPO/scripts:"}"
		fi ;;
	esac
fi
# Under `make check` the environment names the jobserver descriptors of the
# make above bats, which are other files here (GNU parallel's, bats'): a make
# a test runs (make.bats, the runtime, the applications the pipeline builds)
# must not read or write them.
unset MAKEFLAGS MFLAGS MAKELEVEL
export LC_ALL=C
export DFT_SHARE_DIR="$REPO/share/dft"
# Keep user-level state of the tools out of the developer's home.
export XDG_CACHE_HOME="${BATS_FILE_TMPDIR:-/tmp}/xdg-cache"
export XDG_DATA_HOME="${BATS_FILE_TMPDIR:-/tmp}/xdg-data"

# throttle_early: the runtime's early throttle decision (DFT_THROTTLE_EARLY in
# runtime/src/core.h, DFTRACER_THROTTLE_EARLY's default): the complete events a
# function nearly always short gets on a thread before it is folded; fails
# when the definition is not found
throttle_early() {
	local e
	e=$(sed -n 's/^#define DFT_THROTTLE_EARLY \([1-9][0-9]*\)$/\1/p' "$REPO/runtime/src/core.h")
	[ -n "$e" ] || { echo "no DFT_THROTTLE_EARLY in runtime/src/core.h" >&2; return 1; }
	echo "$e"
}

# bats_library DIR: the files DIR/load.bash sources, in its order, without
# its `$(dirname ...)` per file (fifteen processes for the two libraries,
# in every test: about 20 ms of CPU a test); load.bash itself when it has
# another shape.
bats_library() {
	local line n=0
	while IFS= read -r line; do
		# shellcheck disable=SC2016
		case $line in
		'source "$(dirname "${BASH_SOURCE[0]}")/'*'"')
			line=${line#*\")/}
			# shellcheck disable=SC1090
			source "$1/${line%\"}" || return 1
			n=$((n + 1)) ;;
		'' | '#'*) ;;
		*) n=-1; break ;;
		esac
	done <"$1/load.bash"
	[ "$n" -gt 0 ] || load "$1/load.bash"
}
for lib in /usr/lib/bats/bats-support /usr/lib/bats-support; do
	[ -f "$lib/load.bash" ] && { bats_library "$lib"; break; }
done
for lib in /usr/lib/bats/bats-assert /usr/lib/bats-assert; do
	[ -f "$lib/load.bash" ] && { bats_library "$lib"; break; }
done

# untraced: bats runs its DEBUG trap (a stack trace kept for the failure
# report) before every command of a test, ~0.3 ms a command: a loop of
# printf that writes a test's input pays it per line (3,500 generated trace
# lines took 4.9 s, 0.1 s without). Called first in a subshell,
# `( untraced; for ...; done ) >file` runs the rest without it. A command
# that fails there still fails the test (errexit ends the subshell with
# its status); bats' report then names the subshell's line.
untraced() {
	trap - DEBUG
}

# make ARGS... one at a time: `make check` runs test files in parallel, and
# every make of runtime/ rewrites its pkg-config files (make.bats,
# runtime.bats and the setup of the files that use the runtime).
make_locked() {
	flock "$REPO/runtime/Makefile" make "$@"
}

# The version every tool must print: the Makefile's VERSION.
dft_version() {
	sed -n 's/^VERSION = //p' "$REPO/Makefile"
}

# A record no tool consumes: every filter must pass it through unchanged.
PASS_RECORD='{"type":"x-test","v":1,"n":1,"s":"caf\u00e9 \"q\""}'

# Removes the step records a tool appends, so outputs can be compared.
without_steps() {
	grep -v '"type":"step"' "$@" || true
}

# --help: the usage, then what the tool does and every option the man page
# documents (an .It Fl line), on stdout.
checklist_help() {
	local opt help
	run -0 --separate-stderr "$1" --help
	assert_output --partial "usage: $1"
	[ -z "$stderr" ] || fail "--help wrote to stderr: $stderr"
	help=$output
	[ "$help" != "$(usage_of "$1")" ] || fail "--help prints only the usage"
	for opt in $(grep '^\.It Fl' "$REPO/man/$1.1" |
		grep -o 'Fl -[a-z][a-z0-9-]*' | sed 's/^Fl //' | sort -u); do
		[[ "$help" == *"$opt"* ]] || fail "--help does not explain $opt"
	done
	run -0 --separate-stderr "$1" -h
	assert_output "$help"
}

checklist_version() {
	run -0 --separate-stderr "$1" --version
	assert_output "$1 $(dft_version)"
}

# The usage text of a tool: the first line of its --help and the indented
# lines that follow it (the same text a usage error prints after its
# message).
usage_of() {
	"$1" --help | awk 'NR > 1 && !/^ / { exit } { print }'
}

# checklist_usage_error TOOL MESSAGE ARG...: TOOL ARG... is a usage error
# (exit 2, nothing on stdout) whose stderr is exactly one line,
# "TOOL: MESSAGE", then the usage text.
checklist_usage_error() {
	local tool=$1 msg=$2 usage
	shift 2
	usage=$(usage_of "$tool")
	run -2 --separate-stderr "$tool" "$@" </dev/null
	assert_output ""
	[ "${stderr%%$'\n'*}" = "$tool: $msg" ] ||
		fail "first line of stderr is '${stderr%%$'\n'*}', want '$tool: $msg'"
	[ "$stderr" = "$tool: $msg"$'\n'"$usage" ] ||
		fail "stderr is not one message and the usage: $stderr"
}

checklist_unknown_option() {
	checklist_usage_error "$1" "unknown option: --no-such-option" \
		--no-such-option
	checklist_usage_error "$1" "unknown option: --no-such-option" \
		--no-such-option=1
	checklist_usage_error "$1" "unknown option: -@" -@
	checklist_usage_error "$1" "option takes no argument: --help" --help=1
}

# The options the man page of a tool lists with an argument (".It Fl x Ar
# y", ".It Fl -by Cm size"), short and long.
man_argument_options() {
	grep '^\.It Fl' "$REPO/man/$1.1" | sed 's/^\.It //' | tr ',' '\n' |
		awk '$1 == "Fl" && ($3 == "Ar" || $3 == "Cm") { print "-" $2 }' |
		sort -u
}

# checklist_missing_argument TOOL OPTION...: each OPTION, and each option
# the man page lists with an argument, given last with nothing after it, is
# "option requires an argument" (one line, then the usage).
checklist_missing_argument() {
	local tool=$1 opt usage
	shift
	usage=$(usage_of "$tool")
	for opt in $(printf '%s\n' "$@" $(man_argument_options "$tool") |
		sort -u); do
		run -2 --separate-stderr "$tool" "$opt" </dev/null
		assert_output ""
		[ "$stderr" = "$tool: option requires an argument: $opt"$'\n'"$usage" ] ||
			fail "$opt: $stderr"
	done
}

# checklist_bad_value TOOL OPTION VALUE EXPECTED: the one bad-value form.
checklist_bad_value() {
	checklist_usage_error "$1" "$2: bad value '$3' (expected $4)" "$2" "$3"
}

# --help and --version check their own output, as every other write does.
checklist_help_dev_full() {
	local opt
	for opt in -V --version -h --help; do
		run -2 --separate-stderr bash -o pipefail -c "'$1' $opt >/dev/full"
		[ "$stderr" = "$1: write error: No space left on device" ] ||
			fail "$opt >/dev/full: $stderr"
	done
}

checklist_empty_input() {
	run -0 --separate-stderr "$1" </dev/null
	run -0 bash -o pipefail -c "'$1' </dev/null | { grep -v '\"type\":\"step\"' || true; }"
	assert_output ""
}

checklist_dash_is_stdin() {
	local f="$BATS_TEST_TMPDIR/in.ndjson"
	printf '%s\n' "$PASS_RECORD" >"$f"
	run -0 bash -o pipefail -c "'$1' '$f' | grep -v '\"type\":\"step\"'"
	assert_output "$PASS_RECORD"
	run -0 bash -o pipefail -c "'$1' <'$f' | grep -v '\"type\":\"step\"'"
	assert_output "$PASS_RECORD"
	run -0 bash -o pipefail -c "'$1' - <'$f' | grep -v '\"type\":\"step\"'"
	assert_output "$PASS_RECORD"
	# two operands concatenate, in order
	run -0 bash -o pipefail -c "'$1' '$f' '$f' | grep -v '\"type\":\"step\"'"
	assert_output "$(printf '%s\n%s' "$PASS_RECORD" "$PASS_RECORD")"
}

checklist_malformed_line() {
	local f="$BATS_TEST_TMPDIR/bad.ndjson"
	printf '%s\n{"type": bad\n%s\n' "$PASS_RECORD" "$PASS_RECORD" >"$f"
	run -1 --separate-stderr "$1" <"$f"
	[[ "$stderr" == *"$1: <stdin>:2: "* ]] || fail "no position: $stderr"
	# exit 1 (a bad line), and both good lines passed through
	run -1 bash -o pipefail -c "'$1' <'$f' 2>/dev/null | grep -c x-test"
	assert_output 2
}

checklist_missing_file() {
	run -1 --separate-stderr "$1" "$BATS_TEST_TMPDIR/no-such-file"
	[[ "$stderr" == *"$1: cannot open '$BATS_TEST_TMPDIR/no-such-file': No such file or directory"* ]] ||
		fail "unexpected message: $stderr"
}

checklist_dev_full() {
	local f="$BATS_TEST_TMPDIR/in.ndjson"
	printf '%s\n' "$PASS_RECORD" >"$f"
	run -2 --separate-stderr bash -o pipefail -c "'$1' '$f' >/dev/full"
	[[ "$stderr" == *"$1: write error"* ]] || fail "unexpected message: $stderr"
}

# --prefix-map (dft-funcs, dft-lint): a value without '=', or with an empty
# side, is a usage error.
checklist_bad_prefix_map() {
	local v
	for v in nomap =/x /x=; do
		checklist_bad_value "$1" --prefix-map "$v" OLD=NEW
	done
}

# The man page lints and documents every long option that --help shows.
checklist_man() {
	local page="$REPO/man/$1.1" opt text
	[ -f "$page" ] || fail "no man page $page"
	run -0 mandoc -Tlint -Wwarning "$page"
	text=$(mandoc -Tascii "$page" | col -b)
	for opt in $("$1" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
		[[ "$text" == *"$opt"* ]] || fail "$opt is not in $page"
	done
}

# The EXAMPLES of the man page that use the test fixtures, one per line
# (.Dl lines and .Bd -literal blocks, "\e" continuations joined).
man_examples() {
	awk '/^\.Sh EXAMPLES/ { on = 1; next } /^\.Sh / { on = 0 }
		!on { next }
		/^\.Dl / { sub(/^\.Dl /, ""); print; next }
		/^\.Bd -literal/ { lit = 1; cur = ""; next }
		/^\.Ed/ { if (lit) print cur; lit = 0; next }
		lit { l = $0; sub(/^ +/, "", l); if (sub(/\\e$/, "", l)) cur = cur l; else cur = cur l " " }' "$1" |
		sed 's/ *$//' | grep 'tests/fixtures'
}

# mann_whitney_p A B: the exact two-sided Mann-Whitney p of the samples A and
# B (comma-separated numbers), by enumerating every split of the pooled
# mid-ranks; independent of dft-compare's implementation.
mann_whitney_p() {
	python3 - "$1" "$2" <<'PY'
import itertools, sys
a, b = [list(map(float, s.split(','))) for s in sys.argv[1:3]]
pool = sorted(a + b)
def rank(v):
    idx = [i + 1 for i, x in enumerate(pool) if x == v]
    return sum(idx) / len(idx)
r = [rank(v) for v in pool]
n = len(a); N = len(pool); e = n * (N + 1) / 2
w = sum(rank(v) for v in a)
splits = list(itertools.combinations(r, n))
hits = sum(1 for c in splits if abs(sum(c) - e) >= abs(w - e) - 1e-9)
print('%.6g' % (hits / len(splits)))
PY
}

# box_lines: the lines of dft-pipeline's annotation box in the output on
# stdin, each line the box wrapped (its rest indented by two) joined again.
box_lines() {
	sed -n 's/^│ \(.*\)│$/\1/p' | sed 's/ *$//' |
		awk 'NR > 1 && /^  / { sub(/^ +/, ""); line = line " " $0; next }
			NR > 1 { print line } { line = $0 } END { if (NR) print line }'
}

# box_too_wide: the box lines on stdin wider than 100 columns (the box wraps
# at 96 plus its frame) that hold a space, where the box could have wrapped.
box_too_wide() {
	LC_ALL=C awk '/^(│|┌|└|├)/ { c = $0; gsub(/[\200-\277]/, "", c)
		if (length(c) > 100 && substr(c, 3, length(c) - 4) ~ /[^ ] +[^ ]/) print }'
}
