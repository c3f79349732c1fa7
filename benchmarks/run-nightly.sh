#!/usr/bin/env bash
# The whole nightly pass as a user runs it: `bin/adreport reconcile --day D` (close, recount,
# ranked index, month lists, view repair) against a running `bin/adreport local`, on three days:
# an empty one (the fixed cost), one of SMALL impressions and one of EVENTS impressions
# (GenerateBackfill, 20,000 campaign keys, posted by `bin/adreport replay` in 5,000-event batches,
# or with --load raw written straight into the raw table as the aggregator stores them, LoadRawDay:
# minutes instead of tens of minutes on a busy machine; the counters and views are then written by
# the first reconcile). --reuse skips generating and loading when DIR (--keep) holds a loaded stack.
# --load-only stops after loading and settling (the stack shut down cleanly, no pass run): DIR is then
# a snapshot of a day as a 03:00 run meets it. --from SNAPSHOT copies such a snapshot's data into
# DIR first (what DIR held is replaced) and runs from the first pass on: first passes of several
# builds or settings on identical files, without a new replay's own spread. --warm runs
# `reconcile --day D --dry-run` before each first pass (reads and compares everything, writes
# nothing, leaves the day open; timed as "dry"): the stack's compiler and caches then stand as after
# earlier nights, and the first pass differs from a re-run by what it writes.
# --order time generates the days' events in time order (as live traffic and a back-fill of
# time-ordered logs arrive) instead of the default random order, the worst case for the
# aggregator's writer totals and so for what the first pass folds.
# Each day is reconciled once first (the run that folds the live writer cells), then RUNS more
# times (what a re-run costs: nothing differs). With --compare OTHER_ROOT, the same re-runs are
# also timed with another built tree's `bin/adreport` against the same stack and data,
# alternating run by run, so both builds are measured in the same minutes. --late N posts N new
# impressions of the large day through `bin/adreport replay` before each of its timed re-runs
# (untimed; the aggregator stores them and marks the day late): what a re-run costs when late
# events changed the day. --late-via raw writes them into the raw table instead (LoadRawDay: rows
# stored around the aggregators, no late mark). Before the first pass it brings the stack, up to
# --settle S seconds each step (default 600), to what a nightly run meets at 03:00 UTC, hours after
# its day's last event (reconcile.time): the aggregator has flushed its last counter deltas (a
# back-fill's last flush takes tens of seconds, and a close that comes first drops what it had not
# sent: the recount restores it, every such cell corrected), and the region server has flushed the
# day's edits to HFiles (its periodic flush, five minutes in the local stack) and finished the
# compactions that started (SettleTables). --settle 0 runs the first pass right after the load.
#
#   benchmarks/run-nightly.sh [--events N] [--small N] [--runs R] [--compare ROOT] [--load replay|raw] [--set name=value]...
#                             [--keep DIR [--reuse | --load-only | --from SNAPSHOT]] [--warm] [--order random|time] [--port P] [--late N [--late-via replay|raw]] [--settle S]
#
# Prints, per build and day, the wall time and the CPU seconds (user + system) of each
# `reconcile --day` process (JVM start included) plus the stack process's CPU meanwhile (a build
# whose `reconcile` runs in the stack through its control socket is marked "[in the stack]"), and
# its "phases:" line, the cells it corrected and the CPU seconds of the stack's JIT compiler
# threads meanwhile (a pass whose code runs for the first time in the stack compiles it), then, for wall and for
# CPU, the fixed cost (the empty day's median) and the rate beyond it (events / (median - fixed
# cost)); on a shared machine the CPU figures move far less with the load than the wall ones.
# RECONCILE_JAVA_OPTS go to the reconcile JVMs (e.g. JFR); NIGHTLY_JFR=DIR records each pass in
# the stack's process (where `reconcile` runs) with JFR's profile settings, one file per pass, beside
# its threads' CPU before and after (thread_cpu).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
. "$here/lib.sh"
events=1000000 small=200000 runs=3 compare="" keep="" report=18300 load=replay reuse="" late=0 late_via=replay settle=600 load_only="" from="" warm="" order=random
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --events) events="$2"; shift 2 ;;
    --small) small="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --compare) compare="$(cd "$2" && pwd)"; shift 2 ;;
    --set) extra+=(--set "$2"); shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --load) load="$2"; shift 2 ;;
    --reuse) reuse=1; shift ;;
    --load-only) load_only=1; shift ;;
    --warm) warm=1; shift ;;
    --order) order="$2"; shift 2 ;;
    --from) from="$(cd "$2" && pwd)"; shift 2 ;;
    --port) report="$2"; shift 2 ;;
    --late) late="$2"; shift 2 ;;
    --late-via) late_via="$2"; shift 2 ;;
    --settle) settle="$2"; shift 2 ;;
    -h|--help) sed -n 2,43p "$0"; exit 0 ;;
    *) echo "run-nightly: unknown option $1" >&2; exit 2 ;;
  esac
