#!/usr/bin/env bash
# bench/run.sh [N] — kiln against make, ninja and Snakemake's dry run on a
# layered DAG of N exec nodes (default 10000), then on 100,000 nodes, then
# the hash of big files. See bench/README.md for what is measured.
#
# Environment:
#   REPS=5       runs of every plan measurement (the median is reported)
#   FULL_REPS=3  runs of every full build from clean
#   JOBS=2       -j for make, ninja and Snakemake, -parallelism for kiln
#   LAYERS=      layers of the DAG (default: the square root of N)
#   SEED=1       picks each node's upstream nodes
#   OUT=bench/out/nN   scratch folder for the trees and the results
#   BIN=/tmp/kiln-bench where kiln and the bench commands are built
#   CLEAN=move   how a full build starts from clean: move the old outputs
#                aside and delete them after the last measurement (move), or
#                delete them just before the build (rm; see bench/README.md)
#   SNAKEMAKE=1  also run Snakemake's dry run (0 to skip it)
#   SNAKE_REPS=3 runs of each Snakemake dry run (one takes ~30 s at 10,000)
#   BIG_N=100000 nodes of the second DAG (0 skips it); REPS_BIG=3 runs of
#                its plans; its full builds run once per tool
#   BIG_FILES=4 BIG_MIB=1024  the big-file hash (BIG_FILES=0 skips it)
#   MID_N=5000   nodes of a third DAG, full builds only (0 skips it)
#   FANOUT="1000 10000"  samples of the fan-out rows (bench/fanout-forms.sh:
#                for_each = exec.map against the fileset form and Snakemake's
#                dry run; "" skips them); FANOUT_APPLY_REPS=1 applies of each
#                form at 10,000 samples
#   MILLION=1000000  instances of the row of a few for_each blocks
#                (bench/million.sh; 0 skips it); MILLION_APPLY=1 also builds
#                it once for the no-op plan (hours on 2 busy cores; 0: the
#                first plan only)
#   PROFILE=1    also profile a plan in-process (bench/cmd/profile)
set -euo pipefail

N=${1:-10000}
REPS=${REPS:-5}
FULL_REPS=${FULL_REPS:-3}
JOBS=${JOBS:-2}
LAYERS=${LAYERS:-0}
SEED=${SEED:-1}
CLEAN=${CLEAN:-move}
SNAKEMAKE=${SNAKEMAKE:-1}
SNAKE_REPS=${SNAKE_REPS:-3}
BIG_N=${BIG_N:-100000}
REPS_BIG=${REPS_BIG:-3}
BIG_FILES=${BIG_FILES:-4}
BIG_MIB=${BIG_MIB:-1024}
MID_N=${MID_N:-5000}
FANOUT=${FANOUT-1000 10000}
FANOUT_APPLY_REPS=${FANOUT_APPLY_REPS:-1}
MILLION=${MILLION:-1000000}
MILLION_APPLY=${MILLION_APPLY:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/bench/out/n$N}
BIN=${BIN:-/tmp/kiln-bench}

die() { echo "bench: $*" >&2; exit 1; }

[[ $N =~ ^[1-9][0-9]*$ ]] || die "N must be a whole number of nodes, e.g. bench/run.sh 1000"
[[ $CLEAN == move || $CLEAN == rm ]] || die "CLEAN must be move or rm"
for v in REPS FULL_REPS JOBS SNAKE_REPS REPS_BIG; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a whole number, 1 or more"
done
for v in BIG_N BIG_FILES BIG_MIB MID_N MILLION; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a whole number (0 skips)"
done

# Tools.
missing=()
command -v go >/dev/null || missing+=("go (https://go.dev/dl, or put /usr/local/go/bin on PATH)")
command -v make >/dev/null || missing+=("make (apt-get install -y make)")
command -v ninja >/dev/null || missing+=("ninja (apt-get install -y ninja-build)")
[[ -x /usr/bin/time ]] || missing+=("/usr/bin/time (apt-get install -y time)")
for t in cksum cat awk xargs; do
	command -v $t >/dev/null || missing+=("$t (apt-get install -y coreutils gawk findutils)")
