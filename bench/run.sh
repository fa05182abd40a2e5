#!/usr/bin/env bash
# bench/run.sh [N] — kiln against make and ninja on a layered DAG of N exec
# nodes (default 10000). See bench/README.md for what is measured.
#
# Environment:
#   REPS=5       runs of every no-op measurement (the median is reported)
#   FULL_REPS=3  runs of every full build from clean
#   JOBS=2       -j for make and ninja, -parallelism for kiln
#   LAYERS=      layers of the DAG (default: the square root of N)
#   SEED=1       picks each node's upstream nodes
#   OUT=bench/out/nN   scratch folder for the three trees and the results
#   BIN=/tmp/kiln-bench where kiln and the generator are built
#   CLEAN=move   how a full build starts from clean: move the old outputs
#                aside and delete them after the last measurement (move), or
#                delete them just before the build (rm; see bench/README.md)
#   PROFILE=1    also profile a plan in-process (bench/cmd/profile)
set -euo pipefail

N=${1:-10000}
REPS=${REPS:-5}
FULL_REPS=${FULL_REPS:-3}
JOBS=${JOBS:-2}
LAYERS=${LAYERS:-0}
SEED=${SEED:-1}
CLEAN=${CLEAN:-move}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/bench/out/n$N}
BIN=${BIN:-/tmp/kiln-bench}

die() { echo "bench: $*" >&2; exit 1; }

[[ $N =~ ^[1-9][0-9]*$ ]] || die "N must be a whole number of nodes, e.g. bench/run.sh 1000"
[[ $CLEAN == move || $CLEAN == rm ]] || die "CLEAN must be move or rm"
for v in REPS FULL_REPS JOBS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a whole number, 1 or more"
done

# Tools.
missing=()
command -v go >/dev/null || missing+=("go (https://go.dev/dl, or put /usr/local/go/bin on PATH)")
command -v make >/dev/null || missing+=("make (apt-get install -y make)")
command -v ninja >/dev/null || missing+=("ninja (apt-get install -y ninja-build)")
[[ -x /usr/bin/time ]] || missing+=("/usr/bin/time (apt-get install -y time)")
for t in cksum cat awk; do
	command -v $t >/dev/null || missing+=("$t (apt-get install -y coreutils gawk)")
done
if ((${#missing[@]})); then
	printf 'bench: missing tools:\n' >&2
	printf '  %s\n' "${missing[@]}" >&2
	die "install them (as root: apt-get update && apt-get install -y ninja-build time) and run again"
fi
((BASH_VERSINFO[0] >= 5)) || die "bash 5 or later is needed (for EPOCHREALTIME)"

# Build kiln from the working tree, as it is now, and the generator.
mkdir -p "$BIN" "$OUT"
echo "building kiln and the generator from $ROOT ..."
(cd "$ROOT" && go build -o "$BIN/kiln" ./cmd/kiln && go build -o "$BIN/gen" ./bench/cmd/gen) ||
	die "go build failed: fix the build of ./cmd/kiln or ./bench/cmd/gen first"
KILN=$BIN/kiln
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)

TRASH=$OUT/trash
mkdir -p "$TRASH"
for d in kiln make ninja; do
	[[ -e $OUT/$d ]] && mv "$OUT/$d" "$(mktemp -d "$TRASH/old.XXXXXX")/"
done
"$BIN/gen" -n "$N" -layers "$LAYERS" -seed "$SEED" -out "$OUT" | tee "$OUT/dag.txt"

SAMPLES=$OUT/samples.tsv
printf 'measure\ttool\trun\tseconds\tmax_rss_kb\n' >"$SAMPLES"
LOG=$OUT/last-run.log

# measure NAME TOOL RUN DIR CMD...: runs CMD in DIR under /usr/bin/time -v,
# records its wall time and peak memory, and stops the benchmark if it fails.
measure() {
	local name=$1 tool=$2 run=$3 dir=$4
	shift 4
	local start end rss
	start=$EPOCHREALTIME
	if ! (cd "$dir" && /usr/bin/time -v -o "$OUT/time.txt" "$@" >/dev/null 2>"$LOG"); then
		tail -n 20 "$LOG" >&2
		die "$tool failed in $dir: $* (full log: $LOG)"
	fi
	end=$EPOCHREALTIME
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time.txt")
	printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$tool" "$run" "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}')" "$rss" >>"$SAMPLES"
}

# clean TOOL removes what a build of TOOL left. Deleting tens of thousands
# of files just before a build slows the build's own file creation on some
# file systems (ext4 without a journal checks every recently deleted inode),
# so by default the old outputs are moved aside and deleted at the end.
clean() {
	local paths
	case $1 in
	kiln) paths=("$OUT/kiln/.kiln") ;;
	make) paths=("$OUT/make/build") ;;
	ninja) paths=("$OUT/ninja/build" "$OUT/ninja/.ninja_log" "$OUT/ninja/.ninja_deps") ;;
	esac
	if [[ $CLEAN == rm ]]; then
		rm -rf "${paths[@]}"
		return
	fi
	local dest
	dest=$(mktemp -d "$TRASH/$1.XXXXXX")
	for p in "${paths[@]}"; do
		[[ -e $p ]] && mv "$p" "$dest/"
	done
	return 0
}

