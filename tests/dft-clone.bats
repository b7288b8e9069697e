#!/usr/bin/env bats
# dft-clone: cloning into workspaces, refs, submodules, resume, failures,
# app names and detection. Every repository is built here with git(1).

load test_helper

git_q() {
	git -c user.name=dft -c user.email=dft@example.com \
		-c init.defaultBranch=main -c protocol.file.allow=always \
		-c advice.detachedHead=false "$@" >/dev/null 2>&1
}

setup_file() {
	local r="$BATS_FILE_TMPDIR/repos"
	mkdir -p "$r"
	# A submodule that imports an ML framework, with a submodule of its own.
	git_q init "$r/deep"
	printf 'deep\n' >"$r/deep/deep.txt"
	git_q -C "$r/deep" add .
	git_q -C "$r/deep" commit -m "deep"
	git_q init "$r/sub"
	printf 'import torch\n' >"$r/sub/train.py"
	git_q -C "$r/sub" add .
	git_q -C "$r/sub" submodule add "$r/deep" deep
	git_q -C "$r/sub" commit -m "sub"
	# ior: make + C with MPI; tag v1; branch dev; then a submodule on main.
	git_q init "$r/ior"
	printf 'all:\n\tcc -o ior ior.c\n' >"$r/ior/Makefile"
	printf '#include <mpi.h>\nint main(void) { return open("f", 0); }\n' \
		>"$r/ior/ior.c"
	git_q -C "$r/ior" add .
	git_q -C "$r/ior" commit -m "one"
	git_q -C "$r/ior" tag -a v1 -m "version 1"
	git_q -C "$r/ior" checkout -b dev
	printf 'dev\n' >"$r/ior/dev.txt"
	git_q -C "$r/ior" add dev.txt
	git_q -C "$r/ior" commit -m "dev"
	git_q -C "$r/ior" checkout main
	git_q -C "$r/ior" submodule add "$r/sub" sub
	git_q -C "$r/ior" commit -m "two"
	export REPOS="$r"
}

setup() {
	REPOS="$BATS_FILE_TMPDIR/repos"
	WS="$BATS_TEST_TMPDIR/ws"
	unset DFT_WORKSPACES
}

# field [-c] FILTER: a field of the session record in $output (first line).
field() {
	printf '%s\n' "$output" | sed -n 1p | jq -r "$@"
}

# nothing_made: the workspace root holds no run.
nothing_made() {
	if [ -d "$WS" ]; then
		run find "$WS" -mindepth 1
		assert_output ""
	fi
}

@test "dft-clone --help prints the usage on stdout" {
	checklist_help dft-clone
}

@test "dft-clone --version prints the version" {
	checklist_version dft-clone
}

@test "dft-clone rejects an unknown option with the usage" {
	checklist_unknown_option dft-clone
}

@test "dft-clone rejects an option without its argument" {
	checklist_missing_argument dft-clone -w --workspaces -r --ref -n --name --resume
}

@test "dft-clone --help and --version fail on a full disk" {
	checklist_help_dev_full dft-clone
}

@test "dft-clone's man page lints and documents every long option" {
	checklist_man dft-clone
}

@test "dft-clone's man page examples run (those that need no network)" {
	local cmd n=0
	cd "$REPO"
	while IFS= read -r cmd; do
		[[ "$cmd" == *"https://"* ]] && continue
		run -0 --separate-stderr bash -o pipefail -c "${cmd//\/tmp\/ws/$WS}"
		n=$((n + 1))
	done < <(sed -n 's/^\.Dl \$ //p' "$REPO/man/dft-clone.1")
	[ "$n" -eq 3 ]
	[ -f "$WS/sample/.current_run" ]
}

@test "dft-clone without a url is a usage error" {
	run -2 --separate-stderr dft-clone
	assert_output ""
	[[ "$stderr" == *"dft-clone: missing url operand"* ]] || fail "$stderr"
	[[ "$stderr" == *"usage: dft-clone"* ]] || fail "$stderr"
	run -2 --separate-stderr dft-clone a b
	[[ "$stderr" == *"too many operands"* ]] || fail "$stderr"
}