done
if [[ $SNAKEMAKE == 1 ]] && ! command -v snakemake >/dev/null; then
	missing+=("snakemake (apt-get install -y snakemake, or SNAKEMAKE=0 to skip it)")
fi
if ((BIG_FILES > 0)) && ! command -v openssl >/dev/null; then
	missing+=("openssl (apt-get install -y openssl, or BIG_FILES=0 to skip the big-file rows)")
fi
if ((${#missing[@]})); then
	printf 'bench: missing tools:\n' >&2
	printf '  %s\n' "${missing[@]}" >&2
	die "install them (as root: apt-get update && apt-get install -y ninja-build time snakemake) and run again"
fi
((BASH_VERSINFO[0] >= 5)) || die "bash 5 or later is needed (for EPOCHREALTIME)"

# Build kiln from the working tree, as it is now, and the bench commands.
mkdir -p "$BIN" "$OUT"
echo "building kiln and the bench commands from $ROOT ..."
(cd "$ROOT" && go build -o "$BIN/kiln" ./cmd/kiln && for c in gen table bighash; do go build -o "$BIN/$c" ./bench/cmd/$c || exit 1; done) ||
	die "go build failed: fix the build of ./cmd/kiln or ./bench/cmd/... first"
KILN=$BIN/kiln
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(git -C "$ROOT" status --porcelain -- . ':!bench/out' 2>/dev/null | head -1)
[[ -n $DIRTY ]] && COMMIT="$COMMIT (with uncommitted changes)"

TRASH=$OUT/trash
mkdir -p "$TRASH"
SAMPLES=$OUT/samples.tsv
printf 'measure\ttool\trun\tseconds\tmax_rss_kb\tcpu_seconds\n' >"$SAMPLES"
LOG=$OUT/last-run.log

# measure NAME TOOL RUN DIR CMD...: runs CMD in DIR under /usr/bin/time -v,
# records its wall time, peak memory and CPU time (user + system, children
# included), and stops the benchmark if it fails (kiln plan
# -detailed-exitcode's 2, "changes", is not a failure).
measure() {
	local name=$1 tool=$2 run=$3 dir=$4
	shift 4
	local start end rss cpu rc
	start=$EPOCHREALTIME
	set +e
	(cd "$dir" && /usr/bin/time -v -o "$OUT/time.txt" "$@" >/dev/null 2>"$LOG")
	rc=$?
	set -e
	end=$EPOCHREALTIME
	if ((rc != 0)); then
		tail -n 20 "$LOG" >&2
		die "$tool failed in $dir: $* (exit $rc; full log: $LOG)"
	fi
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time.txt")
	cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$OUT/time.txt")
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$tool" "$run" "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}')" "$rss" "$cpu" >>"$SAMPLES"
}

# clean DIR TOOL removes what a build of TOOL left in DIR. Deleting tens of
# thousands of files just before a build slows the build's own file
# creation on some file systems (ext4 without a journal checks every
# recently deleted inode), so by default the old outputs are moved aside
# and deleted at the end.
clean() {
	local dir=$1 paths
	case $2 in
	kiln) paths=("$dir/kiln/.kiln") ;;
	make) paths=("$dir/make/build") ;;
	ninja) paths=("$dir/ninja/build" "$dir/ninja/.ninja_log" "$dir/ninja/.ninja_deps") ;;
	esac
	if [[ $CLEAN == rm ]]; then
		rm -rf "${paths[@]}"
		return
	fi
	local dest
	dest=$(mktemp -d "$TRASH/$2.XXXXXX")
	for p in "${paths[@]}"; do
		[[ -e $p ]] && mv "$p" "$dest/"
	done
	return 0
}

# full MEASURE DIR TOOL RUN: a full build by TOOL.
full() {
	case $3 in
	kiln) measure "$1" kiln "$4" "$2/kiln" "$KILN" apply -quiet -parallelism "$JOBS" ;;
	make) measure "$1" make "$4" "$2/make" make -j"$JOBS" ;;
	ninja) measure "$1" ninja "$4" "$2/ninja" ninja -j"$JOBS" ;;
	esac
}