full() {
	case $1 in
	kiln) measure full kiln "$2" "$OUT/kiln" "$KILN" apply -quiet -parallelism "$JOBS" ;;
	make) measure full make "$2" "$OUT/make" make -j"$JOBS" ;;
	ninja) measure full ninja "$2" "$OUT/ninja" ninja -j"$JOBS" ;;
	esac
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average before: $LOAD_START (on $(nproc) cores)"

# Full builds from clean, interleaved and rotated so that a burst of load
# from elsewhere on the machine does not fall on one tool only.
tools=(kiln make ninja)
for ((r = 1; r <= FULL_REPS; r++)); do
	for ((i = 0; i < 3; i++)); do
		t=${tools[(r + i) % 3]}
		clean "$t"
		echo "full build $r/$FULL_REPS: $t"
		full "$t" "$r"
	done
done

# The three trees must hold the same bytes, or the comparison is void.
"$BIN/gen" -n "$N" -layers "$LAYERS" -seed "$SEED" -out "$OUT" -compare

# No-op: check that each tool really has nothing to do (this also warms the
# caches every later run sees), then measure.
set +e
(cd "$OUT/kiln" && "$KILN" plan -detailed-exitcode >"$LOG" 2>&1)
rc=$?
set -e
((rc == 0)) || { tail -n 20 "$LOG" >&2; die "kiln plan is not a no-op after apply (exit $rc)"; }
(cd "$OUT/make" && make -q) || die "make -q says the make tree is not up to date after a full build"
(cd "$OUT/ninja" && ninja -n -j"$JOBS" | grep -q 'no work to do') || die "ninja -n has work to do after a full build"

for ((r = 1; r <= REPS; r++)); do
	echo "no-op $r/$REPS"
	measure noop-plan kiln "$r" "$OUT/kiln" "$KILN" plan
	measure noop-apply kiln "$r" "$OUT/kiln" "$KILN" apply -quiet -parallelism "$JOBS"
	measure noop make "$r" "$OUT/make" make -j"$JOBS"
	measure noop ninja "$r" "$OUT/ninja" ninja -j"$JOBS"
done

# After an edit: one source file changes in every tree, and each tool says
# what it would do (kiln plan takes its full path; make -n and ninja -n are
# dry runs). Informational: the issue sets no target for it.
# The source edited is the one the first node of layer 1 reads, so that the
# edit has dependents.
EDITED=$(grep -o -m1 'exec\.n_0_[0-9]*\.out' "$OUT/kiln/pipeline.hcl" | head -1 | cut -d. -f2 || true)
EDITED=src/${EDITED:-n_0_0}.txt
for d in kiln make ninja; do
	echo "edited for the benchmark" >>"$OUT/$d/$EDITED"