@test "dft-clone checks option combinations before any work" {
	checklist_usage_error dft-clone "--resume and --ref exclude each other" -w "$WS" --resume x -r main url
	checklist_usage_error dft-clone "--resume and --copy exclude each other" -w "$WS" --resume x --copy url
	run -2 --separate-stderr dft-clone --print-app-name -w "$WS" url
	checklist_usage_error dft-clone "--name: bad value '../x' (expected letters, digits, '_', '-', '.'; not starting with '.')" -w "$WS" -n ../x "$REPOS/ior"
	checklist_usage_error dft-clone "--ref: bad value '' (expected a branch, tag or commit)" -w "$WS" -r '' "$REPOS/ior"
	checklist_usage_error dft-clone "--resume: bad value '' (expected a run id: app/stamp, stamp or app)" -w "$WS" --resume ''
	nothing_made
}

@test "dft-clone derives app names as the reference pipeline does" {
	local url want
	while IFS='|' read -r url want; do
		run -0 dft-clone --print-app-name -- "$url"
		[ "$output" = "$want" ] || fail "'$url' gave '$output', want '$want'"
	done <<'EOF'
https://github.com/org/ior.git|ior
git@github.com:org/ior.git|ior
/path/to/ior|ior
/path/to/ior/|ior
/path/to/ior.git/|ior
ssh://git@host:2222/org/IOR.git|ior
ior.exe|ior
My Repo!! (v2)|my_repo_v2
h5bench-1.4|h5bench_1
--weird--|weird
|app
...|app
EOF
}

@test "dft-clone names a local directory by its absolute path" {
	mkdir -p "$BATS_TEST_TMPDIR/MyApp"
	cd "$BATS_TEST_TMPDIR/MyApp"
	run -0 dft-clone --print-app-name .
	assert_output "myapp"
}

@test "dft-clone clones a repository by path into a complete workspace" {
	run -0 --separate-stderr dft-clone -w "$WS" "$REPOS/ior"
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 2 ] || fail "$output"
	local ws run_id
	ws=$(field .workspace)
	run_id=$(field .run_id)
	[[ "$run_id" =~ ^ior/[0-9]{8}_[0-9]{6}(_[0-9]+)?$ ]] || fail "$run_id"
	[ "$ws" = "$WS/$run_id" ] || fail "$ws"
	[ "$(field .type)" = session ]
	[ "$(field .v)" = 1 ]
	[ "$(field .app)" = ior ]
	[ "$(field .url)" = "$REPOS/ior" ]
	[ "$(field .ref)" = main ]
	[ "$(field .ref_kind)" = branch ]
	[ "$(field .commit)" = "$(git -C "$REPOS/ior" rev-parse main)" ]
	[ "$(field .source_kind)" = git ]
	[[ "$(field .created_at)" =~ ^20[0-9-]{8}T[0-9:]{8}\.[0-9]{3}Z$ ]]
	local d
	for d in source baseline annotated traces artifacts tmp; do
		[ -d "$ws/$d" ] || fail "no $d"
		[ "$(field ".paths.$d")" = "$ws/$d" ] || fail "paths.$d"
	done
	[ -f "$ws/source/ior.c" ]
	[ -d "$ws/source/.git" ]
	[ ! -e "$ws/source/dev.txt" ]
	# The submodule is checked out and recorded.
	[ -f "$ws/source/sub/train.py" ]
	[ "$(field '.submodules[0].path')" = sub ]
	[ "$(field '.submodules[0].status')" = ok ]
	[ "$(field '.submodules[0].commit')" = \
		"$(git -C "$REPOS/sub" rev-parse HEAD)" ]
	# and so is the submodule's own submodule.
	[ -f "$ws/source/sub/deep/deep.txt" ]
	[ "$(field -c '[.submodules[] | [.path, .status]]')" = \
		'[["sub","ok"],["sub/deep","ok"]]' ]
	# session.json holds the same record; .current_run points at the run.
	[ "$(jq -c . "$ws/session.json")" = \
		"$(printf '%s\n' "$output" | sed -n 1p)" ]
	[ "$(cat "$WS/ior/.current_run")" = "$run_id" ]
	# The step record comes last.
	printf '%s\n' "$output" | tail -n 1 |
		jq -e '.type == "step" and .step == "clone" and .status == "ok"'
}

