#!/usr/bin/env bash
# Coalesced vs naive ingest through the product, in one run: for each mode, a fresh
# `bin/adreport local` (own data dir and ports), a warm-up replay, then `bin/adreport replay` of a
# generated NDJSON file, and the aggregator's own counters from /metrics before and after.
#
#   benchmarks/run-replay.sh [--events N] [--naive-events N] [--warmup N] [--concurrency N] [--batch N]
#                            [--modes "coalesced naive"] [--set name=value]...
#
# Prints one line per mode: events/s (replay's own clock), increment cells and Increment row
# operations per accepted event, and replay's request latency percentiles.
# Build first: mvn -B -q install -DskipTests (bin/adreport also builds when sources changed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
events=300000 naive_events=3000 warmup=100000 concurrency=4 batch=1000 modes="coalesced naive"
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --events) events="$2"; shift 2 ;;
    --naive-events) naive_events="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --concurrency) concurrency="$2"; shift 2 ;;
    --batch) batch="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --set) extra+=(--set "$2"); shift 2 ;;
    -h|--help) sed -n 2,11p "$0"; exit 0 ;;
    *) echo "run-replay: unknown option $1" >&2; exit 2 ;;
  esac
done

work="$(mktemp -d)"
trap '[ -n "${pid:-}" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT
adreport() { ADREPORT_SKIP_BUILD=1 "$root/bin/adreport" "$@"; }
adreport help >/dev/null 2>&1 || { ADREPORT_SKIP_BUILD=0 "$root/bin/adreport" help >/dev/null; }
gen() { java -cp "$here/target/classes:$(cat "$here/target/classpath.txt")" io.adreport.benchmarks.GenerateEvents "$@"; }
metric() { # sum of a metric's samples (all label sets) from /metrics
  curl -fsS "http://localhost:$1/metrics" | awk -v m="$2" '$1 == m || index($1, m "{") == 1 { s += $2 } END { printf "%.0f\n", s }'
}

stop() { # SIGTERM (flushes, like Ctrl-C), then wait for the process to end so that the next stack finds its ports free
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 180); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "run-replay: the stack did not stop within 180 s; killing it. Its log ends:" >&2; tail -30 "$work/$mode.log" >&2
    kill -9 "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
  pid=
}

port=18200
results=()
for mode in $modes; do
  n=$events; [ "$mode" = naive ] && n=$naive_events
  data="$work/$mode"; ingest=$((port + 1)); report=$port; port=$((port + 10))
  if curl -fsS "http://localhost:$ingest/healthz" >/dev/null 2>&1; then
    echo "run-replay: something already answers on port $ingest; stop it first" >&2; exit 1
  fi
  echo "== $mode: starting bin/adreport local (data $data, ingest port $ingest)" >&2
  # bin/adreport itself (not the adreport function) so that $! is the JVM (bin/adreport execs java)
  ADREPORT_SKIP_BUILD=1 "$root/bin/adreport" local --data-dir "$data" --port "$report" --ingest-port "$ingest" --set aggregator.mode="$mode" "${extra[@]}" \
    >"$work/$mode.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do
    curl -fsS "http://localhost:$ingest/healthz" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/$mode.log" >&2; exit 1; }
    sleep 1
  done
  w=$warmup; [ "$mode" = naive ] && w=$((warmup / 20))
  gen "$work/warm-$mode.ndjson" "$w" "warm-$mode-" 600 1
  gen "$work/load-$mode.ndjson" "$n" "load-$mode-" 600 2
  echo "== $mode: warm-up replay of $w events" >&2
  adreport replay "$work/warm-$mode.ndjson" --url "http://localhost:$ingest" --batch "$batch" --concurrency "$concurrency" \
    >"$work/warm-$mode.out" 2>/dev/null
  sleep 3 # let the last flush land
  a0=$(metric "$ingest" adreport_ingest_events_total{outcome=\"accepted\"}); c0=$(metric "$ingest" adreport_increment_cells_sent_total)
  r0=$(metric "$ingest" adreport_increments_sent_total)
  echo "== $mode: measured replay of $n events" >&2
  adreport replay "$work/load-$mode.ndjson" --url "http://localhost:$ingest" --batch "$batch" --concurrency "$concurrency" \
    | tee "$work/load-$mode.out"
  sleep 3
  a1=$(metric "$ingest" adreport_ingest_events_total{outcome=\"accepted\"}); c1=$(metric "$ingest" adreport_increment_cells_sent_total)
  r1=$(metric "$ingest" adreport_increments_sent_total)
  rate=$(sed -n 's/.*events in [0-9.]* s (\([0-9,]*\) events\/s).*/\1/p' "$work/load-$mode.out")
  lat=$(sed -n 's/^request latency.*: \(p50 [0-9]* ms, p99 [0-9]* ms\), max.*/\1/p' "$work/load-$mode.out")
  acc=$((a1 - a0))
  results+=("$(awk -v m="$mode" -v r="$rate" -v a="$acc" -v c=$((c1 - c0)) -v o=$((r1 - r0)) -v l="$lat" 'BEGIN {
    printf "%-10s %10s events/s  accepted %d  %.2f increment cells/event  %.2f Increment ops/event  %s\n", m, r, a, c / a, o / a, l }')")
  echo "== $mode: stopping" >&2
  stop
done
echo
echo "same run, $(nproc) cores, batch $batch, concurrency $concurrency, ${extra[*]:-default settings}:"
printf '%s\n' "${results[@]}"