done
for ((r = 1; r <= REPS; r++)); do
	echo "after an edit $r/$REPS"
	measure edit-plan kiln "$r" "$OUT/kiln" "$KILN" plan
	measure edit make "$r" "$OUT/make" make -n -j"$JOBS"
	measure edit ninja "$r" "$OUT/ninja" ninja -n -j"$JOBS"
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# The table: medians, ratios and the targets of the issue.
{
	echo "kiln built from the working tree at commit $COMMIT vs $(make --version | head -1), ninja $(ninja --version)"
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(cat "$OUT/dag.txt" | sed 's/^wrote //; s/ under .*//')"
	echo "-j$JOBS / -parallelism $JOBS; medians of $FULL_REPS full builds and $REPS no-op runs; load average $LOAD_START before, $LOAD_END after"
	echo
	awk -F'\t' -v N="$N" '
	NR == 1 { next }
	{ key = $1 SUBSEP $2; n[key]++; t[key, n[key]] = $4; m[key, n[key]] = $5 }
	function med(arr, key,    i, j, k, v, c) {
		c = n[key]
		if (c == 0) return -1
		for (i = 1; i <= c; i++) v[i] = arr[key, i] + 0
		for (i = 2; i <= c; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { k = v[j]; v[j] = v[j-1]; v[j-1] = k }
		return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
	}
	function ratio(a, b) { return b > 0 ? sprintf("%.2fx", a / b) : "-" }
	function verdict(ok) { return ok ? "met" : "MISSED" }
	END {
		kf = med(t, "full" SUBSEP "kiln"); mf = med(t, "full" SUBSEP "make"); nf = med(t, "full" SUBSEP "ninja")
		kp = med(t, "noop-plan" SUBSEP "kiln"); ka = med(t, "noop-apply" SUBSEP "kiln")
		ke = med(t, "edit-plan" SUBSEP "kiln"); me = med(t, "edit" SUBSEP "make"); ne = med(t, "edit" SUBSEP "ninja")
		mn = med(t, "noop" SUBSEP "make"); nn = med(t, "noop" SUBSEP "ninja")
		kfm = med(m, "full" SUBSEP "kiln") / 1024; kpm = med(m, "noop-plan" SUBSEP "kiln") / 1024
		kam = med(m, "noop-apply" SUBSEP "kiln") / 1024
		mfm = med(m, "full" SUBSEP "make") / 1024; nfm = med(m, "full" SUBSEP "ninja") / 1024
		mnm = med(m, "noop" SUBSEP "make") / 1024; nnm = med(m, "noop" SUBSEP "ninja") / 1024
		f = "| %-26s | %9s | %9s | %9s | %9s | %10s | %-28s |\n"
		printf f, "measure (median)", "kiln", "make", "ninja", "kiln/make", "kiln/ninja", "target"
		printf "|%s|%s|%s|%s|%s|%s|%s|\n", "----------------------------", "-----------", "-----------", "-----------", "-----------", "------------", "------------------------------"
		printf f, "full build from clean (s)", sprintf("%.3f", kf), sprintf("%.3f", mf), sprintf("%.3f", nf), ratio(kf, mf), ratio(kf, nf), "<= 1.3x ninja: " verdict(kf <= 1.3 * nf)
		printf f, "no-op plan (s)", sprintf("%.3f", kp), sprintf("%.3f", mn), sprintf("%.3f", nn), ratio(kp, mn), ratio(kp, nn), "<= 5x ninja, < 0.3 s: " verdict(kp <= 5 * nn && kp < 0.3)
		printf f, "no-op apply (s)", sprintf("%.3f", ka), sprintf("%.3f", mn), sprintf("%.3f", nn), ratio(ka, mn), ratio(ka, nn), ""
		printf f, "plan after 1 edit (s)", sprintf("%.3f", ke), sprintf("%.3f", me), sprintf("%.3f", ne), ratio(ke, me), ratio(ke, ne), "(none; make -n, ninja -n)"
		printf f, "peak RSS, full build (MB)", sprintf("%.0f", kfm), sprintf("%.0f", mfm), sprintf("%.0f", nfm), ratio(kfm, mfm), ratio(kfm, nfm), "< 500 MB: " verdict(kfm < 500)
		printf f, "peak RSS, no-op plan (MB)", sprintf("%.0f", kpm), sprintf("%.0f", mnm), sprintf("%.0f", nnm), ratio(kpm, mnm), ratio(kpm, nnm), "< 500 MB: " verdict(kpm < 500)
		printf f, "peak RSS, no-op apply (MB)", sprintf("%.0f", kam), sprintf("%.0f", mnm), sprintf("%.0f", nnm), ratio(kam, mnm), ratio(kam, nnm), ""
	}' "$SAMPLES"
	echo
	echo "No-op rows: make -j$JOBS and ninja -j$JOBS with nothing to do. Edit row: $EDITED appended to, then"
	echo "kiln plan (its full path), make -n and ninja -n (dry runs). Full builds start clean (CLEAN=$CLEAN)."
	echo "Peak RSS is the largest process of the run (/usr/bin/time -v); for make and ninja that may be a child."
	echo "All samples (seconds): $SAMPLES"
	awk -F'\t' 'NR > 1 { s[$1 " " $2] = s[$1 " " $2] " " $4 } END { for (k in s) printf "  %-18s%s\n", k, s[k] }' "$SAMPLES" | sort
} | tee "$OUT/table.md"

if [[ ${PROFILE:-} == 1 ]]; then
	echo
	echo "profiling kiln plan in-process after the edit (bench/cmd/profile) ..."
	(cd "$ROOT" && go build -o "$BIN/profile" ./bench/cmd/profile)
	"$BIN/profile" -count "$REPS" -cpuprofile "$OUT/plan.cpu.pprof" -memprofile "$OUT/plan.mem.pprof" "$OUT/kiln"
	go tool pprof -top -cum -nodecount 400 "$BIN/profile" "$OUT/plan.cpu.pprof" 2>/dev/null >"$OUT/plan.cpu.txt" || true
	grep -E 'kilnbuild|^ *flat|hclparse' "$OUT/plan.cpu.txt" | head -30 || true
	echo "profiles: $OUT/plan.cpu.pprof (CPU), $OUT/plan.mem.pprof (heap; -sample_index=alloc_space for allocations)"
fi
rm -f "$OUT/time.txt"
echo "deleting the outputs moved aside ($TRASH) ..."
rm -rf "$TRASH"