@test "dft-clone runs no hooks, not even those git itself would run" {
	local h="$BATS_TEST_TMPDIR/home"
	mkdir -p "$h/hooks"
	printf '#!/bin/sh\ntouch "%s/ran"\n' "$h" >"$h/hooks/post-checkout"
	chmod +x "$h/hooks/post-checkout"
	printf '[core]\n\thooksPath = %s/hooks\n' "$h" >"$h/.gitconfig"
	# git(1) runs the post-checkout hook on clone ...
	HOME="$h" git clone -q "$REPOS/ior" "$BATS_TEST_TMPDIR/by-git"
	[ -f "$h/ran" ] || skip "git did not run the hook: nothing to compare"
	rm "$h/ran"
	# ... dft-clone does not.
	run -0 --separate-stderr env HOME="$h" dft-clone -w "$WS" -r dev "$REPOS/ior"
	[ -f "$(field .paths.source)/dev.txt" ]
	[ ! -e "$h/ran" ] || fail "a hook ran"
}

@test "dft-clone clones a file:// URL and honours DFT_WORKSPACES" {
	export DFT_WORKSPACES="$WS"
	run -0 --separate-stderr dft-clone "file://$REPOS/ior"
	[ "$(field .url)" = "file://$REPOS/ior" ]
	[ -f "$(field .paths.source)/sub/train.py" ]
	[[ "$(field .workspace)" == "$WS/ior/"* ]]
}

@test "dft-clone uses ./workspaces by default" {
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr dft-clone "$REPOS/ior"
	[[ "$(field .workspace)" == "$BATS_TEST_TMPDIR/workspaces/ior/"* ]]
}

@test "dft-clone --ref checks out a branch as a tracking branch" {
	run -0 --separate-stderr dft-clone -w "$WS" --ref dev "$REPOS/ior"
	[ "$(field .ref)" = dev ]
	[ "$(field .ref_kind)" = branch ]
	[ "$(field .commit)" = "$(git -C "$REPOS/ior" rev-parse dev)" ]
	local src
	src=$(field .paths.source)
	[ -f "$src/dev.txt" ]
	[ "$(git -C "$src" rev-parse --abbrev-ref HEAD)" = dev ]
	[ "$(git -C "$src" rev-parse --abbrev-ref '@{upstream}')" = origin/dev ]
	[ -z "$(git -C "$src" status --porcelain)" ]
}

@test "dft-clone --ref checks out an annotated tag" {
	run -0 --separate-stderr dft-clone -w "$WS" -r v1 "file://$REPOS/ior"
	[ "$(field .ref_kind)" = tag ]
	[ "$(field .commit)" = "$(git -C "$REPOS/ior" rev-parse 'v1^{commit}')" ]
	[ ! -e "$(field .paths.source)/sub/train.py" ]
	[ "$(field '.submodules | length')" = 0 ]
}

@test "dft-clone --ref checks out an abbreviated commit id" {
	local sha
	sha=$(git -C "$REPOS/ior" rev-parse dev)
	run -0 --separate-stderr dft-clone -w "$WS" -r "${sha:0:8}" "$REPOS/ior"
	[ "$(field .ref_kind)" = commit ]
	[ "$(field .commit)" = "$sha" ]
	[ "$(git -C "$(field .paths.source)" rev-parse HEAD)" = "$sha" ]
}

@test "dft-clone reports a submodule it cannot fetch and exits 1" {
	local r="$BATS_TEST_TMPDIR/broken"
	git_q clone "$REPOS/ior" "$r"
	git_q -C "$r" config -f .gitmodules submodule.sub.url "$BATS_TEST_TMPDIR/gone"
	git_q -C "$r" commit -am "point the submodule nowhere"
	run -1 --separate-stderr dft-clone -w "$WS" "$r"
	[[ "$stderr" == "dft-clone: submodule 'sub' from '$BATS_TEST_TMPDIR/gone': "* ]] || fail "$stderr"
	[ "$(field '.submodules[0].status')" = failed ]
	[ "$(field '.submodules[0].commit')" = null ]
	printf '%s\n' "$output" | tail -n 1 | jq -e '.status == "partial"'
	# The workspace is kept: everything else is there.
	[ -f "$(field .workspace)/session.json" ]
	[ -f "$(field .paths.source)/ior.c" ]
}