# dry MEASURE DIR RUN TOOLS...: each tool says what it would do.
dry() {
	local name=$1 dir=$2 run=$3 t
	shift 3
	for t in "$@"; do
		case $t in
		kiln) measure "$name" kiln "$run" "$dir/kiln" "$KILN" plan ;;
		make) measure "$name" make "$run" "$dir/make" make -n -j"$JOBS" ;;
		ninja) measure "$name" ninja "$run" "$dir/ninja" ninja -n -j"$JOBS" ;;
		snakemake) measure "$name" snakemake "$run" "$dir/snakemake" snakemake -n -j"$JOBS" --quiet ;;
		esac
	done
}

# noop MEASURE DIR RUN TOOLS...: each tool on its built tree, nothing to do.
noop() {
	local name=$1 dir=$2 run=$3 t
	shift 3
	for t in "$@"; do
		case $t in
		kiln) measure "$name" kiln "$run" "$dir/kiln" "$KILN" plan ;;
		make) measure "$name" make "$run" "$dir/make" make -j"$JOBS" ;;
		ninja) measure "$name" ninja "$run" "$dir/ninja" ninja -j"$JOBS" ;;
		snakemake) measure "$name" snakemake "$run" "$dir/snakemake" snakemake -n -j"$JOBS" --quiet ;;
		esac
	done
}

# check_noop DIR TOOLS...: each tool really has nothing to do. This also
# warms the caches every later run sees, as a second command in a session
# would find them.
check_noop() {
	local dir=$1 t rc
	shift
	for t in "$@"; do
		case $t in
		kiln)
			# The no-change check trusts the links folder and each node's
			# files by their stat stamps once they are older than the racy
			# window (2 s): the first check after that records them (once,
			# as a user's first plan after an apply would), and the
			# measured runs see the settled certificate. That first check
			# is timed too (noop-settle).
			sleep 3
			local settle=noop-settle
			[[ $dir == "$OUT" ]] || settle=noop-settle-big
			measure "$settle" kiln 1 "$dir/kiln" "$KILN" plan
			set +e
			(cd "$dir/kiln" && "$KILN" plan -detailed-exitcode >"$LOG" 2>&1)
			rc=$?
			set -e
			((rc == 0)) || { tail -n 20 "$LOG" >&2; die "kiln plan is not a no-op after apply in $dir (exit $rc)"; } ;;
		make) (cd "$dir/make" && make -q) || die "make -q says $dir/make is not up to date after a full build" ;;
		ninja) (cd "$dir/ninja" && ninja -n -j"$JOBS" | grep -q 'no work to do') || die "ninja -n has work to do in $dir after a full build" ;;
		snakemake) (cd "$dir/snakemake" && snakemake -n -j"$JOBS" --quiet 2>&1 | grep -q 'Nothing to be done') || die "snakemake -n has work to do in $dir" ;;
		esac
	done
}

# edit DIR TOOLS...: appends to the source the first node of layer 1 reads,
# so that the edit has dependents, in every tool's tree.
edit() {
	local dir=$1 src t
	shift
	src=$(grep -o -m1 'exec\.n_0_[0-9]*\.out' "$dir/kiln/pipeline.hcl" | head -1 | cut -d. -f2 || true)
	src=src/${src:-n_0_0}.txt
	for t in "$@"; do
		echo "edited for the benchmark" >>"$dir/$t/$src"
	done
	echo "$src"
}

