#!/usr/bin/env bats
# dft-report's Diagnosis section: the verdict, then each finding above
# "info" with its time at stake, evidence, functions with file:line,
# recommendation and best cited proposal, and the chart of time at stake
# in report.html.  The records are hand-written to the v 2 schema
# (tests/fixtures/report/diagnosis.ndjson); every number the report must
# show is derived here with jq from those records.

load test_helper

D="$FIXTURES/report/diagnosis.ndjson"

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

# section FILE: the lines of the Diagnosis section of a Markdown report.
section() {
	sed -n '/^## Diagnosis$/,/^## Lessons Learned/p' "$1" | sed '$d'
}

@test "the verdict opens the section, with the I/O share and the processes" {
	local vt sh io wall
	run -0 dft-report -o r.md --no-html "$D"
	section r.md >s.md
	read -r sh io wall <<EOT
$(jq -r 'select(.type == "summary") | "\(.io_wall_share) \(.io_wall_s) \(.wall_s)"' "$D")
EOT
	vt=$(jq -r 'select(.type == "summary") | .verdict_text' "$D")
	run -0 sed -n 2p s.md
	assert_output "$(printf 'Verdict: %s (io_wall_share %.3f: %.3f s of I/O on the critical path in %.3f s of wall time).' \
		"$vt" "$sh" "$io" "$wall")"
	# summary v 3: the time base is the summed process spans
	jq -c 'if .type == "summary" then .v = 3 | .process_wall_s = 5.7
		| .io_wall_s = 3.4 | .io_wall_share = (3.4 / 5.7) else . end' "$D" >v3.ndjson
	run -0 dft-report -o r3.md --no-html v3.ndjson
	section r3.md >s3.md
	run -0 sed -n 2p s3.md
	assert_output "$(printf 'Verdict: %s (io_wall_share %.3f: %.3f s of I/O in %.3f s of process time).' \
		"$vt" "$(echo '3.4 / 5.7' | bc -l)" 3.4 5.7)"
	# one row per process of processes_io, its share in percent
	jq -r 'select(.type == "summary") | .processes_io[]
		| "\(.process) \(.wall_s) \(.io_s) \(.io_wall_share)"' "$D" >procs
	while read -r p w i s; do
		grep -qxF "$(printf '| %s | %.3f | %.3f | %.1f %% |' "$p" "$w" "$i" "$(awk -v s="$s" 'BEGIN { print 100 * s }')")" s.md ||
			fail "no row for $p"
	done <procs
	run -0 grep -c '^| node01#' s.md
	assert_output "$(wc -l <procs)"
	read -r c t f sh <<EOT
$(jq -r 'select(.type == "summary") | .system_io | "\(.count) \(.time_s) \(.files) \(.share)"' "$D")
EOT
	run -0 grep -xF "$(printf 'System and runtime I/O (not ranked): %d requests, %.3f s, %d files, %.1f %% of I/O time.' \
		"$c" "$t" "$f" "$(awk -v s="$sh" 'BEGIN { print 100 * s }')")" s.md
}