@test "dft-clone does not show a password of the URL" {
	run -2 --separate-stderr dft-clone -w "$WS" 'https://bob:s3cret@127.0.0.1:1/ior.git'
	[[ "$stderr" == "dft-clone: cannot clone 'https://bob:***@127.0.0.1:1/ior.git': "* ]] ||
		fail "$stderr"
	[[ "$stderr" != *s3cret* ]] || fail "$stderr"
}

@test "dft-clone fails on a ref that does not exist and leaves nothing" {
	run -2 --separate-stderr dft-clone -w "$WS" -r no-such-ref "$REPOS/ior"
	assert_output ""
	[ "$stderr" = "dft-clone: ref 'no-such-ref' not found: revspec 'no-such-ref' not found" ] ||
		fail "$stderr"
	[ ! -e "$WS" ] || fail "left $(find "$WS")"
	# Nor the parents of the root that it made.
	run -2 --separate-stderr dft-clone -w "$BATS_TEST_TMPDIR/a/b/ws" -r no-such-ref "$REPOS/ior"
	[ ! -e "$BATS_TEST_TMPDIR/a" ] || fail "left $(find "$BATS_TEST_TMPDIR/a")"
}

@test "dft-clone refuses a repository with no commits and leaves nothing" {
	git init -q "$BATS_TEST_TMPDIR/empty"
	run -2 --separate-stderr dft-clone -w "$WS" "$BATS_TEST_TMPDIR/empty"
	assert_output ""
	[ "$stderr" = "dft-clone: '$BATS_TEST_TMPDIR/empty' has no commits: nothing to check out" ] ||
		fail "$stderr"
	[ ! -e "$WS" ] || fail "left $(find "$WS")"
}

@test "dft-clone fails on an unreachable URL with libgit2's reason" {
	run -2 --separate-stderr dft-clone -w "$WS" "file://$BATS_TEST_TMPDIR/none/ior.git"
	assert_output ""
	[[ "$stderr" == "dft-clone: cannot clone 'file://$BATS_TEST_TMPDIR/none/ior.git': "*"No such file or directory" ]] ||
		fail "$stderr"
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[ ! -e "$WS" ]
	run -2 --separate-stderr dft-clone -w "$WS" https://127.0.0.1:1/org/ior.git
	[[ "$stderr" == "dft-clone: cannot clone 'https://127.0.0.1:1/org/ior.git': "*"onnect"* ]] ||
		fail "$stderr"
	[ ! -e "$WS" ]
	run -2 --separate-stderr dft-clone -w "$WS" "$BATS_TEST_TMPDIR/none"
	[ "$stderr" = "dft-clone: cannot access '$BATS_TEST_TMPDIR/none': No such file or directory" ]
	[ ! -e "$WS" ]
}

@test "dft-clone keeps an existing root and app directory after a failure" {
	mkdir -p "$WS/ior"
	run -2 --separate-stderr dft-clone -w "$WS" -r nope "$REPOS/ior"
	[ -d "$WS/ior" ]
	run find "$WS/ior" -mindepth 1
	assert_output ""
}

@test "dft-clone refuses an existing target and leaves it untouched" {
	run -0 --separate-stderr dft-clone -w "$WS" -n keep "$REPOS/ior"
	[ "$(field .run_id)" = ior/keep ]
	touch "$WS/ior/keep/source/mine"
	run -2 --separate-stderr dft-clone -w "$WS" -n keep "$REPOS/ior"
	assert_output ""
	[ "$stderr" = "dft-clone: workspace '$WS/ior/keep' already exists" ] ||
		fail "$stderr"
	[ -f "$WS/ior/keep/source/mine" ]
	[ -f "$WS/ior/keep/session.json" ]
	[ "$(cat "$WS/ior/.current_run")" = ior/keep ]
}