done
{ [ -z "$load_only$from" ] || [ -n "$keep" ]; } || { echo "run-nightly: --load-only and --from need --keep DIR" >&2; exit 2; }
work="${keep:-$(mktemp -d)}"; mkdir -p "$work"
if [ -n "$from" ]; then
  [ -d "$from/data/hbase" ] || { echo "run-nightly: $from holds no loaded stack (run --load-only first)" >&2; exit 2; }
  [ "$from" != "$(cd "$work" && pwd)" ] || { echo "run-nightly: --from and --keep name the same directory" >&2; exit 2; }
  rm -rf "$work/data"; cp -a "$from/data" "$work/data"; reuse=1
fi
pid=""
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  [ -z "$keep" ] && rm -rf "$work"
  return 0
}
trap cleanup EXIT
"$root/bin/adreport" help >/dev/null
[ -z "$compare" ] || "$compare/bin/adreport" help >/dev/null
[ -f "$here/target/classpath.txt" ] || (cd "$root" && mvn -B -q package -DskipTests -pl benchmarks -am)
ingest=$((report + 1)) data="$work/data"
port_free run-nightly "$ingest"
today="$(date -u +%F)"
large_day="$(date -u -d "$today - 1 day" +%F)" small_day="$(date -u -d "$today - 2 days" +%F)"
empty_day="$(date -u -d "$today - 4 days" +%F)"
gen() { bench_java io.adreport.benchmarks.GenerateBackfill "$@"; }
if [ -z "$reuse" ]; then
  gen "$work/large.ndjson" "$events" 1 20000 11 0 "$order"
  [ "$small" -eq 0 ] || gen "$work/small.ndjson" "$small" 1 20000 12 1 "$order"
fi

echo "== starting bin/adreport local (data $data)" >&2
ADREPORT_SKIP_BUILD=1 ADREPORT_JAVA_OPTS="${STACK_JAVA_OPTS:-}" "$root/bin/adreport" local --data-dir "$data" --port "$report" \
  --ingest-port "$ingest" --set ingest.accept.window.days=8 --set reconcile.enabled=false "${extra[@]}" >"$work/stack.log" 2>&1 &
pid=$!
await_stack "$pid" "$work/stack.log" "$report" "$ingest"
days=("$empty_day" "$large_day") loads=(large)
[ "$small" -eq 0 ] || { days=("$empty_day" "$small_day" "$large_day"); loads=(small large); }
for f in "${loads[@]}"; do
  [ -z "$reuse" ] || break
  if [ "$load" = raw ]; then
    echo "== writing the $f day's raw rows" >&2
    bench_java io.adreport.benchmarks.LoadRawDay "$data" "$work/$f.ndjson" \
      2>&1 | grep -v -e WARN -e '^\s*at ' -e Exception >&2
  else
    echo "== replaying the $f day" >&2
    ADREPORT_SKIP_BUILD=1 ADREPORT_JAVA_OPTS= "$root/bin/adreport" replay "$work/$f.ndjson" --url "http://localhost:$ingest" \
      --batch 5000 --concurrency 4 >"$work/replay-$f.out" 2>/dev/null || echo "run-nightly: replay of $f exited $?" >&2
    tail -2 "$work/replay-$f.out" >&2
  fi
done

