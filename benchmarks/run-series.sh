#!/usr/bin/env bash
# One campaign's 72-hour hourly series through HTTP, live counts on and off, beside its HBase floor:
#
#   benchmarks/run-series.sh [--events N] [--warmup S] [--requests N] [--port BASE] [--no-reconcile]
#
# Starts `bin/adreport local` (HBase, the aggregator and the nightly scheduler in one JVM), replays
# N events (default 300,000) spread over the last 72 hours as fast as it takes them (their rate is
# "capacity" below), reconciles the days before today (as the nightly run would have; --no-reconcile
# leaves them live), then starts two `bin/adreport report-api` processes on the same HBase: "on"
# with default settings (live counts asked of the aggregator) and "off" with
# report.live.timeout.ms=0 (stored counters only). SeriesLatency, a third process, then asks both
# for the series of the busiest campaign (adv0/c0-3), one request at a time, and reads the same 72
# counter rows by one skip-scan through the HBase client (the floor), interleaved round by round:
#   1. no ingest: --warmup seconds (default 30) untimed, then --requests rounds (default 200);
#   2. while a replay runs at half capacity (events of the last hour): 5 s untimed, then the same.
# Also prints the report APIs' and the aggregator's live-count timings over each phase.
# Ports BASE (local's report API, unused), BASE+1 (ingest), BASE+2 (on), BASE+3 (off); default 19300.
# SERIES_JFR=1 records the "on" API with JFR (profile settings) into benchmarks/target/series-on.jfr.
# Build first: mvn -B -q package -DskipTests. Run it alone on the machine.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
events=300000 warmup=30 requests=200 base=19300 reconcile=1
while [ $# -gt 0 ]; do
  case "$1" in
    --events) events="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --requests) requests="$2"; shift 2 ;;
    --port) base="$2"; shift 2 ;;
    --no-reconcile) reconcile=0; shift ;;
    -h|--help) sed -n 2,20p "$0"; exit 0 ;;
    *) echo "run-series: unknown option $1" >&2; exit 2 ;;
  esac
done
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do for _ in $(seq 1 60); do kill -0 "$p" 2>/dev/null || break; sleep 1; done; kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
export ADREPORT_SKIP_BUILD=1
opens="--add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/java.util=ALL-UNNAMED"
. "$here/lib.sh"
# shellcheck disable=SC2086 # $opens is a list of options
bench() { bench_java $opens "$@"; }
mean_ms() { # port histogram -> "mean X ms over N" since the last call's snapshot in $work/$1-$2
  local s c f="$work/m-$1-$2"; s=$(metric "$1" "$2_sum" 6); c=$(metric "$1" "$2_count")
  [ -f "$f" ] && read -r s0 c0 <"$f" || { s0=0; c0=0; }
  echo "$s $c" >"$f"
  awk -v s="$s" -v c="$c" -v s0="$s0" -v c0="$c0" 'BEGIN { n = c - c0; if (n <= 0) print "none"; else printf "mean %.2f ms over %d\n", (s - s0) * 1000 / n, n }'
}
wait_http() { # port pid log
  for _ in $(seq 1 300); do
    curl -fsS "http://localhost:$1/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || { tail -40 "$3" >&2; exit 1; }
    sleep 1
  done
  echo "run-series: nothing answers on port $1" >&2; exit 1
}
ingest=$((base + 1)) on=$((base + 2)) off=$((base + 3))
data="$work/data"
uptime
echo "== starting bin/adreport local (ingest port $ingest)" >&2
"$root/bin/adreport" local --data-dir "$data" --port "$base" --ingest-port "$ingest" >"$work/local.log" 2>&1 &
pids+=($!); wait_http "$ingest" "$!" "$work/local.log"
bench io.adreport.benchmarks.GenerateEvents "$work/load.ndjson" "$events" "load-" $((72 * 3600)) 7
echo "== replaying $events events over the last 72 h" >&2
"$root/bin/adreport" replay "$work/load.ndjson" --url "http://localhost:$ingest" --batch 1000 --concurrency 4 2>/dev/null | tee "$work/load.out" \
  || echo "run-series: the replay ended with failed batches (see above); measuring with what was accepted" >&2
