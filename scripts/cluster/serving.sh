#!/usr/bin/env bash
# scripts/cluster/serving.sh: issue 33's serving targets on the cluster of scripts/cluster/up.sh.
# The load generators run on the edge host, each in its own process: wrk posts checks
# (POST /v1/serve/check, one device, 50 campaigns of 5 cap windows) and ad requests
# (POST /v1/serve/ad, a zone of 20 ads) to the report API on host api; the floor (ServingFloor, a
# JVM with the HBase client) reads the same profiles closed-loop from the region servers: the bare
# profile Get and the Get a check sends. Same connections (8), same devices, same run. Each phase
# prints its rate and latency, the load generator's own CPU per request and every cluster
# process's CPU per request summed by role (its idle CPU subtracted, as roles.sh does). Then the
# same phases beside ingest at half the capacity measured in the same run (bin/adreport replay from
# the edge host to both aggregators), both floors (the bare Get, issue 33's floor, and the check's
# filtered Get) before and after the HTTP phases; beside ingest, the region servers' CPU per
# request includes the ingest's.
#
# --pin gives hosts their own CPU, as separate machines would have (taskset, every thread):
#   --pin edge     every host of the cluster on CPU 0, the edge host's load generators on CPU 1: the
#                  load generator's CPU no longer comes out of the servers';
#   --pin workers  the worker hosts (region servers, DataNodes, NodeManager) on CPU 0, every other
#                  host (the API, the aggregators, master, edge) on CPU 1: the region servers' machine
#                  apart from the API's, where the issue's serving targets are decided (the API is
#                  stateless and scales out; a region server holds its rows).
# The cluster's processes are given every CPU back at the end.
#
#   scripts/cluster/serving.sh [--devices N] [--seconds S] [--connections C] [--rounds R]
#                              [--pin edge|workers] [--no-ingest]
#                              [--warmup-rounds N] [--quiet-compiler PCT]
# The warm-up: rounds of 10 s of checks and 10 s of ads until the API's JIT compiler threads used at
# most --quiet-compiler percent (default 3) of its CPU in a round, or --warmup-rounds (default 6).
#
# Needs wrk (installed with apt-get when missing) and the benchmarks' classes
# (mvn -B -q install -DskipTests, as up.sh does). Files go to RUN/serving/HHMMSS/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$ROOT/benchmarks/lib.sh" # bench_java; cpu_ms, thread_cpu and thread_cpu_ms for the API's JIT
load_state || { echo "serving: no cluster in $RUN (run scripts/cluster/up.sh first)"; exit 1; }
devices=1000000 seconds=30 connections=8 rounds=2 pin="" ingest=1 warmup_rounds=6 quiet_compiler=3
while [ $# -gt 0 ]; do
  case "$1" in
    --devices) devices="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --pin) pin="$2"; shift 2
           case "$pin" in edge|workers) ;; *) echo "serving: --pin takes edge or workers, not '$pin'"; exit 2 ;; esac ;;
    --no-ingest) ingest=0; shift ;;
    --warmup-rounds) warmup_rounds="$2"; shift 2 ;;
    --quiet-compiler) quiet_compiler="$2"; shift 2 ;;
    *) sed -n "2,/^set -uo/p" "$0" | sed "\$d"; exit 2 ;;
  esac
done
[ -z "$pin" ] || [ "$(nproc)" -ge 2 ] || { echo "serving: --pin needs 2 CPUs, this machine has $(nproc)"; exit 2; }
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; } \
  || { echo "serving: wrk is not installed and apt-get could not install it"; exit 1; }
[ -f "$ROOT/benchmarks/target/classpath.txt" ] || { echo "serving: no benchmarks/target/classpath.txt (run mvn -B -q install -DskipTests)"; exit 1; }
W="$RUN/serving/$(date -u +%H%M%S)"; mkdir -p "$W"
API="http://$(host_name api):$API_PORT"
ANALYST=$(cat "$RUN/keys/analyst.key"); ADSERVER=$(cat "$RUN/keys/adserver.key")
EDGE_CPU=(); [ -n "$pin" ] && EDGE_CPU=(taskset -c 1)

