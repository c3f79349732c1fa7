#!/usr/bin/env bash
# End-to-end aggregator load run, coalesced vs naive in one JVM: benchmarks/run-load.sh [--help]
# Extra JVM options: JAVA_OPTS (e.g. a JFR recording). Build first: mvn -B -o -q install -pl benchmarks -DskipTests
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
opens="--add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.lang.reflect=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.util.concurrent=ALL-UNNAMED"
. "$here/lib.sh"
# shellcheck disable=SC2086 # $opens and JAVA_OPTS are lists of options
bench_java -Xmx4g $opens ${JAVA_OPTS:-} io.adreport.benchmarks.AggregatorLoadHarness "$@"