rate=$(sed -n 's/.*events in [0-9.]* s (\([0-9,]*\) events\/s).*/\1/p' "$work/load.out"); rate=${rate//,/}
half=$((rate / 2))
if [ "$reconcile" = 1 ]; then
  d1=$(date -u -d yesterday +%F); d3=$(date -u -d '3 days ago' +%F)
  echo "== reconciling $d3..$d1" >&2
  "$root/bin/adreport" reconcile --data-dir "$data" --from "$d3" --to "$d1" 2>&1 | tail -4
fi
for api in on off; do
  port=${!api}; dir="$work/api-$api"; mkdir -p "$dir"; cp "$data/zk.port" "$dir/"
  set_live=(); [ "$api" = off ] && set_live=(--set report.live.timeout.ms=0)
  jfr=""; [ -n "${SERIES_JFR:-}" ] && [ "$api" = on ] && jfr="-XX:StartFlightRecording=filename=$here/target/series-on.jfr,settings=profile,dumponexit=true"
  ADREPORT_JAVA_OPTS="$jfr" ADREPORT_DEVICE_HASH_SECRET="$(cat "$data/device.secret")" "$root/bin/adreport" report-api --data-dir "$dir" \
    --set report.port="$port" "${set_live[@]}" >"$work/api-$api.log" 2>&1 &
  pids+=($!); wait_http "$port" "$!" "$work/api-$api.log"
done
phase() { # title warmup
  echo "== $1" >&2
  mean_ms "$on" adreport_report_live_seconds >/dev/null; mean_ms "$ingest" adreport_live_answer_seconds >/dev/null
  mean_ms "$on" adreport_report_hbase_read_seconds >/dev/null; mean_ms "$off" adreport_report_hbase_read_seconds >/dev/null
  uptime
  a0=$(metric "$ingest" 'adreport_ingest_events_total{outcome="accepted"}'); t0=$(date +%s)
  bench io.adreport.benchmarks.SeriesLatency "$data" adv0 c0-3 "$2" "$requests" "on=http://localhost:$on" "off=http://localhost:$off"
  echo "  on:  live step as the report waited $(mean_ms "$on" adreport_report_live_seconds); counter read $(mean_ms "$on" adreport_report_hbase_read_seconds)"
  echo "  off: counter read $(mean_ms "$off" adreport_report_hbase_read_seconds)"
  a1=$(metric "$ingest" 'adreport_ingest_events_total{outcome="accepted"}'); t1=$(date +%s)
  awk -v a="$a0" -v b="$a1" -v s=$((t1 - t0)) 'BEGIN { printf "  ingest meanwhile: %d events accepted in %d s (%.0f events/s)\n", b - a, s, (b - a) / (s > 0 ? s : 1) }'
  echo "  aggregator: live answers built $(mean_ms "$ingest" adreport_live_answer_seconds); rows it remembers $(metric "$ingest" adreport_writer_rows)"
  uptime
}
echo
echo "same run, $(nproc) cores; capacity (unpaced replay of $events events): $rate events/s"
phase "1. no ingest" "$warmup"
n_half=$((half * 900)); [ "$n_half" -gt 1000000 ] && n_half=1000000   # 15 minutes of it, at most 1M events: phase 2 ends first
bench io.adreport.benchmarks.GenerateEvents "$work/half.ndjson" "$n_half" "half-" 3600 8
"$root/bin/adreport" replay "$work/half.ndjson" --url "http://localhost:$ingest" --batch 1000 --concurrency 4 --rate "$half" \
  >"$work/half.out" 2>/dev/null &
replay=$!
sleep 10
phase "2. while ingest runs at half capacity ($half events/s)" 5
kill -0 "$replay" 2>/dev/null && echo "  (the paced replay was still running at the end of phase 2)" || echo "  WARNING: the paced replay ended before phase 2 did"
kill "$replay" 2>/dev/null || true; wait "$replay" 2>/dev/null || true
