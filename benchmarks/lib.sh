# benchmarks/lib.sh: what the benchmark scripts share (sourced, not run): running this module's
# classes, a process's CPU time, and, for those that start `bin/adreport local`, its ports.

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# bench_java [JVM OPTIONS] CLASS ARGS...: runs a class of this module (its classes and the
# dependency classpath that `mvn package` writes to target/classpath.txt).
bench_java() { java -cp "$bench_dir/target/classes:$(cat "$bench_dir/target/classpath.txt")" "$@"; }

# cpu_ms PID: user + system CPU time of process PID so far, in ms.
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%d\n", ($14 + $15) * 1000 / hz }' "/proc/$1/stat"; }

# port_free SCRIPT PORT: stops the script when something already answers on PORT (a stack left running).
port_free() {
  if curl -fsS "http://localhost:$2/healthz" >/dev/null 2>&1; then
    echo "$1: something already answers on port $2; stop it first" >&2; exit 1
  fi
}

# await_stack PID LOG PORT...: waits, up to 300 s, until GET /healthz answers on every PORT; when
# process PID ends first, prints LOG and stops the script.
await_stack() {
  local pid="$1" log="$2" port up
  shift 2
  for _ in $(seq 1 300); do
    up=1
    for port in "$@"; do
      curl -fsS "http://localhost:$port/healthz" >/dev/null 2>&1 || { up=0; break; }
    done
    [ "$up" = 1 ] && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 1
  done
}
