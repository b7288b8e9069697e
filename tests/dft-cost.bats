#!/usr/bin/env bats
# dft-cost: cost and decision on function records.

load test_helper

F="$FIXTURES/funcs"

setup() {
	IN="$BATS_TEST_TMPDIR/funcs.ndjson"
	# the golden function records are dft-cost's input
	cp "$F/expected/funcs.ndjson" "$IN"
}

decisions() {
	jq -r 'select(.type=="function") | "\(.qualified_name) \(.decision.annotate) \(.decision.rule)"' "$@"
}

fn() {	# a synthetic function record
	printf '{"type":"function","v":1,"file":"x.c","language":"c","parse_ok":true,"name":"%s","qualified_name":"%s","calls":%s,"call_count":%s,"loops":%s,"branches":%s,"nodes":%s,"statements":3,"io_direct":false,"io_reach":null,"exits":[]}\n' "$@"
}

@test "dft-cost --help prints the usage on stdout" { checklist_help dft-cost; }
@test "dft-cost --version prints the suite's version" { checklist_version dft-cost; }
@test "dft-cost rejects an unknown option" { checklist_unknown_option dft-cost; }
@test "dft-cost rejects an option without its argument" { checklist_missing_argument dft-cost -t --threshold --select; }
@test "dft-cost: a bad option value names the option and the value" {
	checklist_bad_value dft-cost --threshold x "an integer from 0 to 1000000"
	checklist_bad_value dft-cost --python-model z "auto, generic or ml"
	checklist_usage_error dft-cost "--threshold: bad value '-1' (expected an integer from 0 to 1000000)" -t -1
}
@test "dft-cost: an abbreviated option that fits two is ambiguous" {
	checklist_usage_error dft-cost "ambiguous option: --th (--threshold, --throttle-calls, --throttle-us)" --th 1
}
@test "dft-cost --help and --version fail on a full disk" { checklist_help_dev_full dft-cost; }
@test "dft-cost on empty input prints nothing but its step" { checklist_empty_input dft-cost; }
@test "dft-cost reads - as stdin and passes other records through" { checklist_dash_is_stdin dft-cost; }
@test "dft-cost reports a malformed line with its position" { checklist_malformed_line dft-cost; }
@test "dft-cost reports a missing file" { checklist_missing_file dft-cost; }
@test "dft-cost fails on a full disk" { checklist_dev_full dft-cost; }
@test "the dft-cost man page lints and documents every option" { checklist_man dft-cost; }

@test "the fixtures give the golden decisions" {
	run -0 --separate-stderr bash -o pipefail -c "dft-cost '$IN' | grep -v '\"type\":\"step\"'"
	diff -u "$F/expected/cost.ndjson" <(echo "$output")
}

@test "the score is the reference formula" {
	fn f f '{"read":2,"MPI_Send":1,"malloc":1,"gpfs_stat":1,"x":1}' 6 3 4 150 >"$BATS_TEST_TMPDIR/f"
	run -0 bash -o pipefail -c "dft-cost '$BATS_TEST_TMPDIR/f' | jq -c 'select(.cost) | .cost | [.io_calls,.mpi_calls,.mem_calls,.vendor_calls,.score]'"
	# 30*2 + 25 + 15 + 30 + 10*3 + 3*4 + 2*6 + min(150/5, 20)
	assert_output "[2,1,1,1,204]"
}

@test "each rule decides what the reference says" {
	{
		fn store_init store_init '{}' 0 0 0 3
		fn GPFS_tune GPFS_tune '{}' 0 0 0 3
		fn uses_vendor uses_vendor '{"daos_obj_fetch":1}' 1 0 0 3
		fn busy busy '{"a":1,"b":1}' 2 1 1 30
		fn cheap cheap '{"a":1}' 1 0 1 20
	} >"$BATS_TEST_TMPDIR/f"
	run -0 decisions <(dft-cost "$BATS_TEST_TMPDIR/f")
	assert_output "store_init true R6-lifecycle
GPFS_tune true R7-vendor-name
uses_vendor true R7-vendor-call
busy true score
cheap false score"
}

@test "main is always annotated, comp cpu" {
	run -0 bash -o pipefail -c "dft-cost '$IN' | jq -r 'select(.is_entry) | \"\(.file) \(.decision.rule) \(.decision.comp) \(.decision.form)\"'"
	assert_output "basic.c main cpu main
model.py main cpu main
model.py main cpu main
mpi_main.c main cpu main
shapes.cpp main cpu main"
}

@test "unsafe functions are skipped and say why" {
	run -0 bash -o pipefail -c "dft-cost '$IN' | jq -r 'select(.name==\"checked\" or .name==\"get_counter\" or .name==\"broken\") | \"\(.name) \(.decision.rule): \(.decision.reason)\"'"
	assert_output "get_counter macro-body: the body comes from a macro expansion; it cannot be edited in place
checked macro-return: 1 return spelled inside a macro: END could not be placed before it
broken parse-error: the file did not parse cleanly; it must not be edited"
}

@test "refinements: never skip I/O, skip header accessors and tiny leaves" {
	run -0 decisions <(dft-cost "$IN")
	assert_line "copy_file true io-direct"
	assert_line "util_write_all true io-direct"
	assert_line "util_twice false header-accessor"
	assert_line "classify false tiny-leaf"
	run -0 decisions <(dft-cost --no-rule tiny-leaf "$IN")
	assert_line "classify false score"
	run -0 decisions <(dft-cost --reference "$IN")
	refute_line --partial "io-direct"
	refute_line --partial "tiny-leaf"
}