# edit_command DIR on|off: changes the command of the first node of the
# middle layer in the kiln and ninja trees (make does not track commands),
# or puts both files back.
edit_command() {
	local dir=$1 node
	node=$(grep -o '^exec "n_[0-9]*_0"' "$dir/kiln/pipeline.hcl" | sed -n "$(($(grep -c '^exec "n_[0-9]*_0"' "$dir/kiln/pipeline.hcl") / 2 + 1))p" | cut -d'"' -f2)
	if [[ $2 == off ]]; then
		mv "$dir/kiln/pipeline.hcl.orig" "$dir/kiln/pipeline.hcl"
		mv "$dir/ninja/build.ninja.orig" "$dir/ninja/build.ninja"
		return
	fi
	cp -p "$dir/kiln/pipeline.hcl" "$dir/kiln/pipeline.hcl.orig"
	cp -p "$dir/ninja/build.ninja" "$dir/ninja/build.ninja.orig"
	sed -i "/^exec \"$node\" {/,/^}/ s/| cksum >/| cksum -a crc >/" "$dir/kiln/pipeline.hcl"
	sed -i "/^build build\/$node.txt:/,/^\$/ s/| cksum >/| cksum -a crc >/" "$dir/ninja/build.ninja"
	cmp -s "$dir/kiln/pipeline.hcl" "$dir/kiln/pipeline.hcl.orig" && die "edit_command: no command of $node changed in $dir/kiln"
	cmp -s "$dir/ninja/build.ninja" "$dir/ninja/build.ninja.orig" && die "edit_command: no command of $node changed in $dir/ninja"
	echo "$node"
}

peers=(kiln make ninja)
[[ $SNAKEMAKE == 1 ]] && peers+=(snakemake)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average before: $LOAD_START (on $(nproc) cores)"

# ---- MID_N nodes (5,000): full builds only ----
if ((MID_N > 0)); then
	MID=$OUT/n$MID_N
	mkdir -p "$MID"
	for d in kiln make ninja snakemake; do
		[[ -e $MID/$d ]] && mv "$MID/$d" "$(mktemp -d "$TRASH/old.XXXXXX")/"
	done
	"$BIN/gen" -n "$MID_N" -seed "$SEED" -out "$MID" | tee "$MID/dag.txt"
	tools=(kiln make ninja)
	for ((r = 1; r <= FULL_REPS; r++)); do
		for ((i = 0; i < 3; i++)); do
			t=${tools[(r + i) % 3]}
			clean "$MID" "$t"
			echo "$MID_N nodes: full build $r/$FULL_REPS: $t"
			full full-mid "$MID" "$t" "$r"
		done
	done
	"$BIN/gen" -n "$MID_N" -seed "$SEED" -out "$MID" -compare
fi

# ---- N nodes (10,000) ----
for d in kiln make ninja snakemake; do
	[[ -e $OUT/$d ]] && mv "$OUT/$d" "$(mktemp -d "$TRASH/old.XXXXXX")/"
done
"$BIN/gen" -n "$N" -layers "$LAYERS" -seed "$SEED" -out "$OUT" | tee "$OUT/dag.txt"

# The first plan, nothing built.
for ((r = 1; r <= REPS; r++)); do
	echo "first plan $r/$REPS"
	dry fresh-plan "$OUT" "$r" kiln make ninja
	rm -rf "$OUT/kiln/.kiln"
	((r <= SNAKE_REPS)) && [[ $SNAKEMAKE == 1 ]] && dry fresh-plan "$OUT" "$r" snakemake
done

# Full builds from clean, interleaved and rotated so that a burst of load
# from elsewhere on the machine does not fall on one tool only.
tools=(kiln make ninja)
for ((r = 1; r <= FULL_REPS; r++)); do
	for ((i = 0; i < 3; i++)); do
		t=${tools[(r + i) % 3]}
		clean "$OUT" "$t"
		echo "full build $r/$FULL_REPS: $t"
		full full "$OUT" "$t" "$r"
	done
done

# The trees must hold the same bytes, or the comparison is void.
"$BIN/gen" -n "$N" -layers "$LAYERS" -seed "$SEED" -out "$OUT" -compare
# Snakemake's tree is make's, copied with its modification times: its dry
# runs are measured, not its full build (see bench/README.md).
rm -rf "$OUT/snakemake/build" && cp -a "$OUT/make/build" "$OUT/snakemake/build"

