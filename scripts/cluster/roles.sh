#!/usr/bin/env bash
# scripts/cluster/roles.sh: what each role costs per event on the cluster of scripts/cluster/up.sh.
# For one aggregator (every event sent to agg1) and then two (half to each, in parallel), from the
# edge host with bin/adreport replay: a warm-up replay, then a measured one; the CPU time (user +
# system, from /proc, the process and its children) of every daemon and service between the two
# snapshots, divided by the events acknowledged. The cluster runs aggregator.instances=2, so every
# raw write is put-if-absent in both cases; CPU per event of a role should stay flat as
# aggregators are added. One line per process, then the sums per role. Each process's idle CPU
# (measured over --idle seconds with no load first: chores, heartbeats, metrics) is subtracted
# for the length of the window, so a slow run does not count the cluster's idling as event cost.
# --region-servers "2 1" measures both aggregator configurations with two region servers and then
# with one: worker2's region server is stopped (SIGTERM, its regions move to worker1), the regions
# settle and the idle CPU is measured again; at the end it is started again and the balancer is asked
# to give it regions back (through schema apply), so a following run starts from a spread placement.
#
#   scripts/cluster/roles.sh [--events N] [--warmup N] [--batch N] [--concurrency N] [--idle SECONDS]
#                            [--region-servers "2 1"]
#
# Needs the benchmarks' event generator: mvn -B -q package -DskipTests (as up.sh does).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
load_state || { echo "roles: no cluster in $RUN (run scripts/cluster/up.sh first)"; exit 1; }
events=100000 warmup=50000 batch=1000 concurrency=2 idle=30 servers=2
while [ $# -gt 0 ]; do
  case "$1" in
    --events) events="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --batch) batch="$2"; shift 2 ;;
    --concurrency) concurrency="$2"; shift 2 ;;
    --idle) idle="$2"; shift 2 ;;
    --region-servers) servers="$2"; shift 2 ;;
    *) sed -n 2,17p "$0"; exit 2 ;;
  esac
done
root="$(cd "$CLUSTER_HOME/../.." && pwd)"
W="$RUN/roles/$(date -u +%H%M%S)"; mkdir -p "$W"
gen() { java -cp "$root/benchmarks/target/classes:$(cat "$root/benchmarks/target/classpath.txt")" io.adreport.benchmarks.GenerateEvents "$@"; }
url() { echo "http://$(host_name "$1"):${INGEST_PORT[$1]}"; }
replay() { # FILE AGGREGATOR: bin/adreport replay from the edge host; prints its last line
  on edge "$(adreport_cmd edge)" replay "$1" --url "$(url "$2")" --batch "$batch" --concurrency "$concurrency" 2>/dev/null | tail -1
}
run() { # LABEL AGGREGATORS...
  local label="$1"; shift
  local aggs=("$@") k=${#@} a i t0 t1 secs
  gen "$W/warm-$label.ndjson" "$warmup" "warm-$label-$$-" 600 11 >/dev/null
  gen "$W/load-$label.ndjson" "$events" "load-$label-$$-" 600 12 >/dev/null
  split_for "$W/warm-$label" "${aggs[@]}"; split_for "$W/load-$label" "${aggs[@]}"
  # every aggregator of the configuration is warmed up (its JIT), each with its share
  for a in "${aggs[@]}"; do replay "$W/warm-$label-$a.ndjson" "$a" >"$W/warm-$label-$a.out" & done
  wait
  sleep 12 # the last flush lands (flush.interval 10 s at most), then the work of the window is the load's
  t0=$(date +%s.%N)
  snapshot >"$W/before-$label"
  i=0
  for a in "${aggs[@]}"; do replay "$W/load-$label-$a.ndjson" "$a" >"$W/replay-$label-$a.out" & i=$((i + 1)); done
  wait
  t1=$(date +%s.%N)
  sleep 12
  snapshot >"$W/after-$label"
  t2=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  window=$(awk -v a="$t0" -v b="$t2" 'BEGIN { printf "%.1f", b - a }')
  echo "== $label: $events events to ${aggs[*]} in $secs s ($(awk -v n="$events" -v s="$secs" 'BEGIN { printf "%.0f", n / s }') events/s); replay: $(cat "$W"/replay-"$label"-*.out | tr '\n' ' ')"
  cost_per_unit "$label" "$events" "$window" event
}

RS2=regionserver-worker2
rs2_up() { pid_alive "$RUN/pids/$RS2.pid"; }
region_servers() { # N: 2 (worker2's region server started if it was stopped) or 1 (it stopped); regions settled
  case "$1" in
    2) if ! rs2_up; then
         "$CLUSTER_HOME/restart-daemon.sh" "$RS2" >>"$W/restart.log" 2>&1 || { echo "roles: could not start $RS2 (see $W/restart.log)"; return 1; }
         regions_settled 300 worker1 worker2 || return 1
         # A returned region server is given nothing until the balancer runs (every 5 minutes), so
         # the 2-server runs would have every raw-table region on worker1; schema apply asks the
         # balancer to run (the profiles' replicas all share worker1 then).
         schema_apply >>"$W/schema-apply.log" 2>&1 \
           || { echo "roles: bin/adreport schema apply (host edge) failed ($W/schema-apply.log)"; return 1; }
       fi
       regions_settled 300 worker1 worker2 || return 1
       local w1 w2; w1=$(table_regions events_v1 worker1) w2=$(table_regions events_v1 worker2)
       [ "$w2" -gt 0 ] && [ "$w1" -gt 0 ] || { echo "roles: raw-table regions not spread over both region servers (worker1 $w1, worker2 $w2)"; return 1; } ;;
    1) if rs2_up; then
         local pid; pid=$(cat "$RUN/pids/$RS2.pid"); kill -TERM "$pid"
         local deadline=$(( $(date +%s) + 180 ))
         while kill -0 "$pid" 2>/dev/null; do
           [ "$(date +%s)" -lt "$deadline" ] || { echo "roles: $RS2 (pid $pid) did not stop within 180 s of SIGTERM"; return 1; }
           sleep 1
         done
       fi
       regions_settled 300 worker1 ;;
    *) echo "roles: --region-servers takes 1 and 2, not '$1'"; return 1 ;;
  esac
}

echo "roles: cluster in $RUN ($MODE); $events events per configuration after $warmup of warm-up; region servers: $servers; load average $(cut -d' ' -f1-3 /proc/loadavg)"
rs2_was_up=0; rs2_up && rs2_was_up=1
status=0
for n in $servers; do
  region_servers "$n" || { status=1; break; }
  echo "== $n region server(s): raw-table regions worker1 $(table_regions events_v1 worker1) worker2 $(table_regions events_v1 worker2 2>/dev/null || echo -)"
  measure_idle "$idle"
  run "one-aggregator-${n}rs" agg1
  run "two-aggregators-${n}rs" agg1 agg2
  for w in worker1 worker2; do
    [ "$n" = 1 ] && [ "$w" = worker2 ] && continue
    pid_alive "$RUN/pids/regionserver-$w.pid" || { echo "roles: regionserver-$w stopped during the runs (its log: $RUN/logs/regionserver-$w.log); these numbers do not count"; status=1; break 2; }
  done
done
if [ "$rs2_was_up" = 1 ] && ! rs2_up; then region_servers 2 || status=1; fi
echo "roles: files and snapshots in $W"
exit "$status"
