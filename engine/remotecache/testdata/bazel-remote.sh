#!/bin/sh
# The check of kiln's remote cache against a real bazel-remote with its
# default validation, run by hand (the test suite has no bazel-remote):
#
#   engine/remotecache/testdata/bazel-remote.sh BAZEL_REMOTE KILN
#
# BAZEL_REMOTE is a bazel-remote binary (go build in a checkout of
# github.com/buchgr/bazel-remote), KILN a kiln binary (go build ./cmd/kiln).
# A signing host pushes a result with a 40 MiB file, an executable, a
# symlink, an empty file and an empty folder; a host that trusts its key
# fetches the same bytes; with one chunk gone from bazel-remote's store the
# entry is a miss, and the next push mends it; a JSON record as kiln wrote
# them before is refused by validation and read without it. Prints PASS at
# the end, or stops at the first step that fails.
set -eu
br=$(realpath "$1")
kiln=$(realpath "$2")
work=$(mktemp -d)
port=19090
url=http://127.0.0.1:$port
cd "$work"
trap 'kill $(cat br.pid) 2>/dev/null; rm -rf "$work"' EXIT

start() {
	"$br" --dir "$work/data" --max_size 1 --http_address 127.0.0.1:$port --grpc_address none "$@" >>br.log 2>&1 &
	echo $! >br.pid
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		curl -s -o /dev/null "$url/status" && return
		sleep 0.5
	done
	echo "bazel-remote did not start: $(tail -3 br.log)"
	exit 1
}
stop() { kill "$(cat br.pid)"; sleep 1; }
step() { echo "== $*"; }

mkdir host1
cat >host1/pipeline.hcl <<'EOF'
exec "model" {
  command = <<-SH
    mkdir -p $KILN_OUT/bin $KILN_OUT/empty $KILN_OUT/data/sub
    echo hello > $KILN_OUT/README
    printf '#!/bin/sh\necho run\n' > $KILN_OUT/bin/run && chmod +x $KILN_OUT/bin/run
    : > $KILN_OUT/data/empty
    echo b > $KILN_OUT/data/sub/b.txt
    ln -s README $KILN_OUT/link
    head -c 41943040 /dev/urandom > $KILN_OUT/data/weights.bin
  SH
}
EOF
"$kiln" cache keygen -out ci-1.key ci-1 >ci-1.pub 2>/dev/null
for h in host2 host3 host4 host5; do
	mkdir $h
	cp host1/pipeline.hcl $h/
	printf 'cache {\n  url          = "%s"\n  trusted_keys = ["%s"]\n}\n' "$url" "$(cat ci-1.pub)" >>$h/pipeline.hcl
done

start
step "a signing host pushes; bazel-remote takes every PUT"
KILN_CACHE_URL=$url KILN_CACHE_SIGNING_KEY="$work/ci-1.key" "$kiln" -chdir=host1 apply
grep -q 'PUT 200 .*/ac/' br.log
! grep -E 'PUT +[45][0-9][0-9]' br.log
key=$(grep -o '/ac/[0-9a-f]*' br.log | head -1 | cut -d/ -f3)
curl -s -H 'Accept: application/json' "$url/ac/$key" | tee entry.json
echo
grep -q '"path":"kiln/record.json"' entry.json
grep -q '"path":"out"' entry.json
grep -q '"path":"kiln/chunks"' entry.json

step "a host that trusts ci-1 fetches the same bytes"
"$kiln" -chdir=host2 apply | tee out2
grep -q 'fetched from the remote cache .*signed by ci-1' out2
diff -r host1/.kiln/out/exec.model host2/.kiln/out/exec.model

step "with a chunk gone from the store, the entry is a miss; the next push mends it"
stop
chunk=$(ls "$work"/data/cas.v2/*/* | awk -F/ '{print $NF}' | grep -- '-16777216-' | head -1)
rm "$work"/data/cas.v2/*/"$chunk"
start
test "$(curl -s -o /dev/null -w '%{http_code}' "$url/ac/$key")" = 404
KILN_CACHE_SIGNING_KEY="$work/ci-1.key" "$kiln" -chdir=host3 apply | tee out3
grep -q 'exec.model built' out3
test "$(curl -s -o /dev/null -w '%{http_code}' "$url/ac/$key")" = 200
"$kiln" -chdir=host4 apply | tee out4
grep -q 'fetched from the remote cache .*signed by ci-1' out4

step "a JSON record: refused with validation, read without it"
curl -s -H 'Accept: application/json' "$url/ac/$key" >entry.json
record=$(python3 -c 'import json; print(json.load(open("entry.json"))["outputFiles"][0]["digest"]["hash"])')
curl -s "$url/cas/$record" >old.json
test "$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary @old.json "$url/ac/$key")" = 400
stop
start --disable_http_ac_validation
test "$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary @old.json "$url/ac/$key")" = 200
"$kiln" -chdir=host5 apply | tee out5
grep -q 'fetched from the remote cache .*signed by ci-1' out5
cmp host4/.kiln/out/exec.model/data/weights.bin host5/.kiln/out/exec.model/data/weights.bin
echo PASS
