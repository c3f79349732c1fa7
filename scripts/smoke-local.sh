#!/usr/bin/env bash
# End-to-end check of the README's main command: `bin/adreport local --demo` in a fresh data
# directory answers health checks and the demo's traffic is counted; events this script sends
# itself (an advertiser of its own, beside the demo's) are acknowledged exactly, a re-send of them
# is answered duplicate, and the report API gives exactly their counts (impressions, clicks,
# spend) with the analyst key: live, after a SIGINT stop and restart on the same directory, and
# from the stored counters alone across kill -9.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DATA="$(mktemp -d)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port); INGEST=$(free_port)
LOG="$DATA/local.log"
PID=""
cleanup() { [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null || true; }
trap cleanup EXIT

start() { # extra arguments: settings of this start (--set name=value)
  # Job control on: a background job of a script would otherwise ignore SIGINT, as Ctrl-C's
  # target (a foreground process) never does.
  set -m
  "$ROOT/bin/adreport" local --demo --data-dir "$DATA/d" --port "$PORT" --ingest-port "$INGEST" "$@" >>"$LOG" 2>&1 &
  PID=$!
  set +m
  for _ in $(seq 1 300); do
    if curl -fsS "http://localhost:$PORT/healthz" >/dev/null 2>&1 && curl -fsS "http://localhost:$INGEST/healthz" >/dev/null 2>&1; then
      return 0
    fi
    kill -0 "$PID" 2>/dev/null || { echo "smoke: the stack exited during start-up"; tail -50 "$LOG"; exit 1; }
    sleep 1
  done
  echo "smoke: not healthy after 300 s"; tail -50 "$LOG"; exit 1
}

stop() {
  # Ctrl-C's signal; a runner that started this script with SIGINT ignored passes that on to the
  # stack (the JVM cannot undo it, and says so in its log): then SIGTERM, the same orderly stop.
  if grep -q "SIGINT was ignored when this process started" "$LOG"; then kill -TERM "$PID"; else kill -INT "$PID"; fi
  for _ in $(seq 1 120); do
    kill -0 "$PID" 2>/dev/null || { wait "$PID" || true; PID=""; return 0; }
    sleep 1
  done
  echo "smoke: did not stop within 120 s of SIGINT (or SIGTERM)"; tail -50 "$LOG"; exit 1
}

# One window for the whole run (the back-filled days to the day after tomorrow), so the count
# only ever rises, even when the run crosses midnight UTC.
FROM=$(date -u -d '3 days ago' +%F); TO=$(date -u -d '2 days' +%F)
report() { # QUERY: the report API's JSON answer with the analyst key
  curl -fsS -H "Authorization: Bearer $(cat "$DATA/d/analyst.key")" "http://localhost:$PORT/v1/reports/$1"
}
impressions() {
  report "network?from=$FROM&to=$TO&granularity=all&metrics=impressions" |
    python3 -c 'import json,sys; rows=json.load(sys.stdin)["rows"]; print(sum(r["metrics"]["impressions"] for r in rows))'
}

# The script's own events: an advertiser nobody else uses, N impressions with known costs, and a
# click on each of the first K of them (joined to its impression by id, so counted for the
# advertiser). Expected counts come from these files, not from the product.
ADV="smoke-$(date -u +%s)-$$"
python3 - "$DATA" "$ADV" <<'PY'
import json, random, sys, time
data, adv = sys.argv[1], sys.argv[2]
rnd, now = random.Random(11), int(time.time() * 1000)
n, k = 40, 9
imps = [{"type": "impression", "id": "%s-i%d" % (adv, i), "ts": now - i, "advertiser": adv, "campaign": "smoke-c",
         "creative": "smoke-cr", "publisher": "smoke-pub", "zone": "smoke-z", "country": "US", "deviceType": "mobile",
         "costMicros": rnd.randrange(100, 5000)} for i in range(n)]
clicks = [{"type": "click", "id": "%s-k%d" % (adv, i), "ts": now, "impressionId": imps[i]["id"]} for i in range(k)]
for name, events in (("impressions", imps), ("clicks", clicks)):
    with open("%s/%s.ndjson" % (data, name), "w") as f:
        f.writelines(json.dumps(e) + "\n" for e in events)
with open(data + "/expected.txt", "w") as f:
    f.write("%d %d %d\n" % (n, k, sum(e["costMicros"] for e in imps)))
PY
read -r EXP_IMPS EXP_CLICKS EXP_SPEND <"$DATA/expected.txt"
EXPECTED="$EXP_IMPS $EXP_CLICKS $EXP_SPEND"

send() { # FILE ACCEPTED DUPLICATES: posts the file, checks the answer exactly
  local answer
  answer=$(curl -fsS -X POST --data-binary "@$1" "http://localhost:$INGEST/v1/events")
  python3 -c 'import json,sys; a=json.loads(sys.argv[1]); sys.exit(0 if (a["accepted"], a["duplicates"], a["rejected"]) == (int(sys.argv[2]), int(sys.argv[3]), []) else 1)' \
    "$answer" "$2" "$3" || { echo "smoke: posting $(basename "$1") answered $answer, expected accepted $2, duplicates $3, nothing rejected"; exit 1; }
}
ours() { # "impressions clicks spendMicros" of the script's advertiser, over every row of the window
  report "advertiser?from=$FROM&to=$TO&granularity=all&metrics=impressions,clicks,spendMicros&advertiser=$ADV" |
    python3 -c 'import json,sys; rows=json.load(sys.stdin)["rows"]; print(*(sum(r["metrics"].get(m, 0) for r in rows) for m in ("impressions", "clicks", "spendMicros")))'
}
expect_ours() { # LABEL: waits (60 s at most) for the script's counts to be exactly what it sent
  local got=""
  for _ in $(seq 1 60); do
    got=$(ours)
    [ "$got" = "$EXPECTED" ] && { echo "smoke: $1: impressions clicks spend = $got, as sent"; return 0; }
    sleep 1
  done
  echo "smoke: $1: impressions clicks spend = $got, sent $EXPECTED"; tail -30 "$LOG"; exit 1
}

start
echo "smoke: healthy; analyst key in $DATA/d/analyst.key"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$PORT/v1/rollups")
[ "$code" = 401 ] || { echo "smoke: /v1/rollups without a key answered $code, not 401"; exit 1; }
# Another process finds the running stack through the data directory.
ADREPORT_SKIP_BUILD=1 "$ROOT/bin/adreport" schema apply --dry-run --data-dir "$DATA/d" | tee "$DATA/schema.txt"
grep -Eq "0 created, 0 missing, [0-9]+ ok, 0 with drift" "$DATA/schema.txt" || { echo "smoke: schema apply --dry-run did not find the tables"; exit 1; }
# `reconcile` beside the running stack runs in the stack's process, through its control socket in
# the data directory, and the day it passed is served as reconciled.
PAST=$(date -u -d '6 days ago' +%F)
ADREPORT_SKIP_BUILD=1 "$ROOT/bin/adreport" reconcile --day "$PAST" --data-dir "$DATA/d" >"$DATA/reconcile.txt" 2>&1 ||
  { echo "smoke: reconcile --day $PAST failed"; cat "$DATA/reconcile.txt"; exit 1; }
grep -q "in the local stack's process" "$DATA/reconcile.txt" && grep -q '^phases: close' "$DATA/reconcile.txt" ||
  { echo "smoke: reconcile did not run in the local stack"; cat "$DATA/reconcile.txt"; exit 1; }
status=$(curl -fsS -H "Authorization: Bearer $(cat "$DATA/d/analyst.key")" "http://localhost:$PORT/v1/reconcile/$PAST" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')
[ "$status" = reconciled ] || { echo "smoke: $PAST is $status after reconcile, not reconciled"; exit 1; }
echo "smoke: reconcile --day $PAST ran in the stack: $(grep '^phases:' "$DATA/reconcile.txt")"
# The demo's traffic is counted (its volume is the simulator's: only that it arrives is checked).
first=0
for _ in $(seq 1 60); do first=$(impressions); [ "$first" -gt 0 ] && break; sleep 2; done
[ "$first" -gt 0 ] || { echo "smoke: no demo impression counted within 120 s"; tail -30 "$LOG"; exit 1; }
echo "smoke: demo impressions counted: $first"

[ "$(ours)" = "0 0 0" ] || { echo "smoke: the script's advertiser $ADV has counts before it sent anything: $(ours)"; exit 1; }
send "$DATA/impressions.ndjson" "$EXP_IMPS" 0
send "$DATA/clicks.ndjson" "$EXP_CLICKS" 0
send "$DATA/impressions.ndjson" 0 "$EXP_IMPS" # a re-send: stored and counted once
send "$DATA/clicks.ndjson" 0 "$EXP_CLICKS"
expect_ours "live"
stop
echo "smoke: stopped cleanly; restarting on the same data directory"
start
expect_ours "after a SIGINT stop and restart"
# A crash. Reports add the aggregator's live counts (not flushed yet), which a kill -9 loses until
# the nightly job recounts them from the raw events; the stored counters are in HBase (WAL) and
# survive kill -9 and WAL replay. So this part reads the stored counters alone (live counts off):
# they hold every sent event before the kill (the SIGINT stop flushed) and after it.
stop
start --set report.live.timeout.ms=0
expect_ours "stored, before kill -9"
kill -9 "$PID"; wait "$PID" 2>/dev/null || true; PID=""
echo "smoke: killed with -9; restarting"
start --set report.live.timeout.ms=0
expect_ours "stored, after kill -9 and restart"
stop
rm -rf "$DATA"
echo "smoke: OK"
