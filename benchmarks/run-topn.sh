#!/usr/bin/env bash
# Ranked top-N latency through HTTP beside DuckDB, one run per key count:
#   benchmarks/run-topn.sh [KEYS...]        (default: 10000 100000)
# Each run starts its own HBase mini cluster (ephemeral ports, data under benchmarks/target) and
# writes benchmarks/target/topn-bench-KEYS.txt. TOPN_RUNS sets the requests per question (default 120).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
keys=("$@")
[ ${#keys[@]} -eq 0 ] && keys=(10000 100000)
for k in "${keys[@]}"; do
  uptime
  mvn -B -o -q verify -pl benchmarks -am -Dbench=true -Dtest=RankedTopNBenchmarkTest -Dsurefire.failIfNoSpecifiedTests=false \
      -Dtopn.keys="$k" -Dtopn.runs="${TOPN_RUNS:-120}"
  cat "benchmarks/target/topn-bench-$k.txt"
done
