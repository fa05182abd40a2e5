#!/usr/bin/env bash
# bench/million.sh [N] — a pipeline of N node instances (default 1,000,000)
# written as a real pipeline of that size is: a few for_each blocks over one
# set of ids, each instance reading its own id's instance of the block
# before. Measures kiln plan of the fresh tree, and, after one apply, the
# no-op plan: wall time, CPU time and peak memory. See bench/README.md.
#
# Environment:
#   BLOCKS=4     for_each blocks (N / BLOCKS instances each)
#   REPS=3       runs of every plan measurement (the median is reported)
#   APPLY=1      build the tree once and measure the no-op plan (0: the
#                first plan only; the build of 1,000,000 nodes takes hours
#                on 2 busy cores)
#   JOBS=2       -parallelism of the apply
#   OUT=bench/out/millionN   scratch folder
#   BIN=/tmp/kiln-bench      where kiln is built
#   KILN=        a kiln binary to measure instead of building the working tree
#   SAMPLES=     also append every sample to this file (bench/run.sh's
#                samples.tsv: measure, tool, run, seconds, peak KiB, CPU s)
set -euo pipefail

N=${1:-1000000}
BLOCKS=${BLOCKS:-4}
REPS=${REPS:-3}
APPLY=${APPLY:-1}
JOBS=${JOBS:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/bench/out/million$N}
BIN=${BIN:-/tmp/kiln-bench}

die() { echo "bench: $*" >&2; exit 1; }
[[ $N =~ ^[1-9][0-9]*$ ]] || die "N must be a whole number of instances, e.g. bench/million.sh 100000"
for v in BLOCKS REPS JOBS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a whole number, 1 or more"
done
[[ $APPLY == 0 || $APPLY == 1 ]] || die "APPLY must be 0 or 1"
((N % BLOCKS == 0)) || die "N ($N) must be a multiple of BLOCKS ($BLOCKS)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install -y time)"
((BASH_VERSINFO[0] >= 5)) || die "bash 5 or later is needed (for EPOCHREALTIME)"

if [[ -z ${KILN:-} ]]; then
	mkdir -p "$BIN"
	echo "building kiln from $ROOT ..."
	(cd "$ROOT" && go build -o "$BIN/kiln" ./cmd/kiln) || die "go build ./cmd/kiln failed"
	KILN=$BIN/kiln
fi
[[ -x $KILN ]] || die "KILN=$KILN is not an executable"

# The ids: range() gives at most 1,024 numbers, so PER = A × B ids come
# from two nested for expressions, A and B at most 1,024.
PER=$((N / BLOCKS))
A=1
for ((d = 1; d * d <= PER; d++)); do
	((PER % d == 0)) && A=$d
done
B=$((PER / A))
((A <= 1024 && B <= 1024)) || die "N / BLOCKS = $PER is not a product of two numbers up to 1,024: pick another N or BLOCKS"

pipeline() {
	cat <<EOF
# $N instances: $BLOCKS for_each blocks of $PER ids each.
locals {
  ids = toset(flatten([for a in range($A) : [for b in range($B) : "i\${a}_\${b}"]]))
}

exec "s0" {
  for_each = local.ids
  command  = "echo \${each.key} > \$KILN_OUT/x"
}
EOF
	for ((i = 1; i < BLOCKS; i++)); do
		cat <<EOF

exec "s$i" {
  for_each = local.ids
  command  = "cat \${exec.s$((i - 1))[each.key].out}/x > \$KILN_OUT/x"
}
EOF
	done
}

TSV=$OUT/samples.tsv
LOG=$OUT/last-run.log
mkdir -p "$OUT"
[[ -e $OUT/kiln ]] && mv "$OUT/kiln" "$OUT/old.$EPOCHREALTIME"
rm -rf "$OUT"/old.*
mkdir -p "$OUT/kiln"
pipeline >"$OUT/kiln/pipeline.hcl"
printf 'measure\ttool\trun\tseconds\tmax_rss_kb\tcpu_seconds\n' >"$TSV"

