#!/usr/bin/env bash
# Runs JMH benchmarks of this module: benchmarks/run-jmh.sh [JMH options] [benchmark regex]
# Build first: mvn -B -o -q install -pl benchmarks -DskipTests
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"
bench_java org.openjdk.jmh.Main "$@"
