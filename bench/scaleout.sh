#!/usr/bin/env bash
# bench/scaleout.sh — the Slurm executor's overhead per node and the remote
# cache's pull rate, on this machine's one-node test cluster and a local
# nginx. See bench/README.md ("Scale-out").
#
# Environment:
#   NODES=50      trivial nodes for the Slurm overhead
#   ARRAY=200     jobs submitted one by one and as one array, for the submission cost
#   PARTS=slurm,submit,fanout,cache   which measurements to run
#   FANREPS=3     applies of the ARRAY-instance fan-out, each way (the median is reported)
#   FILES=200     files of the cache tree
#   MB=10         megabytes per file (200 x 10 MB = 2 GB)
#   REPS=3        pulls measured (the median is reported)
#   PAR=8         parallel downloads, for kiln (the client's default) and curl
#   OUT=bench/out/scaleout   scratch folder (removed at the start)
set -euo pipefail

NODES=${NODES:-50}
ARRAY=${ARRAY:-200}
PARTS=${PARTS:-slurm,submit,fanout,cache}
FANREPS=${FANREPS:-3}
FILES=${FILES:-200}
MB=${MB:-10}
REPS=${REPS:-3}
PAR=${PAR:-8}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/bench/out/scaleout}
BIN=$OUT/bin

die() { echo "bench: $*" >&2; exit 1; }
for c in go curl sbatch nginx; do
	command -v "$c" >/dev/null || [ -x "/usr/sbin/$c" ] || die "$c not found (apt-get install -y curl slurm-wlm munge nginx-light)"
done
rm -rf "$OUT"
mkdir -p "$OUT" "$BIN"
(cd "$ROOT" && go build -o "$BIN/kiln" ./cmd/kiln && go build -o "$BIN/nginx-cache" ./bench/cmd/nginx-cache)
"$ROOT/scripts/slurm-cluster" start

now() { echo "${EPOCHREALTIME/./}"; } # microseconds
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { awk -v us="$1" 'BEGIN {printf "%.0f", us/1000}'; }

part() { case ",$PARTS," in *",$1,"*) return 0 ;; esac; return 1; }
local_ms=0 slurm_ms=0 t0=0 t1=0 t2=0 t3=0 bytes=0 kiln_us=1 curl_us=1 single_us=0 array_us=0 fan_jobs_us=0 fan_array_us=0 fan_jobs_n=0 fan_array_n=0 fan_jobs_cpu=0 fan_array_cpu=1

# ------------------------------------------------------------ Slurm overhead
# NODES independent trivial nodes, once on the local executor and once as
# Slurm jobs one at a time (-jobs 1), so each node's time is submit → start
# → finish → hashed and linked, without waiting behind the others. A node's
# time is what kiln reports for it ("built in ..."), from the moment it
# starts running to its result being linked.
slurm_pipeline() {
	local dir=$1 executor=$2
	mkdir -p "$dir"
	{
		echo "executor \"slurm\" \"bench\" { poll = \"100ms\" }"
		for i in $(seq "$NODES"); do
			printf 'exec "n%d" {\n  executor = "%s"\n  command  = "echo %d > $KILN_OUT/out.txt"\n}\n' "$i" "$executor" "$i"
		done
	} >"$dir/pipeline.hcl"
}
node_times() { # apply output -> one duration in ms per built node
	grep -oE 'built in [0-9.]+(ms|s)' "$1" | awk '{v=$3; if (v ~ /ms$/) {sub(/ms/,"",v); print v} else {sub(/s/,"",v); print v*1000}}'
}
if part slurm; then
slurm_pipeline "$OUT/local" local
slurm_pipeline "$OUT/slurm" slurm
"$BIN/kiln" apply -parallelism 1 "$OUT/local" >"$OUT/local.txt"
t0=$(now)
"$BIN/kiln" apply -jobs 1 "$OUT/slurm" >"$OUT/slurm.txt"
t1=$(now)
local_ms=$(node_times "$OUT/local.txt" | median)
slurm_ms=$(node_times "$OUT/slurm.txt" | median)
[ "$(node_times "$OUT/slurm.txt" | wc -l)" = "$NODES" ] || die "not every Slurm node was built: see $OUT/slurm.txt"
# All at once: how long the whole set takes when the cluster runs them side by side.
rm -rf "$OUT/slurm/.kiln"
t2=$(now)
"$BIN/kiln" apply -jobs "$NODES" "$OUT/slurm" >"$OUT/slurm-all.txt"
t3=$(now)
fi

