#!/bin/sh
# tests/bench/overhead.sh - the tracing overhead of applications as the
# pipeline leaves them (issue 16: <= 5 % wall time on real applications,
# and <= 1.5 times the events that the I/O alone would give), measured
# again, with many interleaved rounds, on workspaces that dft-pipeline
# made.  It reads the workspaces; it builds and annotates nothing, and it
# knows no particular application.
#
# usage: tests/bench/overhead.sh [WORKSPACE...]
#        tests/bench/overhead.sh --pool OUT...
#
# A WORKSPACE is the directory of one run of dft-pipeline (the one with
# pipeline.state; the traced run, step 10, done), or a root of workspaces
# (dft-pipeline -w ROOT): then the current run of each application in it
# (ROOT/APP/.current_run), or one application's ROOT/APP: its current run.  Without one (make bench), the bundled sample's
# workspace is made first with scripts/dft-demo (a temporary root, removed
# at the end, with the raw data unless OUT is given).
#
# What is timed, as the pipeline's own overhead measurement
# (tracing_overhead in scripts/dft-pipeline) times it:
#   untraced   scripts/run_baseline.sh: the smoke command in build/, the
#              build without annotations
#   traced     scripts/run_annotated.sh, the traced run: the smoke command
#              in build_ann/, the annotated build, with the tracer's
#              environment of runs/annotated/env (DFTRACER_ENABLE,
#              DFTRACER_DATA_DIR, DFTRACER_INC_METADATA, the library's
#              LD_LIBRARY_PATH where the build needs it, PYTHONPATH, and for
#              Python LD_PRELOAD of libdftracer_preload.so), traces written
#              to a scratch directory (DFTRACER_LOG_FILE) and removed after
#              each run.
# RUNTIME="DIR..." times, instead of the workspace's own tracer, the
# runtime build in each DIR (a checkout's runtime/, with build/lib and
# python/, or a copy of them; LABEL=DIR names its column): the same
# annotated binaries with another tracer, e.g. a before/after of a tracer
# change.  Its library comes first on LD_LIBRARY_PATH (over the RUNPATH
# dft-cc gave the binaries), its Python package first on PYTHONPATH, its
# preload library in LD_PRELOAD where the workspace preloads one.  A DIR
# "-" is the workspace's own tracer.  Which copy of the library the traced
# processes loaded is checked (LD_DEBUG, in the one untimed counting run of
# each configuration) and printed; a run that loaded another copy than its
# DIR's is an error.  (Give both sides as DIRs for a before/after: the
# workspace's own side has no LD_LIBRARY_PATH, the others do, and ld.so
# then probes one more directory for every library of every process.)
#
# How: a warm-up run of each configuration, then ROUNDS rounds of one run
# of each, the order rotated from round to round (A B, B A, A B ... with
# two), so a machine whose load drifts slows every configuration alike;
# PASSES times over all the workspaces (the rounds of all passes pooled).
# Each run is timed by a perl wrapper around fork/exec/wait (monotonic
# clock, and the CPU time of the run's reaped processes), not by the
# shell, so no process start of the harness is in a time.  A configuration
# whose run exits non-zero (or loads another tracer than its own) is
# dropped for that application, said on standard error and FAILED in the
# table (an "untraced" that fails drops the application); the exit status
# is 1 then.
#
# Reported per application and traced configuration (and in
# OUT/summary.tsv):
#   untraced_s   median wall time of the untraced runs
#   ovh_med      median traced over median untraced, minus 1, in percent
#   ovh_pair     median of the per-round ratios traced/untraced (the runs
#                of one round are next to each other in time), minus 1
#   ci95         95 % interval of ovh_pair: order statistics of the
#                paired ratios (the distribution-free interval of a
#                median: ranks from the binomial(ROUNDS, 1/2) quantiles)
#   cpu_pair     the same paired median of CPU time (user + system of
#                the run's processes), less sensitive to other load
#   events       complete, counter and aggregated records (ph X, C, 1 or
#                3, as the pipeline counts them) of a traced run, all its
#                trace files (all its traced processes): the median over
#                the timed runs (the runtime's throttle decides by time, so
#                the count varies; its range is in summary.tsv)
#   io           those of them that the tracer writes for I/O without any
#                annotation: cat POSIX, STDIO, MPIIO or HDF5 (the
#                categories to which dft-analyze gives an I/O class, the
#                I/O events of the pipeline's event budget); counts.tsv
#                has MPIIO and HDF5 apart
#   ev/io        events per I/O record (issue 16's target: <= 1.5)
# Raw data in OUT (default: a new directory, kept and printed; OUT=DIR to
# choose): samples.tsv (app, pass, round, configuration, wall s, CPU s,
# exit, events, I/O records), counts.tsv (the untimed counting run's),
# summary.tsv, the run scripts and each configuration's libraries loaded
# (ldso.txt).
#
# --pool OUT... prints (and writes to a new OUT) the summary of the raw data
# of several runs of this script with the same configurations, pooled: a
# long measurement in pieces, each with its own table.
# Knobs: ROUNDS (default 21), PASSES (1), RUNTIME (-), OUT, TIMEOUT
# (seconds a run may take, default 600).  Timings are printed, never
# asserted; a wall time means something only on a quiet machine (the
# uptime load is printed before and after).
# Needs: sh, awk, perl (Time::HiRes), gzip.
set -eu

