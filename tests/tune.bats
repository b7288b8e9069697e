#!/usr/bin/env bats
# tests/tune.bats - libdft_tune.so (runtime/src/tune.c), the tuning library
# of the optimization loop: each knob leaves the program's output and the
# bytes it writes unchanged (under fork, threads, system(), _exit and
# SIGTERM), does what it says (system calls counted with strace), and
# nothing happens without a DFT_TUNE_* variable.

load test_helper

RT="$REPO/runtime/build"
FX="$REPO/tests/fixtures/runtime"
LIB="$RT/lib/libdft_tune.so"

setup_file() {
	make_locked -s -C "$REPO/runtime" all >/dev/null
	cc -Wall -Wextra -Werror -O2 -pthread -o "$BATS_FILE_TMPDIR/app" "$FX/tune_app.c"
}

# app NAME END ENV...: the test program in run directory NAME (files in
# NAME/w, output in NAME/out with the exit status)
app() {
	local d="$BATS_TEST_TMPDIR/$1" end=$2 rc=0
	shift 2
	mkdir -p "$d/w"
	env "$@" "$BATS_FILE_TMPDIR/app" "$d/w" "$end" >"$d/out" 2>&1 || rc=$?
	echo "exit $rc" >>"$d/out"
}

# same NAME: NAME's output and files are the plain run's, byte for byte
same() {
	run -0 diff -r "$BATS_TEST_TMPDIR/plain/w" "$BATS_TEST_TMPDIR/$1/w"
	run -0 diff "$BATS_TEST_TMPDIR/plain/out" "$BATS_TEST_TMPDIR/$1/out"
}

knobs_same() {
	local end=$1 want=$2
	app plain "$end" DFT_TEST=1
	run -0 tail -n 1 "$BATS_TEST_TMPDIR/plain/out"
	assert_output "exit $want"
	# the three writers of fork.txt all wrote: 500 records each
	run -0 wc -l "$BATS_TEST_TMPDIR/plain/w/fork.txt"
	assert_output --regexp '^1500 '
	app off "$end" LD_PRELOAD="$LIB"
	same off
	app wb "$end" LD_PRELOAD="$LIB" DFT_TUNE_WRITE_BUFFER=64K
	same wb
	app ra "$end" LD_PRELOAD="$LIB" DFT_TUNE_READ_AHEAD=64K
	same ra
	app st "$end" LD_PRELOAD="$LIB" DFT_TUNE_STDIO_BUFFER=1M
	same st
	app fa "$end" LD_PRELOAD="$LIB" DFT_TUNE_FADVISE=sequential
	same fa
	app fs "$end" LD_PRELOAD="$LIB" DFT_TUNE_FSYNC=fdatasync
	same fs
	app all "$end" LD_PRELOAD="$LIB" DFT_TUNE_WRITE_BUFFER=4K DFT_TUNE_READ_AHEAD=4K \
		DFT_TUNE_STDIO_BUFFER=1M DFT_TUNE_FADVISE=random DFT_TUNE_FSYNC=fdatasync \
		DFT_TUNE_DIR="$BATS_TEST_TMPDIR"
	same all
}

@test "every knob leaves output and files unchanged when main returns" {
	knobs_same return 0
}

@test "every knob leaves output and files unchanged when the program ends with _exit" {
	knobs_same _exit 0
	# the records written just before _exit are in the file
	run -0 tail -n 1 "$BATS_TEST_TMPDIR/wb/w/shown.txt"
	assert_output "last 000099"
}

@test "every knob leaves output and files unchanged when SIGTERM ends the program" {
	knobs_same term 143
	run -0 tail -n 1 "$BATS_TEST_TMPDIR/all/w/shown.txt"
	assert_output "last 000099"
}

# traced NAME SYSCALLS ENV...: the program run under strace -e trace=SYSCALLS
# (comma-separated), the log in NAME/strace
traced() {
	local d="$BATS_TEST_TMPDIR/$1" sc=$2
	shift 2
	mkdir -p "$d/w"
	env "$@" strace -f -qq -e trace="$sc" -o "$d/strace" "$BATS_FILE_TMPDIR/app" "$d/w" return \
		>/dev/null 2>&1
}

# counted NAME SYSCALL: how many SYSCALL calls NAME/strace has (a call a
# thread switch splits is one "SYSCALL(... <unfinished ...>" line and one
# "<... resumed>" line: counted once)
counted() {
	# (the dynamic loader's reads of ELF headers are not the program's)
	grep "^[0-9]* *$2(" "$BATS_TEST_TMPDIR/$1/strace" | grep -vc '\\177ELF' || true
}

# calls NAME SYSCALL ENV...: how many times the program made SYSCALL
calls() {
	traced "$@"
	counted "$1" "$2"
}

