#!/usr/bin/env bash
# The fault suite (issue 13). Scenarios 1, 2 and 4 are JUnit tests tagged "faults" on a mini cluster
# with 2 region servers (module fault-tests: region server abort, HBase outage, slow then failing
# region servers); scenario 3 kills `bin/adreport local` with kill -9
# K times at random moments while `bin/adreport replay` posts the same day's events, restarting it
# each time, then runs the nightly job and checks every acknowledged event id against the raw table
# and the counters against a recount of the file (io.adreport.benchmarks.FaultCheck). Scenario 5
# (soak) replays the day's mix (5% replayed beacons, 1% invalid, all late) at --soak-rate for
# --soak-minutes while a poller reads the report API every second; it samples heap after a full GC
# (jcmd) every minute and ingest p99 from /metrics every 5 minutes, then checks like scenario 3.
# Scenarios 3 and 5 can run at the same time from two invocations with different --port.
#
#   benchmarks/run-faults.sh [--scenarios "1 2 3"] [--kills 20] [--rate 300] [--port 21400]
#                            [--outage-seconds 60] [--soak-minutes 30] [--soak-rate 1850]
#
# Stacks use ports PORT (report API) and PORT+1 (ingest) and a data directory under target/ of
# this checkout. Results: one markdown row per scenario on stdout (and in target/faults/),
# the columns of docs/RELIABILITY.md. Builds first when sources changed (mvn package, no install).
# Exit: 0 when every scenario asked for ran and passed; 1 when one failed or did not run;
# 2 for a usage error (an unknown option or scenario, or no scenario at all).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
. "$here/lib.sh"
scenarios="1 2 3" kills=20 rate=300 base_port=21400 outage=60 soak_minutes=30 soak_rate=1850
while [ $# -gt 0 ]; do
  case "$1" in
    --scenarios) scenarios="$2"; shift 2 ;;
    --kills) kills="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --port) base_port="$2"; shift 2 ;;
    --outage-seconds) outage="$2"; shift 2 ;;
    --soak-minutes) soak_minutes="$2"; shift 2 ;;
    --soak-rate) soak_rate="$2"; shift 2 ;;
    -h|--help) sed -n 2,23p "$0"; exit 0 ;;
    *) echo "run-faults: unknown option $1" >&2; exit 2 ;;
  esac
done
valid_scenarios="1 2 3 4 5"
for s in $scenarios; do
  [[ " $valid_scenarios " == *" $s "* ]] \
    || { echo "run-faults: unknown scenario '$s'; the scenarios are $valid_scenarios" >&2; exit 2; }
done
[ -n "${scenarios// /}" ] || { echo "run-faults: no scenario given; the scenarios are $valid_scenarios" >&2; exit 2; }
out="$root/target/faults"
mkdir -p "$out"
echo "run-faults: $(uptime)" >&2

junit_scenarios="" junit_count=0
for s in $scenarios; do
  case "$s" in
    1) junit_scenarios="$junit_scenarios,RegionServerAbortTest" ;;
    2) junit_scenarios="$junit_scenarios,HBaseOutageTest" ;;
    4) junit_scenarios="$junit_scenarios,SlowRegionServerTest" ;;
    *) continue ;;
  esac
  junit_count=$((junit_count + 1))