@test "each finding above info shows its time at stake, saving, evidence and where it is" {
	local id t io wall
	run -0 dft-report -o r.md --no-html "$D"
	section r.md >s.md
	io=$(jq -r 'select(.type == "summary") | .io.time_s' "$D")
	wall=$(jq -r 'select(.type == "summary") | .wall_s' "$D")
	for id in $(jq -r 'select(.type == "bottleneck" and .severity != "info") | .id' "$D"); do
		run -0 grep -x "### $(jq -r --arg i "$id" 'select(.type == "bottleneck" and .id == $i)
			| "\(.id) — \(.title) (\(.severity))"' "$D")" s.md
		t=$(jq -r --arg i "$id" 'select(.type == "bottleneck" and .id == $i) | .time_s' "$D")
		# the shares derived from the summary's totals
		run -0 grep -xF -- "- Time at stake: $(printf '%.3f' "$t") s ($(awk -v t="$t" -v d="$io" 'BEGIN { printf "%.1f", 100 * t / d }') % of I/O time, $(awk -v t="$t" -v d="$wall" 'BEGIN { printf "%.1f", 100 * t / d }') % of wall time)" s.md
		run -0 grep -xF -- "- Estimated saving: $(printf '%.3f' "$(jq -r --arg i "$id" 'select(.type == "bottleneck" and .id == $i) | .saving_s' "$D")") s — $(jq -r --arg i "$id" 'select(.type == "bottleneck" and .id == $i) | .saving_model' "$D")" s.md
		run -0 grep -xF -- "$(jq -r --arg i "$id" 'select(.type == "bottleneck" and .id == $i)
			| "- Recommendation: \(.recommendation)"' "$D")" s.md
		run -0 grep -F -- "- Evidence: $(jq -r --arg i "$id" 'select(.type == "bottleneck" and .id == $i) | .description' "$D")" s.md
		run -0 grep -F -- "- Class: \`$(jq -r --arg i "$id" 'select(.type == "bottleneck" and .id == $i) | .class' "$D")\`; facets: $(jq -r --arg i "$id" 'select(.type == "bottleneck" and .id == $i) | .facets | join(", ")' "$D")" s.md
	done
	# the info finding is counted, not shown
	run -1 grep -F "$(jq -r 'select(.type == "bottleneck" and .severity == "info") | .title' "$D")" s.md
	run -0 grep -x "$(jq -s -r '[.[] | select(.type == "bottleneck" and .severity == "info")] | length' "$D") more finding below the bottleneck level (\"info\") is in the analysis records." s.md
}

@test "functions carry file:line, from the finding or else from the function records" {
	run -0 dft-report -o r.md --no-html "$D"
	section r.md >s.md
	# B1's function has no file in the finding: the function record's
	# file and name line
	run -0 grep -F -- "- Functions: scan_metadata ($(jq -r 'select(.type == "function" and .name == "scan_metadata")
		| "\(.file | split("/") | last):\(.name_pos.line)"' "$D")) 95 %, 2.660 s; (no enclosing function) 5 %, 0.140 s" s.md
	# B2's function names its own file and line, which win over the
	# function record's
	run -0 grep -F -- "- Functions: write_records ($(jq -r 'select(.type == "bottleneck" and .id == "B2")
		| .functions[0] | "\(.file | split("/") | last):\(.line)"' "$D")) 100 %" s.md
	run -0 grep -F -- "- Files: /data/run/entries (2.700 s), /data/run/index (0.050 s) and $(jq -r 'select(.id == "B1") | .files_more' "$D") more" s.md
}