# calls_on NAME FILES ENV...: how many write(2)s went to the files whose
# names match the extended regular expression FILES
calls_on() {
	local d="$BATS_TEST_TMPDIR/$1" files=$2
	shift 2
	mkdir -p "$d/w"
	env "$@" strace -y -f -qq -e trace=write -o "$d/strace" "$BATS_FILE_TMPDIR/app" "$d/w" return \
		>/dev/null 2>&1
	grep -Ec "^[0-9]* *write\([0-9]+<[^>]*/($files)>" "$d/strace" || true
}

@test "each knob does what it says: fewer writes, fewer reads, one stdio write per MiB, fdatasync, fadvise" {
	command -v strace >/dev/null || skip "no strace"
	local a b
	# small writes gathered: 5000 + 10 + 1 + 1500 + 4000 + 200 + 103
	# records, each a write(2) of its own without the buffer (and the
	# 2000 lines of the unbuffered stdio log, not gathered: stdio writes
	# inside libc)
	traced base write,read LD_PRELOAD="$LIB"
	a=$(counted base write)
	b=$(calls w1 write LD_PRELOAD="$LIB" DFT_TUNE_WRITE_BUFFER=64K)
	[ "$a" -gt 12800 ] && [ $((b - 2000)) -lt $(((a - 2000) / 50)) ] || fail "writes $a -> $b"
	# small reads served from 64 KiB reads: 55000 bytes in 16-byte reads
	a=$(counted base read)
	b=$(calls r1 read LD_PRELOAD="$LIB" DFT_TUNE_READ_AHEAD=64K)
	[ "$a" -gt 3400 ] && [ "$b" -lt 50 ] || fail "reads $a -> $b"
	# 5000 stdio lines of 9 to 10 bytes (about 12 writes of a 4 KiB
	# block) and 2000 unbuffered lines (2000 writes): one write each with a
	# 1 MiB buffer. Counted on those two files only: how the threads'
	# gathered writes fall varies from run to run.
	a=$(calls_on s0 'stdio.txt|unbuffered.log' LD_PRELOAD="$LIB" DFT_TUNE_WRITE_BUFFER=64K)
	b=$(calls_on s1 'stdio.txt|unbuffered.log' LD_PRELOAD="$LIB" DFT_TUNE_WRITE_BUFFER=64K DFT_TUNE_STDIO_BUFFER=1M)
	[ "$a" -ge 2010 ] && [ "$b" -eq 2 ] || fail "stdio writes $a -> $b"
	traced fs fsync,fdatasync LD_PRELOAD="$LIB" DFT_TUNE_FSYNC=fdatasync
	a=$(counted fs fsync)
	b=$(counted fs fdatasync)
	[ "$a" -eq 0 ] && [ "$b" -eq 20 ] || fail "fsync $a, fdatasync $b"
	# a hint right after each open of a file below DFT_TUNE_DIR (by the
	# program and the cat it runs; not their libraries), from the trace
	# (an open strace split around a thread switch is not counted)
	calls a1 fadvise64,openat LD_PRELOAD="$LIB" DFT_TUNE_FADVISE=sequential \
		DFT_TUNE_DIR="$BATS_TEST_TMPDIR/a1" >/dev/null
	run -0 awk -v w="\"$BATS_TEST_TMPDIR/a1/w/" '
		$2 ~ /^openat/ && index($0, w) && $NF ~ /^[0-9]+$/ { want[$1] = $NF; opens++; next }
		$2 ~ /^fadvise64\(/ && ($1 in want) {
			split($2, a, /[(,]/)
			if (a[2] == want[$1] && $0 ~ /POSIX_FADV_SEQUENTIAL/) hinted++
			delete want[$1] }
		END { print opens, hinted }' "$BATS_TEST_TMPDIR/a1/strace"
	read -r a b <<<"$output"
	[ "$a" -ge 6 ] && [ "$b" -eq "$a" ] || fail "files opened $a, hinted $b"
}

@test "without a DFT_TUNE_ variable the library changes no data system call" {
	command -v strace >/dev/null || skip "no strace"
	local sc a b all=write,read,pwrite64,lseek,fsync,fdatasync,fadvise64
	# one traced run each, every call counted from it
	traced plain "$all" DFT_TEST=1
	traced off "$all" LD_PRELOAD="$LIB"
	for sc in ${all//,/ }; do
		a=$(counted plain "$sc")
		b=$(counted off "$sc")
		[ "$a" -eq "$b" ] || fail "$sc: $a without the library, $b with it"
	done
	# the program makes every call but fsync and fdatasync (no knob)
	[ "$(counted plain write)" -gt 12800 ] && [ "$(counted plain read)" -gt 3400 ] ||
		fail "not the calls of the test program: $(wc -l <"$BATS_TEST_TMPDIR/plain/strace") lines"
}

@test "dftracer-runtime(7) documents every DFT_TUNE_ variable the library reads" {
	local v n=0
	while IFS= read -r v; do
		n=$((n + 1))
		grep -q "Ev $v" "$REPO/man/dftracer-runtime.7" || fail "$v undocumented"
	done < <(grep -o '"DFT_TUNE_[A-Z_]*"' "$REPO/runtime/src/tune.c" | tr -d '"' | sort -u)
	[ "$n" -eq 6 ]
}
