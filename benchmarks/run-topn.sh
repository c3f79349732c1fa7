#!/usr/bin/env bash
# Ranked top-N latency through HTTP beside DuckDB, one run per key count:
#   benchmarks/run-topn.sh [KEYS...]        (default: 100000 1000000)
# Each run starts its own HBase mini cluster (ephemeral ports, data under benchmarks/target), bulk-loads
# 31 reconciled days + 1 live day of KEYS campaign keys (counters, day lists, the month list) and writes
# benchmarks/target/topn-bench-KEYS.txt. TOPN_RUNS sets the requests per question (default 100),
# TOPN_PEER_RUNS how many of them DuckDB also answers (default 20), TOPN_LIVE_RUNS the requests of the
# question that scans the live day (default 3). The report API runs in the benchmark's JVM beside the
# mini cluster (as in `bin/adreport local`); TOPN_API=process runs `bin/adreport report-api` in its own
# JVM instead (built first, below). Run it alone
# on a shared machine (benchmarks must not overlap).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
keys=("$@")
[ ${#keys[@]} -eq 0 ] && keys=(100000 1000000)
[ "${TOPN_API:-jvm}" = process ] && mvn -B -o -q package -DskipTests -pl launcher -am   # bin/adreport report-api
for k in "${keys[@]}"; do
  uptime
  mvn -B -o -q verify -pl benchmarks -am -Dbench=true -Dtest='RankedTopNBenchmarkTest#top_100_latency_beside_duckdb' -Dsurefire.failIfNoSpecifiedTests=false \
      -Dtopn.keys="$k" -Dtopn.runs="${TOPN_RUNS:-100}" -Dtopn.peerRuns="${TOPN_PEER_RUNS:-20}" -Dtopn.liveRuns="${TOPN_LIVE_RUNS:-3}" -Dtopn.api="${TOPN_API:-jvm}"
  cat "benchmarks/target/topn-bench-$k.txt"
  uptime
done