@test "dft-clone never reuses a workspace for runs in the same second" {
	local a b c
	a=$(dft-clone -w "$WS" "$REPOS/ior" | jq -r 'select(.type=="session").run_id')
	b=$(dft-clone -w "$WS" "$REPOS/ior" | jq -r 'select(.type=="session").run_id')
	c=$(dft-clone -w "$WS" "$REPOS/ior" | jq -r 'select(.type=="session").run_id')
	[ "$a" != "$b" ]
	[ "$b" != "$c" ]
	[ "$a" != "$c" ]
	[ -f "$WS/$a/session.json" ]
	[ -f "$WS/$b/session.json" ]
	[ -f "$WS/$c/session.json" ]
	[ "$(cat "$WS/ior/.current_run")" = "$c" ]
}

@test "dft-clone refuses workspaces that escape the root" {
	mkdir -p "$WS" "$BATS_TEST_TMPDIR/outside/run"
	printf '{"type":"session","v":1}\n' >"$BATS_TEST_TMPDIR/outside/run/session.json"
	run -2 --separate-stderr dft-clone -w "$WS" --resume ../outside/run
	[[ "$stderr" == *"refusing workspace '$BATS_TEST_TMPDIR/outside/run': outside the workspace root '$WS'"* ]] ||
		fail "$stderr"
	# A symbolic link inside the root that leads out of it.
	ln -s "$BATS_TEST_TMPDIR/outside" "$WS/ior"
	run -2 --separate-stderr dft-clone -w "$WS" --resume ior/run
	[[ "$stderr" == *"outside the workspace root"* ]] || fail "$stderr"
	run -2 --separate-stderr dft-clone -w "$WS" "$REPOS/ior"
	[[ "$stderr" == *"outside the workspace root"* ]] || fail "$stderr"
	run find "$BATS_TEST_TMPDIR/outside" -mindepth 1
	assert_output "$(printf '%s\n%s' "$BATS_TEST_TMPDIR/outside/run" \
		"$BATS_TEST_TMPDIR/outside/run/session.json")"
}

@test "dft-clone --resume reopens a workspace by id, app, or stamp and url" {
	run -0 --separate-stderr dft-clone -w "$WS" "$REPOS/ior"
	local first run_id stamp
	first=$(printf '%s\n' "$output" | sed -n 1p)
	run_id=$(field .run_id)
	stamp=${run_id#ior/}
	dft-clone -w "$WS" -n other "$REPOS/ior" >/dev/null
	[ "$(cat "$WS/ior/.current_run")" = ior/other ]
	run -0 --separate-stderr dft-clone -w "$WS" --resume "$run_id"
	[ "$(printf '%s\n' "$output" | sed -n 1p)" = "$first" ]
	printf '%s\n' "$output" | tail -n 1 |
		jq -e '.type == "step" and .resumed == true and .status == "ok"'
	[ "$(cat "$WS/ior/.current_run")" = "$run_id" ]
	run -0 --separate-stderr dft-clone -w "$WS" --resume "$stamp" "https://example.com/x/ior.git"
	[ "$(printf '%s\n' "$output" | sed -n 1p)" = "$first" ]
	run -0 --separate-stderr dft-clone -w "$WS" --resume ior
	[ "$(printf '%s\n' "$output" | sed -n 1p)" = "$first" ]
}

@test "dft-clone --resume of a missing run fails and creates nothing" {
	run -2 --separate-stderr dft-clone -w "$WS" --resume ior/20000101_000000
	assert_output ""
	[[ "$stderr" == "dft-clone: cannot resume 'ior/20000101_000000': cannot read '$WS/ior/20000101_000000/session.json': No such file or directory" ]] ||
		fail "$stderr"
	run -2 --separate-stderr dft-clone -w "$WS" --resume ior
	[ ! -e "$WS" ]
}

@test "dft-clone clones a repository owned by another user" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to give the repository away"
	local r="$BATS_TEST_TMPDIR/theirs"
	cp -R "$REPOS/ior" "$r"
	chown -R nobody "$r"
	run -0 --separate-stderr dft-clone -w "$WS" "$r"
	[ "$(field .source_kind)" = git ]
	[ "$(field .commit)" = "$(git -C "$REPOS/ior" rev-parse main)" ]
}

