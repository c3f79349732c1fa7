#!/usr/bin/env bash
# An analyst's top-N while a 7-day back-fill flushes and is reconciled, through the product:
# a fresh `bin/adreport local`, COUNT impressions over the 7 UTC days before today across 20,000
# (advertiser, campaign) keys (GenerateBackfill) posted by `bin/adreport replay` in 5,000-event
# batches, `bin/adreport reconcile --day` for each day, and all along a prober asking
#   /v1/reports/campaign?from=<7 days ago>&to=<today>&granularity=all&groupBy=advertiser,campaign&orderBy=-impressions&limit=100
# once a second. Then REQUESTS more of the same query back to back on the quiet stack.
#
#   benchmarks/run-backfill-report.sh [--events N] [--requests N] [--set name=value]... [--keep DIR] [--port P]
#
# Prints latency percentiles and status counts per phase (during back-fill + flushes, during the
# reconciles, quiet), the reconcile times and the stack's flush metrics. Needs a built tree
# (bin/adreport builds when sources changed). STACK_JAVA_OPTS go to the stack's JVM only (e.g. JFR).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
. "$here/lib.sh"
events=300000 requests=60 keep="" report=18300
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --events) events="$2"; shift 2 ;;
    --requests) requests="$2"; shift 2 ;;
    --set) extra+=(--set "$2"); shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --port) report="$2"; shift 2 ;;
    -h|--help) sed -n 2,14p "$0"; exit 0 ;;
    *) echo "run-backfill-report: unknown option $1" >&2; exit 2 ;;
  esac
done
work="${keep:-$(mktemp -d)}"; mkdir -p "$work"
pid="" prober=""
cleanup() {
  [ -n "$prober" ] && kill "$prober" 2>/dev/null
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  [ -z "$keep" ] && rm -rf "$work"
  return 0
}
trap cleanup EXIT
adreport() { ADREPORT_SKIP_BUILD=1 ADREPORT_JAVA_OPTS= "$root/bin/adreport" "$@"; }
"$root/bin/adreport" help >/dev/null
[ -f "$here/target/classpath.txt" ] || (cd "$root" && mvn -B -q package -DskipTests -pl benchmarks -am)
ingest=$((report + 1)) data="$work/data"
port_free run-backfill-report "$ingest"
bench_java io.adreport.benchmarks.GenerateBackfill \
  "$work/backfill.ndjson" "$events" 7 20000

echo "== starting bin/adreport local (data $data)" >&2
ADREPORT_SKIP_BUILD=1 ADREPORT_JAVA_OPTS="${STACK_JAVA_OPTS:-}" "$root/bin/adreport" local --data-dir "$data" --port "$report" --ingest-port "$ingest" \
  --set ingest.accept.window.days=8 "${extra[@]}" >"$work/stack.log" 2>&1 &
pid=$!
await_stack "$pid" "$work/stack.log" "$report" "$ingest"
key="$(cat "$data/analyst.key")"
today="$(date -u +%F)"; from="$(date -u -d "$today - 7 days" +%F)"
url="http://localhost:$report/v1/reports/campaign?from=$from&to=$today&granularity=all&groupBy=advertiser,campaign&orderBy=-impressions&limit=100"
ask() { # phase -> appends "phase status seconds" to requests.log
  curl -sS -o "$work/last.json" -w "$1 %{http_code} %{time_total}\n" -H "Authorization: Bearer $key" --max-time 120 "$url" \
    >>"$work/requests.log" 2>/dev/null || echo "$1 000 120" >>"$work/requests.log"
  if ! grep -q '"rows"' "$work/last.json" 2>/dev/null; then
    head -c 300 "$work/last.json" >>"$work/errors.log" 2>/dev/null; echo >>"$work/errors.log"
  fi
}
: >"$work/requests.log"; : >"$work/errors.log"; echo backfill >"$work/phase"
( while true; do ask "$(cat "$work/phase")"; sleep 1; done ) &
prober=$!

echo "== replaying $events back-fill events in 5,000-event batches" >&2
t0=$(date +%s.%N)
adreport replay "$work/backfill.ndjson" --url "http://localhost:$ingest" --batch 5000 --concurrency 4 >"$work/replay.out" 2>/dev/null \
  || echo "run-backfill-report: replay exited $? (batches it gave up on are in its summary)" >&2
t1=$(date +%s.%N)
tail -3 "$work/replay.out" >&2
echo reconcile >"$work/phase"
recon=()
for d in 7 6 5 4 3 2 1; do
  day="$(date -u -d "$today - $d days" +%F)"
  s=$(date +%s.%N)
  adreport reconcile --data-dir "$data" --day "$day" >"$work/reconcile-$day.out" 2>&1 || { cat "$work/reconcile-$day.out" >&2; exit 1; }
  recon+=("$day $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }')")
done
kill "$prober" 2>/dev/null; wait "$prober" 2>/dev/null || true; prober=""
for _ in $(seq 1 "$requests"); do ask quiet; done

metric() { curl -fsS "http://localhost:$1/metrics" | awk -v m="$2" 'index($1, m) == 1 && $1 !~ /_bucket/ { print }'; }
echo
echo "same run, $(nproc) cores, $events back-fill events (replay took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s), ${extra[*]:-default settings}:"
printf 'reconcile %s\n' "${recon[@]}"
for phase in backfill reconcile quiet; do # latency percentiles and status counts per phase
  grep "^$phase " "$work/requests.log" >"$work/p.log" || continue
  codes=$(awk '{ print $2 }' "$work/p.log" | sort | uniq -c | awk '{ printf " %s x%d", $2, $1 }')
  sort -g -k3 "$work/p.log" | awk -v p="$phase" -v c="$codes" '{ t[NR] = $3 } END {
    printf "%-9s %3d requests:%s  p50 %.3f s  p99 %.3f s  max %.3f s\n", p, NR, c, t[int((NR - 1) * 0.5) + 1], t[int((NR - 1) * 0.99) + 1], t[NR] }'
done
metric "$ingest" adreport_flush_seconds
sort "$work/errors.log" | uniq -c | head -5
curl -sS -o /dev/null -w "" "http://localhost:$report/healthz" || true
kill -TERM "$pid"; for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done; pid=""
