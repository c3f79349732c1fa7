#!/usr/bin/env bash
# Runs JMH benchmarks of this module: benchmarks/run-jmh.sh [JMH options] [benchmark regex]
# Build first: mvn -B -o -q install -pl benchmarks -DskipTests
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec java -cp "$here/target/classes:$(cat "$here/target/classpath.txt")" org.openjdk.jmh.Main "$@"
