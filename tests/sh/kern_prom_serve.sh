# osprof serve scraped by a real Prometheus (Debian's 2.42, started here on
# 127.0.0.1 with native histograms enabled, stopped at the end): a workload
# of N getpgid calls runs while Prometheus scrapes; its HTTP API must then
# give the count exactly and histogram_quantile(0.99) within one bucket of
# `osprof report --pct 99` of the same data (serve -o), for the classic
# histograms (text format, job "classic") and the native ones (protobuf,
# job "native").
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/prom.bash"
need_root
need_btf
command -v prometheus >/dev/null || skip "prometheus not installed (apt-get install prometheus)"
N=5000
workload_copy promwl
serve_pid= prom_pid=
cleanup() {
	for p in $prom_pid $serve_pid; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

start_serve -l syscall --comm "$COMM" -i 200ms -o "$TMP/served.osp"
target=$serve_addr

# a free loopback port for Prometheus's own API
pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMP/prom.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: native
    static_configs: [{targets: ['$target']}]
  - job_name: classic
    params: {format: [text]}
    static_configs: [{targets: ['$target']}]
YML
prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$pport" --enable-feature=native-histograms \
	--log.level=warn >"$TMP/prom.log" 2>&1 &
prom_pid=$!

# q EXPR -> the value of the first result (empty if none); waits for the API
q() {
	python3 - "$pport" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
try:
    r = json.load(urllib.request.urlopen(url, timeout=5))
except Exception:
    sys.exit(0)
res = r.get("data", {}).get("result", [])
if res:
    print(res[0]["value"][1])
PY
}
# wait_for EXPR WANT: polls Prometheus until EXPR == WANT (bounded: 90 s)
wait_for() {
	local v=
	for _ in $(seq 180); do
		kill -0 $prom_pid 2>/dev/null || fail "prometheus exited: $(tail -5 "$TMP/prom.log")"
		v=$(q "$1")
		[ "$v" = "$2" ] && return 0
		sleep 0.5
	done
	fail "$1: got '$v', want '$2'"
}
# both targets up: Prometheus runs and scrapes serve in both formats
wait_for 'sum(up{job=~"native|classic"})' 2

"$WL" count $N 0 0 || fail "workload"

wait_for "osprof_syscall_latency_seconds_count{job=\"classic\",op=\"getpgid\"}" $N
wait_for "histogram_count(osprof_syscall_latency_seconds{job=\"native\",op=\"getpgid\"})" $N
classic=$(q "histogram_quantile(0.99, osprof_syscall_latency_seconds_bucket{job=\"classic\",op=\"getpgid\"})")
native=$(q "histogram_quantile(0.99, osprof_syscall_latency_seconds{job=\"native\",op=\"getpgid\"})")
[ -n "$classic" ] && [ -n "$native" ] || fail "no quantile: classic '$classic', native '$native'"


kill -TERM $serve_pid
wait $serve_pid || fail "serve exit status $?: $(cat "$TMP/serve.err")"
serve_pid=
report_profiles --pct 99 "$TMP/served.osp" >"$TMP/rows" || fail "report of the served set"
python3 - "$TMP/rows" "$classic" "$native" $N <<'PY' || fail "quantiles differ"
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
row = [r for r in rows if r["op"] == "getpgid"]
assert len(row) == 1, rows
row = row[0]
assert row["count"] == int(sys.argv[4]), row["count"]
ours = row["p99_ns"]
bucket = lambda ns: math.floor(math.log2(ns)) if ns >= 1 else -1  # r = 1
for name, s in (("classic", sys.argv[2]), ("native", sys.argv[3])):
    ns = float(s) * 1e9
    print("%s p99 %.0f ns (bucket %d), osprof report p99 %d ns (bucket %d)"
          % (name, ns, bucket(ns), ours, bucket(ours)))
    assert abs(bucket(ns) - bucket(ours)) <= 1, name
PY
echo ok