REPO=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${ROUNDS:-21}
PASSES=${PASSES:-1}
RUNTIME=${RUNTIME:--}
TIMEOUT=${TIMEOUT:-600}
case "$ROUNDS$PASSES$TIMEOUT" in *[!0-9]*) echo "overhead.sh: ROUNDS, PASSES and TIMEOUT are integers" >&2; exit 2 ;; esac
if [ "$ROUNDS" -lt 1 ] || [ "$PASSES" -lt 1 ]; then echo "overhead.sh: ROUNDS and PASSES are at least 1" >&2; exit 2; fi
command -v perl >/dev/null 2>&1 || { echo "overhead.sh: needs perl" >&2; exit 2; }

# The environment of the runs is the workspace's scripts' alone.
unset LD_PRELOAD LD_DEBUG LD_DEBUG_OUTPUT DFTRACER_ENABLE DFTRACER_INIT \
	DFTRACER_LOG_FILE DFTRACER_DATA_DIR DFTRACER_LIB 2>/dev/null || :

OUT_MADE=
if [ -z "${OUT:-}" ]; then
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/dft-overhead.XXXXXX")
	OUT_MADE=1
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

die() {
	echo "overhead.sh: $*" >&2
	exit 1
}

# Single-quotes $1 for a generated shell script.
shquote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# drop D CONFIG WHY: CONFIG is timed no more for the application in D
drop() {
	echo "overhead.sh: ${1##*/} $2: $3; dropped" >&2
	echo "$3" >"$1/$2.failed"
	printf '%s\t%s\n' "${1##*/}" "$2" >>"$OUT/failed.tsv"
}

# state WS KEY: the last value of KEY in WS/pipeline.state.
state() {
	sed -n "s/^$2=//p" "$1/pipeline.state" | tail -n 1
}