api() { # METHOD PATH BODY: with the analyst key, from the edge host; fails on HTTP errors
  on edge curl -sS --fail-with-body --max-time 30 -X "$1" -H "Authorization: Bearer $ANALYST" \
    -H 'Content-Type: application/json' --data-binary "$3" "$API$2" >/dev/null
}
floor() { # ServingFloor ARGS... on the edge host, as the cluster's clients see HBase
  on edge env HBASE_CONF_DIR="$RUN/hosts/edge/conf" HADOOP_CONF_DIR="$RUN/hosts/edge/conf" \
    ADREPORT_DEVICE_HASH_SECRET="$(cat "$RUN/device-hash.secret")" "${EDGE_CPU[@]}" \
    java -Xmx1g -XX:+UseParallelGC -Xlog:gc:stderr -Djava.net.preferIPv4Stack=true $OPENS \
    -cp "$ROOT/benchmarks/target/classes:$(cat "$ROOT/benchmarks/target/classpath.txt")" \
    io.adreport.benchmarks.serving.ServingFloor "$@" --devices "$devices" 2>>"$W/floor.log"
}
LUA="$ROOT/benchmarks/src/test/resources/io/adreport/benchmarks/serving/serve-check.lua"
wrk_run() { # ROUTE SECONDS: wrk from the edge host, closed loop; one summary line with wrk's own CPU per request
  local out
  out=$(on edge "${EDGE_CPU[@]}" sh -c 'wrk "$@"; s=$?; times; exit $s' sh -t2 -c"$connections" -d"$2"s --latency --timeout 10s \
        -s "$LUA" "$API/v1/serve/$1" -- "$W/$1.params" "$connections" 2>&1) || { echo "wrk failed: $out"; return 1; }
  echo "$out" >>"$W/wrk.log"; echo "$out" >"$W/wrk-last.log"
  python3 - "$connections" "$W/wrk-last.log" <<'EOF'
import re, sys
out = open(sys.argv[2]).read()
r = dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", re.search(r"WRK-RESULT (.*)", out).group(1)))
t = re.findall(r"^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$", out, re.M)
cpu = (int(t[-1][0]) * 60 + float(t[-1][1]) + int(t[-1][2]) * 60 + float(t[-1][3])) if t else None
bad = r["non2xx"] + r["connect"] + r["read"] + r["write"] + r["timeout"]
# p50/p99 as recorded (serve-check.lua undoes wrk's coordinated-omission correction), as the
# closed-loop floor records them; wrk's corrected p99 beside them, as the floor also gives it
line = "%s requests, %s/s with %s connections, p50 %.2f ms, p99 %.2f ms, max %.1f ms, p99 as wrk corrects it %.2f ms%s; wrk %s" % (
    format(r["requests"], ","), format(round(r["requests"] / (r["duration_us"] / 1e6)), ","), sys.argv[1],
    r["recorded_p50_us"] / 1e3, r["recorded_p99_us"] / 1e3, r["max_us"] / 1e3, r["p99_us"] / 1e3,
    "" if r["recorded"] == r["requests"] else " (undoing it found %d samples)" % r["recorded"],
    "%.1f us CPU per request" % (cpu * 1e6 / r["requests"]) if cpu is not None else "CPU not reported")
print(("INVALID (%d non-2xx answers or socket errors): " % bad if bad else "") + line)
EOF
}
gc_snapshot() { # per process (region servers, report API): "NAME GC-ms full-GCs" from jstat (GCT, FGC)
  local n p
  for n in regionserver-worker1 regionserver-worker2 report-api; do
    p=$(cat "$RUN/pids/$n.pid" 2>/dev/null) || continue
    jstat -gc "$p" 2>/dev/null | awk -v n="$n" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
      NR == 2 { printf "%s %d %d\n", n, $col["GCT"] * 1000, $col["FGC"] }'
  done
}
scrape() { on edge curl -fsS --max-time 10 "$API/metrics" 2>/dev/null; } # the API's Prometheus text
server_side() { # BEFORE AFTER METRIC: the API's own view of a phase: requests and the histogram bucket holding its p50 and p99
  python3 - "$@" <<'EOF'
import re, sys
def buckets(path, name):
    out = {}
    for line in open(path):
        m = re.match(name + r'_bucket\{(?:.*,)?le="([^"]+)"\} (\S+)', line)
        if m:
            out[m.group(1)] = out.get(m.group(1), 0) + float(m.group(2))
    return out
a, b = buckets(sys.argv[1], sys.argv[3]), buckets(sys.argv[2], sys.argv[3])
d = sorted(((float(k) if k != "+Inf" else float("inf")), b[k] - a.get(k, 0)) for k in b)
n = d[-1][1] if d else 0
def within(q):
    for le, c in d:
        if c >= q * n:
            return "<= %g ms" % (le * 1000) if le != float("inf") else "> the last bucket"
print("API's own time (%s): %d requests, p50 %s, p99 %s" % (sys.argv[3], n, within(0.5), within(0.99)) if n else "API's own time: no requests in " + sys.argv[3])
EOF
}
phase() { # LABEL CMD...: runs CMD (whose output's first field is the request count), then the cluster's CPU per request
  local label="$1"; shift
  local t0 t1 out
  scrape >"$W/metrics-before-$label"
  gc_snapshot >"$W/gc-before-$label"; snapshot >"$W/before-$label"; t0=$(date +%s.%N)
  out=$("$@"); t1=$(date +%s.%N)
  snapshot >"$W/after-$label"; gc_snapshot >"$W/gc-after-$label"
  scrape >"$W/metrics-after-$label"
  report "$label" "$out" "$t0" "$t1"
  case "$label" in
    checks*) echo "   $(server_side "$W/metrics-before-$label" "$W/metrics-after-$label" adreport_serve_check_seconds)" | tee -a "$W/summary" ;;
    ads*) echo "   $(server_side "$W/metrics-before-$label" "$W/metrics-after-$label" adreport_serve_ad_seconds)" | tee -a "$W/summary" ;;
  esac
}
floor_phase() { # LABEL ARGS...: ServingFloor gets ARGS after 5 s of warm-up in the same JVM; the window starts after it
  local label="$1"; shift
  local t0 t1 out p
  rm -f "$W/floor.ready" "$W/floor.go"
  floor gets "$@" --warmup 5 --ready "$W/floor.ready" --go "$W/floor.go" >"$W/floor.out" & p=$!
  while [ ! -f "$W/floor.ready" ] && kill -0 "$p" 2>/dev/null; do sleep 0.2; done
  gc_snapshot >"$W/gc-before-$label"; snapshot >"$W/before-$label"; t0=$(date +%s.%N); touch "$W/floor.go"
  wait "$p"; t1=$(date +%s.%N)
  snapshot >"$W/after-$label"; gc_snapshot >"$W/gc-after-$label"
  report "$label" "$(cat "$W/floor.out")" "$t0" "$t1"
}
report() { # LABEL OUTPUT T0 T1: the phase's line and the cluster's CPU per request by role
  local n; n=$(awk '{ gsub(",", "", $1); print $1; exit }' <<<"$2")
  printf '== %-34s %s\n' "$1:" "$2" | tee -a "$W/summary"
  case "$2" in INVALID*) echo "serving: phase $1 had failed requests (wrk's full output: $W/wrk.log)"; return 1 ;; esac
  case "$n" in ''|*[!0-9]*|0) echo "serving: phase $1 gave no requests (the floor's log: $W/floor.log)"; return 1 ;; esac
  cost_per_unit "$1" "$n" "$(awk -v a="$3" -v b="$4" 'BEGIN { print b - a }')" request | sed -n '/-- by role/,$p' | tee -a "$W/summary"
  echo "   GC during the phase: $(join "$W/gc-before-$1" "$W/gc-after-$1" | awk '{ printf "%s %d ms (%d full)  ", $1, $4 - $2, $5 - $3 }')" | tee -a "$W/summary"
}
tree() { # PID: the process and its descendants
  ps -e -o pid=,ppid= | awk -v root="$1" '{ parent[$1] = $2 } END { for (p in parent) { q = p
    while (q != "" && q != root && q > 1) q = parent[q]; if (q == root) print p } }'
}
pin_cluster() { # MODE: every process of the cluster (daemons, services, all their threads) on its host's CPU
  local f p cpus h
  for f in "$RUN"/pids/*.pid; do
    pid_alive "$f" || continue
    h=$(cat "${f%.pid}.host" 2>/dev/null)
    case "$1" in
      edge) cpus=0 ;;
      workers) case "$h" in worker*) cpus=0 ;; *) cpus=1 ;; esac ;;
      *) cpus=0-$(( $(nproc) - 1 )) ;;
    esac
    for p in $(tree "$(cat "$f")"); do taskset -a -p -c "$cpus" "$p" >/dev/null 2>&1 || true; done
  done
}
stop_replays() { local p; for p in ${REPLAY_PIDS:-}; do kill $(tree "$p") 2>/dev/null; done; REPLAY_PIDS=""; }
cleanup() { stop_replays; [ -n "$pin" ] && pin_cluster none; }
trap cleanup EXIT
trap 'exit 143' TERM INT

echo "serving: cluster in $RUN ($MODE); $devices devices; $connections connections; ${seconds} s per phase; $rounds round(s);" \
  "$(case "$pin" in edge) echo "the cluster's hosts on CPU 0, the edge host's load generators on CPU 1";;
      workers) echo "the worker hosts on CPU 0, every other host and the load generators on CPU 1";;
      *) echo "no pinning: everything shares the $(nproc) CPUs";; esac);" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$W/summary"

# --- the registry: 50 campaigns of 5 caps, a zone of 20 ads (the mini-cluster benchmark's) --------
start=$(date -u -d '1 day ago' +%F) end=$(date -u -d '+30 days' +%F)
caps='[{"max":1,"window":"5m"},{"max":2,"window":"2h"},{"max":5,"window":"1d"},{"max":10,"window":"14d"},{"max":20,"window":"120d"}]'
campaigns="" ads=""
for c in $(seq 0 49); do
  api PUT "/v1/campaigns/sbadv$((c % 10))/sbcamp$c" "{\"status\":\"active\",\"start\":\"$start\",\"end\":\"$end\",\"frequencyCaps\":$caps}" \
    || { echo "serving: could not register campaign sbcamp$c"; exit 1; }
  campaigns="$campaigns${campaigns:+,}\"sbadv$((c % 10))/sbcamp$c\""
  [ "$c" -lt 20 ] && ads="$ads${ads:+,}{\"advertiser\":\"sbadv$((c % 10))\",\"campaign\":\"sbcamp$c\",\"creative\":\"cr$c\",\"ecpmMicros\":$((1000000 + 100000 * (c % 7)))}"
done
api PUT /v1/zones/sbsite/bz "{\"ads\":[$ads]}" || { echo "serving: could not register the zone"; exit 1; }
printf '%s\n%s\n%s\n%s\n' "$devices" "$ADSERVER" '{"device":"' "\",\"campaigns\":[$campaigns]}" >"$W/check.params"
printf '%s\n%s\n%s\n%s\n' "$devices" "$ADSERVER" '{"site":"sbsite","zone":"bz","device":"' '"}' >"$W/ad.params"

for f in "$RUN"/pids/regionserver-*.spec; do # HOST NAME HEAP:GC MAINCLASS ...
  read -r _ n hg _ <"$f"; echo "$n: heap and collector $hg"
done | tee -a "$W/summary"

# --- profiles: written, compacted and scanned into the block cache, once per cluster (up.sh writes
# RUN/state) and device count
if [ "$RUN/serving-profiles-$devices" -nt "$RUN/state" ]; then
  echo "profiles: $devices devices loaded before ($(cat "$RUN/serving-profiles-$devices"))" | tee -a "$W/summary"
else
  floor load >"$RUN/serving-profiles-$devices"
  grep -q '^profiles:' "$RUN/serving-profiles-$devices" \
    || { echo "serving: loading the profiles failed ($W/floor.log)"; rm -f "$RUN/serving-profiles-$devices"; exit 1; }
  tee -a "$W/summary" <"$RUN/serving-profiles-$devices"
fi
r=$(on edge curl -sS -H "Authorization: Bearer $ADSERVER" -H 'Content-Type: application/json' \
    --data-binary '{"site":"sbsite","zone":"bz","device":"bench-device-1"}' "$API/v1/serve/ad")
grep -q '"impressionId"' <<<"$r" || { echo "serving: POST /v1/serve/ad chose no ad: $r"; exit 1; }

[ -n "$pin" ] && pin_cluster "$pin"
# --- the region servers done with what came before: an earlier run's ingest leaves flushes and
# compactions behind, which in a first attempt held checks of the next run up to their deadline
rs_busy() { # ms of CPU per second the region servers used over 5 s, plus their queued flushes and compactions
  local w a q=0 n c0=0 c1=0 p
  for w in worker1 worker2; do
    for a in compactionQueueLength flushQueueLength; do
      n=$(jmx edge "http://$(host_name "$w"):${RS_INFO[$w]}" Hadoop:service=HBase,name=RegionServer,sub=Server "$a" 2>/dev/null)
      q=$((q + ${n:-1}))
    done
  done
  for w in worker1 worker2; do p=$(cat "$RUN/pids/regionserver-$w.pid"); c0=$((c0 + $(tree_cpu_ms "$p"))); done
  sleep 5
  for w in worker1 worker2; do p=$(cat "$RUN/pids/regionserver-$w.pid"); c1=$((c1 + $(tree_cpu_ms "$p"))); done
  echo "$(( (c1 - c0) / 5 )) $q"
}
quiet_region_servers() { # SECONDS: until twice in a row nothing is queued and the region servers use < 100 ms/s
  local deadline=$(( $(date +%s) + $1 )) same=0 b
  while [ "$(date +%s)" -lt "$deadline" ]; do
    read -r ms q <<<"$(rs_busy)"
    if [ "$q" = 0 ] && [ "$ms" -lt 100 ]; then same=$((same + 1)); [ "$same" -ge 2 ] && return 0; else same=0; fi
  done
  echo "$ms ms/s, $q queued"; return 1
}
t=$(date +%s)
if b=$(quiet_region_servers 300); then
  echo "region servers quiet (no flush or compaction queued, < 100 ms of CPU per second) after $(( $(date +%s) - t )) s" | tee -a "$W/summary"
else
  echo "region servers still busy after 300 s ($b); the numbers below include it" | tee -a "$W/summary"
fi
# --- warm-up (the JIT of the API, the region servers and the floor's JVM), then the idle CPU ------
# Rounds of 10 s of checks and 10 s of ads until the API's JIT compiler threads ("C1/C2
# CompilerThread", per thread from /proc) use at most --quiet-compiler percent of the API's CPU in
# a round, or --warmup-rounds rounds.
api=$(cat "$RUN/pids/report-api.pid")
for w in $(seq 1 "$warmup_rounds"); do
  thread_cpu "$api" >"$W/api-threads-before"; a0=$(cpu_ms "$api")
  c=$(wrk_run check 10 | cut -d';' -f1); a=$(wrk_run ad 10 | cut -d';' -f1)
  thread_cpu "$api" >"$W/api-threads-after"; a1=$(cpu_ms "$api")
  jit=$(thread_cpu_ms "$W/api-threads-before" "$W/api-threads-after" CompilerThre)
  pct=$(awk -v j="$jit" -v a=$((a1 - a0)) 'BEGIN { printf "%.1f", (a > 0 ? j * 100 / a : 0) }')
  echo "warm-up round $w: the API's compiler $jit of $((a1 - a0)) ms CPU ($pct%); checks $c; ads $a" | tee -a "$W/summary"
  awk -v p="$pct" -v q="$quiet_compiler" 'BEGIN { exit !(p <= q) }' && break
done
echo "warm-up: Gets $(floor gets --seconds 5 --filtered true | cut -d';' -f1)"
sleep 5
measure_idle 15
status=0
for round in $(seq 1 "$rounds"); do
  floor_phase "bare-get-$round" --seconds 10 || status=1
  floor_phase "filtered-get-$round" --seconds 10 --filtered true || status=1
  phase "checks-$round" wrk_run check "$seconds" || status=1
  phase "ads-$round" wrk_run ad "$seconds" || status=1
done

if [ "$ingest" = 1 ]; then
  # --- beside ingest at half capacity: capacity from a replay as fast as the aggregators take it
  gen() { bench_java io.adreport.benchmarks.GenerateEvents "$@" 2>/dev/null; }
  replay() { # FILE AGGREGATOR [RATE]: bin/adreport replay from the edge host; its last line
    on edge "${EDGE_CPU[@]}" "$(adreport_cmd edge)" replay "$1" --url "http://$(host_name "$2"):${INGEST_PORT[$2]}" \
      --batch 1000 --concurrency 2 ${3:+--rate "$3"} 2>/dev/null | tail -1
  }
  gen "$W/capacity.ndjson" 120000 "cap-$$-" 600 21; split_for "$W/capacity" agg1 agg2
  gen "$W/capacity-warm.ndjson" 40000 "capw-$$-" 600 22; split_for "$W/capacity-warm" agg1 agg2
  replay "$W/capacity-warm-agg1.ndjson" agg1 >/dev/null & replay "$W/capacity-warm-agg2.ndjson" agg2 >/dev/null & wait
  gc_snapshot >"$W/gc-before-capacity"; snapshot >"$W/before-capacity"; t0=$(date +%s.%N)
  replay "$W/capacity-agg1.ndjson" agg1 >"$W/capacity-agg1.out" & replay "$W/capacity-agg2.ndjson" agg2 >"$W/capacity-agg2.out" & wait
  t1=$(date +%s.%N); snapshot >"$W/after-capacity"; gc_snapshot >"$W/gc-after-capacity"
  capacity=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", 120000 / (b - a) }')
  echo "ingest capacity (bin/adreport replay to both aggregators, 1,000-event batches, same run): $capacity events/s" | tee -a "$W/summary"
  cost_per_unit capacity 120000 "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" event | sed -n '/-- by role/,$p' | tee -a "$W/summary"
  echo "   GC during it: $(join "$W/gc-before-capacity" "$W/gc-after-capacity" | awk '{ printf "%s %d ms (%d full)  ", $1, $4 - $2, $5 - $3 }')" | tee -a "$W/summary"
  # enough events for the three phases and the snapshots between them; stopped after the phases
  half=$((capacity / 2)); span=$((20 + 2 * seconds + 200))
  gen "$W/half.ndjson" $((half * span)) "half-$$-" 600 23; split_for "$W/half" agg1 agg2
  sleep 12 # the capacity run's last flush lands
  replay "$W/half-agg1.ndjson" agg1 $((half / 2)) >"$W/half-agg1.out" & p1=$!
  replay "$W/half-agg2.ndjson" agg2 $((half / 2)) >"$W/half-agg2.out" & p2=$!
  REPLAY_PIDS="$p1 $p2"
  sleep 15 # the replays' JVMs started and their compiler settled
  floor_phase "bare-get-beside-ingest" --seconds 10 || status=1
  floor_phase "filtered-get-beside-ingest" --seconds 10 --filtered true || status=1
  phase "checks-beside-ingest" wrk_run check "$seconds" || status=1
  phase "ads-beside-ingest" wrk_run ad "$seconds" || status=1
  floor_phase "filtered-get-beside-ingest-again" --seconds 10 --filtered true || status=1
  floor_phase "bare-get-beside-ingest-again" --seconds 10 || status=1
  kill -0 "$p1" 2>/dev/null && kill -0 "$p2" 2>/dev/null \
    || { echo "serving: the half-capacity replay ended before the phases beside it did; those phases do not count"; status=1; }
  stop_replays; wait "$p1" "$p2" 2>/dev/null
  echo "ingest beside: target $half events/s" | tee -a "$W/summary"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); files in $W" | tee -a "$W/summary"
exit "$status"