@test "Python functions get the never-annotate rules and the decorator or rebind form" {
	run -0 bash -o pipefail -c "dft-cost '$IN' | jq -r 'select(.language==\"python\") | \"\(.qualified_name) \(.decision.annotate) \(.decision.rule) \(.decision.form)\"'"
	assert_line "Samples.__len__ false py-dataset-len null"
	assert_line "dot false py-jit null"
	assert_line "Samples.size false py-rule0 null"
	assert_line "Samples.__getitem__ true py-data decorator"
	assert_line "save true py-io decorator"
	fn_py='{"type":"function","v":1,"file":"m.py","language":"python","parse_ok":true,"name":"stats","qualified_name":"S.stats","is_staticmethod":true,"is_method":true,"calls":{"open":1,"read":1},"call_count":2,"loops":1,"branches":0,"nodes":20,"statements":4,"io_direct":true,"ml_imports":[]}'
	run -0 bash -o pipefail -c "echo '$fn_py' | dft-cost | jq -r 'select(.decision) | \"\(.decision.rule) \(.decision.form) \(.cost.model)\"'"
	assert_output "io-direct rebind generic"
	fn_cm=${fn_py/\"is_staticmethod\":true/\"is_classmethod\":true}
	run -0 bash -o pipefail -c "echo '$fn_cm' | dft-cost | jq -r 'select(.decision) | .decision.form'"
	assert_output rebind
}

@test "--threshold, --exclude and --comp change the decisions" {
	run -0 decisions <(dft-cost -t 1000 "$IN")
	assert_line "geo::largest false score"
	run -0 decisions <(dft-cost --exclude 'copy_*' "$IN")
	assert_line "copy_file false exclude"
	run -0 bash -o pipefail -c "dft-cost --comp 'geo::*=comm' '$IN' | jq -r 'select(.name==\"save\" and .language==\"cpp\") | .decision.comp'"
	assert_output "comm"
	run -2 --separate-stderr dft-cost --comp save=disk "$IN"
}

@test "--select takes TAU's selective instrumentation file" {
	cat >"$BATS_TEST_TMPDIR/sel" <<SEL
# comment
BEGIN_EXCLUDE_LIST
int guarded(int)
geo::#
END_EXCLUDE_LIST
BEGIN_FILE_EXCLUDE_LIST
model.py
END_FILE_EXCLUDE_LIST
SEL
	run -0 decisions <(dft-cost --select "$BATS_TEST_TMPDIR/sel" "$IN")
	assert_line "guarded false select"
	assert_line "geo::Shape::save false select"
	assert_line "Samples.__getitem__ false select"
	assert_line "copy_file true io-direct"
	printf 'BEGIN_INCLUDE_LIST\nclassify\nEND_INCLUDE_LIST\n' >"$BATS_TEST_TMPDIR/inc"
	run -0 bash -o pipefail -c "dft-cost --select '$BATS_TEST_TMPDIR/inc' '$IN' | jq -r 'select(.decision.annotate) | \"\(.file) \(.name) \(.decision.rule)\"'"
	assert_output "basic.c classify select
basic.c main main
model.py main main
model.py __main__ main
mpi_main.c main main
shapes.cpp main main"
}

@test "--profile throttles hot tiny functions and estimates the trace" {
	cat >"$BATS_TEST_TMPDIR/prof" <<PROF
{"type":"summary","v":1,"functions":[{"name":"guarded","cat":"C_APP","count":500000,"time_s":1.0},{"name":"copy_file","cat":"C_APP","count":10,"time_s":1.0}]}
PROF
	dft-cost --profile "$BATS_TEST_TMPDIR/prof" "$IN" >"$BATS_TEST_TMPDIR/out"
	run -0 decisions "$BATS_TEST_TMPDIR/out"
	assert_line "guarded false profile-throttle"
	assert_line "copy_file true io-direct"
	run -0 jq -c 'select(.type=="cost_summary") | [.est_events, .est_bytes]' "$BATS_TEST_TMPDIR/out"
	assert_output "[10,1600]"
}

@test "--throttle-calls and --throttle-us set the profile throttle" {
	cat >"$BATS_TEST_TMPDIR/prof" <<PROF
{"type":"summary","v":1,"functions":[{"name":"guarded","cat":"C_APP","count":5000,"time_s":0.1}]}
PROF
	# 5000 calls at 20 us: under the default limit of 100000 calls
	dft-cost --profile "$BATS_TEST_TMPDIR/prof" "$IN" >"$BATS_TEST_TMPDIR/out"
	run -0 decisions "$BATS_TEST_TMPDIR/out"
	refute_line "guarded false profile-throttle"
	dft-cost --profile "$BATS_TEST_TMPDIR/prof" --throttle-calls 1000 --throttle-us 25 "$IN" >"$BATS_TEST_TMPDIR/out"
	run -0 jq -r 'select(.name=="guarded") | "\(.decision.rule) \(.decision.reason)"' "$BATS_TEST_TMPDIR/out"
	assert_output "profile-throttle called 5000 times at 20.00 us each in the profile (over 1000 calls under 25 us)"
	run -2 dft-cost --throttle-us x "$IN"
}

@test "--profile: functions around no I/O over the event budget are skipped, the least called kept; functions around I/O never" {
	# (--event-margin 0 here and in the next two: the budget's
	# arithmetic; the margin has its own test)
	# 40 I/O events; budget (1.5 - 1) x 40 = 20 events, minus the 11 of
	# the functions around I/O (put 10, load 1): 9 left for the others,
	# least called first: main (1), rare (2) and mid (5) fit, hot (100)
	# does not
	{
		fn put put '{"write":1}' 1 0 0 60
		fn load load '{"read":1}' 1 0 0 60
		fn rare rare '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1'
		fn mid mid '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1'
		fn hot hot '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1'
		fn main main '{"put":1}' 1 0 0 60 | jq -c '.is_entry = true'
	} >"$BATS_TEST_TMPDIR/f"
	cat >"$BATS_TEST_TMPDIR/prof" <<PROF
{"type":"summary","v":2,"functions":[{"name":"write","cat":"POSIX","io_cat":"write","count":38,"time_s":0.1},{"name":"read","cat":"POSIX","io_cat":"read","count":2,"time_s":0.1},{"name":"put","cat":"C_APP","io_cat":"app","count":10,"time_s":0.1,"io_calls":38},{"name":"load","cat":"C_APP","io_cat":"app","count":1,"time_s":0.1,"io_calls":2},{"name":"main","cat":"C_APP","io_cat":"app","count":1,"time_s":1,"io_calls":0},{"name":"rare","cat":"C_APP","io_cat":"app","count":2,"time_s":0.1,"io_calls":0},{"name":"mid","cat":"C_APP","io_cat":"app","count":5,"time_s":0.1,"io_calls":0},{"name":"hot","cat":"C_APP","io_cat":"app","count":100,"time_s":0.1,"io_calls":0},{"name":"start","cat":"dftracer","io_cat":"none","count":1,"time_s":0}]}
PROF
	dft-cost --event-margin 0 --profile "$BATS_TEST_TMPDIR/prof" "$BATS_TEST_TMPDIR/f" >"$BATS_TEST_TMPDIR/out"
	run -0 decisions "$BATS_TEST_TMPDIR/out"
	assert_output "put true score
load true score
rare true score
mid true score
hot false profile-volume
main true main"
	run -0 jq -r 'select(.name == "hot") | .decision.reason' "$BATS_TEST_TMPDIR/out"
	assert_output "called 100 times in the profile (100 events), around no I/O call: over the event budget (1.5 events per I/O event, 40 I/O events)"
	# a tighter budget (1.2 x 40 = 8 extra, all taken by the functions
	# around I/O) skips every other one but main
	run -0 bash -o pipefail -c "dft-cost --event-margin 0 --profile '$BATS_TEST_TMPDIR/prof' --event-ratio 1.2 '$BATS_TEST_TMPDIR/f' | jq -r 'select(.type == \"function\" and .decision.annotate) | .name'"
	assert_output "put
load
main"
	# 0, --no-rule, and a profile without io_calls: nothing by volume
	run -0 bash -o pipefail -c "dft-cost --event-margin 0 --profile '$BATS_TEST_TMPDIR/prof' --event-ratio 0 '$BATS_TEST_TMPDIR/f' | jq -r 'select(.decision.rule == \"profile-volume\") | .name'"
	assert_output ""
	run -0 bash -o pipefail -c "dft-cost --event-margin 0 --profile '$BATS_TEST_TMPDIR/prof' --no-rule profile-volume '$BATS_TEST_TMPDIR/f' | jq -r 'select(.decision.rule == \"profile-volume\") | .name'"
	assert_output ""
	sed 's/,"io_calls":[0-9]*//g' "$BATS_TEST_TMPDIR/prof" >"$BATS_TEST_TMPDIR/prof0"
	run -0 bash -o pipefail -c "dft-cost --event-margin 0 --profile '$BATS_TEST_TMPDIR/prof0' '$BATS_TEST_TMPDIR/f' | jq -r 'select(.decision.rule == \"profile-volume\") | .name'"
	assert_output ""
	# a function around I/O is not throttled by TAU's rule either
	run -0 bash -o pipefail -c "dft-cost --event-margin 0 --profile '$BATS_TEST_TMPDIR/prof' --throttle-calls 5 --throttle-us 1000000 '$BATS_TEST_TMPDIR/f' | jq -r 'select(.name == \"put\") | .decision.rule'"
	assert_output score
	checklist_bad_value dft-cost --event-ratio 0.5 "0 or a number >= 1"
}

@test "--profile: the event budget counts the records of the profile's trace, not the calls they hold; TAU's throttled functions take none of it" {
	# tinyxml2's shape: 34,000 fwrite calls in 100 records (the runtime
	# aggregates them), put around them; budget (1.5 - 1) x 110 I/O
	# events = 55, less main's and the tracer's 2: 53. put (20 events)
	# and load (10) are kept, then the fewest events first: rare (2), mid
	# (20): 52; walk's 150 do not fit. tau (15 events, TAU's throttle)
	# takes none: counted, mid would not fit. By calls (34,010 I/O calls)
	# walk's 3,000 would have fit.
	{
		fn put put '{"fwrite":1}' 1 0 0 60
		fn load load '{"fopen":1}' 1 0 0 60
		for f in rare mid walk tau; do fn $f $f '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1'; done
		fn main main '{"put":1}' 1 0 0 60 | jq -c '.is_entry = true'
	} >"$BATS_TEST_TMPDIR/f"
	cat >"$BATS_TEST_TMPDIR/prof" <<PROF
{"type":"summary","v":6,"functions":[{"name":"fwrite","cat":"STDIO","io_cat":"write","count":34000,"events":100,"time_s":0.2},{"name":"fopen","cat":"STDIO","io_cat":"metadata","count":10,"events":10,"time_s":0.1},{"name":"put","cat":"C_APP","io_cat":"app","count":3000,"events":20,"time_s":0.3,"io_calls":34000,"io_time_s":0.2},{"name":"load","cat":"C_APP","io_cat":"app","count":10,"events":10,"time_s":0.2,"io_calls":10,"io_time_s":0.1},{"name":"rare","cat":"C_APP","io_cat":"app","count":2,"events":2,"time_s":0.1,"io_calls":0},{"name":"mid","cat":"C_APP","io_cat":"app","count":500,"events":20,"time_s":0.1,"io_calls":0},{"name":"walk","cat":"C_APP","io_cat":"app","count":3000,"events":150,"time_s":0.1,"io_calls":0},{"name":"tau","cat":"C_APP","io_cat":"app","count":200000,"events":15,"time_s":0.01,"io_calls":0},{"name":"main","cat":"C_APP","io_cat":"app","count":1,"events":1,"time_s":1,"io_calls":0},{"name":"start","cat":"dftracer","io_cat":"none","count":1,"events":1,"time_s":0}]}
PROF
	dft-cost --event-margin 0 --profile "$BATS_TEST_TMPDIR/prof" "$BATS_TEST_TMPDIR/f" >"$BATS_TEST_TMPDIR/out"
	run -0 decisions "$BATS_TEST_TMPDIR/out"
	assert_output "put true score
load true score
rare true score
mid true score
walk false profile-volume
tau false profile-throttle
main true main"
	run -0 jq -r 'select(.name == "walk") | .decision.reason' "$BATS_TEST_TMPDIR/out"
	assert_output "called 3000 times in the profile (150 events), around no I/O call: over the event budget (1.5 events per I/O event, 110 I/O events)"
	# the trace the kept functions give, by the profile's events, is
	# within 1.5 x its I/O events; and est_events are those events
	run -0 bash -o pipefail -c "jq -r -s '
		(.[0].functions) as \$p | (.[1:] | map(select(.type == \"function\" and .decision.annotate) | .name)) as \$k
		| ([\$p[] | select(.io_cat != \"app\" and .io_cat != \"none\") | .events] | add) as \$io
		| ([\$p[] | select(.io_cat == \"none\" or (.name | IN(\$k[]))) | .events] | add) as \$rest
		| ([\$p[] | select(.io_cat == \"app\" and (.name | IN(\$k[]))) | .events] | add) as \$est
		| \"\\(\$io + \$rest <= 1.5 * \$io) \\(\$est)\"' '$BATS_TEST_TMPDIR/prof' '$BATS_TEST_TMPDIR/out'"
	assert_output "true 53"
	[ "$(jq -c 'select(.type == "cost_summary") | .est_events' "$BATS_TEST_TMPDIR/out")" = 53 ]
}

@test "--profile: short reads and writes the profile wrote whole past the tracer's early decision count as that many I/O events and one record" {
	# zlib's minigzip round trip: one first traced run wrote fread's 72
	# calls (4.76 us each) as 72 events (a few slow first calls missed the
	# tracer's early decision at 25), the next run aggregated them (25
	# events and records).  Counted as 72, the budget held gz_load's 26
	# events and the re-annotated run had 103 events for 61 I/O events.
	# Estimated: fread 25 + 1, read 28 (already aggregated), 5 metadata
	# calls: 59 I/O events; budget (1.5 - 1) x 59 = 29.5, less main's and
	# the tracer's 6: 23.5; gz_compress (1 event, the most I/O time) is
	# kept, gz_load (26) does not fit.  A long read (mean over 10 us)
	# counts its events.
	{
		fn gz_compress gz_compress '{"fread":1}' 1 0 0 60
		fn gz_load gz_load '{"read":1}' 1 0 0 60
		fn main main '{"gz_compress":1}' 1 0 0 60 | jq -c '.is_entry = true'
	} >"$BATS_TEST_TMPDIR/f"
	prof() {
		printf '{"type":"summary","v":6,"functions":[{"name":"fread","cat":"STDIO","io_cat":"read","count":72,"events":72,"time_s":%s},{"name":"read","cat":"POSIX","io_cat":"read","count":47,"events":28,"time_s":0.000085},' "$1"
		for m in open close fopen fclose lseek64; do printf '{"name":"%s","cat":"POSIX","io_cat":"metadata","count":1,"events":1,"time_s":0.00001},' $m; done
		printf '{"name":"gz_compress","cat":"C_APP","io_cat":"app","count":1,"events":1,"time_s":0.01,"io_calls":73,"io_time_s":0.00035},{"name":"gz_load","cat":"C_APP","io_cat":"app","count":46,"events":26,"time_s":0.0001,"io_calls":47,"io_time_s":0.000085},{"name":"main","cat":"C_APP","io_cat":"app","count":2,"events":2,"time_s":0.05,"io_calls":1},{"name":"start","cat":"dftracer","io_cat":"none","count":2,"events":2,"time_s":0},{"name":"end","cat":"dftracer","io_cat":"none","count":2,"events":2,"time_s":0}]}\n'
	}
	prof 0.000343 >"$BATS_TEST_TMPDIR/prof"
	dft-cost --event-margin 0 --profile "$BATS_TEST_TMPDIR/prof" "$BATS_TEST_TMPDIR/f" >"$BATS_TEST_TMPDIR/out"
	run -0 decisions "$BATS_TEST_TMPDIR/out"
	assert_output "gz_compress true score
gz_load false profile-volume
main true main"
	io=$(( 25 + 1 + 28 + 5 ))
	run -0 jq -r 'select(.name == "gz_load") | .decision.reason' "$BATS_TEST_TMPDIR/out"
	assert_output "called 46 times in the profile (26 events) around 47 I/O calls (0.000085 s), less I/O time than the functions kept: over the event budget (1.5 events per I/O event, $io I/O events); its I/O goes to a traced caller"
	# the early decision at 10 calls: 11 + 28 + 5 = 44, budget 16
	run -0 bash -o pipefail -c "dft-cost --event-margin 0 --io-early 10 --profile '$BATS_TEST_TMPDIR/prof' '$BATS_TEST_TMPDIR/f' | jq -r 'select(.name == \"gz_load\") | .decision.reason'"
	assert_output --partial ", $(( 10 + 1 + 28 + 5 )) I/O events)"
	# --io-early 0 (the tracer aggregates no I/O), or fread at 20 us a
	# call: its 72 events count, 105 I/O events, and gz_load fits
	prof 0.00144 >"$BATS_TEST_TMPDIR/prof20"
	for a in "--io-early 0 --profile '$BATS_TEST_TMPDIR/prof'" "--profile '$BATS_TEST_TMPDIR/prof20'"; do
		run -0 bash -o pipefail -c "dft-cost --event-margin 0 $a '$BATS_TEST_TMPDIR/f' | jq -r 'select(.name == \"gz_load\") | .decision.rule'"
		assert_output score
	done
	checklist_bad_value dft-cost --io-early x "an integer from 0 to 1000000000"
}

@test "--profile: when the budget can hold the function with the most I/O time, the other functions around I/O fit in by I/O time or are skipped" {
	# IOR's shape: xfer around most I/O (2 a call), del one slow unlink,
	# shut and look 1:1 wrappers of little I/O time; main and the
	# tracer's start/end stay in every trace
	{
		fn xfer xfer '{"write":1,"lseek":1}' 1 0 0 60
		fn del del '{"unlink":1}' 1 0 0 60
		fn shut shut '{"close":1}' 1 0 0 60
		fn look look '{"stat":1}' 1 0 0 60
		fn rare rare '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1'
		fn main main '{"xfer":1}' 1 0 0 60 | jq -c '.is_entry = true'
	} >"$BATS_TEST_TMPDIR/f"
	cat >"$BATS_TEST_TMPDIR/prof" <<PROF
{"type":"summary","v":3,"functions":[{"name":"write","cat":"POSIX","io_cat":"write","count":16,"time_s":0.5},{"name":"lseek","cat":"POSIX","io_cat":"metadata","count":16,"time_s":0.01},{"name":"unlink","cat":"POSIX","io_cat":"metadata","count":1,"time_s":0.3},{"name":"close","cat":"POSIX","io_cat":"metadata","count":4,"time_s":0.01},{"name":"stat","cat":"POSIX","io_cat":"metadata","count":3,"time_s":0.001},{"name":"xfer","cat":"C_APP","io_cat":"app","count":16,"time_s":0.52,"io_calls":32,"io_time_s":0.51},{"name":"del","cat":"C_APP","io_cat":"app","count":1,"time_s":0.3,"io_calls":1,"io_time_s":0.3},{"name":"shut","cat":"C_APP","io_cat":"app","count":4,"time_s":0.01,"io_calls":4,"io_time_s":0.01},{"name":"look","cat":"C_APP","io_cat":"app","count":3,"time_s":0.001,"io_calls":3,"io_time_s":0.001},{"name":"rare","cat":"C_APP","io_cat":"app","count":2,"time_s":0.1,"io_calls":0,"io_time_s":0},{"name":"main","cat":"C_APP","io_cat":"app","count":1,"time_s":1,"io_calls":0,"io_time_s":0},{"name":"start","cat":"dftracer","io_cat":"none","count":1,"time_s":0},{"name":"end","cat":"dftracer","io_cat":"none","count":1,"time_s":0}]}
PROF
	dft-cost --event-margin 0 --profile "$BATS_TEST_TMPDIR/prof" "$BATS_TEST_TMPDIR/f" >"$BATS_TEST_TMPDIR/out"
	run -0 decisions "$BATS_TEST_TMPDIR/out"
	assert_output "xfer true score
del true score
shut false profile-volume
look false profile-volume
rare false profile-volume
main true main"
	# the trace the kept functions give, counted from the profile: every
	# I/O call, the tracer's own events, the kept functions' calls; at
	# most 1.5 x the I/O events, and every skipped function around I/O
	# holds less I/O time than every kept one
	run -0 bash -o pipefail -c "jq -r -s '
		(.[0].functions) as \$p | (.[1:] | map(select(.type == \"function\" and .decision.annotate) | .name)) as \$k
		| ([\$p[] | select(.io_cat != \"app\" and .io_cat != \"none\") | .count] | add) as \$io
		| ([\$p[] | select(.io_cat == \"none\" or (.name | IN(\$k[]))) | .count] | add) as \$rest
		| ([\$p[] | select(.io_calls > 0 and (.name | IN(\$k[]))) | .io_time_s] | min) as \$kept
		| ([\$p[] | select(.io_calls > 0 and (.name | IN(\$k[]) | not)) | .io_time_s] | max) as \$skipped
		| \"\\(\$io + \$rest <= 1.5 * \$io) \\(\$skipped < \$kept)\"' '$BATS_TEST_TMPDIR/prof' '$BATS_TEST_TMPDIR/out'"
	assert_output "true true"
	run -0 jq -r 'select(.name == "shut") | .decision.reason' "$BATS_TEST_TMPDIR/out"
	assert_output "called 4 times in the profile (4 events) around 4 I/O calls (0.010000 s), less I/O time than the functions kept: over the event budget (1.5 events per I/O event, 40 I/O events); its I/O goes to a traced caller"
	# a budget that cannot hold xfer (1.2 x 40: 8 events, 2 of them
	# start/end, 1 main) keeps every function around I/O, as before
	run -0 bash -o pipefail -c "dft-cost --event-margin 0 --profile '$BATS_TEST_TMPDIR/prof' --event-ratio 1.2 '$BATS_TEST_TMPDIR/f' | jq -r 'select(.type == \"function\" and .decision.annotate) | .name'"
	assert_output "xfer
del
shut
look
main"
}

@test "--event-margin: the budget is for a run with a fifth fewer I/O records than the profile's; 0 is the profile's own" {
	# 200 I/O events (fwrite's 160 records, fopen's 40); the re-annotated
	# run may hold fewer (a skipped function's aggregated records join
	# its caller's: tinyxml2's 360 were 315). Budget (1.5 - 1) x 200 x
	# (1 - 0.2) = 80, less main's and the tracer's 3: 77. put (20) and
	# wrap (30) around I/O, then rare (2): 52; walk's 40 do not fit. With
	# no margin (97) walk fits, and a run with 160 I/O records would hold
	# 3 + 92 + 160 = 255 events, over 1.5 x 160 = 240
	{
		fn put put '{"fwrite":1}' 1 0 0 60
		fn wrap wrap '{"fwrite":1}' 1 0 0 60
		for f in rare walk; do fn $f $f '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1'; done
		fn main main '{"put":1}' 1 0 0 60 | jq -c '.is_entry = true'
	} >"$BATS_TEST_TMPDIR/f"
	cat >"$BATS_TEST_TMPDIR/prof" <<PROF
{"type":"summary","v":6,"functions":[{"name":"fwrite","cat":"STDIO","io_cat":"write","count":34000,"events":160,"time_s":0.2},{"name":"fopen","cat":"STDIO","io_cat":"metadata","count":40,"events":40,"time_s":0.1},{"name":"put","cat":"C_APP","io_cat":"app","count":3000,"events":20,"time_s":0.3,"io_calls":30000,"io_time_s":0.2},{"name":"wrap","cat":"C_APP","io_cat":"app","count":500,"events":30,"time_s":0.2,"io_calls":4040,"io_time_s":0.1},{"name":"rare","cat":"C_APP","io_cat":"app","count":2,"events":2,"time_s":0.1,"io_calls":0},{"name":"walk","cat":"C_APP","io_cat":"app","count":3000,"events":40,"time_s":0.1,"io_calls":0},{"name":"main","cat":"C_APP","io_cat":"app","count":1,"events":1,"time_s":1,"io_calls":0},{"name":"start","cat":"dftracer","io_cat":"none","count":1,"events":1,"time_s":0},{"name":"end","cat":"dftracer","io_cat":"none","count":1,"events":1,"time_s":0}]}
PROF
	# kept: "fits" when the kept functions, the fixed events and a fifth
	# fewer I/O records are within 1.5 x those records; est_events
	kept() {
		jq -r -s '
		(.[0].functions) as $p | (.[1:] | map(select(.type == "function" and .decision.annotate) | .name)) as $k
		| ([$p[] | select(.io_cat != "app" and .io_cat != "none") | .events] | add * 0.8) as $io
		| ([$p[] | select(.io_cat == "none" or (.name | IN($k[]))) | .events] | add) as $rest
		| "\($k | join(" ")) \(if $io + $rest <= 1.5 * $io then "fits" else "over" end) \(.[-2].est_events)"' \
			"$BATS_TEST_TMPDIR/prof" "$BATS_TEST_TMPDIR/out"
	}
	dft-cost --profile "$BATS_TEST_TMPDIR/prof" "$BATS_TEST_TMPDIR/f" >"$BATS_TEST_TMPDIR/out"
	run -0 kept
	assert_output "put wrap rare main fits 53"
	run -0 jq -r 'select(.name == "walk") | .decision.reason' "$BATS_TEST_TMPDIR/out"
	assert_output "called 3000 times in the profile (40 events), around no I/O call: over the event budget (1.5 events per I/O event, 200 I/O events less a 20 % margin)"
	dft-cost --profile "$BATS_TEST_TMPDIR/prof" --event-margin 0 "$BATS_TEST_TMPDIR/f" >"$BATS_TEST_TMPDIR/out"
	run -0 kept
	assert_output "put wrap rare walk main over 93"
	# a margin of a half: 50 - 3 = 47: wrap (30) no longer fits after put
	dft-cost --profile "$BATS_TEST_TMPDIR/prof" --event-margin 0.5 "$BATS_TEST_TMPDIR/f" >"$BATS_TEST_TMPDIR/out"
	run -0 jq -r 'select(.name == "wrap") | .decision.reason' "$BATS_TEST_TMPDIR/out"
	assert_output "called 500 times in the profile (30 events) around 4040 I/O calls (0.100000 s), less I/O time than the functions kept: over the event budget (1.5 events per I/O event, 200 I/O events less a 50 % margin); its I/O goes to a traced caller"
	checklist_bad_value dft-cost --event-margin 1 "a number from 0 to 0.9"
	checklist_bad_value dft-cost --event-margin -0.1 "a number from 0 to 0.9"
}

@test "--overhead-profile: the costliest functions are skipped until the estimate is within the budget, those around I/O only when the others cannot make it" {
	# untraced 100 ms, traced 130 ms: 30 ms of overhead, 25 over the 5 %
	# budget; at 0.1 us a call the estimates are, in ms: put 20 (around
	# I/O), mix 15, fold 12, tiny 0.5 (under one point, 1 ms: never to
	# blame); main is always kept
	{
		fn put put '{"fwrite":1}' 1 0 0 60
		fn mix mix '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1'
		fn fold fold '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1'
		fn tiny tiny '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1'
		fn main main '{"put":1}' 1 0 0 60 | jq -c '.is_entry = true'
	} >"$BATS_TEST_TMPDIR/f"
	cat >"$BATS_TEST_TMPDIR/prof" <<PROF
{"type":"summary","v":5,"functions":[{"name":"fwrite","cat":"STDIO","io_cat":"write","count":200000,"time_s":0.01},{"name":"put","cat":"C_APP","io_cat":"app","count":200000,"time_s":0.03,"io_calls":200000,"io_time_s":0.01},{"name":"mix","cat":"C_APP","io_cat":"app","count":150000,"time_s":0.01,"io_calls":0},{"name":"fold","cat":"C_APP","io_cat":"app","count":120000,"time_s":0.01,"io_calls":0},{"name":"tiny","cat":"C_APP","io_cat":"app","count":5000,"time_s":0.001,"io_calls":0},{"name":"main","cat":"C_APP","io_cat":"app","count":1,"time_s":0.13,"io_calls":0},{"name":"start","cat":"dftracer","io_cat":"none","count":1,"time_s":0}]}
PROF
	ov() { dft-cost --overhead-profile "$BATS_TEST_TMPDIR/prof" --overhead-untraced 0.1 --overhead-call-us 0.1 "$@" "$BATS_TEST_TMPDIR/f"; }
	# 25 ms to save: mix and fold (27 ms) can, so put keeps its I/O
	run -0 bash -o pipefail -c "$(declare -f ov fn); ov --overhead-traced 0.13 | jq -r 'select(.decision.rule == \"profile-overhead\") | .name'"
	assert_output "mix
fold"
	run -0 bash -o pipefail -c "$(declare -f ov fn); ov --overhead-traced 0.13 | jq -r 'select(.name == \"mix\") | .decision.reason'"
	assert_output "called 150000 times in the traced run at an estimated 0.1 us of tracing each: 15 ms, 15.0 points of its 30.0 % overhead, over the 5 % budget"
	# the summary: the estimate without them, 30 - 27 = 3 %; all the
	# application's functions, main and tiny too: 47.5 ms
	run -0 bash -o pipefail -c "$(declare -f ov fn); ov --overhead-traced 0.13 | jq -c 'select(.type == \"cost_summary\") | .overhead'"
	assert_output '{"overhead_pct":30,"budget_pct":5,"call_cost_us":0.1,"functions_pct":47.5,"skip":2,"estimate_pct":3}'
	# 40 ms to save (45 over a budget of 5): the others make 27, so put
	# goes first, the costliest, then mix (20 + 15 = 35 < 40), then fold
	run -0 bash -o pipefail -c "$(declare -f ov fn); ov --overhead-traced 0.15 | jq -r 'select(.decision.rule == \"profile-overhead\") | .name'"
	assert_output "put
mix
fold"
	run -0 bash -o pipefail -c "$(declare -f ov fn); ov --overhead-traced 0.15 | jq -r 'select(.name == \"put\") | .decision.reason'"
	assert_output "called 200000 times in the traced run at an estimated 0.1 us of tracing each: 20 ms, 20.0 points of its 50.0 % overhead, over the 5 % budget; its 200000 I/O calls go to a traced caller"
	# 28 ms to save: put (20) and the costliest other (15) are enough
	run -0 bash -o pipefail -c "$(declare -f ov fn); ov --overhead-traced 0.133 | jq -r 'select(.decision.rule == \"profile-overhead\") | .name'"
	assert_output "put
mix"
	# a budget no skip can meet (90 ms to save): all that are a point
	# each, never tiny; within the budget, or the rule off: nothing
	run -0 bash -o pipefail -c "$(declare -f ov fn); ov --overhead-traced 0.2 | jq -r 'select(.decision.annotate == false) | .name'"
	assert_output "put
mix
fold"
	run -0 bash -o pipefail -c "$(declare -f ov fn); ov --overhead-traced 0.104 | jq -r 'select(.decision.annotate == false) | .name'"
	assert_output ""
	run -0 bash -o pipefail -c "$(declare -f ov fn); ov --overhead-traced 0.2 --overhead-budget 100 | jq -r 'select(.decision.annotate == false) | .name'"
	assert_output ""
	run -0 bash -o pipefail -c "$(declare -f ov fn); ov --overhead-traced 0.2 --no-rule profile-overhead | jq -r 'select(.decision.annotate == false) | .name'"
	assert_output ""
	checklist_usage_error dft-cost "--overhead-profile needs --overhead-traced, --overhead-untraced and --overhead-call-us over 0" \
		--overhead-profile "$BATS_TEST_TMPDIR/prof" --overhead-traced 0.2
	checklist_bad_value dft-cost --overhead-budget -101 "a number from -100 to 1e+06"
}

@test "--profile: a C++ method is matched by its qualified name (its event name), not by another function's bare name" {
	# two Write methods; the profile (qualified event names, and a C
	# function Write of another program of the repository) throttles
	# only the hot one, 5000 calls of 0.5 us (over 1000 calls)
	{
		fn Write 'store::Log::Write' '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1 | .language = "c++"'
		fn Write 'store::Index::Write' '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1 | .language = "c++"'
	} >"$BATS_TEST_TMPDIR/f"
	printf '%s\n' '{"type":"summary","v":3,"functions":[{"name":"Write","cat":"C_APP","io_cat":"app","count":9000,"time_s":0.0045},{"name":"store::Index::Write","cat":"CPP_APP","io_cat":"app","count":5000,"time_s":0.0025},{"name":"store::Log::Write","cat":"CPP_APP","io_cat":"app","count":3,"time_s":0.3}]}' >"$BATS_TEST_TMPDIR/prof"
	dft-cost --profile "$BATS_TEST_TMPDIR/prof" --throttle-calls 1000 "$BATS_TEST_TMPDIR/f" >"$BATS_TEST_TMPDIR/out"
	run -0 decisions "$BATS_TEST_TMPDIR/out"
	assert_output "store::Log::Write true score
store::Index::Write false profile-throttle"
}

@test "call-frequency rules: loop callees, small leaves, inline helpers, hash idioms" {
	# score 20 each (1 memory call, 1 call, < 25 nodes) before the penalties
	{
		fn caller caller '{"step":1,"malloc":1}' 2 1 0 60 | jq -c '.calls_in_loops = {"step":1}'
		fn step step '{"memcpy":1}' 1 0 0 60
		fn leaf leaf '{"memcpy":1}' 1 0 0 25
		fn XXH_readLE32 XXH_readLE32 '{"memcpy":1}' 1 0 0 60
		fn helper helper '{"memcpy":1}' 1 0 0 60 | jq -c '.inline = true | .storage = "static"'
		fn looped_hash looped_hash '{"memcpy":1}' 1 1 0 60 | jq -c '.loops = 1'
		fn reaches reaches '{"memcpy":1}' 1 0 0 25 | jq -c '.io_reach = 3'
		fn plain plain '{"memcpy":1}' 1 0 0 60
	} >"$BATS_TEST_TMPDIR/f"
	run -0 bash -o pipefail -c "dft-cost '$BATS_TEST_TMPDIR/f' | jq -r 'select(.decision) | \"\(.name) \(.cost.score) \(.decision.annotate) \(.decision.rule)\"'"
	# the scores, by the reference formula: 15 (memory) + 2 per call + 10
	# per loop + min(nodes / 5, 20)
	assert_line "step 29 false hot-loop-callee"
	assert_line "leaf 22 false hot-small-leaf"
	assert_line "XXH_readLE32 29 false hot-idiom"
	assert_line "helper 29 false hot-inline"
	assert_line "looped_hash 39 true score"
	assert_line "reaches 22 true score"
	assert_line "plain 29 true score"
	run -0 bash -o pipefail -c "dft-cost '$BATS_TEST_TMPDIR/f' | jq -r 'select(.name==\"step\") | .decision.reason'"
	assert_output "called often, cheap per call: score 29 - 15 = 14 < 20 (called inside a loop of caller (hot-loop-callee -15); 1 memory call, 1 call, 60 nodes)"
	# a rule switched off no longer lowers the score
	run -0 bash -o pipefail -c "dft-cost --no-rule hot-loop-callee --no-rule hot-idiom '$BATS_TEST_TMPDIR/f' | jq -r 'select(.decision) | \"\(.name) \(.decision.rule)\"'"
	assert_line "step score"
	assert_line "XXH_readLE32 score"
	assert_line "leaf hot-small-leaf"
	# --reference: none of them
	run -0 bash -o pipefail -c "dft-cost --reference '$BATS_TEST_TMPDIR/f' | jq -r 'select(.decision) | select(.decision.rule | startswith(\"hot-\")) | .name'"
	assert_output ""
}

@test "the summary counts every decision by rule" {
	dft-cost "$IN" >"$BATS_TEST_TMPDIR/out"
	run -0 jq -r 'select(.type=="cost_summary") | "\(.functions) \(.annotate + .skip) \([.by_rule[] | .annotate + .skip] | add) \(([.by_comp[]] | add) == .annotate)"' "$BATS_TEST_TMPDIR/out"
	assert_output "62 62 62 true"
	run -0 bash -o pipefail -c "grep -c '\"decision\"' '$BATS_TEST_TMPDIR/out'"
	assert_output "62"
}

@test "the man page example runs" {
	cd "$F"
	# dft-funcs exits 1: the fixtures include a file that does not parse
	run -1 --separate-stderr dft-funcs -p .
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/funcs.ndjson"
	run -0 bash -o pipefail -c "dft-cost <'$BATS_TEST_TMPDIR/funcs.ndjson' | jq -r 'select(.decision) | [.name, .decision.rule] | @tsv' | sed -n 1,3p"
	assert_output "$(printf 'add\ttiny-leaf\nis_even\ttiny-leaf\ncount_even\tscore')"
}

@test "functions that run after finalize are skipped with the rule named" {
	cp "$FIXTURES/annotate/corpus/after_fini.cpp" "$BATS_TEST_TMPDIR/"
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr dft-funcs after_fini.cpp -- -std=c++17
	echo "$output" >funcs.ndjson
	run -0 jq -r 'select(.after_finalize) | "\(.qualified_name) \(.after_finalize)"' funcs.ndjson
	assert_output "flush_log atexit
Registry::~Registry static-destructor
Cache::~Cache static-destructor"
	run -0 bash -o pipefail -c "dft-cost -t 0 funcs.ndjson | jq -r 'select(.decision.rule == \"after-finalize\") | \"\(.qualified_name) \(.decision.annotate) \(.decision.reason)\"'"
	assert_output "flush_log false runs after finalize: registered with atexit
Registry::~Registry false runs after finalize: destructor of a static object
Cache::~Cache false runs after finalize: destructor of a static object"
	# the destructor of a class with local objects only is not concerned
	run -0 bash -o pipefail -c "dft-cost -t 0 funcs.ndjson | jq -r 'select(.qualified_name == \"Scratch::~Scratch\") | .decision.annotate'"
	assert_output true
	# a refinement: --no-rule and --reference switch it off (flush_log
	# is then a 1:1 I/O wrapper of fputs, or without that rule io-direct)
	run -0 bash -o pipefail -c "dft-cost -t 0 --no-rule after-finalize funcs.ndjson | jq -r 'select(.name == \"flush_log\") | .decision.rule'"
	assert_output io-wrapper
	run -0 bash -o pipefail -c "dft-cost -t 0 --no-rule after-finalize --no-rule io-wrapper funcs.ndjson | jq -r 'select(.name == \"flush_log\") | .decision.rule'"
	assert_output io-direct
	run -0 bash -o pipefail -c "dft-cost -t 0 --reference funcs.ndjson | jq -r 'select(.name == \"flush_log\") | .decision.rule'"
	assert_output score
}

@test "io-wrapper: a 1:1 I/O wrapper, or a wrapper of one, is skipped with the rule named; its callers are taken by io-reach" {
	# put: fwrite and two cheap calls, 46 nodes (tinyxml2's Write);
	# puts1: one call of put (its inline overload); emit: put in a loop
	# (reach 1); rows: puts1 in a loop (reach 2, through a wrapper of
	# level 1: 1 call from the I/O); copy: fwrite in a loop; pair: two
	# I/O calls; guard: one I/O call and a fourth call
	{
		fn put put '{"fwrite":1,"memcpy":1,"grow":1}' 3 0 1 46 | jq -c '.io_direct = true | .io_apis = ["stdio:fwrite"] | .io_reach = 0'
		fn puts1 puts1 '{"put":1,"strlen":1}' 2 0 0 10 | jq -c '.io_reach = 1 | .io_via = "put"'
		fn emit emit '{"put":2}' 2 1 0 40 | jq -c '.io_reach = 1 | .io_via = "put"'
		fn rows rows '{"puts1":1}' 1 1 0 30 | jq -c '.io_reach = 2 | .io_via = "puts1"'
		fn copy copy '{"fwrite":1}' 1 1 0 30 | jq -c '.io_direct = true | .io_apis = ["stdio:fwrite"] | .io_reach = 0'
		fn pair pair '{"fopen":1,"fclose":1}' 2 0 0 20 | jq -c '.io_direct = true | .io_apis = ["stdio:fopen","stdio:fclose"] | .io_reach = 0'
		fn guard guard '{"fwrite":1,"a":1,"b":1,"c":1}' 4 0 0 20 | jq -c '.io_direct = true | .io_apis = ["stdio:fwrite"] | .io_reach = 0'
	} >"$BATS_TEST_TMPDIR/f"
	dft-cost "$BATS_TEST_TMPDIR/f" >"$BATS_TEST_TMPDIR/out"
	run -0 decisions "$BATS_TEST_TMPDIR/out"
	assert_output "put false io-wrapper
puts1 false io-wrapper
emit true io-reach
rows true io-reach
copy true io-direct
pair true io-direct
guard true io-direct"
	run -0 jq -r 'select(.name == "put" or .name == "puts1" or .name == "rows") | .decision.reason' "$BATS_TEST_TMPDIR/out"
	assert_output "1:1 I/O wrapper: its body is one traced I/O call (stdio:fwrite), no loop, 3 calls, 46 nodes (< 50): tracing it would double each call's cost and events and say nothing the I/O record does not; its callers are traced instead
1:1 I/O wrapper: its body is one call of put, a wrapper of I/O, no loop, 2 calls, 10 nodes (< 50): tracing it would double each call's cost and events and say nothing the I/O record does not; its callers are traced instead
reaches I/O in 1 call through puts1, a 1:1 I/O wrapper"
	# 50 nodes is no longer short
	run -0 bash -o pipefail -c "jq -c 'if .name == \"put\" then .nodes = 50 else . end' '$BATS_TEST_TMPDIR/f' | dft-cost | jq -r 'select(.name == \"put\" or .name == \"puts1\") | .decision.rule'"
	assert_output "io-direct
io-reach"
	# --no-rule io-wrapper and --reference: the wrappers are annotated,
	# rows is then two calls from I/O
	run -0 bash -o pipefail -c "dft-cost --no-rule io-wrapper '$BATS_TEST_TMPDIR/f' | jq -r 'select(.type == \"function\") | \"\(.name) \(.decision.rule)\"'"
	assert_output "put io-direct
puts1 io-reach
emit io-reach
rows score
copy io-direct
pair io-direct
guard io-direct"
	run -0 bash -o pipefail -c "dft-cost --reference '$BATS_TEST_TMPDIR/f' | jq -r 'select(.name == \"put\") | .decision.rule'"
	assert_output score
}