check_noop "$OUT" "${peers[@]}"
for ((r = 1; r <= REPS; r++)); do
	echo "no-op $r/$REPS"
	noop noop-plan "$OUT" "$r" kiln make ninja
	measure noop-apply kiln "$r" "$OUT/kiln" "$KILN" apply -quiet -parallelism "$JOBS"
	((r <= SNAKE_REPS)) && [[ $SNAKEMAKE == 1 ]] && noop noop-plan "$OUT" "$r" snakemake
done

# After one node's command changes: kiln and ninja say what they would do
# (kiln decides the node and what its value reaches, and takes the others
# from the memo; ninja reparses its file), then the command is put back.
COMMAND=$(edit_command "$OUT" on)
for ((r = 1; r <= REPS; r++)); do
	echo "after a command edit $r/$REPS"
	dry command-plan "$OUT" "$r" kiln ninja
done
(cd "$OUT/kiln" && "$KILN" plan | grep "^Plan:" | tail -1) >"$OUT/command-plan.txt"
edit_command "$OUT" off

# After an edit: one source file changes in every tree, and each tool says
# what it would do.
EDITED=$(edit "$OUT" "${peers[@]}")
for ((r = 1; r <= REPS; r++)); do
	echo "after an edit $r/$REPS"
	dry edit-plan "$OUT" "$r" kiln make ninja
	((r <= SNAKE_REPS)) && [[ $SNAKEMAKE == 1 ]] && dry edit-plan "$OUT" "$r" snakemake
done
(cd "$OUT/kiln" && "$KILN" plan | grep "^Plan:" | tail -1) >"$OUT/edit-plan.txt"
echo "kiln after the edit: $(cat "$OUT/edit-plan.txt")"
# The same plan without the key lines kept beside the no-change certificate
# (the full path: load the HCL, open the state, decide every node): it must
# say the same, and its time is what the cache saves.
full_plan=$(cd "$OUT/kiln" && KILN_NO_QUICK=1 "$KILN" plan | grep "^Plan:" | tail -1)
[[ $full_plan == "$(cat "$OUT/edit-plan.txt")" ]] || die "after the edit, kiln plan says \"$(cat "$OUT/edit-plan.txt")\" and the full path \"$full_plan\""
for ((r = 1; r <= SNAKE_REPS; r++)); do
	echo "after an edit, the full path $r/$SNAKE_REPS"
	measure edit-plan-full kiln "$r" "$OUT/kiln" env KILN_NO_QUICK=1 "$KILN" plan
done

if [[ ${PROFILE:-} == 1 ]]; then
	echo "profiling kiln plan in-process after the edit (bench/cmd/profile) ..."
	(cd "$ROOT" && go build -o "$BIN/profile" ./bench/cmd/profile)
	"$BIN/profile" -count "$REPS" -cpuprofile "$OUT/plan.cpu.pprof" -memprofile "$OUT/plan.mem.pprof" "$OUT/kiln"
	go tool pprof -top -cum -nodecount 400 "$BIN/profile" "$OUT/plan.cpu.pprof" 2>/dev/null >"$OUT/plan.cpu.txt" || true
	echo "profiles: $OUT/plan.cpu.pprof (CPU), $OUT/plan.mem.pprof (heap; -sample_index=alloc_space for allocations)"
fi

# ---- BIG_N nodes (100,000) ----
if ((BIG_N > 0)); then
	BIG=$OUT/n$BIG_N
	mkdir -p "$BIG"
	for d in kiln make ninja snakemake; do
		[[ -e $BIG/$d ]] && mv "$BIG/$d" "$(mktemp -d "$TRASH/old.XXXXXX")/"
	done
	"$BIN/gen" -n "$BIG_N" -seed "$SEED" -out "$BIG" | tee "$BIG/dag.txt"
	for ((r = 1; r <= REPS_BIG; r++)); do
		echo "$BIG_N nodes: first plan $r/$REPS_BIG"
		dry fresh-plan-big "$BIG" "$r" kiln make ninja
		rm -rf "$BIG/kiln/.kiln"
	done
	for t in kiln ninja; do
		echo "$BIG_N nodes: full build, $t"
		full full-big "$BIG" "$t" 1
	done
	check_noop "$BIG" kiln ninja
	for ((r = 1; r <= REPS_BIG; r++)); do
		echo "$BIG_N nodes: no-op $r/$REPS_BIG"
		noop noop-plan-big "$BIG" "$r" kiln ninja
	done
	edit "$BIG" kiln ninja >/dev/null
	for ((r = 1; r <= REPS_BIG; r++)); do
		echo "$BIG_N nodes: after an edit $r/$REPS_BIG"
		dry edit-plan-big "$BIG" "$r" kiln ninja
	done