: >>"$work/times"; mark=$(wc -l <"$work/times")
stack_cpu() { awk -v ms="$(cpu_ms "$pid")" 'BEGIN { printf "%.2f", ms / 1000 }'; }
recon() { # label tree day [flags] -> appends "label day seconds cpu-seconds phases" to times
  local s out cpu before; s=$(date +%s.%N); out="$work/reconcile-$1-$3-$(date +%s%N).out"; before=$(stack_cpu)
  # CPU seconds (user + system) of the command's process and of the stack's process meanwhile: a
  # build whose `reconcile` runs in the local stack (its control socket) spends its CPU there, and
  # the stack's own background work is charged to every build alike. What the pass costs whatever
  # else runs on the machine.
  local rec="${NIGHTLY_JFR:+$NIGHTLY_JFR/$1-$3-$(date +%s)}" jit
  thread_cpu "$pid" >"$work/threads-before"
  [ -z "$rec" ] || { thread_cpu "$pid" >"$rec.threads-before"; jcmd "$pid" JFR.start name=pass settings=profile filename="$rec.jfr" >/dev/null; }
  cpu=$( { TIMEFORMAT='%U %S'; time ADREPORT_SKIP_BUILD=1 ADREPORT_JAVA_OPTS="${RECONCILE_JAVA_OPTS:-}" \
    "$2/bin/adreport" reconcile --data-dir "$data" --day "$3" "${@:4}" >"$out" 2>&1; } 2>&1 ) || { tail -30 "$out" >&2; exit 1; }
  [ -z "$rec" ] || { jcmd "$pid" JFR.stop name=pass >/dev/null; thread_cpu "$pid" >"$rec.threads-after"; }
  thread_cpu "$pid" >"$work/threads-after"
  jit=$(thread_cpu_ms "$work/threads-before" "$work/threads-after" 'CompilerThre')
  cpu=$(echo "$cpu $before $(stack_cpu)" | awk '{ printf "%.1f", $1 + $2 + $4 - $3 }')
  printf '%s %s %s %s %s%s\n' "$1" "$3" "$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" \
    "$cpu" "$(grep -m1 '^phases:' "$out" | sed 's/^phases: //')" \
    "$(grep -q "in the local stack's process" "$out" && echo ' [in the stack]')$(awk '$1 == "total" { printf "; cells corrected %s of %s", $3, $2 }' "$out"); the stack's JIT compiler $(awk -v ms="$jit" 'BEGIN { printf "%.1f", ms / 1000 }') CPU s" \
    | tee -a "$work/times" >&2
}
if [ -z "$reuse" ] && [ "$settle" -gt 0 ]; then
  echo "== settling (up to $settle s a step): the aggregator's last counter flush, then the region server's flushes and compactions" >&2
  await_flushed "$ingest" "$settle"
  bench_java io.adreport.benchmarks.SettleTables "$data" "$settle" 2>&1 | grep -v -e WARN -e '^\s*at ' -e Exception >&2
fi
if [ -n "$load_only" ]; then
  kill -TERM "$pid"; for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done; pid=""
  echo "loaded and settled, the stack stopped: $work (run-nightly --from $work --keep OTHER_DIR)"
  exit 0
fi
{ [ -n "$reuse" ] && [ -z "$from" ]; } || for d in "${days[@]:1}"; do # the empty day has nothing to write
  [ -z "$warm" ] || recon dry "$root" "$d" --dry-run
  recon first "$root" "$d"
done
late_events() { # N new impressions of the large day (ids unique to this moment)
  local f="$work/late.ndjson"
  gen "$f" "$late" 1 20000 "$(date +%s%N)" 0 2>/dev/null
  if [ "$late_via" = raw ]; then
    bench_java io.adreport.benchmarks.LoadRawDay "$data" "$f" 2>&1 | grep -v -e WARN -e '^\s*at ' -e Exception >&2
  else
    ADREPORT_SKIP_BUILD=1 ADREPORT_JAVA_OPTS= "$root/bin/adreport" replay "$f" --url "http://localhost:$ingest" \
      --batch 5000 --concurrency 4 >"$work/replay-late.out" 2>/dev/null || echo "run-nightly: late replay exited $?" >&2
    tail -1 "$work/replay-late.out" >&2
    sleep 3 # the aggregator writes the day's late mark on its next poll (dayclose.poll.ms, 1 s)
  fi
}
for r in $(seq 1 "$runs"); do
  for d in "${days[@]}"; do
    [ "$late" -eq 0 ] || [ "$d" != "$large_day" ] || late_events
    recon this "$root" "$d"
    [ -z "$compare" ] || { [ "$late" -eq 0 ] || [ "$d" != "$large_day" ] || late_events; recon compare "$compare" "$d"; }
  done
done

echo
echo "same run, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); days: $empty_day empty, $small_day $small events, $large_day $events events"
tail -n +"$((mark + 1))" "$work/times" >"$work/this-run"
for label in first this compare; do
  grep -q "^$label " "$work/this-run" || continue
  median() { grep "^$label $1 " "$work/this-run" | awk -v f="$2" '{ print $f }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  for col in 3 4; do
    e=$(median "$empty_day" $col) l=$(median "$large_day" $col) s=0
    [ "$small" -eq 0 ] || s=$(median "$small_day" $col)
    awk -v L="$label" -v what="$([ $col = 3 ] && echo wall || echo cpu)" -v e="$e" -v s="$s" -v l="$l" -v ns="$small" -v nl="$events" 'BEGIN {
      printf "%-8s median %-4s: empty %.1f s, %d events %.1f s", L, what, e, nl, l
      if (e > 0) printf "; fixed cost %.1f s; beyond it %.0f events/s", e, (l > e ? nl / (l - e) : 0)
      if (ns > 0) printf "; %d events %.1f s (%.0f events/s beyond the fixed cost)", ns, s, (s > e && e > 0 ? ns / (s - e) : 0)
      printf "\n" }'
  done
done
[ -z "$keep" ] || echo "outputs kept in $work"
kill -TERM "$pid"; for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done; pid=""