done
if [ -n "$junit_scenarios" ]; then
  results="$root/fault-tests/target/faults-results.md"
  rm -f "$results" "$root"/fault-tests/target/surefire-reports/*-output.txt # this run's lines only
  echo "== scenarios $scenarios: mvn verify -pl fault-tests -Dgroups=faults (mini cluster, 2 region servers)" >&2
  (cd "$root" && mvn -B -o verify -pl fault-tests -am -Dgroups=faults -Dtest="${junit_scenarios#,}" \
      -Dsurefire.failIfNoSpecifiedTests=false -Dfaults.outage.seconds="$outage") >"$out/junit.log" 2>&1 \
    || { echo "run-faults: the fault tests failed; see $out/junit.log and fault-tests/target/surefire-reports" >&2; grep -E 'FAULTS|Tests run|FAIL' "$out/junit.log" >&2; exit 1; }
  grep -h 'FAULTS' "$root"/fault-tests/target/surefire-reports/*-output.txt >&2 2>/dev/null || true
  # Every scenario's test ends with one verdict row: fewer rows means a test did not run.
  rows=$(grep -c '^| ' "$results" 2>/dev/null || true)
  if [ "${rows:-0}" -ne "$junit_count" ]; then
    echo "run-faults: $junit_count JUnit scenario(s) asked for (${junit_scenarios#,}) but ${rows:-0} verdict row(s) written; see $out/junit.log" >&2
    exit 1
  fi
  cat "$results"
fi

[[ " $scenarios " == *" 3 "* || " $scenarios " == *" 5 "* ]] || exit 0

report=$base_port ingest=$((base_port + 1))
pid="" replay_pid="" side_pids=""
trap '[ -n "$replay_pid" ] && kill "$replay_pid" 2>/dev/null; for p in $side_pids; do kill "$p" 2>/dev/null; done; [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; true' EXIT
adreport() { ADREPORT_SKIP_BUILD=1 "$root/bin/adreport" "$@"; }
"$root/bin/adreport" help >/dev/null # builds when needed
[ -f "$here/target/classpath.txt" ] || (cd "$root" && mvn -B -o -q dependency:build-classpath -pl benchmarks -Dmdep.outputFile=target/classpath.txt >/dev/null)
port_free run-faults "$ingest"

start_stack() { # starts the stack in the background (pid), waits for ingest to answer; sets started_secs
  local t0; t0=$(date +%s.%N)
  # bin/adreport itself so that $! is the JVM (bin/adreport execs java)
  ADREPORT_SKIP_BUILD=1 "$root/bin/adreport" local --data-dir "$data" --port "$report" --ingest-port "$ingest" \
    >>"$work/stack.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    curl -fsS "http://localhost:$ingest/healthz" >/dev/null 2>&1 && break
    if ! kill -0 "$pid" 2>/dev/null; then echo "run-faults: the stack exited during start-up; its log ends:" >&2; tail -40 "$work/stack.log" >&2; exit 1; fi
    sleep 0.5
  done
  curl -fsS "http://localhost:$ingest/healthz" >/dev/null 2>&1 || { echo "run-faults: no ingest after 300 s" >&2; exit 1; }
  started_secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}

day=$(date -u -d yesterday +%F)

generate() { # FILE COUNT DAY: the day's events; 5% replayed beacons, 10% clicks, 1% invalid (negative cost)
python3 - "$1.tmp" "$2" "$3" <<'PY'
import json, random, sys, datetime
out, n, day = sys.argv[1], int(sys.argv[2]), sys.argv[3]
start = datetime.datetime.fromisoformat(day + "T00:00:00+00:00")
rnd = random.Random(13)
imps, lines = [], []
with open(out, "w") as f:
    for i in range(n):
        p = rnd.random()
        ts = (start + datetime.timedelta(seconds=rnd.randrange(86400))).isoformat()
        if p < 0.01:
            line = json.dumps({"type": "impression", "id": "bad%d" % i, "ts": ts, "advertiser": "adv-1", "costMicros": -1})
        elif p < 0.06 and lines:
            line = rnd.choice(lines[-5000:])            # a replayed beacon: the same type and id
        elif p < 0.15 and imps:
            line = json.dumps({"type": "click", "id": "k%d" % i, "ts": ts, "impressionId": rnd.choice(imps[-5000:])})
        else:
            line = json.dumps({"type": "impression", "id": "i%d" % i, "ts": ts, "advertiser": "adv-%d" % rnd.randrange(20),
                               "campaign": "c%d" % rnd.randrange(50), "publisher": "pub-%d" % rnd.randrange(10),
                               "country": rnd.choice(["US", "DE", "FR", "IN"]), "deviceType": "mobile",
                               "costMicros": rnd.randrange(100, 5000)})
            imps.append("i%d" % i)
        lines.append(line)
        f.write(line + "\n")
PY
mv "$1.tmp" "$1"
}

scenario3() { # kill -9 of bin/adreport local, K times, under replay load
data="$out/kill-data" work="$out/kill"
rm -rf "$data" "$work"; mkdir -p "$work"
events=$((rate * 50 * kills))
echo "== scenario 3: $events events of $day at $rate ev/s, $kills kill -9 of bin/adreport local (ports $report/$ingest)" >&2
events_file="$out/events-$day-$events.ndjson"; [ -s "$events_file" ] || generate "$events_file" "$events" "$day"; cp "$events_file" "$work/events.ndjson"

start_stack
echo "   started in $started_secs s" >&2
adreport replay "$work/events.ndjson" --url "http://localhost:$ingest" --rate "$rate" --batch 200 --concurrency 2 \
  >"$work/replay.out" 2>"$work/replay.err" &
replay_pid=$!
restarts=() under_load=0
for k in $(seq 1 "$kills"); do
  sleep "$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.1f", 3 + rand() * 22 }')"
  kill -0 "$replay_pid" 2>/dev/null && under_load=$((under_load + 1))
  kill -9 "$pid"; wait "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do curl -fsS "http://localhost:$ingest/healthz" >/dev/null 2>&1 || break; sleep 0.5; done
  start_stack
  restarts+=("$started_secs")
  echo "   kill -9 #$k: restarted, ingest answering again after $started_secs s" >&2
done
echo "== waiting for the replay to finish" >&2
wait "$replay_pid" && rstatus=0 || rstatus=$?
replay_pid=""
cat "$work/replay.out" >&2
key=$(adreport keys add --role analyst --data-dir "$data" | tail -1)
echo "== reconcile --day $day" >&2
adreport reconcile --day "$day" --data-dir "$data" >"$work/reconcile.out" 2>&1 || { cat "$work/reconcile.out" >&2; exit 1; }
tail -3 "$work/reconcile.out" >&2
check=$(bench_java io.adreport.benchmarks.FaultCheck \
  "$(cat "$data/zk.port")" ads "$day" "$work/events.ndjson" "http://localhost:$report" "$key" 2>"$work/check.err") && cstatus=0 || cstatus=$?
echo "$check" >&2
kill -TERM "$pid"; for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done; pid=""
errors=$(grep -c ' ERROR ' "$work/stack.log" || true)
acked=$(sed -n 's/.*accepted \([0-9,]*\), duplicates \([0-9,]*\).*/\1 + \2/p' "$work/replay.out" | tr -d , | bc)
failed=$(sed -n 's/.*failed \([0-9,]*\) in.*/\1/p' "$work/replay.out")
mean=$(printf '%s\n' "${restarts[@]}" | awk '{ s += $1; if ($1 > m) m = $1 } END { printf "mean %.1f s, max %.1f s", s / NR, m }')
lost=$(echo "$check" | sed -n 's/.*lost \([0-9]*\).*/\1/p')
exact=$([ "$cstatus" = 0 ] && echo yes || echo NO)
row=$(printf '| 3 kill -9 x%d | replay %s ev/s, 200/request, 2 in flight (%d kills under load) | kill -9 of bin/adreport local at random moments 3-25 s apart, restart | %s lines (replay failed %s) | %s | %s | %s | restart to ingest answering: %s |' \
  "$kills" "$rate" "$under_load" "$acked" "$failed" "${lost:-?}" "$([ "$cstatus" = 0 ] && echo 0 || echo see check)" "$exact" "$mean")
