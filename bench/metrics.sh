#!/usr/bin/env bash
# bench/metrics.sh — kiln's metric parser against grep and a Python parser
# on the same verl-shaped log (default 100 MiB; see bench/README.md).
#
# Environment:
#   SIZE=100   MiB of log
#   REPS=5     runs of each tool, interleaved; medians are reported
#   BIN=/tmp/kiln-bench  where metricscan and the log go
set -euo pipefail

SIZE=${SIZE:-100}
REPS=${REPS:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-/tmp/kiln-bench}
LOG=$BIN/verl-$SIZE.log

command -v python3 >/dev/null || { echo "bench: python3 is needed (apt-get install -y python3)" >&2; exit 1; }
mkdir -p "$BIN"
(cd "$ROOT" && go build -o "$BIN/metricscan" ./bench/cmd/metricscan)
[ -s "$LOG" ] || "$BIN/metricscan" -gen -size "$SIZE" "$LOG"
bytes=$(stat -c %s "$LOG")

# The peer a verl user writes: find the step line, split it, float() each value.
cat > "$BIN/metricscan.py" <<'PY'
import sys
values = 0
with open(sys.argv[1], encoding="utf-8", errors="replace", newline="") as f:
    for raw in f:
        for line in raw.split("\r"):
            i = line.find("step:")
            if i < 0:
                continue
            parts = line[i:].rstrip("\n").split(" - ")
            try:
                int(parts[0][5:])
            except ValueError:
                continue
            for p in parts[1:]:
                v = p.rpartition(":")[2].strip()
                if v.startswith("np."):
                    v = v[v.index("(") + 1:-1]
                try:
                    float(v)
                    values += 1
                except ValueError:
                    pass
print(values)
PY

now() { date +%s.%N; }
declare -A samples
for ((r = 0; r < REPS; r++)); do
	cat "$LOG" > /dev/null # in the page cache for every tool
	t=$("$BIN/metricscan" "$LOG" | cut -f1); samples[kiln]+="$t "
	# (GNU grep stops at the first match when its output is /dev/null.)
	s=$(now); grep -c 'step:' "$LOG" > "$BIN/grep.out"; e=$(now); samples[grep]+="$(echo "$e - $s" | bc) "
	s=$(now); python3 "$BIN/metricscan.py" "$LOG" > "$BIN/python.out"; e=$(now); samples[python]+="$(echo "$e - $s" | bc) "
done
# Both parsers must have read the same values.
kv=$("$BIN/metricscan" "$LOG" | cut -f4)
pv=$(cat "$BIN/python.out")
[ "$kv" = "$pv" ] || { echo "bench: kiln read $kv values, Python $pv" >&2; exit 1; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
k=$(echo "${samples[kiln]}" | median)
echo "log: $LOG, $bytes bytes, $kv metric values; $REPS runs each; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| tool | median (s) | MB/s | vs kiln |\n|---|---:|---:|---:|\n'
for tool in kiln grep python; do
	m=$(echo "${samples[$tool]}" | median)
	printf '| %s | %.3f | %.0f | %.2fx |\n' "$tool" "$m" "$(echo "$bytes / 1000000 / $m" | bc -l)" "$(echo "$m / $k" | bc -l)"
done
if [ -x /usr/bin/time ]; then
	rss=$(/usr/bin/time -f %M "$BIN/metricscan" "$LOG" 2>&1 >/dev/null)
	echo "kiln's peak RSS parsing it: $((rss / 1024)) MiB"
fi
echo "samples (s):"
for tool in kiln grep python; do echo "  $tool: ${samples[$tool]}"; done