fi

# ---- big files ----
if ((BIG_FILES > 0)); then
	echo "hashing $BIG_FILES files of $BIG_MIB MiB ..."
	"$BIN/bighash" -dir "$OUT/bigfiles" -files "$BIG_FILES" -size "$BIG_MIB" -reps "$REPS" -j "$JOBS" -tsv "$SAMPLES"
fi
# ---- fan-out: for_each = exec.map, the fileset form, Snakemake ----
if [[ -n $FANOUT && $FANOUT != 0 ]]; then
	# shellcheck disable=SC2086 # FANOUT is a list of sizes
	KILN=$KILN LABEL="$COMMIT" OUT=$OUT/fanout-forms REPS=$REPS SNAKE_REPS=$SNAKE_REPS \
		SNAKEMAKE=$SNAKEMAKE JOBS=$JOBS LARGE_APPLY_REPS=$FANOUT_APPLY_REPS "$ROOT/bench/fanout-forms.sh" $FANOUT
fi

# ---- MILLION instances from a few for_each blocks ----
if ((MILLION > 0)); then
	KILN=$KILN OUT=$OUT/million REPS=$REPS_BIG APPLY=$MILLION_APPLY JOBS=$JOBS "$ROOT/bench/million.sh" "$MILLION"
fi
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# The table: medians, ratios and the targets.
{
	echo "kiln at commit $COMMIT; $(make --version | head -1), ninja $(ninja --version)$([[ $SNAKEMAKE == 1 ]] && echo ", Snakemake $(snakemake --version)")"
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores; $( ((MID_N > 0)) && echo "$(sed 's/^wrote //; s/ under .*//' "$OUT/n$MID_N/dag.txt"); ")$(sed 's/^wrote //; s/ under .*//' "$OUT/dag.txt")$( ((BIG_N > 0)) && echo "; $(sed 's/^wrote //; s/ under .*//' "$OUT/n$BIG_N/dag.txt")")"
	echo "-j$JOBS / -parallelism $JOBS; medians of $FULL_REPS full builds, $REPS plan runs ($SNAKE_REPS for Snakemake, $REPS_BIG at $BIG_N nodes); load average $LOAD_START before, $LOAD_END after"
	"$BIN/table" -mid "$MID_N" -n "$N" -big "$BIG_N" "$SAMPLES"
	echo
	echo "Plans: kiln plan, make -n, ninja -n, snakemake -n (no-op rows: make and ninja building nothing)."
	echo "Edit rows: $EDITED appended to; kiln then plans: $(cat "$OUT/edit-plan.txt")"
	echo "Command edit row: the command of $COMMAND changed; kiln then plans: $(cat "$OUT/command-plan.txt")"
	echo "Peak RSS is the largest process of the run (/usr/bin/time -v); for make and ninja that may be a child."
	echo "All samples: $SAMPLES"
	if [[ -n $FANOUT && $FANOUT != 0 ]]; then
		echo
		echo "Fan-out (bench/fanout-forms.sh $FANOUT)"
		echo
		cat "$OUT/fanout-forms/table.md"
	fi
	if ((MILLION > 0)); then
		echo
		echo "A pipeline of a few for_each blocks (bench/million.sh $MILLION)"
		echo
		cat "$OUT/million/table.md"
	fi
} | tee "$OUT/table.md"

rm -f "$OUT/time.txt"
echo "deleting the outputs moved aside ($TRASH) ..."
rm -rf "$TRASH"