summarize() {
# the summary: medians, paired ratios and their interval, per app and
# traced configuration
awk -F '\t' -v failed="$OUT/failed.tsv" -v applist="$OUT/apps" -v cfglist="$OUT/configs" '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function sorta(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
}
# the rank j of the 95 % interval of a median of n: the largest j with
# P(Binomial(n, 1/2) < j) <= 0.025 (0 when n is too small)
function cirank(n,   j, lp, c) {
	# (the binomial terms in logarithms: 2^-n underflows past n ~ 1000)
	c = 0; j = 0
	lp = -n * log(2)
	while (j < n / 2 && c + exp(lp) <= 0.025) { c += exp(lp); j++; lp += log((n - j + 1) / j) }
	return j
}
BEGIN {
	while ((getline l < failed) > 0) { split(l, f, "\t"); F[f[1], f[2]] = 1 }
	while ((getline l < applist) > 0) { split(l, f, "\t"); apps[++na] = f[1] }
	while ((getline l < cfglist) > 0) { split(l, f, "\t"); cfgs[++nc] = f[1] }
}
NR == 1 || $7 != 0 { next }
{
	key = $1 SUBSEP $2 SUBSEP $3
	W[key, $4] = $5; C[key, $4] = $6; E[key, $4] = $8; I[key, $4] = $9
	if (!((key) in seenkey)) { seenkey[key] = 1; keys[$1, ++nk[$1]] = key }
}
END {
	printf "app\tconfig\trounds\tuntraced_s\ttraced_s\tovh_med_pct\tovh_pair_pct\tci95_lo_pct\tci95_hi_pct\tcpu_pair_pct\tevents\tio\tev_per_io\tevents_range\tio_range\n"
	for (i = 1; i <= na; i++) {
		a = apps[i]
		for (q = 1; q <= nc; q++) {
			c = cfgs[q]
			if ((a, c) in F || (a, "untraced") in F) {
				printf "%s\t%s\t0\t-\t-\tFAILED\t-\t-\t-\t-\t-\t-\t-\t-\t-\n", a, c
				continue
			}
			n = 0
			for (r = 1; r <= nk[a]; r++) {
				key = keys[a, r]
				if (!((key, c) in W) || !((key, "untraced") in W)) continue
				n++
				u[n] = W[key, "untraced"]; t[n] = W[key, c]
				ratio[n] = t[n] / u[n]
				cr[n] = C[key, "untraced"] > 0 ? C[key, c] / C[key, "untraced"] : 1
				ee[n] = E[key, c]; ii[n] = I[key, c]
			}
			mu = med(u, n); mt = med(t, n); mr = med(ratio, n); mc = med(cr, n)
			sorta(ratio, n)
			j = cirank(n)
			lo = j > 0 ? sprintf("%.1f", (ratio[j] - 1) * 100) : "-"
			hi = j > 0 ? sprintf("%.1f", (ratio[n - j + 1] - 1) * 100) : "-"
			# the records: the median over the timed runs, and their range
			ev = med(ee, n); io = med(ii, n)
			evr = ee[1] ".." ee[n]; ior = ii[1] ".." ii[n]
			printf "%s\t%s\t%d\t%.4f\t%.4f\t%.1f\t%.1f\t%s\t%s\t%.1f\t%d\t%d\t%s\t%s\t%s\n", a, c, n, mu, mt,
				(mt / mu - 1) * 100, (mr - 1) * 100, lo, hi, (mc - 1) * 100, ev, io,
				(io > 0 ? sprintf("%.2f", ev / io) : "-"), evr, ior
		}
	}
}' "$OUT/samples.tsv" >"$OUT/summary.tsv"

echo
echo "tracing overhead, the configurations interleaved round by round (rounds: of each, per application, all passes pooled)"
echo "(overhead: median traced / median untraced - 1; paired: median of the rounds' ratios - 1,"
echo "its 95 % interval; CPU: the same paired median of CPU time):"
awk -F '\t' 'NR == 1 {
	printf "  %-12s %-10s %6s %10s %9s %9s %17s %8s %9s %9s %7s\n", "app", "config", "rounds", "untraced_s",
		"overhead", "paired", "95 % interval", "CPU", "events", "I/O", "ev/io"; next }
$6 == "FAILED" { printf "  %-12s %-10s FAILED (see the messages above, and %s/%s/%s.failed)\n", $1, $2, out, $1, $2; next }
{ printf "  %-12s %-10s %6d %10.4f %+8.1f%% %+8.1f%% %7s .. %-7s %+7.1f%% %9d %9d %7s\n",
	$1, $2, $3, $4, $6, $7, $8, $9, $10, $11, $12, $13 }' out="$OUT" "$OUT/summary.tsv"
}

