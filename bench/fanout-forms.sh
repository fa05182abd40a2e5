#!/usr/bin/env bash
# bench/fanout-forms.sh [N ...] — one per-sample chain written two ways, at
# N samples each (default 1000 10000): every step over the samples
# (for_each = fileset(...), exec.map[each.key]) and every step following the
# one before (for_each = exec.map). Measures the plan of the built tree (the
# full path, KILN_NO_QUICK=1) and the apply of a fresh tree, side by side,
# and Snakemake's dry run (snakemake -n) of the same workflow on a built
# tree. See bench/README.md.
#
# Environment:
#   REPS=3       runs of every measurement (the median is reported)
#   LARGE=10000 LARGE_APPLY_REPS=3   applies of each form at LARGE samples or
#                more (an apply of 40,001 nodes takes minutes on 2 busy cores;
#                the plans still run REPS times)
#   JOBS=2       -parallelism of the applies, -j of Snakemake
#   BODY=value   how a follower reads the instance it follows: each.value.out
#                (value) or exec.map[each.key].out (key, as kiln could
#                apply before for_each = exec.map was a static block)
#   SNAKEMAKE=1  also time snakemake -n (0 to skip it); SNAKE_REPS=3 runs
#   OUT=bench/out/fanout-forms   scratch folder
#   BIN=/tmp/kiln-bench          where kiln is built
#   KILN=        a kiln binary to measure instead of building the working tree
#   LABEL=       what to call that binary in the table (default: its path)
set -euo pipefail

