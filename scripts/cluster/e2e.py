#!/usr/bin/env python3
"""Helpers of scripts/cluster/e2e.sh: makes the events it sends and the counts it expects, and
reads the API's JSON answers. Standard library only.

  e2e.py gen DIR DAY RUN N          events of UTC day DAY for two aggregators (DIR/agg1.ndjson,
                                    DIR/agg2.ndjson; a fifth of the events in both files) and
                                    DIR/expected.json (what they add up to, each event once)
  e2e.py totals METRICS             stdin: a report's JSON; prints {metric: sum over rows}
  e2e.py by DIM METRIC              stdin: a report's JSON; prints {dim value: metric}
  e2e.py field PATH                 stdin: JSON; prints the value at a dotted path (a.0.b)
  e2e.py now-events FILE N ...      N impressions at now (see below)
"""
import json
import random
import sys
import time
from datetime import date, datetime, timezone


def gen(out, day, run, n):
    rnd = random.Random(run)
    d0 = datetime.combine(date.fromisoformat(day), datetime.min.time(), tzinfo=timezone.utc)
    start_ms = int(d0.timestamp() * 1000)
    imps, events = [], []
    for i in range(n):
        ts = start_ms + rnd.randrange(0, 22 * 3600 * 1000)  # clicks follow within the day
        e = {"type": "impression", "id": f"{run}-imp-{i}", "ts": ts,
             "advertiser": f"adv{rnd.randrange(3)}", "campaign": f"camp{rnd.randrange(4)}",
             "creative": f"cr{rnd.randrange(2)}", "publisher": f"pub{rnd.randrange(3)}",
             "zone": f"z{rnd.randrange(2)}", "country": rnd.choice(["US", "DE", "FR"]),
             "deviceType": rnd.choice(["mobile", "desktop"]), "device": f"{run}-dev-{rnd.randrange(200)}",
             "costMicros": 100 + rnd.randrange(2000)}
        imps.append(e)
    events += imps
    clicks = []
    for i, imp in enumerate(rnd.sample(imps, n // 7)):
        clicks.append({"type": "click", "id": f"{run}-click-{i}", "ts": imp["ts"] + 1000 + rnd.randrange(60000),
                       "impressionId": imp["id"]})
    convs = []
    for i, imp in enumerate(rnd.sample(imps, n // 40)):
        convs.append({"type": "conversion", "id": f"{run}-conv-{i}", "ts": imp["ts"] + 120000 + rnd.randrange(600000),
                      "impressionId": imp["id"], "valueMicros": 1000 + rnd.randrange(50000)})
    # Impressions first (clicks and conversions join them), then the rest.
    files = {"agg1": [[], []], "agg2": [[], []]}
    dupes = 0
    for phase, evs in ((0, imps), (1, clicks + convs)):
        for k, e in enumerate(evs):
            home = "agg1" if k % 2 == 0 else "agg2"
            files[home][phase].append(e)
            if k % 5 == 0:  # a fifth of them to both: a retried beacon landing on the other instance
                files["agg2" if home == "agg1" else "agg1"][phase].append(e)
                dupes += 1
    for name, (first, second) in files.items():
        for phase, evs in (("imps", first), ("rest", second)):
            with open(f"{out}/{name}-{phase}.ndjson", "w") as f:
                for e in evs:
                    f.write(json.dumps(e) + "\n")
    expected = {
        "network": {"impressions": len(imps), "clicks": len(clicks), "conversions": len(convs),
                    "spendMicros": sum(e["costMicros"] for e in imps),
                    "conversionValueMicros": sum(e["valueMicros"] for e in convs)},
        "campaign_impressions": {},
        "sent": sum(len(a) + len(b) for a, b in files.values()),
        "unique": len(imps) + len(clicks) + len(convs),
        "duplicates": dupes,
    }
    for e in imps:
        k = e["advertiser"] + "/" + e["campaign"]
        expected["campaign_impressions"][k] = expected["campaign_impressions"].get(k, 0) + 1
    json.dump(expected, open(f"{out}/expected.json", "w"), indent=1, sort_keys=True)


def now_events(path, n, run, prefix, advertiser, campaign, device, cost, ts_ms=None):
    now = ts_ms or int(time.time() * 1000)
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"type": "impression", "id": f"{run}-{prefix}-{i}", "ts": now - 1000 * (n - i),
                                "advertiser": advertiser, "campaign": campaign, "creative": "cr0",
                                "publisher": "pub0", "zone": "z0", "country": "US", "deviceType": "mobile",
                                "device": device, "costMicros": cost}) + "\n")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "gen":
        gen(args[0], args[1], args[2], int(args[3]))
    elif cmd == "totals":
        rows = json.load(sys.stdin)["rows"]
        out = {m: sum(r["metrics"].get(m, 0) or 0 for r in rows) for m in args[0].split(",")}
        print(json.dumps(out, sort_keys=True))
    elif cmd == "by":
        rows = json.load(sys.stdin)["rows"]
        dims = args[0].split(",")
        out = {"/".join(str(r["dimensions"][d]) for d in dims): r["metrics"][args[1]] for r in rows}
        print(json.dumps(out, sort_keys=True))
    elif cmd == "field":
        v = json.load(sys.stdin)
        for p in args[0].split("."):
            v = v[int(p)] if isinstance(v, list) else v.get(p)
            if v is None:
                break
        print(json.dumps(v) if isinstance(v, (dict, list)) else ("" if v is None else str(v).lower() if isinstance(v, bool) else v))
    elif cmd == "now-events":
        now_events(args[0], int(args[1]), args[2], args[3], args[4], args[5], args[6], int(args[7]))
    elif cmd == "checks":  # checks URL KEY CAMPAIGN DEVICE...: one check per device, a JSON summary
        import time, urllib.request
        url, key, campaign, devices = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
        out = {"answered": 0, "errors": [], "stale": 0, "degraded": 0, "max_seconds": 0.0}
        for d in devices:
            body = json.dumps({"device": d, "campaigns": [campaign]}).encode()
            req = urllib.request.Request(url + "/v1/serve/check", data=body, method="POST",
                                         headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
            t0 = time.time()
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    a = json.load(r)
                out["answered"] += 1
                out["stale"] += 1 if a.get("stale") else 0
                out["degraded"] += 1 if a.get("degraded") else 0
            except Exception as e:  # noqa: BLE001 - every failure is reported
                out["errors"].append(f"{d}: {e}")
            out["max_seconds"] = round(max(out["max_seconds"], time.time() - t0), 3)
        print(json.dumps(out, sort_keys=True))
    elif cmd == "plus":  # plus A_JSON B_JSON: {k: a+b}
        a, b = json.loads(args[0]), json.loads(args[1])
        print(json.dumps({k: a.get(k, 0) + b.get(k, 0) for k in sorted(set(a) | set(b))}, sort_keys=True))
    elif cmd == "shortfall":  # shortfall WANT_JSON GOT_JSON: fails if any metric is over; prints what is short
        want, got = json.loads(args[0]), json.loads(args[1])
        over = {k: got.get(k, 0) - v for k, v in want.items() if got.get(k, 0) > v}
        if over:
            print(json.dumps(over))
            sys.exit(1)
        print(json.dumps({k: v - got.get(k, 0) for k, v in want.items()}, sort_keys=True))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