# --pool DIR...: the summary of the raw data of several runs of this
# script (their OUT directories: the same configurations), pooled
if [ "${1:-}" = --pool ]; then
	shift
	[ $# -ge 1 ] || die "--pool needs OUT directories"
	printf 'app\tpass\tround\tconfig\twall_s\tcpu_s\texit\tevents\tio\n' >"$OUT/samples.tsv"
	: >"$OUT/apps"
	: >"$OUT/failed.tsv"
	k=0
	for o in "$@"; do
		k=$((k + 1))
		if [ ! -f "$o/samples.tsv" ] || [ ! -f "$o/configs" ]; then
			die "$o: no samples.tsv and configs (not an OUT of overhead.sh)"
		fi
		if [ "$k" -eq 1 ]; then
			cp "$o/configs" "$OUT/configs"
		else
			cmp -s "$o/configs" "$OUT/configs" || die "$o: other configurations than $1's"
		fi
		# pass P of the K-th directory is pass K.P
		awk -F '\t' -v k="$k" 'BEGIN { OFS = "\t" } NR > 1 { $2 = k "." $2; print }' "$o/samples.tsv" >>"$OUT/samples.tsv"
		awk -F '\t' -v f="$OUT/apps" 'BEGIN { while ((getline l < f) > 0) { split(l, x, "\t"); s[x[1]] = 1 } }
			!($1 in s)' "$o/apps" >"$OUT/apps.new"
		cat "$OUT/apps.new" >>"$OUT/apps"
		rm -f "$OUT/apps.new"
		cat "$o/failed.tsv" >>"$OUT/failed.tsv" 2>/dev/null || :
	done
	summarize
	echo "pooled raw data: $OUT"
	exit 0
fi

# No workspace named: the sample's, made by the demo (the pipeline builds
# it, not this script).
DEMO=
if [ $# -eq 0 ]; then
	DEMO=$OUT/demo
	echo "overhead.sh: no workspace given: the bundled sample's, made by scripts/dft-demo in $DEMO"
	DFT_DEMO_ROOT=$DEMO sh "$REPO/scripts/dft-demo" >"$OUT/demo.out" 2>&1 ||
		{ tail -n 20 "$OUT/demo.out" >&2; die "scripts/dft-demo failed"; }
	set -- "$DEMO"
fi

# the run directories: each operand, or the current runs below a root
: >"$OUT/workspaces"
for w in "$@"; do
	[ -d "$w" ] || die "$w: no such directory"
	w=$(cd "$w" && pwd)
	if [ -f "$w/pipeline.state" ]; then
		echo "$w" >>"$OUT/workspaces"
		continue
	fi
	found=
	# an application's directory (ROOT/APP): its current run
	if [ -f "$w/.current_run" ]; then
		r=$(dirname "$w")/$(head -n 1 "$w/.current_run")
		[ -f "$r/pipeline.state" ] && { echo "$r" >>"$OUT/workspaces"; continue; }
	fi
	for c in "$w"/*/.current_run; do
		[ -f "$c" ] || continue
		r=$w/$(head -n 1 "$c")
		[ -f "$r/pipeline.state" ] && { echo "$r" >>"$OUT/workspaces"; found=1; }
	done
	[ -n "$found" ] || die "$w: neither a pipeline workspace (pipeline.state), an application's directory (.current_run) nor a root of them (APP/.current_run)"
done

# the configurations: "untraced" and one per RUNTIME entry (LABEL=DIR or
# DIR; "-" the workspace's own tracer)
: >"$OUT/configs"
for r in $RUNTIME; do
	case "$r" in
	*=*) label=${r%%=*} dir=${r#*=} ;;
	-) label=traced dir=- ;;
	*) dir=$r label=$(basename "$r") ;;
	esac
	if [ "$dir" != - ]; then
		[ -d "$dir" ] || die "RUNTIME: $dir: no such directory"
		dir=$(cd "$dir" && pwd)
		lib=
		for l in "$dir/build/lib" "$dir/lib"; do
			[ -f "$l/libdftracer_core.so" ] && { lib=$l; break; }
		done
		[ -n "$lib" ] || die "RUNTIME: $dir: no build/lib/libdftracer_core.so or lib/libdftracer_core.so"
		py=
		for p in "$dir/python" "$dir/../python" "$lib/../python"; do
			[ -d "$p/dftracer" ] && { py=$(cd "$p" && pwd); break; }
		done
		dir="$lib $py"
	fi
	case "$label" in untraced | *[!A-Za-z0-9_.+-]*) die "RUNTIME: bad label '$label'" ;; esac
	printf '%s\t%s\n' "$label" "$dir" >>"$OUT/configs"
done
[ "$(cut -f 1 "$OUT/configs" | sort | uniq -d)" = "" ] || die "RUNTIME: two configurations with one label"

# timer: runs "$@" (its output to files), prints "wall_s cpu_s exit": the
# monotonic clock around fork/exec/wait, and the user + system time of the
# run's reaped processes (getrusage RUSAGE_CHILDREN, in microseconds; the
# clock ticks of times() where the system call is not known)
# shellcheck disable=SC2016
TIMER='use strict; use POSIX ();
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);
my ($tmo, $out, $err) = splice(@ARGV, 0, 3);
my $nr = eval { require "syscall.ph"; &SYS_getrusage() };
sub cpu {
	my $b = "\0" x 144;
	if (defined $nr && syscall($nr, -1, $b) == 0) {
		my ($us, $uu, $ss, $su) = unpack("q4", $b);
		return $us + $ss + ($uu + $su) / 1e6;
	}
	my @t = times;
	return $t[2] + $t[3];
}
my $c0 = cpu();
my $t0 = clock_gettime(CLOCK_MONOTONIC);
my $pid = fork;
die "fork: $!" unless defined $pid;
if ($pid == 0) {
	POSIX::setpgid(0, 0);
	open(STDIN, "<", "/dev/null"); open(STDOUT, ">", $out); open(STDERR, ">", $err);
	exec @ARGV or POSIX::_exit(127);
}
local $SIG{ALRM} = sub { kill "TERM", -$pid; sleep 5; kill "KILL", -$pid };
alarm $tmo;
waitpid($pid, 0);
my $st = $?;
alarm 0;
my $t1 = clock_gettime(CLOCK_MONOTONIC);
my $c1 = cpu();
my $rc = ($st & 127) ? 128 + ($st & 127) : $st >> 8;
printf "%.6f %.6f %d\n", $t1 - $t0, $c1 - $c0, $rc;'

# make_scripts WS D: D/untraced.sh and D/LABEL.sh (traces to D/LABEL.tr)
make_scripts() {
	ws=$1
	d=$2
	[ -f "$ws/scripts/run_baseline.sh" ] || die "$ws: no scripts/run_baseline.sh (the smoke test, step 5, not done)"
	[ -f "$ws/scripts/run_annotated.sh" ] || die "$ws: no scripts/run_annotated.sh (the traced run, step 10, not done)"
	grep -q '^DFTRACER_LOG_FILE=' "$ws/scripts/run_annotated.sh" ||
		die "$ws: scripts/run_annotated.sh sets no DFTRACER_LOG_FILE"
	cp "$ws/scripts/run_baseline.sh" "$d/untraced.sh"
	own_lib=$(state "$ws" tracer_lib)
	while IFS="$(printf '\t')" read -r label dir; do
		{
			# everything of the traced run but its trace directory,
			# and another tracer's paths before the cd to the build
			sed -n '/^cd /q; p' "$ws/scripts/run_annotated.sh" |
				sed "s|^DFTRACER_LOG_FILE=.*|DFTRACER_LOG_FILE=$(shquote "$d/$label.tr/trace")|"
			if [ "$dir" != - ]; then
				# shellcheck disable=SC2086
				set -- $dir
				echo "# overhead.sh: the tracer of RUNTIME $1"
				echo "LD_LIBRARY_PATH=$(shquote "$1")\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
				echo "DFTRACER_LIB=$(shquote "$1/libdftracer_core.so")"
				echo 'export LD_LIBRARY_PATH DFTRACER_LIB'
				if [ -n "${2:-}" ]; then
					echo "PYTHONPATH=$(shquote "$2")\${PYTHONPATH:+:\$PYTHONPATH}"
					echo 'export PYTHONPATH'
				fi
				if grep -q '^DFTRACER_INIT=PRELOAD LD_PRELOAD=' "$ws/scripts/run_annotated.sh"; then
					echo "LD_PRELOAD=$(shquote "$1/libdftracer_preload.so")"
					echo 'export LD_PRELOAD'
				fi
			fi
			sed -n '/^cd /,$p' "$ws/scripts/run_annotated.sh"
		} >"$d/$label.sh"
	done <"$OUT/configs"
	[ -n "$own_lib" ] || own_lib=-
	echo "$own_lib" >"$d/own_lib"
}

# timed WS D APP PASS ROUND CONFIG: one timed run, a line of samples.tsv
timed() {
	rm -rf "$2/$6.tr"
	mkdir -p "$2/$6.tr"
	# shellcheck disable=SC2046
	set -- "$@" $(perl -e "$TIMER" "$TIMEOUT" "$2/$6.stdout" "$2/$6.stderr" sh "$2/$6.sh")
	# the records of this run (after its time is taken)
	tc="-	-"
	[ "$6" = untraced ] || tc=$(trace_count "$2/$6.tr" | awk '{ printf "%s\t%s", $2, $3 }')
	rm -rf "$2/$6.tr"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$3" "$4" "$5" "$6" "$7" "$8" "$9" "$tc" >>"$OUT/samples.tsv"
	if [ "$9" -ne 0 ]; then
		tail -n 5 "$2/$6.stderr" >&2
		drop "$2" "$6" "the run of round $5 exited $9 (script $2/$6.sh, output $2/$6.stdout, $2/$6.stderr)"
	fi
}

# trace_count DIR: "files events io mpiio_hdf5" of the traces in DIR
trace_count() {
	files=0
	for f in "$1"/*.pfw "$1"/*.pfw.gz; do
		[ -f "$f" ] && files=$((files + 1))
	done
	# (pfw.gz: gzip -dcf reads plain files too)
	find "$1" -name '*.pfw*' -type f -exec gzip -dcf {} + 2>/dev/null | awk -v files="$files" '
		/"ph" *: *("X"|"C"|1|3)/ {
			ev++
			if (match($0, /"cat" *: *"[^"]*"/)) {
				c = tolower(substr($0, RSTART, RLENGTH)); sub(/.*: *"/, "", c); sub(/"$/, "", c)
				if (c == "posix" || c == "stdio") io++
				else if (c == "mpiio" || c == "hdf5") { io++; up++ }
			}
		}
		END { printf "%d %d %d %d\n", files, ev, io, up }'
}

# count WS D APP CONFIG: one untimed traced run; its records in counts.tsv,
# the tracer's libraries its processes loaded in D/CONFIG.ldso
count() {
	rm -rf "$2/$4.tr" "$2/$4.ld"
	mkdir -p "$2/$4.tr" "$2/$4.ld"
	# shellcheck disable=SC2046
	set -- "$@" $(LD_DEBUG=files LD_DEBUG_OUTPUT="$2/$4.ld/ld" perl -e "$TIMER" "$TIMEOUT" "$2/$4.stdout" "$2/$4.stderr" sh "$2/$4.sh")
	if [ "$7" -ne 0 ]; then
		tail -n 5 "$2/$4.stderr" >&2
		drop "$2" "$4" "the counting run exited $7 (script $2/$4.sh, output $2/$4.stderr)"
		return 0
	fi
	# the files ld.so initialised: the tracer's library (or preload
	# library) and the Python package's extension
	cat "$2/$4.ld"/ld.* 2>/dev/null |
		sed -n 's/.*calling init: //p' |
		grep -E 'libdftracer_(core|preload)\.so|/dftracer/_cext' | sort -u >"$2/$4.ldso" || :
	rm -rf "$2/$4.ld"
	printf '%s\t%s\t%s\t%s\n' "$3" "$4" "$(trace_count "$2/$4.tr" | tr ' ' '\t')" "$(wc -l <"$2/$4.ldso" | tr -d ' ')" >>"$OUT/counts.tsv"
	rm -rf "$2/$4.tr"
}

printf 'app\tpass\tround\tconfig\twall_s\tcpu_s\texit\tevents\tio\n' >"$OUT/samples.tsv"
: >"$OUT/failed.tsv"
printf 'app\tconfig\ttrace_files\tevents\tio\tmpiio_hdf5\ttracer_libs\n' >"$OUT/counts.tsv"
echo "overhead.sh: $(wc -l <"$OUT/workspaces" | tr -d ' ') workspace(s), configurations untraced $(cut -f 1 "$OUT/configs" | tr '\n' ' ')($ROUNDS rounds x $PASSES pass(es)); raw data in $OUT"
echo "load before: $(uptime)"

# the scripts and the counting runs, and the checks, before any timing
: >"$OUT/apps"
while IFS= read -r ws; do
	app=$(state "$ws" run_id)
	app=${app%%/*}
	[ -n "$app" ] || app=$(basename "$(dirname "$ws")")
	n=1
	a=$app
	while grep -qx "$a	.*" "$OUT/apps" 2>/dev/null; do n=$((n + 1)); a=$app-$n; done
	d=$OUT/$a
	mkdir -p "$d"
	printf '%s\t%s\n' "$a" "$ws" >>"$OUT/apps"
	make_scripts "$ws" "$d"
	while IFS="$(printf '\t')" read -r label dir; do
		count "$ws" "$d" "$a" "$label"
		if [ "$dir" = - ]; then
			want=$(cat "$d/own_lib")
		else
			want=${dir%% *}
		fi
		[ -f "$d/$label.failed" ] && continue
		{
			echo "$a $label: tracer loaded from:"
			sed 's/^/  /' "$d/$label.ldso"
		} >>"$OUT/ldso.txt"
		if [ ! -s "$d/$label.ldso" ]; then
			drop "$d" "$label" "no traced process loaded the tracer's library (LD_DEBUG saw none)"
			continue
		fi
		# every copy loaded is the configuration's: its library
		# directory's, or its Python package's extension (the
		# workspace's own package: wherever the run found it)
		pkg=$want/
		if [ "$dir" = - ]; then
			pkg=/dftracer/_cext
		elif [ -n "${dir#* }" ]; then
			pkg=${dir#* }/dftracer/
		fi
		if [ "$want" != - ]; then
			bad=$(grep -v -F -e "$want/" -e "$pkg" "$d/$label.ldso" || :)
			[ -z "$bad" ] || drop "$d" "$label" "loaded another tracer than $want: $bad"
		fi
	done <"$OUT/configs"
done <"$OUT/workspaces"

pass=1
while [ "$pass" -le "$PASSES" ]; do
	while IFS="$(printf '\t')" read -r a ws; do
		d=$OUT/$a
		# shellcheck disable=SC2046
		set -- untraced $(cut -f 1 "$OUT/configs")
		m=$#
		# warm-up (page cache, ld.so cache), not recorded
		for c in "$@"; do
			[ -f "$d/$c.failed" ] && continue
			mkdir -p "$d/$c.tr"
			perl -e "$TIMER" "$TIMEOUT" /dev/null /dev/null sh "$d/$c.sh" >/dev/null
			rm -rf "$d/$c.tr"
		done
		k=1
		while [ "$k" -le "$ROUNDS" ]; do
			# the order of round k: the configurations rotated by k - 1
			i=0
			while [ "$i" -lt "$m" ]; do
				j=$(( (i + k - 1) % m + 1 ))
				eval "c=\${$j}"
				[ -f "$d/untraced.failed" ] || [ -f "$d/$c.failed" ] ||
					timed "$ws" "$d" "$a" "$pass" "$k" "$c"
				i=$((i + 1))
			done
			k=$((k + 1))
		done
		echo "  $a: pass $pass done ($(date -u +%H:%M:%S), load $(cut -d ' ' -f 1 /proc/loadavg))"
	done <"$OUT/apps"
	pass=$((pass + 1))
done
echo "load after: $(uptime)"

summarize

if [ -n "$DEMO" ] && [ -n "$OUT_MADE" ]; then
	# make bench: nothing is kept (OUT=DIR keeps it)
	rm -rf "$OUT"
elif [ -n "$DEMO" ]; then
	rm -rf "$DEMO"
fi
[ -d "$OUT" ] && echo "tracer libraries loaded: $OUT/ldso.txt; raw data: $OUT (samples.tsv, counts.tsv, summary.tsv)"
[ ! -s "$OUT/failed.tsv" ] || exit 1
exit 0