# ------------------------------------------------------------ submission
# ARRAY jobs submitted with one sbatch each, as kiln submits a fan-out
# today, against the same jobs as one sbatch --array: the submission
# alone (the jobs are held, then cancelled, so none runs).
if part submit; then
	d=$OUT/submit
	mkdir -p "$d"
	printf '#!/bin/sh\ntrue\n' >"$d/job.sh"
	t=$(now)
	for i in $(seq "$ARRAY"); do
		sbatch --parsable --hold --no-requeue --export=NONE -o /dev/null -J kiln-bench-one "$d/job.sh" >>"$d/ids"
	done
	single_us=$(($(now) - t))
	scancel $(cut -d';' -f1 "$d/ids")
	t=$(now)
	sbatch --parsable --hold --no-requeue --export=NONE -o /dev/null -J kiln-bench-array --array="0-$((ARRAY - 1))" "$d/job.sh" >"$d/array"
	array_us=$(($(now) - t))
	scancel "$(cut -d';' -f1 "$d/array")"
	[ "$(wc -l <"$d/ids")" = "$ARRAY" ] || die "not every job was submitted: see $d/ids"
fi

# ------------------------------------------------------------ fan-out
# kiln apply of one for_each block of ARRAY Slurm instances, ready
# together: with array_size = 1 (a job per instance, ARRAY sbatch calls)
# and as kiln submits it by default (one array job), alternated FANREPS
# times from a clean tree. The wall time is the whole apply: submitted,
# run on the one-node cluster, hashed and linked; the submissions are
# counted from the nodes' logs (an array job is one id; an element
# submitted again after NODE_FAIL is a job of its own).
fan_pipeline() { # dir array_size
	mkdir -p "$1"
	cat >"$1/pipeline.hcl" <<HCL
executor "slurm" "bench" {
  poll       = "200ms"
  array_size = $2
}

exec "fan" {
  for_each = toset([for i in range($ARRAY) : tostring(i)])
  executor = "slurm.bench"
  command  = "echo \${each.key} > \$KILN_OUT/out.txt"
}
HCL
}
submissions() { # dir -> sbatch calls that made its jobs, from the nodes' logs
	# (scontrol forgets a job MinJobAge after it ended): an array is one id.
	grep -rhoE 'kiln: submitted Slurm job [0-9]+' "$1/.kiln/logs" | sort -u | wc -l
}
if part fanout; then
	: >"$OUT/fan-jobs.us" >"$OUT/fan-array.us" >"$OUT/fan-jobs.cpu" >"$OUT/fan-array.cpu"
	stamp=$(date +%s)
	for r in $(seq "$FANREPS"); do
		for way in jobs array; do
			d=$OUT/fan-$stamp-$way-$r # a name of its own: scontrol still lists an earlier run's jobs
			if [ $way = jobs ]; then fan_pipeline "$d" 1; else fan_pipeline "$d" 1000; fi
			t=$(now)
			/usr/bin/time -f "%U %S" -o "$d.cpu" "$BIN/kiln" apply -quiet "$d" >"$d.txt" || die "the fan-out apply failed: see $d.txt"
			echo $(($(now) - t)) >>"$OUT/fan-$way.us"
			awk '{printf "%.0f\n", ($1 + $2) * 1e6}' "$d.cpu" >>"$OUT/fan-$way.cpu"
			[ "$(ls "$d/.kiln/out" | wc -l)" -ge "$ARRAY" ] || die "not every instance was built: see $d.txt"
		done
	done
	fan_jobs_us=$(median <"$OUT/fan-jobs.us")
	fan_array_us=$(median <"$OUT/fan-array.us")
	fan_jobs_cpu=$(median <"$OUT/fan-jobs.cpu")
	fan_array_cpu=$(median <"$OUT/fan-array.cpu")
	fan_jobs_n=$(submissions "$OUT/fan-$stamp-jobs-1")
	fan_array_n=$(submissions "$OUT/fan-$stamp-array-1")
fi