REPS=${REPS:-3}
LARGE=${LARGE:-10000}
LARGE_APPLY_REPS=${LARGE_APPLY_REPS:-$REPS}
JOBS=${JOBS:-2}
BODY=${BODY:-value}
SNAKEMAKE=${SNAKEMAKE:-1}
SNAKE_REPS=${SNAKE_REPS:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/bench/out/fanout-forms}
BIN=${BIN:-/tmp/kiln-bench}
SIZES=("$@")
((${#SIZES[@]})) || SIZES=(1000 10000)

die() { echo "bench: $*" >&2; exit 1; }
for n in "${SIZES[@]}"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "each N must be a whole number of samples, e.g. bench/fanout-forms.sh 250 1000"
done
for v in REPS LARGE LARGE_APPLY_REPS JOBS SNAKE_REPS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a whole number, 1 or more"
done
[[ $BODY == value || $BODY == key ]] || die "BODY must be value or key"
[[ $SNAKEMAKE == 0 || $SNAKEMAKE == 1 ]] || die "SNAKEMAKE must be 0 or 1"
if [[ $SNAKEMAKE == 1 ]] && ! command -v snakemake >/dev/null; then
	die "snakemake is missing (apt-get install -y snakemake, or SNAKEMAKE=0 to skip it)"
fi
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install -y time)"
((BASH_VERSINFO[0] >= 5)) || die "bash 5 or later is needed (for EPOCHREALTIME)"

if [[ -z ${KILN:-} ]]; then
	mkdir -p "$BIN"
	echo "building kiln from $ROOT ..."
	(cd "$ROOT" && go build -o "$BIN/kiln" ./cmd/kiln) || die "go build ./cmd/kiln failed"
	KILN=$BIN/kiln
	COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
	[[ -z $(git -C "$ROOT" status --porcelain -- engine cmd 2>/dev/null) ]] || COMMIT="$COMMIT+changes"
else
	[[ -x $KILN ]] || die "KILN=$KILN is not an executable"
	COMMIT=${LABEL:-$KILN}
fi

# The workflow of bench/fanout.sh: four steps per sample (map, sort, index,
# call; call reads its sample's sort and index) and one merge of every call.
# $1 is the form, fileset or follow.
pipeline() {
	local sort_in='${exec.map[each.key].out}' index_in='${exec.sort[each.key].out}'
	local each='local.samples' after_map='local.samples' after_sort='local.samples'
	if [[ $1 == follow ]]; then
		after_map=exec.map after_sort=exec.sort
		if [[ $BODY == value ]]; then
			sort_in='${each.value.out}' index_in='${each.value.out}'
		fi
	fi
	cat <<EOF
locals {
  samples = fileset(path.root, "data/*.fastq")
}

exec "map" {
  for_each = $each
  inputs   = [each.value]
  command  = "cat \${each.value} > \$KILN_OUT/x"
}

exec "sort" {
  for_each = $after_map
  command  = "sort $sort_in/x > \$KILN_OUT/x"
}

exec "index" {
  for_each = $after_sort
  command  = "wc -l < $index_in/x > \$KILN_OUT/x"
}

exec "call" {
  for_each = $after_sort
  command  = "cat $index_in/x \${exec.index[each.key].out}/x > \$KILN_OUT/x"
}

# A list command: 10,000 paths are more than one argument may hold.
exec "merge" {
  command = concat(["sh", "-c", "cat \"\$@\" > \$KILN_OUT/x", "merge"], [for s, c in exec.call : "\${c.out}/x"])
}
EOF
}


# snake_tree N: Snakemake's tree, built as far as its dry run can tell:
# every step's outputs exist and are newer than their inputs (Snakemake
# compares modification times), written step by step without running the
# steps, so that its dry run is measured, not its build.
snake_tree() {
	local dir=$OUT/n$1/snakemake step
	mkdir -p "$dir/data"
	cp "$ROOT/bench/fanout.Snakefile" "$dir/Snakefile"
	cp "$OUT/n$1/fileset/data/"* "$dir/data/"
	for step in map sort index call; do
		sleep 0.05 # a later step's files are strictly newer
		mkdir -p "$dir/out/$step"
		(cd "$dir/data" && printf '%s\n' *.fastq) | sed 's/\.fastq$//' | (cd "$dir/out/$step" && xargs touch)
	done
	sleep 0.05
	touch "$dir/out/merge"
	(cd "$dir" && snakemake -n -j"$JOBS" --quiet 2>&1 | grep -q 'Nothing to be done') ||
		die "$1 samples: snakemake -n has work to do in $dir"
}

SAMPLES=$OUT/samples.tsv
LOG=$OUT/last-run.log
TRASH=$OUT/trash
mkdir -p "$OUT"
printf 'samples\tform\tmeasure\trun\tseconds\tcpu_seconds\tmax_rss_kb\n' >"$SAMPLES"

# measure N FORM MEASURE RUN CMD...: times CMD in FORM's tree; exit 0 only.
measure() {
	local n=$1 form=$2 name=$3 run=$4 start end rc
	shift 4
	start=$EPOCHREALTIME
	set +e
	(cd "$OUT/n$n/$form" && /usr/bin/time -v -o "$OUT/time.txt" "$@" >"$LOG" 2>&1)
	rc=$?
	set -e
	end=$EPOCHREALTIME
	if ((rc != 0)); then
		tail -n 20 "$LOG" >&2
		die "$form, $n samples: $* exited $rc (full log: $LOG)"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$form" "$name" "$run" \
		"$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}')" \
		"$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$OUT/time.txt")" \
		"$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time.txt")" >>"$SAMPLES"
}

# fresh N FORM: the tree without its outputs, moved aside (deleting tens of
# thousands of files right before a build slows the build's own file
# creation on this machine's file system; see bench/README.md).
fresh() {
	local dir=$OUT/n$1/$2
	if [[ -e $dir/.kiln ]]; then
		mkdir -p "$TRASH"
		mv "$dir/.kiln" "$TRASH/$1-$2-$EPOCHREALTIME"
	fi
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
STARTED=$(date -u '+%Y-%m-%d %H:%M UTC')
for n in "${SIZES[@]}"; do
	echo "$n samples: writing the trees ..."
	rm -rf "$OUT/n$n"
	for form in fileset follow; do
		mkdir -p "$OUT/n$n/$form/data"
		pipeline $form >"$OUT/n$n/$form/pipeline.hcl"
	done
	for ((i = 1; i <= n; i++)); do
		printf 'sample %d\n%d\n' "$i" "$((n - i))" >"$OUT/n$n/fileset/data/s$i.fastq"
	done
	cp "$OUT/n$n/fileset/data/"* "$OUT/n$n/follow/data/"
	forms=(fileset follow)
	applies=$REPS
	((n < LARGE)) || applies=$LARGE_APPLY_REPS
	for ((r = 1; r <= applies; r++)); do
		for form in "${forms[@]}"; do
			echo "$n samples, $form: apply of the fresh tree $r/$applies"
			fresh "$n" $form
			measure "$n" $form apply "$r" "$KILN" apply -quiet -parallelism "$JOBS"
		done
		forms=("${forms[1]}" "${forms[0]}") # the other goes first next time
	done
	for form in fileset follow; do
		(cd "$OUT/n$n/$form" && "$KILN" graph >graph.dot 2>"$LOG") || die "kiln graph failed in $form"
	done
	cmp -s "$OUT/n$n/fileset/.kiln/out/exec.merge/x" "$OUT/n$n/follow/.kiln/out/exec.merge/x" ||
		die "$n samples: the two forms built different merges"
	nodes=$(grep -c ' \[label=' "$OUT/n$n/fileset/graph.dot")
	edges=$(grep -c -- '->' "$OUT/n$n/fileset/graph.dot")
	((nodes == 4 * n + 1)) || die "$n samples: the fileset form has $nodes nodes, not $((4 * n + 1))"
	[[ $(grep -c ' \[label=' "$OUT/n$n/follow/graph.dot") == "$nodes" && $(grep -c -- '->' "$OUT/n$n/follow/graph.dot") == "$edges" ]] ||
		echo "note: $n samples: for_each = exec.map has a different graph (nodes or edges) from the fileset form" >&2
	echo "$nodes $edges" >"$OUT/n$n/counts"
	# The first plan after an apply records the stat stamps later plans
	# trust, once they are out of the racy window (2 s): wait, plan once.
	sleep 3
	for form in fileset follow; do
		(cd "$OUT/n$n/$form" && KILN_NO_QUICK=1 "$KILN" plan -detailed-exitcode >"$LOG" 2>&1) ||
			{ tail "$LOG" >&2; die "$n samples, $form: the built tree is not up to date"; }
	done
	[[ $SNAKEMAKE == 1 ]] && snake_tree "$n"
	for ((r = 1; r <= REPS; r++)); do
		for form in "${forms[@]}"; do
			echo "$n samples, $form: plan of the built tree $r/$REPS"
			measure "$n" $form plan "$r" env KILN_NO_QUICK=1 "$KILN" plan -detailed-exitcode
		done
		forms=("${forms[1]}" "${forms[0]}")
		if [[ $SNAKEMAKE == 1 ]] && ((r <= SNAKE_REPS)); then
			echo "$n samples, snakemake -n of the built tree $r/$SNAKE_REPS"
			measure "$n" snakemake plan "$r" snakemake -n -j"$JOBS" --quiet
		fi
	done
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
rm -rf "$TRASH" "$OUT/time.txt"

{
	echo "kiln $COMMIT; $STARTED, $(nproc) cores; medians of $REPS runs ($LARGE_APPLY_REPS of each apply at $LARGE samples or more); -parallelism $JOBS; followers read each.${BODY/key/key (exec.map[each.key].out)}; load average $LOAD_START before, $LOAD_END after"
	echo
	awk -F'\t' -v sizes="${SIZES[*]}" -v outdir="$OUT" '
	NR == 1 { next }
	{ k = $1 SUBSEP $2 SUBSEP $3; c[k]++; t[k, c[k]] = $5; u[k, c[k]] = $6; r[k, c[k]] = $7 / 1024 }
	function med(arr, k,    i, j, x, v, n) {
		n = c[k]
		if (n == 0) return -1
		for (i = 1; i <= n; i++) v[i] = arr[k, i] + 0
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { x = v[j]; v[j] = v[j-1]; v[j-1] = x }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function target(n, m, follow, fileset) {
		if (m == "apply") return "<= 1.10x fileset: " (follow <= 1.10 * fileset ? "met" : "MISSED")
		if (n == 1000) return "<= 0.5 s: " (follow <= 0.5 ? "met" : "MISSED")
		if (n == 10000) return "<= 5 s: " (follow <= 5 ? "met" : "MISSED")
		return ""
	}
	# line N NODES LABEL ARR M FORMAT TARGET: fileset, exec.map and
	# snakemake medians of measure M, with the ratios.
	function line(n, nodes, label, arr, m, fmt, tgt,    a, b, s) {
		a = med(arr, n SUBSEP "fileset" SUBSEP m); b = med(arr, n SUBSEP "follow" SUBSEP m)
		s = med(arr, n SUBSEP "snakemake" SUBSEP m)
		printf f, n, nodes, label, sprintf(fmt, a), sprintf(fmt, b), sprintf("%.2fx", b / a),
			s < 0 ? "-" : sprintf(fmt, s), s <= 0 ? "-" : sprintf("%.2fx", b / s), tgt
	}
	END {
		f = "| %7s | %7s | %-39s | %9s | %9s | %6s | %9s | %18s | %-22s |\n"
		printf f, "samples", "nodes", "measure (median)", "fileset", "exec.map", "ratio", "snakemake", "exec.map/snakemake", "target"
		printf "|---------|---------|-----------------------------------------|-----------|-----------|--------|-----------|--------------------|------------------------|\n"
		ns = split(sizes, size, " ")
		for (i = 1; i <= ns; i++) {
			n = size[i]
			getline counts < (outdir "/n" n "/counts")
			split(counts, nc, " ")
			for (mi = 1; mi <= 2; mi++) {
				m = mi == 1 ? "plan" : "apply"
				label = m == "plan" ? "plan, built tree, full path (s)" : "apply, fresh tree (s)"
				if (c[n SUBSEP "follow" SUBSEP m] == 1) label = label " (1 run)"
				tgt = target(n, m, med(t, n SUBSEP "follow" SUBSEP m), med(t, n SUBSEP "fileset" SUBSEP m))
				line(n, nc[1], label, t, m, "%.3f", tgt)
				line(n, nc[1], "  CPU time (s)", u, m, "%.2f", "")
				line(n, nc[1], "  peak RSS (MB)", r, m, "%.0f", "")
			}
		}
	}' "$SAMPLES"
	echo
	echo "fileset: every step for_each = fileset(path.root, \"data/*.fastq\"), reading exec.map[each.key];"
	echo "exec.map: sort follows map, index and call follow sort (for_each = exec.map, exec.sort)."
	echo "Plan: KILN_NO_QUICK=1 kiln plan -detailed-exitcode on the built tree. Apply: kiln apply -quiet"
	echo "-parallelism $JOBS with .kiln moved aside. snakemake: snakemake -n -j$JOBS --quiet of the same workflow"
	echo "on a tree whose outputs are all newer than their inputs. CPU time is user + system. All samples (wall seconds):"
	awk -F'\t' 'NR > 1 { s[sprintf("%6d %-7s %-5s", $1, $2, $3)] = s[sprintf("%6d %-7s %-5s", $1, $2, $3)] " " $5 } END { for (k in s) printf "  %s%s\n", k, s[k] }' "$SAMPLES" | sort -n
} | tee "$OUT/table.md"
