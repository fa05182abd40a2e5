#!/usr/bin/env bash
# bench/sandbox.sh [N] — what sealing every run costs: full builds of the
# layered DAG of N exec nodes (default 10000) by kiln with every run sealed
# (the default: Landlock, strict shell, reproducible environment), by kiln
# with sandbox = false on every node, and by ninja, interleaved in one run.
# Prints the median wall time of each and the ratios.
#
# Environment:
#   REPS=3       full builds of each (the median is reported)
#   JOBS=2       -j for ninja, -parallelism for kiln
#   SEED=1       picks each node's upstream nodes
#   OUT=bench/out/sandbox-nN   scratch folder
#   BIN=/tmp/kiln-bench        where kiln and bench/cmd/gen are built
set -euo pipefail

N=${1:-10000}
REPS=${REPS:-3}
JOBS=${JOBS:-2}
SEED=${SEED:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/bench/out/sandbox-n$N}
BIN=${BIN:-/tmp/kiln-bench}

die() { echo "bench/sandbox.sh: $*" >&2; exit 1; }
command -v ninja >/dev/null || die "ninja is not installed: apt-get install -y ninja-build"

mkdir -p "$BIN"
(cd "$ROOT" && go build -o "$BIN/kiln" ./cmd/kiln && go build -o "$BIN/gen" ./bench/cmd/gen) ||
	die "go build failed"
rm -rf "$OUT"
"$BIN/gen" -n "$N" -seed "$SEED" -out "$OUT" >/dev/null
# The same pipeline with every node opted out of the sandbox.
mkdir -p "$OUT/kiln-unsealed"
cp -r "$OUT/kiln/." "$OUT/kiln-unsealed/"
sed -i 's/^  command = /  sandbox        = false\n  sandbox_reason = "the benchmark of the sandbox'"'"'s cost"\n  command = /' "$OUT/kiln-unsealed/pipeline.hcl"
grep -q 'sandbox        = false' "$OUT/kiln-unsealed/pipeline.hcl" || die "no node was opted out"

SAMPLES=$OUT/samples.tsv
: >"$SAMPLES"
# build NAME DIR CMD...: one full build from clean, its wall time recorded.
build() {
	local name=$1 dir=$2 start end
	shift 2
	case $name in
	ninja) rm -rf "$dir/build" "$dir/.ninja_log" "$dir/.ninja_deps" ;;
	*) rm -rf "$dir/.kiln" ;;
	esac
	sync
	start=$EPOCHREALTIME
	(cd "$dir" && "$@" >/dev/null 2>"$OUT/last.log") || { tail -n 20 "$OUT/last.log" >&2; die "$name failed"; }
	end=$EPOCHREALTIME
	awk -v n="$name" -v a="$start" -v b="$end" 'BEGIN {printf "%s\t%.3f\n", n, b - a}' >>"$SAMPLES"
}

names=(sealed unsealed ninja)
for ((r = 1; r <= REPS; r++)); do
	for ((i = 0; i < 3; i++)); do
		t=${names[(r + i) % 3]}
		echo "full build $r/$REPS: $t" >&2
		case $t in
		sealed) build sealed "$OUT/kiln" "$BIN/kiln" apply -quiet -parallelism "$JOBS" ;;
		unsealed) build unsealed "$OUT/kiln-unsealed" "$BIN/kiln" apply -quiet -parallelism "$JOBS" ;;
		ninja) build ninja "$OUT/ninja" ninja -j"$JOBS" ;;
		esac
	done
done
"$BIN/kiln" plan -detailed-exitcode "$OUT/kiln" >/dev/null || die "the sealed tree is not up to date after its build"

median() { awk -v n="$1" '$1 == n {print $2}' "$SAMPLES" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
sealed=$(median sealed)
unsealed=$(median unsealed)
ninja=$(median ninja)
echo "$N nodes, -j$JOBS, medians of $REPS full builds ($(uname -r), $(nproc) cores; load average $(cut -d' ' -f1 /proc/loadavg) at the end):"
awk -v s="$sealed" -v u="$unsealed" -v n="$ninja" 'BEGIN {
	printf "  kiln, sealed runs     %7.2f s  %.2f× ninja\n", s, s / n
	printf "  kiln, sandbox = false %7.2f s  %.2f× ninja\n", u, u / n
	printf "  ninja                 %7.2f s\n", n
	printf "  sealing costs %+.1f %% of the unsealed build\n", (s / u - 1) * 100
}'