@test "dft-clone copies a local directory that is not a repository" {
	local app="$BATS_TEST_TMPDIR/plain"
	mkdir -p "$app/src"
	printf 'int main(void) { return 0; }\n' >"$app/src/main.c"
	ln -s src/main.c "$app/link.c"
	run -0 --separate-stderr dft-clone -w "$WS" "$app"
	[ "$(field .source_kind)" = copy ]
	[ "$(field .app)" = plain ]
	[ "$(field .commit)" = null ]
	[ "$(field .ref)" = null ]
	[ "$(field .url)" = "$app" ]
	local src
	src=$(field .paths.source)
	cmp "$app/src/main.c" "$src/src/main.c"
	[ "$(readlink "$src/link.c")" = src/main.c ]
	run -2 --separate-stderr dft-clone -w "$WS" -r main "$app"
	[[ "$stderr" == *"--ref needs a repository"* ]] || fail "$stderr"
}

@test "dft-clone --copy keeps the uncommitted changes of a work tree" {
	local wt="$BATS_TEST_TMPDIR/wt"
	git_q clone "$REPOS/ior" "$wt"
	printf '/* edited */\n' >>"$wt/ior.c"
	run -0 --separate-stderr dft-clone -w "$WS" "$wt"
	[ "$(field .source_kind)" = git ]
	run -1 grep -q edited "$(field .paths.source)/ior.c"
	run -0 --separate-stderr dft-clone -w "$WS" --copy "$wt"
	[ "$(field .source_kind)" = copy ]
	[ "$(field .commit)" = "$(git -C "$REPOS/ior" rev-parse main)" ]
	grep -q edited "$(field .paths.source)/ior.c"
}

@test "dft-clone leaves the workspace root out of a directory it copies" {
	local app="$BATS_TEST_TMPDIR/proj"
	mkdir -p "$app"
	printf 'x = 1\n' >"$app/x.py"
	cd "$app"
	run -0 --separate-stderr dft-clone .
	[ "$(field .app)" = proj ]
	local src
	src=$(field .paths.source)
	[ -f "$src/x.py" ]
	[ ! -e "$src/workspaces" ]
	[[ "$src" == "$app/workspaces/proj/"* ]]
}

# detect DIR: the session record of a copy of DIR.
detect() {
	run -0 --separate-stderr dft-clone -w "$WS" "$1"
}

@test "dft-clone detects the build tool from root-level files, in order" {
	local d="$BATS_TEST_TMPDIR/b" f want
	while read -r want f; do
		rm -rf "$d" && mkdir -p "$d"
		for x in $f; do mkdir -p "$d/$(dirname "$x")" && touch "$d/$x"; done
		detect "$d"
		[ "$(field .build_tool)" = "$want" ] ||
			fail "$f: got $(field .build_tool), want $want"
	done <<'EOF'
cmake CMakeLists.txt Makefile configure.ac
autotools configure.ac Makefile.am Makefile setup.py
autotools configure.in
meson meson.build setup.py
python pyproject.toml Makefile
python setup.py
make Makefile
make GNUmakefile sub/CMakeLists.txt
unknown sub/CMakeLists.txt sub/Makefile
EOF
}

@test "dft-clone detects languages, features and the posix preset" {
	local d="$BATS_TEST_TMPDIR/f"
	mkdir -p "$d/src" "$d/py" "$d/f"
	cat >"$d/src/io.c" <<'EOF'
#include <mpi.h>
#include <hdf5.h>
#include <omp.h>
int f(void) { return fopen("x", "r") != 0; }
EOF
	printf 'int g();\n' >"$d/src/io.hpp"
	printf 'import numpy\n' >"$d/py/run.py"
	printf 'program x\nend program x\n' >"$d/f/x.f90"
	detect "$d"
	[ "$(field -c .languages)" = '["c","cpp","fortran","python"]' ]
	[ "$(field -c .features)" = '{"mpi":true,"hdf5":true,"openmp":true,"hip":false,"posix_io":true,"python":true,"ml_frameworks":[]}' ]
	[ "$(field .preset)" = posix ]
}

