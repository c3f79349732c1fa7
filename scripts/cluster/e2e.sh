#!/usr/bin/env bash
# scripts/cluster/e2e.sh: end-to-end check of adreport on the cluster of scripts/cluster/up.sh,
# through HTTP and the CLI only, against counts it computes itself from what it sent. Every
# request is made from the edge host (the API on host api, the aggregators on agg1 and agg2).
# One line per step with its wall time, then a final pass/fail; exit status 0 only when every
# step passed. Usage: scripts/cluster/e2e.sh [--skip STEP[,STEP...]] (step names as printed).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
load_state || { echo "e2e: no cluster in $RUN (run scripts/cluster/up.sh first)"; exit 1; }

SKIP=","
while [ $# -gt 0 ]; do
  case "$1" in
    --skip) SKIP=",$2,"; shift 2 ;;
    *) echo "usage: scripts/cluster/e2e.sh [--skip STEP,...]"; exit 2 ;;
  esac
done

RUNID="e2e$(date -u +%H%M%S)"
W="$RUN/e2e/$RUNID"; mkdir -p "$W"
PY="python3 $CLUSTER_HOME/e2e.py"
API="http://$(host_name api):$API_PORT"
AGG1="http://$(host_name agg1):${INGEST_PORT[agg1]}"
AGG2="http://$(host_name agg2):${INGEST_PORT[agg2]}"
ANALYST=$(cat "$RUN/keys/analyst.key"); ADSERVER=$(cat "$RUN/keys/adserver.key"); PRIVACY=$(cat "$RUN/keys/privacy.key")
# Day D: the latest of the last 6 days that holds no event and that no nightly job has closed
# (yesterday on a fresh cluster): a closed day's late events are counted by its next recount, not
# live, and an earlier run's events could be counted short until a recount (see regionserver-kill).
D=""
for k in 1 2 3 4 5 6; do
  d=$(date -u -d "$k days ago" +%F); d1=$(date -u -d "$d + 1 day" +%F)
  code=$(on edge curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ANALYST" "$API/v1/reconcile/$d")
  n=$(on edge curl -fsS -H "Authorization: Bearer $ANALYST" "$API/v1/reports/network?from=$d&to=$d1&granularity=all&metrics=impressions" \
      | python3 "$CLUSTER_HOME/e2e.py" totals impressions)
  if [ "$code" = 404 ] && [ "$n" = '{"impressions": 0}' ]; then D=$d; break; fi
done
[ -n "$D" ] || { echo "e2e: each of the last 6 days holds events or is closed on this cluster; start a fresh one (down.sh, up.sh)"; exit 1; }
D1=$(date -u -d "$D + 1 day" +%F)
END=$(date -u -d '+30 days' +%F)

# --- helpers: HTTP and the CLI, from the edge host ------------------------------------------------
api() { # METHOD PATH KEY [BODY]: the body of the answer; fails on HTTP errors
  local m="$1" p="$2" k="$3" b="${4:-}"
  if [ -n "$b" ]; then
    on edge curl -sS --fail-with-body --max-time 30 -X "$m" -H "Authorization: Bearer $k" -H 'Content-Type: application/json' --data-binary "$b" "$API$p"
  else
    on edge curl -sS --fail-with-body --max-time 30 -X "$m" -H "Authorization: Bearer $k" "$API$p"
  fi
}
edge_adreport() { on edge "$(adreport_cmd edge)" "$@"; }
replay() { # FILE URL: bin/adreport replay from the edge host (the project's ingest client and its retries)
  edge_adreport replay "$1" --url "$2" --batch 500 --concurrency 2 >>"$W/replay.log" 2>&1
}
report() { # ROLLUP QUERY: GET /v1/reports/ROLLUP for day D
  api GET "/v1/reports/$1?from=$D&to=$D1&granularity=all&$2" "$ANALYST"
}
NETWORK_METRICS=impressions,clicks,conversions,spendMicros,conversionValueMicros
network_totals() { report network "metrics=$NETWORK_METRICS" | $PY totals "$NETWORK_METRICS"; }
campaign_impressions() { report campaign "metrics=impressions&groupBy=advertiser,campaign&limit=1000" | $PY by advertiser,campaign impressions; }
check() { # DEVICE CAMPAIGN: POST /v1/serve/check
  api POST /v1/serve/check "$ADSERVER" "{\"device\":\"$1\",\"campaigns\":[\"$2\"]}"
}

# --- steps ------------------------------------------------------------------------------------------
PASSED=0; FAILED=0; SKIPPED=0; FAILS=()
T0=$(date +%s)
step() { # NAME FUNCTION
  local name="$1" fn="$2" t s rc msg
  if [[ "$SKIP" == *",$name,"* ]]; then
    printf 'e2e: %-22s SKIP  (--skip)\n' "$name"; SKIPPED=$((SKIPPED + 1)); return
  fi
  s=$(date +%s.%N)
  # Output to files, not a pipe: a daemon restarted by a step must not hold the step's pipe open.
  "$fn" >"$W/$name.out" 2>"$W/$name.err"; rc=$?
  msg=$(cat "$W/$name.out")
  t=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$s" "$(date +%s.%N)")
  if [ "$rc" = 0 ]; then
    printf 'e2e: %-22s PASS  %6s s  %s\n' "$name" "$t" "$(tail -1 <<<"$msg")"; PASSED=$((PASSED + 1))
  else
    printf 'e2e: %-22s FAIL  %6s s  %s\n' "$name" "$t" "$(tail -1 <<<"$msg")"
    tail -5 "$W/$name.err" | sed 's/^/      /'
    sed '$d' "$W/$name.out" | tail -5 | sed 's/^/      /'
    FAILED=$((FAILED + 1)); FAILS+=("$name")
  fi
}
expect_eq() { # WHAT EXPECTED ACTUAL
  [ "$2" = "$3" ] || { echo "$1: expected $2, got $3"; return 1; }
}
poll() { # SECONDS CMD...: CMD passes within SECONDS
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@" >/dev/null 2>&1; do [ "$(date +%s)" -lt "$deadline" ] || return 1; sleep 0.5; done
}

s_registry() {
  local b
  b=$(api GET "/v1/reports/network?from=$D&to=$D1&granularity=all&metrics=$NETWORK_METRICS" "$ANALYST") || return 1
  $PY totals "$NETWORK_METRICS" <<<"$b" >"$W/baseline.json"
  report campaign "metrics=impressions&groupBy=advertiser,campaign&limit=1000" | $PY by advertiser,campaign impressions >"$W/baseline-campaigns.json" || return 1
  api PUT "/v1/campaigns/e2e/cap-$RUNID" "$ANALYST" \
    "{\"status\":\"active\",\"start\":\"$D\",\"end\":\"$END\",\"frequencyCaps\":[{\"max\":3,\"window\":\"1h\"}]}" >/dev/null || return 1
  api PUT "/v1/campaigns/e2e/budget-$RUNID" "$ANALYST" \
    "{\"status\":\"active\",\"start\":\"$D\",\"end\":\"$END\",\"budget\":{\"lifetimeMicros\":100000}}" >/dev/null || return 1
  api PUT "/v1/campaigns/e2e/other-$RUNID" "$ANALYST" \
    "{\"status\":\"active\",\"start\":\"$D\",\"end\":\"$END\"}" >/dev/null || return 1
  api PUT "/v1/zones/site-$RUNID/top" "$ANALYST" \
    "{\"ads\":[{\"advertiser\":\"e2e\",\"campaign\":\"budget-$RUNID\",\"creative\":\"big\",\"ecpmMicros\":5000000},{\"advertiser\":\"e2e\",\"campaign\":\"other-$RUNID\",\"creative\":\"small\",\"ecpmMicros\":1000000}]}" >/dev/null || return 1
  echo "3 campaigns (a 3-per-hour cap, a 100000-micro lifetime budget, a plain one) and a zone; day $D before: $(cat "$W/baseline.json")"
}

s_ingest() {
  $PY gen "$W" "$D" "$RUNID" 3000 || return 1
  # Impressions to both aggregators at once, then clicks and conversions (they join the impressions).
  local a b
  replay "$W/agg1-imps.ndjson" "$AGG1" & a=$!
  replay "$W/agg2-imps.ndjson" "$AGG2" & b=$!
  wait $a || { echo "replay to agg1 failed"; return 1; }; wait $b || { echo "replay to agg2 failed"; return 1; }
  replay "$W/agg1-rest.ndjson" "$AGG1" & a=$!
  replay "$W/agg2-rest.ndjson" "$AGG2" & b=$!
  wait $a || { echo "replay to agg1 failed"; return 1; }; wait $b || { echo "replay to agg2 failed"; return 1; }
  echo "sent $($PY field sent <"$W/expected.json") events ($($PY field unique <"$W/expected.json") distinct, $($PY field duplicates <"$W/expected.json") to both aggregators) for $D"
}

expected_network() { $PY plus "$(cat "$W/baseline.json")" "$($PY field network <"$W/expected.json")"; }
expected_campaigns() { $PY plus "$(cat "$W/baseline-campaigns.json")" "$($PY field campaign_impressions <"$W/expected.json")"; }

s_report_live() {
  # At once: the aggregators flush every 10 s, so what is exact now comes from their live counts,
  # fetched by the report API on host api from agg1 and agg2 across the bridge.
  # An aggregator that misses the live-count deadline (report.live.timeout.ms) shows its counts as of
  # its last flush: such an answer may be short, and is asked again (at most 5 times). An answer
  # during which no ask missed must be exact.
  local want got wantc gotc attempt before after retried=0
  want=$(expected_network); wantc=$(expected_campaigns)
  for attempt in 1 2 3 4 5; do
    before=$(live_misses) || return 1
    got=$(network_totals) || return 1
    gotc=$(campaign_impressions) || return 1
    after=$(live_misses) || return 1
    [ "$got" = "$want" ] && [ "$gotc" = "$wantc" ] && break
    [ "$after" -gt "$before" ] || break # no ask missed: the answer had to be exact
    retried=$((retried + 1)); sleep 1
  done
  expect_eq "network totals of $D" "$want" "$got" || return 1
  expect_eq "impressions by campaign of $D" "$wantc" "$gotc" || return 1
  local m; m=$(on edge curl -fsS "$API/metrics") || return 1
  local rows misses
  rows=$(awk '/^adreport_report_live_rows_total/ {s+=$NF} END {print s+0}' <<<"$m")
  misses=$(awk '/^adreport_report_live_misses_total/ {s+=$NF} END {print s+0}' <<<"$m")
  [ "${rows%.*}" -gt 0 ] || { echo "the report API took no live rows from the aggregators (adreport_report_live_rows_total=$rows)"; return 1; }
  echo "exact while live: $(network_totals) and impressions of all 12 campaigns; live rows from the aggregators $rows, misses $misses ($retried answers asked again after a miss)"
}

# live_misses: the report API's live-count asks that missed their deadline, so far.
live_misses() {
  local m; m=$(on edge curl -fsS "$API/metrics") || return 1
  awk '/^adreport_report_live_misses_total/ {s+=$NF} END {printf "%d\n", s+0}' <<<"$m"
}

# decided_check DEVICE CAMPAIGN: a check that is not degraded (a profile read past the 500 ms
# deadline answers as for an unknown device, which says nothing of the cap); up to 10 s.
decided_check() {
  local r deadline=$(( $(date +%s) + 10 ))
  while :; do
    r=$(check "$1" "$2") || return 1
    [ "$($PY field degraded <<<"$r")" = true ] && [ "$(date +%s)" -lt "$deadline" ] || break
    sleep 0.5
  done
  echo "$r"
}

s_cap() {
  local dev="$RUNID-capdev" c="e2e/cap-$RUNID" r
  r=$(decided_check "$dev" "$c") || return 1
  expect_eq "before any view: allowed" true "$($PY field campaigns.0.allowed <<<"$r")" || { echo "$r"; return 1; }
  $PY now-events "$W/cap.ndjson" 3 "$RUNID" cap e2e "cap-$RUNID" "$dev" 1000
  replay "$W/cap.ndjson" "$AGG2" || { echo "replay failed"; return 1; }
  r=$(decided_check "$dev" "$c") || return 1
  expect_eq "after 3 views (max 3 per 1h): allowed" false "$($PY field campaigns.0.allowed <<<"$r")" || { echo "$r"; return 1; }
  expect_eq "reason" capped "$($PY field campaigns.0.reason <<<"$r")" || return 1
  echo "allowed, then after 3 acknowledged views on agg2: $(tr -d '\n' <<<"$r" | cut -c1-160)"
}

first_ad() { api POST /v1/serve/ad "$ADSERVER" "{\"site\":\"site-$RUNID\",\"zone\":\"top\",\"device\":\"$RUNID-addev\"}" | $PY field ads.0.campaign; }
is_other() { [ "$(first_ad)" = "other-$RUNID" ]; }
s_budget() {
  poll 10 test "$(first_ad)" = "budget-$RUNID" || { echo "serve/ad did not choose the budgeted campaign first: $(first_ad)"; return 1; }
  $PY now-events "$W/budget.ndjson" 12 "$RUNID" spend e2e "budget-$RUNID" "$RUNID-spender" 10000
  replay "$W/budget.ndjson" "$AGG1" || { echo "replay failed"; return 1; }
  poll 20 is_other || { echo "serve/ad still chooses the exhausted campaign: $(first_ad)"; return 1; }
  local b; b=$(api GET "/v1/campaigns/e2e/budget-$RUNID/budget" "$ANALYST") || return 1
  expect_eq "budget exhausted" true "$($PY field exhausted <<<"$b")" || return 1
  echo "serve/ad chose budget-$RUNID, then (120000 of 100000 micros spent: $($PY field spentLifetimeMicros <<<"$b")) other-$RUNID"
}

s_segments() {
  local dev="$RUNID-segdev" f="$W/segments.csv" r
  printf '%s,sports,0.9\n%s,travel,0.4\n' "$dev" "$dev" >"$f"
  if ! edge_adreport segments load "$f" >"$W/segments.log" 2>&1; then
    grep -m1 -A2 "Bulk load aborted" "$W/segments.log"
    if grep -q "file:/tmp/adreport-segments-" "$W/segments.log"; then
      echo "bin/adreport segments load (host edge) failed: it staged its HFiles in the edge host's own /tmp, which the region servers cannot read (issue 31: segments must stage on the cluster file system)"
    else
      echo "bin/adreport segments load (host edge) failed ($W/segments.log)"
    fi
    return 1
  fi
  r=$(check "$dev" "e2e/other-$RUNID") || return 1
  expect_eq "segments in the check" '{"sports": 0.9, "travel": 0.4}' "$($PY field segments <<<"$r")" || return 1
  echo "$(tail -1 "$W/segments.log")"
}

deletion_reached() { api GET "/v1/privacy/deletions/$1" "$PRIVACY" | grep -q '"unreadable"'; }
s_privacy() {
  local dev="$RUNID-privdev" r id
  # Views of a capped campaign: a check reads them (and only them) from the device's profile row.
  $PY now-events "$W/priv.ndjson" 2 "$RUNID" priv e2e "cap-$RUNID" "$dev" 10
  replay "$W/priv.ndjson" "$AGG1" || { echo "replay failed"; return 1; }
  r=$(check "$dev" "e2e/cap-$RUNID") || return 1
  expect_eq "device known before" known "$($PY field device <<<"$r")" || return 1
  r=$(api POST /v1/privacy/deletions "$PRIVACY" "{\"device\":\"$dev\"}") || return 1
  id=$($PY field id <<<"$r")
  poll 60 deletion_reached "$id" || { echo "deletion $id did not reach unreadable in 60 s: $(api GET "/v1/privacy/deletions/$id" "$PRIVACY")"; return 1; }
  r=$(check "$dev" "e2e/cap-$RUNID") || return 1
  expect_eq "device after the deletion" new "$($PY field device <<<"$r")" || return 1
  echo "deletion $id reached unreadable; the device is unknown to checks again"
}

s_regionserver_kill() {
  # More traffic for D, sent slowly; a region server is killed with -9 halfway. Every event the
  # aggregators acknowledged must be counted (live, then after the job).
  $PY gen "$W/kill" "$D" "${RUNID}k" 4000 2>/dev/null || { mkdir -p "$W/kill" && $PY gen "$W/kill" "$D" "${RUNID}k" 4000; } || return 1
  # The victim: the region server that holds the most regions of the raw events table now.
  local a b victim="" pid most=0 w n
  regions_settled 180 worker1 worker2 || return 1
  for w in worker1 worker2; do
    n=$(table_regions events_v1 "$w")
    if [ "$n" -gt "$most" ]; then most=$n; victim="regionserver-$w"; fi
  done
  [ -n "$victim" ] || { echo "no region server holds a region of the raw events table"; return 1; }
  touch "$W/kill/sending"
  edge_adreport replay "$W/kill/agg1-imps.ndjson" --url "$AGG1" --batch 100 --concurrency 1 --rate 150 >>"$W/replay-kill.log" 2>&1 & a=$!
  edge_adreport replay "$W/kill/agg2-imps.ndjson" --url "$AGG2" --batch 100 --concurrency 1 --rate 150 >>"$W/replay-kill.log" 2>&1 & b=$!
  sleep 6
  pid=$(cat "$RUN/pids/$victim.pid")
  kill -9 "$pid" || { echo "could not kill $victim"; return 1; }
  local killed_at; killed_at=$(date +%s)
  wait $a || { echo "replay to agg1 failed (see $W/replay-kill.log)"; return 1; }
  wait $b || { echo "replay to agg2 failed (see $W/replay-kill.log)"; return 1; }
  local took=$(( $(date +%s) - killed_at ))
  edge_adreport replay "$W/kill/agg1-rest.ndjson" --url "$AGG1" >>"$W/replay-kill.log" 2>&1 || return 1
  edge_adreport replay "$W/kill/agg2-rest.ndjson" --url "$AGG2" >>"$W/replay-kill.log" 2>&1 || return 1
  touch "$W/kill/sent"
  # Bring the region server back (its host keeps its name and port).
  "$CLUSTER_HOME/restart-daemon.sh" "$victim" >>"$W/restart.log" 2>&1 || { echo "could not restart $victim"; return 1; }
  regions_settled 180 worker1 worker2 || return 1
  # Live, nothing is counted twice. A raw write whose answer the kill lost is counted once its
  # aggregator finds the row stored (docs/EXACTNESS.md, "A raw write with an unknown outcome"), which
  # may come after this read: live may be short here, never over, and the nightly job counts every
  # stored row (nightly-job checks every counter exact).
  local want got short
  want=$($PY plus "$(expected_network)" "$($PY field network <"$W/kill/expected.json")")
  got=$(network_totals) || return 1
  short=$($PY shortfall "$want" "$got") || { echo "network totals of $D after the kill (live): over-counted: expected at most $want, got $got"; return 1; }
  local retries; retries=$(grep -o 'retries [0-9]*' "$W/replay-kill.log" | awk '{s+=$2} END {print s+0}')
  [ "$short" = "$($PY shortfall "$want" "$want")" ] && short=nothing
  echo "killed $victim (pid $pid, $most raw-table regions) 6 s into ingest; the senders finished $took s after the kill ($retries retried batches); live counts never over, short by $short until the job; $victim restarted"
}

s_stale_and_deadline() {
  # Region replicas and the bid path's deadline with a region server stopped (SIGSTOP: alive,
  # silent, as a region server in a long pause): checks of devices whose profile region has its
  # primary there keep answering — at about serve.deadline.ms, "degraded", through the main API;
  # from the secondary, "stale", through the API with timeline reads when the secondary is on the
  # other region server — and none waits for the HBase client's timeout. Then the region server is
  # restarted.
  local devices=() i victim="" other pid tl plain most=-1 n w c="e2e/cap-$RUNID" api_tl
  declare -A held
  for i in $(seq 1 24); do devices+=("$RUNID-replica-dev-$i"); done
  # A view of the capped campaign for every device (one of three allowed): a check of that
  # campaign reads the device's profile row.
  : >"$W/replica.ndjson"
  for i in "${!devices[@]}"; do
    $PY now-events "$W/replica-$i.ndjson" 1 "$RUNID" "r$i" e2e "cap-$RUNID" "${devices[$i]}" 1000 >/dev/null || return 1
    cat "$W/replica-$i.ndjson" >>"$W/replica.ndjson"
  done
  replay "$W/replica.ndjson" "$AGG1" || { echo "ingest of the replica devices' views failed"; return 1; }
  # A region server that died earlier (a previous run's kill) left both replicas of its regions on
  # the survivor; schema apply, re-run as an operator does after a region server returns, asks the
  # balancer to separate them and prints the placement.
  local placement
  schema_apply >"$W/schema-apply.log" 2>&1 \
    || { echo "bin/adreport schema apply (host edge) failed ($W/schema-apply.log)"; return 1; }
  placement=$(grep '^placement' "$W/schema-apply.log") || { echo "schema apply printed no replica placement ($W/schema-apply.log)"; return 1; }
  grep -q ', 0 with replicas sharing a server' <<<"$placement" || { echo "replicas still share a region server: $placement"; return 1; }
  # The victim: the region server holding the most profiles regions (primaries and replicas).
  for w in worker1 worker2; do
    n=$(on edge curl -fsS "http://$(host_name "$w"):${RS_INFO[$w]}/jmx?qry=Hadoop:service=HBase,name=RegionServer,sub=Regions" \
        | grep -o 'table_profiles_v1_region_[0-9a-f]*' | sort -u | wc -l)
    held[$w]=$n
    if [ "$n" -gt "$most" ]; then most=$n; victim=$w; fi
  done
  other=worker1; [ "$victim" = worker1 ] && other=worker2
  # Whether hbase:meta stops with it: a read whose region location is not cached waits on meta.
  local meta_on=other
  on edge curl -fsS "http://$(host_name "$victim"):${RS_INFO[$victim]}/jmx?qry=Hadoop:service=HBase,name=RegionServer,sub=Regions" \
      | grep -q 'Namespace_hbase_table_meta_region' && meta_on=victim
  api_tl="http://$(host_name api):$API_TIMELINE_PORT"
  # Running APIs have warm caches (keys, registry, region locations): one check through each first.
  on edge $PY checks "$api_tl" "$ADSERVER" "$c" "${devices[0]}" >/dev/null
  on edge $PY checks "$API" "$ADSERVER" "$c" "${devices[0]}" >/dev/null
  pid=$(cat "$RUN/pids/regionserver-$victim.pid")
  # Both APIs are asked at once: the stopped server's ZooKeeper session (10 s) may expire while
  # the plain API's degraded checks run (about 0.5 s each), and the master then moves its
  # primaries to the other server, where they answer fresh and no secondary is asked.
  local t0 stopped_for
  kill -STOP "$pid" || { echo "could not stop regionserver-$victim"; return 1; }
  t0=$(date +%s.%N)
  on edge $PY checks "$api_tl" "$ADSERVER" "$c" "${devices[@]}" >"$W/checks-timeline.json" &
  local tl_pid=$!
  plain=$(on edge $PY checks "$API" "$ADSERVER" "$c" "${devices[@]}")
  wait "$tl_pid"
  tl=$(cat "$W/checks-timeline.json")
  stopped_for=$(python3 -c "import sys,time; print(f'{time.time()-float(sys.argv[1]):.1f}')" "$t0")
  kill -CONT "$pid"
  # Its ZooKeeper session may have expired meanwhile: restart it to be sure of the cluster's state.
  kill -9 "$pid" 2>/dev/null
  for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  "$CLUSTER_HOME/restart-daemon.sh" "regionserver-$victim" >>"$W/restart.log" 2>&1 || { echo "could not restart regionserver-$victim"; return 1; }
  regions_settled 180 worker1 worker2 || return 1
  echo "profiles regions: $victim ${held[$victim]}, $other ${held[$other]}; stopped for $stopped_for s; timeline API: $tl; plain API: $plain" >&2
  expect_eq "checks answered through the main API with $victim stopped" "${#devices[@]}" "$($PY field answered <<<"$plain")" || { echo "$plain"; return 1; }
  # The 500 ms deadline and a margin for the client and the two cores; a check used to wait out the API
  # key's refresh (report.key.lookup.ms, 1 s) first when the meta table's region server was the stopped one.
  python3 -c "import json,sys; sys.exit(0 if json.loads(sys.argv[1])['max_seconds'] < 1.0 else 1)" "$plain" \
    || { echo "a check through the main API took 1 s or more against its 500 ms deadline: $plain"; return 1; }
  [ "$($PY field degraded <<<"$plain")" -gt 0 ] || { echo "no check answered degraded with $victim (${held[$victim]} profiles regions) stopped: $plain"; return 1; }
  expect_eq "checks answered through the timeline API with $victim stopped" "${#devices[@]}" "$($PY field answered <<<"$tl")" || { echo "$tl"; return 1; }
  [ "$($PY field stale <<<"$tl")" -gt 0 ] || { echo "no check answered by a secondary replica (stale) with $victim stopped for $stopped_for s (${held[$victim]} profiles regions there, ${held[$other]} on $other): $tl"; return 1; }
  local replicas="timeline API $($PY field stale <<<"$tl")/${#devices[@]} stale (slowest $($PY field max_seconds <<<"$tl") s)"
  echo "$placement; regionserver-$victim (hbase:meta on the $meta_on server) stopped for $stopped_for s: main API $($PY field degraded <<<"$plain")/${#devices[@]} degraded at the 500 ms deadline (slowest $($PY field max_seconds <<<"$plain") s); $replicas; restarted"
}

s_nightly_job() {
  # docs/CLUSTER.md step 5: `hadoop jar` of the job jar from the edge host, HADOOP_CONF_DIR and HBASE_CONF_DIR set.
  local c="$RUN/hosts/edge/conf"
  # As docs/CLUSTER.md step 5: the edge node has the device secret, so the job also
  # trims the day's device view histories, and with reconcile.views.rewrite=always writes every
  # view of the day again (by default only a day that may miss one: a view gap or an unclean stop).
  on edge env HADOOP_CONF_DIR="$c" HBASE_CONF_DIR="$c" JAVA_HOME="$JAVA_HOME_DIR" \
    ADREPORT_DEVICE_HASH_SECRET="$(cat "$RUN/device-hash.secret")" \
    java -Xmx512m $OPENS -Dlog4j.configuration="file:$RUN/log4j-client.properties" -cp "$c:$(cat "$DCP_FILE"):$c" \
    org.apache.hadoop.util.RunJar "$JOB_JAR" -D reconcile.splits=4 -D reconcile.reducers=2 -D reconcile.views.rewrite=always --day "$D" >"$W/job.log" 2>&1 \
    || { grep -E "ERROR|Exception|failed" "$W/job.log" | head -5; echo "the job failed (exit $?; $W/job.log)"; return 1; }
  local want got status
  want=$(expected_network)
  # What regionserver-kill sent counts only when it sent all of it (nothing when it stopped before sending).
  if [ -f "$W/kill/sent" ]; then
    want=$($PY plus "$want" "$($PY field network <"$W/kill/expected.json")")
  elif [ -f "$W/kill/sending" ]; then
    echo "regionserver-kill stopped part-way through sending its events: the day's totals are not known"; return 1
  fi
  got=$(network_totals) || return 1
  expect_eq "network totals of $D after the job" "$want" "$got" || return 1
  status=$(api GET "/v1/reconcile/$D" "$ANALYST" | $PY field status) || return 1
  expect_eq "status of $D" reconciled "$status" || return 1
  # The view repair ran in the hadoop jar job: every impression of D (each with a device) rewritten.
  local views
  views=$(sed -n 's/^views: \([0-9]*\) impressions re-written.*/\1/p' "$W/job.log" | tail -1)
  expect_eq "impressions of $D re-written into view histories by the job" "$($PY field impressions <<<"$want")" "${views:-none}" || return 1
  local days; days=$(report network "metrics=impressions" | $PY field "days.$D.status")
  expect_eq "report day mark" reconciled "$days" || return 1
  echo "job on YARN: $(grep -m1 'reconciled in' "$W/job.log"), cells checked/corrected $(awk '/^total/ {print $2 "/" $3}' "$W/job.log"); every network counter of $D exact: $got"
}

echo "e2e: run $RUNID on the cluster in $RUN ($MODE); day $D; API $API, aggregators $AGG1 $AGG2"
cat >"$RUN/log4j-client.properties" <<'EOF'
log4j.rootLogger=WARN,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{HH:mm:ss} %-5p %c{2}: %m%n
log4j.logger.org.apache.hadoop.mapreduce.Job=INFO
EOF
step registry s_registry
step ingest s_ingest
step report-live s_report_live
step cap-flip s_cap
step budget-exhausted s_budget
step segments s_segments
step privacy-unreadable s_privacy
# Before the kill: each profiles region's two replicas are still on different region servers
# (after a kill the survivor holds both until the balancer moves one back).
step stale-and-deadline s_stale_and_deadline
step regionserver-kill s_regionserver_kill
step nightly-job s_nightly_job
echo "e2e: $(( $(date +%s) - T0 )) s in all; $([ "$FAILED" = 0 ] && echo PASS || echo "FAIL (${FAILS[*]})")"
echo "e2e: $PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" = 0 ]
