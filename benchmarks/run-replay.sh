#!/usr/bin/env bash
# Ingest through the product against its own ceiling, in one run: for each mode, a fresh
# `bin/adreport local` (own data dir and ports), warm-up replays in rounds until the JIT compiler is
# quiet, then `bin/adreport replay` of a generated NDJSON file, and the aggregator's own counters from
# /metrics before and after.
# put-only (aggregator.mode=put-only, benchmarks only) stores each event's raw row by a plain
# batched Put and nothing else: every mode's events/s is also given as a ratio to it.
#
#   benchmarks/run-replay.sh [--events N] [--naive-events N] [--warmup N] [--concurrency N] [--batch N]
#                            [--modes "put-only coalesced naive"] [--port BASE] [--set name=value]...
#                            [--freshness-modes "coalesced"] [--load 0.8] [--load-base sustained|replay]
#                            [--probes N] [--probe-interval MS] [--warmup-rounds N] [--quiet-compiler PCT]
#
# Warm-up: rounds of --warmup events each (naive: a twentieth), every round a file of new events (its
# own seed and ids; round 1 the very file the single warm-up replayed before) over the same time range
# as the measured file, until the JIT compiler threads (C1/C2 "CompilerThre", from /proc per thread)
# used at most --quiet-compiler percent (default 3) of the stack's CPU over a round's replay, or after
# --warmup-rounds rounds (default 6). One line per round (events, events/s, compiler and stack CPU
# ms, the compiler's share) and what ended the warm-up; the summary repeats them and gives the
# compiler's share over the measured replay.
# Prints one line per mode: events/s (replay's own clock) and its ratio to put-only, increment
# cells and Increment row operations per accepted event, the stack's CPU time per event (user +
# system of the one JVM that holds the aggregator and HBase, over the measured replay: on a
# shared 2-core machine a steadier measure than events/s), and replay's request latency percentiles;
# then that CPU by thread group (each live thread's user + system time from /proc before and after
# the measured replay, summed by thread name: exact where a sampling profiler starves on 2 busy cores),
# and the bytes the stack allocated per event over the replay and its last flushes (the JVM's own
# counter, adreport_jvm_allocated_bytes_total, and by thread group from `jcmd Thread.print -e`).
# Each mode's events/s is replay's own (acknowledged events over the replay's time); "sustained" is
# the events over that time plus the time the flushes that wrote its last deltas took (the work a
# lagging flusher leaves behind; not the wait for its timer).
# For each freshness mode it then replays at --load times the sustained rate (--load-base replay:
# the replay's rate, which a lagging flusher inflates) (replay --rate)
# and meanwhile runs FreshnessProbe (exact per-probe lag from acknowledgement to visible in the
# advertiser and network reports), and reads the adreport_freshness_seconds histogram (how far
# the stored counters trail), the report API's live-counts metrics (rows merged, misses) and the
# exchange's two timings (adreport_report_live_seconds as the report waits, adreport_live_answer_seconds
# as the aggregator answers) over that window. Stacks use ports BASE, BASE+1, BASE+10, ... (default 19000).
# Build first: mvn -B -q package -DskipTests (bin/adreport also builds when sources changed).
## end of usage
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
. "$here/lib.sh"
events=300000 naive_events=3000 warmup=100000 concurrency=4 batch=1000 modes="put-only coalesced naive"
base_port=19000 fresh_modes="coalesced" load=0.8 load_base=sustained probes=60 probe_interval=250
warmup_rounds=6 quiet_compiler=3
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --events) events="$2"; shift 2 ;;
    --naive-events) naive_events="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --concurrency) concurrency="$2"; shift 2 ;;
    --batch) batch="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --port) base_port="$2"; shift 2 ;;
    --freshness-modes) fresh_modes="$2"; shift 2 ;;
    --load) load="$2"; shift 2 ;;
    --load-base) load_base="$2"; shift 2 ;;
    --probes) probes="$2"; shift 2 ;;
    --probe-interval) probe_interval="$2"; shift 2 ;;
    --warmup-rounds) warmup_rounds="$2"; shift 2 ;;
    --quiet-compiler) quiet_compiler="$2"; shift 2 ;;
    --set) extra+=(--set "$2"); shift 2 ;;
    -h|--help) sed -n '2,/^## end of usage/{/^## end of usage/d;p}' "$0"; exit 0 ;;
    *) echo "run-replay: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ "$warmup_rounds" =~ ^[1-9][0-9]*$ ]] || { echo "run-replay: --warmup-rounds takes a whole number >= 1" >&2; exit 2; }
