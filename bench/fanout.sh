#!/usr/bin/env bash
# bench/fanout.sh [N] — the plan of a per-sample fan-out of N samples
# (default 500), kiln against Snakemake's dry run. See bench/README.md.
#
# Environment:
#   REPS=5        runs of every measurement (the median is reported)
#   JOBS=2        -parallelism for kiln, -j for Snakemake
#   OUT=bench/out/fanoutN   scratch folder
#   BIN=/tmp/kiln-bench     where kiln is built
#   SNAKEMAKE=1   also measure snakemake -n (0 to skip)
set -euo pipefail

N=${1:-500}
REPS=${REPS:-5}
JOBS=${JOBS:-2}
SNAKEMAKE=${SNAKEMAKE:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/bench/out/fanout$N}
BIN=${BIN:-/tmp/kiln-bench}

die() { echo "bench: $*" >&2; exit 1; }
[[ $N =~ ^[1-9][0-9]*$ ]] || die "N must be a whole number of samples, e.g. bench/fanout.sh 500"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install -y time)"
if [[ $SNAKEMAKE == 1 ]] && ! command -v snakemake >/dev/null; then
	die "snakemake is missing (apt-get install -y snakemake, or SNAKEMAKE=0 to skip it)"
fi
((BASH_VERSINFO[0] >= 5)) || die "bash 5 or later is needed (for EPOCHREALTIME)"

mkdir -p "$BIN"
echo "building kiln from $ROOT ..."
(cd "$ROOT" && go build -o "$BIN/kiln" ./cmd/kiln) || die "go build ./cmd/kiln failed"
KILN=$BIN/kiln
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)

# The same workflow twice: samples found by a glob, four steps per sample
# (map, sort, index, call; sort and call read their own sample's upstream
# results only) and one merge over every sample.
rm -rf "$OUT"
mkdir -p "$OUT/kiln/data" "$OUT/snakemake/data"
for ((i = 1; i <= N; i++)); do
	printf 'sample %d\n%d\n' "$i" "$((N - i))" >"$OUT/kiln/data/s$i.fastq"