@test "dft-clone detects MPI, HDF5 and OpenMP from build files" {
	local d="$BATS_TEST_TMPDIR/bf"
	mkdir -p "$d"
	printf 'CC = mpicc\nCFLAGS = -O2 -fopenmp\n' >"$d/Makefile"
	detect "$d"
	[ "$(field -c '.features | [.mpi, .hdf5, .openmp]')" = '[true,false,true]' ]
	rm "$d/Makefile"
	printf 'find_package(HDF5 REQUIRED)\nfind_package( MPI )\n' >"$d/CMakeLists.txt"
	detect "$d"
	[ "$(field -c '.features | [.mpi, .hdf5, .openmp]')" = '[true,true,false]' ]
	[ "$(field .build_tool)" = cmake ]
	[ "$(field -c .languages)" = '[]' ]
}

@test "dft-clone detects ML frameworks from imports and picks the dlio preset" {
	local d="$BATS_TEST_TMPDIR/ml"
	mkdir -p "$d"
	cat >"$d/train.py" <<'EOF'
import os
import torch.nn as nn
from tensorflow import keras
import jax.numpy as jnp
from dlio_benchmark.main import DLIOBenchmark
EOF
	detect "$d"
	[ "$(field -c .features.ml_frameworks)" = '["pytorch","tensorflow","jax","keras","dlio"]' ]
	[ "$(field .preset)" = dlio ]
	[ "$(field .features.posix_io)" = false ]
	# A word in a comment or a string is not an import.
	printf '# we could import torch one day\nprint("jax")\n' >"$d/train.py"
	detect "$d"
	[ "$(field -c .features.ml_frameworks)" = '[]' ]
	[ "$(field .preset)" = posix ]
	# Installed packages are not the application's imports.
	mkdir -p "$d/venv/lib/site-packages/x" "$d/.tox" "$d/node_modules"
	touch "$d/venv/pyvenv.cfg"
	printf 'import torch\n' >"$d/venv/lib/site-packages/x/a.py"
	printf 'import jax\n' >"$d/.tox/b.py"
	printf 'import tensorflow\n' >"$d/node_modules/c.py"
	detect "$d"
	[ "$(field -c .features.ml_frameworks)" = '[]' ]
}

@test "dft-clone writes nothing and removes the run when stdout fails" {
	run -2 --separate-stderr bash -o pipefail -c "dft-clone -w '$WS' '$REPOS/ior' >/dev/full"
	[[ "$stderr" == *"dft-clone: write error"* ]] || fail "$stderr"
	[ ! -e "$WS" ] || fail "left $(find "$WS")"
	run -2 --separate-stderr bash -o pipefail -c "dft-clone --print-app-name x >/dev/full"
	[[ "$stderr" == *"dft-clone: write error"* ]] || fail "$stderr"
}

@test "dft-clone clones the bundled sample application, which builds and runs" {
	run -0 --separate-stderr dft-clone -w "$WS" "$REPO/tests/apps/sample"
	[ "$(field .app)" = sample ]
	[ "$(field .source_kind)" = copy ]
	[ "$(field .build_tool)" = make ]
	[ "$(field -c .languages)" = '["c"]' ]
	[ "$(field .preset)" = posix ]
	[ "$(field .features.posix_io)" = true ]
	local src
	src=$(field .paths.source)
	run -0 make -s -C "$src" CFLAGS="-O2 -Wall -Wextra -Werror"
	cd "$src"
	run -0 ./sample "$BATS_TEST_TMPDIR/out1"
	local first="$output"
	assert_line --regexp '^records: 4096 x 64 bytes written=262144 read=262144 checksum=[0-9a-f]{16}$'
	assert_line --regexp '^metadata: files=256 bytes=[0-9]+$'
	run -0 ./sample "$BATS_TEST_TMPDIR/out2"
	assert_output "$first"
	run -0 ./sample
	assert_output "$first"
	[ -f out/records.dat ]
}
