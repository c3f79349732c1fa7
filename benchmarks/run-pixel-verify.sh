#!/usr/bin/env bash
# GET /v1/pixel events/s with signature verification on and off, one run: benchmarks/run-pixel-verify.sh
#   [--rounds N] [--seconds S] [--beacons N] [--threads N] [--connections N]
# Needs wrk (apt-get install wrk). Build first: mvn -B -o -q package -pl benchmarks -am -DskipTests
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 2; }
opens="--add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.lang.reflect=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.util.concurrent=ALL-UNNAMED"
. "$here/lib.sh"
# shellcheck disable=SC2086 # $opens and JAVA_OPTS are lists of options
bench_java -Xmx3g $opens ${JAVA_OPTS:-} -Dpixel.lua="$here/pixel-urls.lua" io.adreport.benchmarks.PixelVerifyHttpHarness "$@"