done
cp "$OUT"/kiln/data/* "$OUT/snakemake/data/"
cat >"$OUT/kiln/pipeline.hcl" <<'EOF'
locals {
  samples = glob_wildcards("data/{sample}.fastq")
}

exec "map" {
  for_each = local.samples
  inputs   = [each.value]
  command  = "cat ${each.value} > $KILN_OUT/x"
}

exec "sort" {
  for_each = local.samples
  command  = "sort ${exec.map[each.key].out}/x > $KILN_OUT/x"
}

exec "index" {
  for_each = local.samples
  command  = "wc -l < ${exec.sort[each.key].out}/x > $KILN_OUT/x"
}

exec "call" {
  for_each = local.samples
  command  = "cat ${exec.sort[each.key].out}/x ${exec.index[each.key].out}/x > $KILN_OUT/x"
}

exec "merge" {
  command = "cat ${join(" ", [for s, c in exec.call : "${c.out}/x"])} > $KILN_OUT/x"
}
EOF
cp "$ROOT/bench/fanout.Snakefile" "$OUT/snakemake/Snakefile"

SAMPLES=$OUT/samples.tsv
printf 'measure\ttool\trun\tseconds\tmax_rss_kb\tcpu_seconds\n' >"$SAMPLES"
LOG=$OUT/last-run.log
measure() {
	local name=$1 tool=$2 run=$3 dir=$4
	shift 4
	local start end rss
	start=$EPOCHREALTIME
	set +e
	(cd "$dir" && /usr/bin/time -v -o "$OUT/time.txt" "$@" >"$LOG" 2>&1)
	local rc=$?
	set -e
	end=$EPOCHREALTIME
	# kiln plan -detailed-exitcode exits 2 when there are changes.
	if ((rc != 0 && rc != 2)); then
		tail -n 20 "$LOG" >&2
		die "$tool failed in $dir: $* (exit $rc; full log: $LOG)"
	fi
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time.txt")
	cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$OUT/time.txt")
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$tool" "$run" "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}')" "$rss" "$cpu" >>"$SAMPLES"
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 1; r <= REPS; r++)); do
	echo "plan of the unbuilt pipeline $r/$REPS"
	measure fresh-plan kiln "$r" "$OUT/kiln" "$KILN" plan -detailed-exitcode
	[[ $SNAKEMAKE == 1 ]] && measure fresh-plan snakemake "$r" "$OUT/snakemake" snakemake -n -j"$JOBS" --quiet
done
(cd "$OUT/kiln" && "$KILN" plan | grep -qx "Plan: $((4 * N + 1)) to create.") ||
	die "kiln plan does not plan $((4 * N + 1)) nodes to create"
EDGES=$(cd "$OUT/kiln" && "$KILN" graph | grep -c -- '->')

echo "building both trees ..."
(cd "$OUT/kiln" && "$KILN" apply -quiet -parallelism "$JOBS" >"$LOG" 2>&1) || { tail "$LOG" >&2; die "kiln apply failed"; }
if [[ $SNAKEMAKE == 1 ]]; then
	(cd "$OUT/snakemake" && snakemake -j"$JOBS" --quiet >"$LOG" 2>&1) || { tail "$LOG" >&2; die "snakemake failed"; }
fi

# One sample changes; each tool says what it would do.
for d in kiln snakemake; do
	echo "edited" >>"$OUT/$d/data/s7.fastq"
done
sleep 1 # Snakemake compares modification times
for ((r = 1; r <= REPS; r++)); do
	echo "plan after one sample changed $r/$REPS"
	measure edit-plan kiln "$r" "$OUT/kiln" "$KILN" plan -detailed-exitcode
	[[ $SNAKEMAKE == 1 ]] && measure edit-plan snakemake "$r" "$OUT/snakemake" snakemake -n -j"$JOBS" --quiet
done
(cd "$OUT/kiln" && "$KILN" plan | grep -qx "Plan: 1 to rebuild, 4 maybe, $((4 * N - 4)) up to date.") ||
	die "after one edit kiln plans more than that sample's chain and the merge"
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo "kiln at commit $COMMIT vs Snakemake $(snakemake --version 2>/dev/null || echo '(skipped)')"
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores; $N samples, $((4 * N + 1)) nodes, $EDGES edges; medians of $REPS runs; load average $LOAD_START before, $LOAD_END after"
	echo
	awk -F'\t' '
	NR == 1 { next }
	{ key = $1 SUBSEP $2; n[key]++; t[key, n[key]] = $4; m[key, n[key]] = $5; u[key, n[key]] = $6 }
	function med(arr, key,    i, j, k, v, c) {
		c = n[key]
		if (c == 0) return -1
		for (i = 1; i <= c; i++) v[i] = arr[key, i] + 0
		for (i = 2; i <= c; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { k = v[j]; v[j] = v[j-1]; v[j-1] = k }
		return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
	}
	function num(x, f) { return x < 0 ? "-" : sprintf(f, x) }
	function ratio(a, b) { return a > 0 && b > 0 ? sprintf("%.2fx", a / b) : "-" }
	function verdict(ok) { return ok ? "met" : "MISSED" }
	END {
		kf = med(t, "fresh-plan" SUBSEP "kiln"); sf = med(t, "fresh-plan" SUBSEP "snakemake")
		ke = med(t, "edit-plan" SUBSEP "kiln"); se = med(t, "edit-plan" SUBSEP "snakemake")
		kfm = med(m, "fresh-plan" SUBSEP "kiln") / 1024; sfm = med(m, "fresh-plan" SUBSEP "snakemake") / 1024
		kem = med(m, "edit-plan" SUBSEP "kiln") / 1024; sem = med(m, "edit-plan" SUBSEP "snakemake") / 1024
		kfc = med(u, "fresh-plan" SUBSEP "kiln"); sfc = med(u, "fresh-plan" SUBSEP "snakemake")
		kec = med(u, "edit-plan" SUBSEP "kiln"); sec = med(u, "edit-plan" SUBSEP "snakemake")
		f = "| %-34s | %9s | %9s | %14s | %-24s |\n"
		printf f, "measure (median)", "kiln", "snakemake", "kiln/snakemake", "target"
		printf "|%s|%s|%s|%s|%s|\n", "------------------------------------", "-----------", "-----------", "----------------", "--------------------------"
		printf f, "plan, nothing built (s)", num(kf, "%.3f"), num(sf, "%.3f"), ratio(kf, sf), "< 0.3 s: " verdict(kf < 0.3)
		printf f, "plan after 1 sample edit (s)", num(ke, "%.3f"), num(se, "%.3f"), ratio(ke, se), ""
		printf f, "CPU time, plan nothing built (s)", num(kfc, "%.2f"), num(sfc, "%.2f"), ratio(kfc, sfc), ""
		printf f, "CPU time, plan after edit (s)", num(kec, "%.2f"), num(sec, "%.2f"), ratio(kec, sec), ""
		printf f, "peak RSS, plan nothing built (MB)", num(kfm, "%.0f"), num(sfm, "%.0f"), ratio(kfm, sfm), "< 100 MB: " verdict(kfm < 100)
		printf f, "peak RSS, plan after edit (MB)", num(kem, "%.0f"), num(sem, "%.0f"), ratio(kem, sem), ""
	}' "$SAMPLES"
	echo
	echo "kiln: kiln plan; Snakemake: snakemake -n -j$JOBS --quiet (a dry run). CPU time is user + system"
	echo "(less sensitive than wall time to other load on the machine). All samples (wall seconds):"
	awk -F'\t' 'NR > 1 { s[$1 " " $2] = s[$1 " " $2] " " $4 } END { for (k in s) printf "  %-22s%s\n", k, s[k] }' "$SAMPLES" | sort
} | tee "$OUT/table.md"
rm -f "$OUT/time.txt"