[[ "$quiet_compiler" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "run-replay: --quiet-compiler takes a percentage (e.g. 3 or 2.5)" >&2; exit 2; }

work="$(mktemp -d)"
trap '[ -n "${paced:-}" ] && kill "$paced" 2>/dev/null; [ -n "${pid:-}" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT
adreport() { ADREPORT_SKIP_BUILD=1 "$root/bin/adreport" "$@"; }
adreport help >/dev/null 2>&1 || { ADREPORT_SKIP_BUILD=0 "$root/bin/adreport" help >/dev/null; }
gen() { bench_java io.adreport.benchmarks.GenerateEvents "$@"; }
histogram_buckets() { # port metric -> "le cumulative-count" of that histogram (the first label set)
  curl -fsS "http://localhost:$1/metrics" | awk -v m="$2" 'index($1, m "_bucket{") == 1 && !seen[$1]++ {
    match($1, /le="[^"]*"/); print substr($1, RSTART + 4, RLENGTH - 5), $2 }'
}
bucket_quantiles() { # before-file after-file -> "n N, p50 <= X s, p99 <= Y s" (bucket upper bounds of the window's observations)
  paste "$1" "$2" | awk '{ le[NR] = $1; c[NR] = $4 - $2; n = c[NR] } END {
    if (n == 0) { print "none observed"; exit }
    for (i = 1; i <= NR; i++) { if (p50 == "" && c[i] >= 0.5 * n) p50 = le[i]; if (p99 == "" && c[i] >= 0.99 * n) p99 = le[i] }
    printf "%d observed, p50 <= %s s, p99 <= %s s\n", n, p50, p99 }'
}
thread_groups() { # before after events total-ms -> CPU per event of the stack's thread groups between the snapshots, largest first
  awk -F'\t' -v n="$3" -v total="$4" 'NR == FNR { b[$1] = $3; next } { d = $3 - ($1 in b ? b[$1] : 0); g[$2] += d; t += d }
    END { for (k in g) if (g[k] > 0) printf "%.1f\t%s\n", g[k] * 1000 / n, k
          printf "%.1f\t(threads that ended during the replay)\n", (total - t) * 1000 / n }' "$1" "$2" \
    | sort -t$'\t' -k1,1 -rn | head -15 | awk -F'\t' '{ printf "    %7.1f us/event  %s\n", $1, $2 }'
}
thread_alloc() { # per live thread of JVM $1: "nid<TAB>name<TAB>bytes allocated so far" (jcmd Thread.print -e; name's digits as N)
  jcmd "$1" Thread.print -e 2>/dev/null | awk 'index($0, "\"") == 1 && match($0, / allocated=[0-9]+[BKMG]? /) {
    a = substr($0, RSTART + 11, RLENGTH - 12); u = substr(a, length(a)); v = a + 0
    if (u == "K") v *= 1024; else if (u == "M") v *= 1048576; else if (u == "G") v *= 1073741824
    name = substr($0, 2, index(substr($0, 2), "\"") - 1); gsub(/[0-9]+/, "N", name)
    if (match($0, / nid=0x[0-9a-f]+/)) printf "%s\t%s\t%.0f\n", substr($0, RSTART + 5, RLENGTH - 5), name, v }'
}
alloc_groups() { # before after events total-bytes -> bytes allocated per event by thread group between the snapshots, largest first
  awk -F'\t' -v n="$3" -v total="$4" 'NR == FNR { b[$1] = $3; next } { d = $3 - ($1 in b ? b[$1] : 0); g[$2] += d; t += d }
    END { for (k in g) if (g[k] > 0) printf "%.0f\t%s\n", g[k] / n, k
          if (total > t) printf "%.0f\t(threads that ended, and rounding)\n", (total - t) / n }' "$1" "$2" \
    | sort -t$'\t' -k1,1 -rn | head -12 | awk -F'\t' '{ printf "    %8d bytes/event  %s\n", $1, $2 }'
}
raw_metric() { # a metric's first sample as printed (full precision), or 0
  curl -fsS "http://localhost:$1/metrics" | awk -v m="$2" '$1 == m && !f { print $2; f = 1 } END { if (!f) print 0 }'
}
region_requests() { # data-dir -> "table<TAB>reads<TAB>writes" as the region servers counted them (RegionRequests; 4 s for their report)
  sleep 4; bench_java io.adreport.benchmarks.RegionRequests "$(cat "$1/zk.port")" 2>/dev/null || true
}
region_ops() { # before after events -> region-server row reads and row writes per event, by table (tables with none left out)
  awk -F'\t' -v n="$3" 'NR == FNR { r[$1] = $2; w[$1] = $3; next } { dr = $2 - r[$1]; dw = $3 - w[$1]
    if (dr + dw > 0) { printf "    %-28s %6.3f row reads  %6.3f row writes per event\n", $1, dr / n, dw / n; tr += dr; tw += dw } }
    END { printf "    %-28s %6.3f row reads  %6.3f row writes per event\n", "(all tables)", tr / n, tw / n }' "$1" "$2"
}
tally() { # port -> "table<TAB>rows<TAB>cells" the aggregator sent (adreport_store_*_written_total; counters: adreport_increment*_sent_total)
  curl -fsS "http://localhost:$1/metrics" | awk '
    match($1, /^adreport_store_(rows|cells)_written_total\{table="[^"]*"\}$/) { split($1, a, "\""); k = index($1, "_rows_") ? 1 : 2; v[a[2], k] = $2; t[a[2]] }
    $1 == "adreport_increments_sent_total" { v["counters", 1] = $2; t["counters"] } $1 == "adreport_increment_cells_sent_total" { v["counters", 2] = $2 }
    END { for (x in t) printf "%s\t%.0f\t%.0f\n", x, v[x, 1], v[x, 2] }'
}
tally_per_event() { # before after events -> rows and cells sent per event, by table role
  awk -F'\t' -v n="$3" 'NR == FNR { r[$1] = $2; c[$1] = $3; next } { dr = $2 - r[$1]; dc = $3 - c[$1]
    if (dr > 0) { printf "    %-10s %6.3f rows  %6.3f cells per event\n", $1, dr / n, dc / n; tr += dr; tc += dc } }
    END { printf "    %-10s %6.3f rows  %6.3f cells per event\n", "(all)", tr / n, tc / n }' "$1" "$2" | sort
}
compiler_threads='CompilerThre' # the JIT's threads as thread_cpu names them ("C2 CompilerThread0" -> "CN CompilerThre")
share() { # part-ms whole-ms -> part's share of whole in %, one decimal ("n/a" when whole is 0)
  awk -v p="$1" -v w="$2" 'BEGIN { if (w > 0) printf "%.1f\n", p * 100 / w; else print "n/a" }'
}
replay_rate() { # replay's output file -> its events/s as it printed them ("1,234")
  sed -n 's/.*events in [0-9.]* s (\([0-9,]*\) events\/s).*/\1/p' "$1"
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

port=$base_port
results=() fresh=()
declare -A rates sustained
for mode in $modes; do
  n=$events; [ "$mode" = naive ] && n=$naive_events
  data="$work/$mode"; ingest=$((port + 1)); report=$port; port=$((port + 10))
  port_free run-replay "$ingest"
  echo "== $mode: starting bin/adreport local (data $data, ingest port $ingest)" >&2
  # bin/adreport itself (not the adreport function) so that $! is the JVM (bin/adreport execs java)
  ADREPORT_SKIP_BUILD=1 "$root/bin/adreport" local --data-dir "$data" --port "$report" --ingest-port "$ingest" --set aggregator.mode="$mode" "${extra[@]}" \
    >"$work/$mode.log" 2>&1 &
  pid=$!
  await_stack "$pid" "$work/$mode.log" "$ingest"
  w=$warmup; [ "$mode" = naive ] && w=$((warmup / 20))
  gen "$work/warm-$mode.ndjson" "$w" "warm-$mode-" 600 1
  now_ms=$(date +%s%3N) # the later rounds' files cover the measured file's time range
  gen "$work/load-$mode.ndjson" "$n" "load-$mode-" 600 2
  # Warm-up in rounds until the compiler is quiet. Round 1 replays the warm-up file above; round r > 1
  # a file of its own: new ids (prefix warm-MODE-rR-) and seed (100 + r), the measured file's time range.
  echo "  $mode: warm-up in rounds of $w new events, until the compiler threads use at most $quiet_compiler% of the stack's CPU in a round's replay, at most $warmup_rounds rounds (CPU from /proc per thread):" >"$work/rounds-$mode"
  round=0
  while :; do
    round=$((round + 1)); wf="$work/warm-$mode"
    if [ "$round" -gt 1 ]; then wf="$work/warm-$mode-r$round"; gen "$wf.ndjson" "$w" "warm-$mode-r$round-" 600 $((100 + round)) "$now_ms"; fi
    echo "== $mode: warm-up replay of $w events" >&2
    wu0=$(cpu_ms "$pid"); thread_cpu "$pid" >"$work/wthreads0-$mode"
    adreport replay "$wf.ndjson" --url "http://localhost:$ingest" --batch "$batch" --concurrency "$concurrency" \
      >"$wf.out" 2>/dev/null
    wu1=$(cpu_ms "$pid"); thread_cpu "$pid" >"$work/wthreads1-$mode"
    wjit=$(thread_cpu_ms "$work/wthreads0-$mode" "$work/wthreads1-$mode" "$compiler_threads"); wshare=$(share "$wjit" $((wu1 - wu0)))
    line="round $round: $w events, $(replay_rate "$wf.out") events/s, compiler $wjit ms CPU, stack $((wu1 - wu0)) ms CPU, compiler share $wshare%"
    echo "== $mode: warm-up $line" >&2; echo "    $line" >>"$work/rounds-$mode"
    sleep 3 # let the last flush land
    if [ "$w" -eq 0 ]; then ended="ended after round $round: no warm-up events (--warmup $warmup)"; break; fi
    if [ "$wshare" != n/a ] && awk -v s="$wshare" -v q="$quiet_compiler" 'BEGIN { exit !(s <= q) }'; then
      ended="ended after round $round: the compiler was quiet ($wshare% <= --quiet-compiler $quiet_compiler%)"; break
    fi
    if [ "$round" -ge "$warmup_rounds" ]; then
      ended="ended after round $round: the round limit (--warmup-rounds $warmup_rounds); the compiler not yet quiet ($wshare% > --quiet-compiler $quiet_compiler%)"; break
    fi
  done
  echo "== $mode: warm-up $ended" >&2; echo "    warm-up $ended" >>"$work/rounds-$mode"
  a0=$(metric "$ingest" adreport_ingest_events_total{outcome=\"accepted\"}); c0=$(metric "$ingest" adreport_increment_cells_sent_total)
  r0=$(metric "$ingest" adreport_increments_sent_total)
  region_requests "$data" >"$work/rr0-$mode"; tally "$ingest" >"$work/tally0-$mode"
  echo "== $mode: measured replay of $n events, from $(date -u +%FT%T.%3NZ)" >&2
  u0=$(cpu_ms "$pid")
  thread_cpu "$pid" >"$work/threads0-$mode"
  thread_alloc "$pid" >"$work/alloc0-$mode"
  b0=$(raw_metric "$ingest" adreport_jvm_allocated_bytes_total); g0=$(raw_metric "$ingest" adreport_jvm_gc_seconds_total)
  t0=$(date +%s%N)
  adreport replay "$work/load-$mode.ndjson" --url "http://localhost:$ingest" --batch "$batch" --concurrency "$concurrency" \
    | tee "$work/load-$mode.out"
  t1=$(date +%s%N)
  u1=$(cpu_ms "$pid")
  thread_cpu "$pid" >"$work/threads1-$mode"
  jit=$(thread_cpu_ms "$work/threads0-$mode" "$work/threads1-$mode" "$compiler_threads")
  awk -v m="$mode" -v j="$jit" -v u=$((u1 - u0)) -v s="$(share "$jit" $((u1 - u0)))" -v n="$n" 'BEGIN {
    printf "  %s: compiler threads over the measured replay: %d ms of the stack'"'"'s %d ms CPU, compiler share %s%% (%.1f us/event)\n", m, j, u, s, j * 1000 / n }' \
    >>"$work/rounds-$mode"
  { echo "  $mode: the stack's CPU by thread group (exact, from /proc per thread; names cut to 15 characters, digits as N):"
    thread_groups "$work/threads0-$mode" "$work/threads1-$mode" "$n" $((u1 - u0)) || true; } >"$work/groups-$mode"
  echo "== $mode: measured replay ended $(date -u +%FT%T.%3NZ)" >&2
  # The work left when the replay ends: the flushes that write its last deltas. Sustained time =
  # the replay's time + the time those flushes took (not the wait for the flush timer), read from
  # adreport_flush_seconds_sum once the buffer is empty and no flush has ended for 1.5 s.
  s0=$(raw_metric "$ingest" adreport_flush_seconds_sum); prev=$s0; last=$t1
  for _ in $(seq 1 3000); do
    sleep 0.1
    cur=$(raw_metric "$ingest" adreport_flush_seconds_sum); cells=$(metric "$ingest" adreport_buffer_cells); now=$(date +%s%N)
    if [ "$cur" != "$prev" ]; then prev=$cur; last=$now; fi
    if [ "$cells" = 0 ] && [ $((now - last)) -gt 1500000000 ]; then break; fi
  done
  region_requests "$data" >"$work/rr1-$mode"
  { echo "  $mode: region-server operations per event, replay and its last flushes, by table (RegionMetrics read/write request counts: rows read, rows mutated):"
    region_ops "$work/rr0-$mode" "$work/rr1-$mode" "$n" || true
    echo "  $mode: rows and cells the aggregator sent per event, by table (adreport_store_*_written_total; counters: adreport_increment*_sent_total):"
    tally "$ingest" >"$work/tally1-$mode"; tally_per_event "$work/tally0-$mode" "$work/tally1-$mode" "$n" || true; } >"$work/ops-$mode"
  b1=$(raw_metric "$ingest" adreport_jvm_allocated_bytes_total); g1=$(raw_metric "$ingest" adreport_jvm_gc_seconds_total)
  thread_alloc "$pid" >"$work/alloc1-$mode"
  bytes=$(awk -v a="$b0" -v b="$b1" 'BEGIN { printf "%.0f", b - a }')
  { echo "  $mode: bytes allocated per event, replay and its last flushes ($((bytes / n)) in all, adreport_jvm_allocated_bytes_total; GC $(awk -v a="$g0" -v b="$g1" -v n="$n" 'BEGIN { printf "%.1f", (b - a) * 1e6 / n }') us/event); by thread group (jcmd Thread.print -e):"
    alloc_groups "$work/alloc0-$mode" "$work/alloc1-$mode" "$n" "$bytes" || true; } >>"$work/groups-$mode"
  caught_ms=$(awk -v r=$(( (t1 - t0) / 1000000 )) -v a="$s0" -v b="$prev" 'BEGIN { printf "%d", r + (b - a) * 1000 }')
  a1=$(metric "$ingest" adreport_ingest_events_total{outcome=\"accepted\"}); c1=$(metric "$ingest" adreport_increment_cells_sent_total)
  r1=$(metric "$ingest" adreport_increments_sent_total)
  rate=$(replay_rate "$work/load-$mode.out")
  lat=$(sed -n 's/^request latency.*: \(p50 [0-9]* ms, p99 [0-9]* ms\), max.*/\1/p' "$work/load-$mode.out")
  acc=$((a1 - a0))
  rates[$mode]=${rate//,/}
  sustained[$mode]=$(( n * 1000 / (caught_ms > 0 ? caught_ms : 1) ))
  results+=("$(awk -v m="$mode" -v r="$rate" -v a="$acc" -v c=$((c1 - c0)) -v o=$((r1 - r0)) -v l="$lat" -v u=$((u1 - u0)) -v n="$n" -v su="${sustained[$mode]}" 'BEGIN {
    printf "%-10s %10s events/s (%s sustained)  accepted %d  %.2f increment cells/event  %.2f Increment ops/event  stack CPU %.0f us/event  %s\n", m, r, su, a, c / a, o / a, u * 1000 / n, l }') allocated $((bytes / n)) bytes/event")
  if [[ " $fresh_modes " == *" $mode "* ]]; then
    base=${rate//,/}; [ "$load_base" = sustained ] && base=${sustained[$mode]}
    pace=$(awk -v r="$base" -v l="$load" 'BEGIN { printf "%d", r * l }')
    secs=$(( probes * probe_interval / 1000 + 20 ))
    gen "$work/pace-$mode.ndjson" $((pace * secs)) "pace-$mode-" 600 3
    echo "== $mode: paced replay at $pace events/s (${load} x the $load_base rate $base) for ~$secs s, $probes freshness probes" >&2
    histogram_buckets "$ingest" adreport_freshness_seconds >"$work/fb0"
    histogram_buckets "$ingest" adreport_live_answer_seconds >"$work/la0"
    histogram_buckets "$report" adreport_report_live_seconds >"$work/rl0"
    lr0=$(metric "$report" adreport_report_live_rows_total); lm0=$(metric "$report" adreport_report_live_misses_total)
    adreport replay "$work/pace-$mode.ndjson" --url "http://localhost:$ingest" --batch "$batch" --concurrency "$concurrency" \
      --rate "$pace" >"$work/pace-$mode.out" 2>/dev/null &
    paced=$!
    sleep 5 # reach the paced steady state before the first probe
    bench_java io.adreport.benchmarks.FreshnessProbe "http://localhost:$ingest" "http://localhost:$report" \
      "$(cat "$data/analyst.key")" "$probes" "$probe_interval" | tee "$work/probe-$mode.out" || true
    histogram_buckets "$ingest" adreport_freshness_seconds >"$work/fb1"
    histogram_buckets "$ingest" adreport_live_answer_seconds >"$work/la1"
    histogram_buckets "$report" adreport_report_live_seconds >"$work/rl1"
    lr1=$(metric "$report" adreport_report_live_rows_total); lm1=$(metric "$report" adreport_report_live_misses_total)
    wait "$paced" || true; paced=
    prate=$(sed -n 's/.*events in [0-9.]* s (\([0-9,]*\) events\/s).*/\1/p' "$work/pace-$mode.out")
    fresh+=("$(printf '%-10s paced at %s events/s (replay measured %s): %s; %s; adreport_freshness_seconds: %s; live reads: %s rows merged, %s misses; live steps as the report waited (adreport_report_live_seconds): %s; answers as the aggregator built them (adreport_live_answer_seconds): %s' "$mode" "$pace" \
      "${prate:-?}" "$(sed -n 's/^freshness advertiser: //p' "$work/probe-$mode.out")" \
      "network $(sed -n 's/^freshness network: //p' "$work/probe-$mode.out")" "$(bucket_quantiles "$work/fb0" "$work/fb1")" \
      $((lr1 - lr0)) $((lm1 - lm0)) "$(bucket_quantiles "$work/rl0" "$work/rl1")" "$(bucket_quantiles "$work/la0" "$work/la1")")")
  fi
  echo "== $mode: stopping" >&2
  stop
done
echo
echo "same run, $(nproc) cores, batch $batch, concurrency $concurrency, ${extra[*]:-default settings}:"
printf '%s\n' "${results[@]}"
for mode in $modes; do cat "$work/rounds-$mode" "$work/ops-$mode" "$work/groups-$mode"; done
if [ -n "${rates[put-only]:-}" ]; then
  echo "ratio to put-only (events/s):"
  for mode in $modes; do
    awk -v m="$mode" -v r="${rates[$mode]:-0}" -v c="${rates[put-only]}" 'BEGIN { printf "  %-10s %.3f\n", m, r / c }'
  done
fi
if [ ${#fresh[@]} -gt 0 ]; then
  echo "freshness at ${load} x the $load_base rate (ack -> visible in the report; advertiser = the probe's own row, network = the rollup with no dimensions over the probe's own hour):"
  printf '%s\n' "${fresh[@]}"
fi