echo "$row" | tee -a "$out/results.md"
echo "run-faults: replay exit $rstatus, stack log lines at ERROR: $errors, $(uptime)" >&2
[ "$rstatus" = 0 ] && [ "$cstatus" = 0 ]
}


scenario5() { # soak: the day's mix at a fixed rate, a report poller, heap after GC, p99s, exact at the end
data="$out/soak-data" work="$out/soak"
rm -rf "$data" "$work"; mkdir -p "$work"
events=$((soak_rate * soak_minutes * 60))
echo "== scenario 5: soak, $events events of $day at $soak_rate ev/s (~$soak_minutes min), ports $report/$ingest" >&2
events_file="$out/events-$day-$events.ndjson"; [ -s "$events_file" ] || generate "$events_file" "$events" "$day"; cp "$events_file" "$work/events.ndjson"
start_stack
echo "   started in $started_secs s" >&2
key=$(adreport keys add --role analyst --data-dir "$data" | tail -1)
adreport replay "$work/events.ndjson" --url "http://localhost:$ingest" --rate "$soak_rate" --batch 200 --concurrency 2 \
  >"$work/replay.out" 2>"$work/replay.err" &
replay_pid=$!
today=$(date -u +%F)
( while kill -0 "$replay_pid" 2>/dev/null; do
    curl -s -o /dev/null -w "$(date +%s) %{http_code} %{time_total}\n" -H "Authorization: Bearer $key" \
      "http://localhost:$report/v1/reports/advertiser?from=$day&to=$today&granularity=hour&groupBy=advertiser" >>"$work/poll.txt" || true
    sleep 1
  done ) &
side_pids="$!"
curl -fsS "http://localhost:$ingest/metrics" | grep '^adreport_ingest_request_seconds_bucket' >"$work/hist-0.txt"
( m=0; while kill -0 "$replay_pid" 2>/dev/null; do
    sleep 60; m=$((m + 1))
    jcmd "$pid" GC.run >/dev/null 2>&1 || true
    echo "$m $(jcmd "$pid" GC.heap_info 2>/dev/null | awk '/garbage-first heap/ { for (i = 1; i <= NF; i++) if ($i == "used") { sub(/K.*/, "", $(i + 1)); print $(i + 1) } }')" >>"$work/heap.txt"
    if [ $((m % 5)) = 0 ]; then
      curl -fsS "http://localhost:$ingest/metrics" | grep '^adreport_ingest_request_seconds_bucket' >"$work/hist-$m.txt" || true
    fi
  done ) &
side_pids="$side_pids $!"
wait "$replay_pid" && rstatus=0 || rstatus=$?
replay_pid=""
for p in $side_pids; do kill "$p" 2>/dev/null || true; done; side_pids=""
cat "$work/replay.out" >&2
echo "== reconcile --day $day" >&2
adreport reconcile --day "$day" --data-dir "$data" >"$work/reconcile.out" 2>&1 || { cat "$work/reconcile.out" >&2; exit 1; }
check=$(bench_java io.adreport.benchmarks.FaultCheck \
  "$(cat "$data/zk.port")" ads "$day" "$work/events.ndjson" "http://localhost:$report" "$key" 2>"$work/check.err") && cstatus=0 || cstatus=$?
echo "$check" >&2
kill -TERM "$pid"; for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done; pid=""
echo "heap used after a full GC, MB, by minute:" >&2
awk '{ printf "%s:%.0f ", $1, $2 / 1024 } END { print "" }' "$work/heap.txt" >&2
heap=$(awk 'NR == 5 { a = $2 } { l = $2; if (NR >= 5 && $2 > mx) mx = $2 } END { if (a == "") a = l; printf "minute 5: %.0f MB, end: %.0f MB (%+.1f%%), max from minute 5: %.0f MB", a / 1024, l / 1024, 100 * (l - a) / a, mx / 1024 }' "$work/heap.txt")
echo "heap: $heap" >&2
read -r ingest_p99 query_p99 < <(python3 - "$work" <<'PY'
import glob, re, sys
work = sys.argv[1]
def load(f):
    d = {}
    for l in open(f):
        m = re.match(r'adreport_ingest_request_seconds_bucket\{le="([^"]+)"\} (\S+)', l)
        if m:
            d[m.group(1)] = float(m.group(2))
    return d
files = sorted(glob.glob(work + "/hist-*.txt"), key=lambda f: int(re.findall(r"\d+", f)[-1]))
ingest = []
for a, b in zip(files, files[1:]):
    x, y = load(a), load(b)
    n = y.get("+Inf", 0) - x.get("+Inf", 0)
    ingest.append(next((le + "s" for le in y if n > 0 and y[le] - x.get(le, 0) >= 0.99 * n), "-"))
rows = [l.split() for l in open(work + "/poll.txt")]
t0, windows, bad = int(rows[0][0]), {}, 0
for t, code, secs in rows:
    windows.setdefault((int(t) - t0) // 300, []).append(float(secs))
    bad += code != "200"
query = []
for k in sorted(windows):
    v = sorted(windows[k])
    query.append("%dms" % (1000 * v[max(0, int(0.99 * len(v)) - 1)]))
print(",".join(ingest) or "-", ",".join(query) + "(non-200:%d)" % bad)
PY
)
errors=$(grep -c ' ERROR ' "$work/stack.log" || true)
echo "ingest p99 per 5 min (s, histogram bucket bound):$ingest_p99" >&2
echo "report query p99 per 5 min (ms): $query_p99" >&2
echo "stack log lines at ERROR: $errors" >&2
printf '| 5 soak %d min | replay %s ev/s (5%% replayed, 1%% invalid, all late), 1 report query/s | none | %s | heap %s; ingest p99 per 5 min: %s; report query p99 per 5 min: %s; ERROR lines %s | %s |\n' \
  "$soak_minutes" "$soak_rate" "$(grep '^replayed' "$work/replay.out")" "$heap" "$ingest_p99" "$query_p99" "$errors" \
  "$([ "$cstatus" = 0 ] && echo exact || echo NOT exact)" | tee -a "$out/results.md"
echo "run-faults: soak replay exit $rstatus, $(uptime)" >&2
[ "$rstatus" = 0 ] && [ "$cstatus" = 0 ]
}

status=0
if [[ " $scenarios " == *" 3 "* ]]; then scenario3 || status=1; fi
if [[ " $scenarios " == *" 5 "* ]]; then scenario5 || status=1; fi
exit $status