# measure NAME RUN CMD...: times CMD in the tree (exit 0, or 2 for a plan
# with changes).
measure() {
	local name=$1 run=$2 start end rc line
	shift 2
	start=$EPOCHREALTIME
	set +e
	(cd "$OUT/kiln" && /usr/bin/time -v -o "$OUT/time.txt" "$@" >"$LOG" 2>&1)
	rc=$?
	set -e
	end=$EPOCHREALTIME
	if ((rc != 0 && rc != 2)); then
		tail -n 20 "$LOG" >&2
		die "$* exited $rc in $OUT/kiln (full log: $LOG)"
	fi
	line=$(printf '%s\tkiln\t%s\t%s\t%s\t%s' "$name" "$run" \
		"$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}')" \
		"$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time.txt")" \
		"$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$OUT/time.txt")")
	echo "$line" >>"$TSV"
	[[ -z ${SAMPLES:-} ]] || echo "$line" >>"$SAMPLES"
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 1; r <= REPS; r++)); do
	echo "$N instances: first plan $r/$REPS"
	measure million-fresh-plan "$r" "$KILN" plan -detailed-exitcode
done
(cd "$OUT/kiln" && "$KILN" plan | grep -qx "Plan: $N to create.") || die "kiln plan does not plan $N nodes to create"
if [[ $APPLY == 1 ]]; then
	echo "$N instances: the apply (once) ..."
	measure million-apply 1 "$KILN" apply -quiet -parallelism "$JOBS"
	# The first plan after an apply records the stat stamps the later
	# no-op plans trust once they are out of the racy window (2 s).
	sleep 3
	measure million-noop-settle 1 "$KILN" plan -detailed-exitcode
	(cd "$OUT/kiln" && "$KILN" plan -detailed-exitcode >"$LOG" 2>&1) || { tail "$LOG" >&2; die "kiln plan is not a no-op after the apply"; }
	for ((r = 1; r <= REPS; r++)); do
		echo "$N instances: no-op plan $r/$REPS"
		measure million-noop-plan "$r" "$KILN" plan -detailed-exitcode
	done
fi
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
rm -f "$OUT/time.txt"

{
	echo "$N instances ($BLOCKS for_each blocks of $PER); medians of $REPS plans; load average $LOAD_START before, $LOAD_END after, $(nproc) cores"
	echo
	awk -F'\t' -v scale="$(awk -v n="$N" 'BEGIN {print n / 100000}')" '
	NR == 1 { next }
	{ c[$1]++; t[$1, c[$1]] = $4; m[$1, c[$1]] = $5 / 1024; u[$1, c[$1]] = $6 }
	function med(arr, k,    i, j, x, v, n) {
		n = c[k]
		for (i = 1; i <= n; i++) v[i] = arr[k, i] + 0
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { x = v[j]; v[j] = v[j-1]; v[j-1] = x }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	END {
		f = "| %-36s | %9s | %9s | %8s | %-28s |\n"
		printf f, "measure (median)", "wall (s)", "CPU (s)", "peak MB", "target (scaled, see below)"
		printf "|--------------------------------------|-----------|-----------|----------|------------------------------|\n"
		split("million-fresh-plan million-apply million-noop-settle million-noop-plan", ks, " ")
		split("first plan, nothing built|full build, one run|first no-op plan after the apply|no-op plan", ls, "|")
		for (i = 1; i <= 4; i++) {
			if (!c[ks[i]]) continue
			w = med(t, ks[i]); mb = med(m, ks[i]); tgt = ""
			if (scale >= 1 && ks[i] == "million-fresh-plan") tgt = sprintf("<= %g s, <= %g MB: %s", 2 * scale, 500 * scale, (w <= 2 * scale && mb <= 500 * scale) ? "met" : "MISSED")
			if (scale >= 1 && ks[i] == "million-noop-plan") tgt = sprintf("<= %g s: %s", 0.5 * scale, w <= 0.5 * scale ? "met" : "MISSED")
			printf f, ls[i], sprintf("%.3f", w), sprintf("%.2f", med(u, ks[i])), sprintf("%.0f", mb), tgt
		}
		print ""
		print "Targets, from 100,000 instances up: those of the 100,000-node rows (first plan <= 2 s and 500 MB, no-op plan <= 0.5 s) times N / 100,000."
	}' "$TSV"
} | tee "$OUT/table.md"