@test "--functions FILE gives file:line without passing its records through" {
	local fn
	# the records without their function records, which go to a file
	jq -c 'select(.type != "function")' "$D" >nofn.ndjson
	jq -c 'select(.type == "function")' "$D" >funcs.ndjson
	fn=$(jq -r 'select(.type == "function" and .name == "scan_metadata")
		| "\(.file | split("/") | last):\(.name_pos.line)"' "$D")
	# without them the finding's function has no file:line
	run -0 dft-report -o plain.md --no-html nofn.ndjson
	section plain.md >plain.s
	run -1 grep -F "scan_metadata ($fn)" plain.s
	set -o pipefail
	dft-report -o r.md --no-html --functions funcs.ndjson nofn.ndjson >out.ndjson
	section r.md >s.md
	grep -F -- "- Functions: scan_metadata ($fn) 95 %" s.md
	# stdout is the input stream, without the function records
	diff <(jq -c 'select(.type != "report" and (.type != "step" or .step != "report"))' out.ndjson) \
		<(jq -c . nofn.ndjson)
	# a missing file is bad input named on stderr; the report is still written
	run -1 --separate-stderr dft-report -o x.md --no-html --functions nope.ndjson nofn.ndjson
	[[ "$stderr" == *"cannot open 'nope.ndjson'"* ]]
	[ -s x.md ]
}

@test "the proposal is the one whose first citation scores highest, else the best paper" {
	run -0 dft-report -o r.md --no-html "$D"
	section r.md >s.md
	run -0 grep -Fx -- "$(jq -s -r '[.[] | select(.type == "proposal" and .bottleneck == "B1")]
		| max_by(.citations[0].relevance.score)
		| "- Proposal: \(.title) (\(.level): \(.change)) — cites \(.citations[0].title), \(.citations[0].year), arXiv:\(.citations[0].arxiv)"' "$D")" s.md
	run -0 grep -Fx -- "$(jq -r 'select(.type == "paper" and .bottleneck == "B2")
		| "- Proposal: no proposal; best paper: \(.title), \(.year), doi:\(.doi)"' "$D")" s.md
}

@test "a later finding dft-papers answered with an earlier one (same_as: another code path) gets that proposal by reference, and where it applies" {
	# B9: B1's metric and view in another function and file, as dft-papers
	# answers it: a literature record pointing at B1, no proposal of its own
	{
		cat "$D"
		jq -c 'select(.type == "bottleneck" and .id == "B1") | .id = "B9" | .rank = 9
			| .functions = [{"name": "scan_index", "cat": "C_APP", "file": "src/index.c", "line": 42, "share": 1, "count": 40, "time_s": 0.5}]
			| .files = [{"file": "/data/index", "time_s": 0.5}]' "$D"
		jq -c -n '{type: "literature", v: 1, bottleneck: "B9", metric: "metadata_time_pct", class: "metadata",
			severity: "critical", status: "cited", same_as: "B1",
			note: "same metric and view as an earlier finding: see its papers and proposals"}'
	} >same.ndjson
	run -0 dft-report -o r.md --no-html same.ndjson
	section r.md >s.md
	b1=$(jq -s -r '[.[] | select(.type == "proposal" and .bottleneck == "B1")]
		| max_by(.citations[0].relevance.score)
		| "\(.title) (\(.level): \(.change)) — cites \(.citations[0].title), \(.citations[0].year), arXiv:\(.citations[0].arxiv)"' "$D")
	run -0 grep -Fx -- "- Proposal: $b1" s.md
	run -0 grep -Fx -- "- Proposal: as for B1 (the same metric and view; dft-papers answers it once): $b1; here it applies to scan_index (index.c:42)" s.md
	# and not "did not run"
	run -1 grep -F 'dft-papers did not run' s.md
}

@test "report.html draws the time at stake of each finding above info" {
	local n
	run -0 dft-report -o r.md --html r.html "$D"
	run -0 xmllint --noout r.html
	n=$(jq -s '[.[] | select(.type == "bottleneck" and .severity != "info")] | length' "$D")
	sed -n '/<figcaption>Time at stake per finding/,/<\/figure>/p' r.html >chart.svg
	[ -s chart.svg ] || fail "no chart of the time at stake"
	run -0 grep -c 'class="val"' chart.svg
	assert_output "$n"
	jq -r 'select(.type == "bottleneck" and .severity != "info")
		| "\(.time_s) \(.saving_s) \(.id) \(.class) \(.functions[0].name)"' "$D" |
		while read -r t s id c f; do
			grep -qF ">$(printf '%.3f' "$t") s (saving $(printf '%.3f' "$s") s)<" chart.svg ||
				fail "no value for $id"
			grep -qF ">$id $c ($f)<" chart.svg || fail "no label for $id"
		done
	# the longest bar is the finding with the most time at stake
	run -0 bash -o pipefail -c "grep -o 'width=\"[0-9.]*\" height=\"16\" fill=\"#9aa5b1\"' chart.svg | sed -n 1p"
	assert_output --partial 'width="360.0"'
}

@test "the section is there when the optimization loop applied nothing" {
	# diagnosis.ndjson has no iteration, loop or verdict record
	run -1 grep -E '"type":"(iteration|loop|verdict)"' "$D"
	run -0 dft-report -o r.md --no-html "$D"
	run -0 grep -c '^## Diagnosis$' r.md
	run -0 grep -x 'Optimization iterations | not run |' <(sed 's/^| //' r.md)
}

@test "no analysis: the section says not run; a v 1 analysis: the verdict is not recorded" {
	grep '"type":"function"' "$D" >fn.ndjson
	run -0 dft-report -o r.md --no-html fn.ndjson
	run -0 section r.md
	assert_line "Diagnosis — not run (no trace analysis in the records)."
	jq -c 'if .type == "summary" then {type, v: 1, events} elif .type == "bottleneck"
		then del(.severity, .time_s, .io_share, .wall_share, .saving_s, .saving_model, .class, .facets) | .v = 1
		else . end' "$D" >v1.ndjson
	run -0 dft-report -o r.md --no-html v1.ndjson
	run -0 section r.md
	assert_line "Verdict: not recorded (the analysis has no verdict; dft-analyze before summary v 2)."
	assert_line "- Time at stake: not recorded"
	assert_line --partial "- Class: not recorded (metric \`metadata_time_pct\`)"
	# v 1: only the bottlenecks (score 4 or 5) are shown
	run -0 grep -c '^### B' <(section r.md)
	assert_output "$(jq -s '[.[] | select(.type == "bottleneck" and .bottleneck)] | length' v1.ndjson)"
}

@test "an I/O-bound run whose findings are all info says its time is the storage's and the bytes', not the pattern's" {
	# IOR with 1 MiB aligned transfers on a loaded disk: half the process
	# time in I/O, and no rule faults the requests
	jq -c 'if .type == "bottleneck" then .severity = "info" elif .type == "summary" then .verdict = "io-bound" | .io.read.bytes = 33554432 | .io.write.bytes = 16777216 else . end' "$D" >io.ndjson
	run -0 dft-report -o r.md --no-html io.ndjson
	run -0 section r.md
	want=$(jq -r 'select(.type == "summary") | "No finding above \"info\": the run is I/O-bound, but no rule faults how its requests are made; what would shorten its I/O is faster storage or fewer bytes (\(.io.read.bytes / 1e5 | round / 10) MB read, \(.io.write.bytes / 1e5 | round / 10) MB written), not the access pattern."' io.ndjson)
	assert_line "$want"
	refute_line --partial "nothing in this run is worth fixing"
	jq -c 'if .type == "summary" then .verdict = "partly" else . end' io.ndjson >partly.ndjson
	run -0 dft-report -o r.md --no-html partly.ndjson
	run -0 section r.md
	assert_line "${want/is I\/O-bound/is partly I/O-bound}"
}

@test "a run not I/O-bound whose findings are all info says nothing is worth fixing" {
	jq -c 'if .type == "bottleneck" then .severity = "info" elif .type == "summary" then .verdict = "not-io-bound" else . end' "$D" >info.ndjson
	run -0 dft-report -o r.md --html r.html info.ndjson
	run -0 section r.md
	assert_line 'No finding above "info": nothing in this run is worth fixing.'
	assert_line "3 more findings below the bottleneck level (\"info\") are in the analysis records."
	run -0 grep -A 2 '<figcaption>Time at stake per finding' r.html
	assert_output --partial 'not run: no finding above info with a time at stake in the records'
}

@test "a metadata finding's calls are listed, the first four, as the record has them" {
	jq -c 'if .type == "bottleneck" and .id == "B1" then .calls = [
		{name: "fclose", cat: "STDIO", count: 4, time_s: 0.002368},
		{name: "fopen", cat: "STDIO", count: 4, time_s: 0.000367},
		{name: "fseek", cat: "STDIO", count: 62, time_s: 0.000047},
		{name: "stat", cat: "POSIX", count: 6, time_s: 0.000029},
		{name: "access", cat: "POSIX", count: 1, time_s: 0.000001}] else . end' "$D" >c.ndjson
	run -0 dft-report -o r.md --no-html c.ndjson
	section r.md >s.md
	run -0 grep -c -- "- Calls of this kind" s.md
	assert_output 1
	# the first four of five, times as %.3f
	run -0 grep -xF -- "- Calls of this kind (whole run): fclose x4 (0.002 s), fopen x4 (0.000 s), fseek x62 (0.000 s), stat x6 (0.000 s) and 1 more" s.md
	# without calls (or with none) no such line
	run -0 dft-report -o r0.md --no-html "$D"
	run -1 grep -F -- "- Calls of this kind" r0.md
}