# ------------------------------------------------------------ cache pull
if part cache; then
# A tree of FILES random files of MB megabytes, built once and pushed to a
# local nginx; then pulled by kiln into a fresh pipeline folder (plan, pull,
# verify, link: a whole `kiln apply`), and the same blobs fetched by curl,
# PAR at a time, into a folder. Interleaved, REPS times each.
"$BIN/nginx-cache" start "$OUT/nginx" >"$OUT/nginx.url"
URL=$(cat "$OUT/nginx.url")
trap '"$BIN/nginx-cache" stop "$OUT/nginx" || true' EXIT
tree_pipeline() {
	mkdir -p "$1"
	cat >"$1/pipeline.hcl" <<HCL
exec "tree" {
  command = "for i in \$(seq $FILES); do head -c $((MB * 1048576)) /dev/urandom > \$KILN_OUT/f\$i.bin; done"
}
HCL
}
tree_pipeline "$OUT/host0"
KILN_CACHE_URL=$URL "$BIN/kiln" apply -quiet "$OUT/host0" >/dev/null
bytes=$(du -sb "$OUT/host0/.kiln/out/exec.tree/" | cut -f1)
ls "$OUT/nginx/root/cas" >"$OUT/blobs.txt"
[ "$(wc -l <"$OUT/blobs.txt")" -ge "$FILES" ] || die "the cache holds $(wc -l <"$OUT/blobs.txt") blobs, want $FILES"
: >"$OUT/kiln-pull.us"
: >"$OUT/curl-pull.us"
for r in $(seq "$REPS"); do
	h=$OUT/host$r
	tree_pipeline "$h"
	sync
	t=$(now)
	KILN_CACHE_URL=$URL "$BIN/kiln" apply -quiet "$h" >"$OUT/pull$r.txt"
	echo $(($(now) - t)) >>"$OUT/kiln-pull.us"
	grep -q 'fetched' "$OUT/pull$r.txt" || die "pull $r did not fetch: $OUT/pull$r.txt"
	cmp -s "$OUT/host0/.kiln/out/exec.tree/f1.bin" "$h/.kiln/out/exec.tree/f1.bin" || die "pull $r: f1.bin differs"
	rm -rf "$h"
	d=$OUT/curl$r
	mkdir -p "$d"
	sync
	t=$(now)
	(cd "$d" && xargs -P "$PAR" -I{} curl -sf -o {} "$URL/cas/{}" <"$OUT/blobs.txt")
	echo $(($(now) - t)) >>"$OUT/curl-pull.us"
	rm -rf "$d"
done
kiln_us=$(median <"$OUT/kiln-pull.us")
curl_us=$(median <"$OUT/curl-pull.us")
fi

awk -v n="$NODES" -v l="$local_ms" -v s="$slurm_ms" -v seq_us=$((t1 - t0)) -v all_us=$((t3 - t2)) \
	-v b="$bytes" -v k="$kiln_us" -v c="$curl_us" -v files="$FILES" -v par="$PAR" \
	-v parts=",$PARTS," -v an="$ARRAY" -v one_us="$single_us" -v arr_us="$array_us" \
	-v fj="$fan_jobs_us" -v fa="$fan_array_us" -v fjn="$fan_jobs_n" -v fan="$fan_array_n" -v reps="$FANREPS" \
	-v fjc="$fan_jobs_cpu" -v fac="$fan_array_cpu" 'BEGIN {
	if (index(parts, ",slurm,")) {
	printf "Slurm executor, %d trivial nodes (median per node, submit → linked)\n", n
	printf "  local executor          %8.0f ms\n", l
	printf "  Slurm, one job at a time %7.0f ms   (overhead %.0f ms per node)\n", s, s - l
	printf "  Slurm, all %d at once    %7.1f s for the set (%.2f s in sequence)\n", n, all_us/1e6, seq_us/1e6
	}
	if (index(parts, ",submit,")) {
	printf "Submitting %d jobs (sbatch alone, held, none run)\n", an
	printf "  one sbatch per job      %8.2f s   (%.1f ms per job)\n", one_us/1e6, one_us/1e3/an
	printf "  one sbatch --array      %8.3f s   (%.0fx less)\n", arr_us/1e6, one_us/arr_us
	}
	if (index(parts, ",fanout,")) {
	printf "kiln apply of a for_each of %d Slurm instances (medians of %d; wall: submitted to linked; CPU: kiln apply itself)\n", an, reps
	printf "  a job per instance      %8.2f s wall %7.2f s CPU   (%d sbatch calls)\n", fj/1e6, fjc/1e6, fjn
	printf "  one array job           %8.2f s wall %7.2f s CPU   (%d sbatch call%s; %.2fx the wall, %.2fx the CPU)\n", fa/1e6, fac/1e6, fan, fan == 1 ? "" : "s", fa/fj, fac/fjc
	}
	if (index(parts, ",cache,")) {
	printf "Remote cache pull, %d files, %.2f GB (median of pulls)\n", files, b/1e9
	printf "  kiln apply (pull, verify, link) %6.2f s  %7.0f MB/s\n", k/1e6, b/1e6/(k/1e6)
	printf "  curl, %d in parallel            %6.2f s  %7.0f MB/s\n", par, c/1e6, b/1e6/(c/1e6)
	printf "  kiln / curl rate: %.0f %% (target: 50 %% or more)\n", 100*c/k
	}
}' | tee "$OUT/results.txt"
