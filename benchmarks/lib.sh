# benchmarks/lib.sh: what the benchmark scripts share (sourced, not run): running this module's
# classes, a process's CPU time (in all and by thread), and, for those that start `bin/adreport local`,
# its ports.

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# bench_java [JVM OPTIONS] CLASS ARGS...: runs a class of this module (its classes and the
# dependency classpath that `mvn package` writes to target/classpath.txt).
bench_java() { java -cp "$bench_dir/target/classes:$(cat "$bench_dir/target/classpath.txt")" "$@"; }

# cpu_ms PID: user + system CPU time of process PID so far, in ms.
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%d\n", ($14 + $15) * 1000 / hz }' "/proc/$1/stat"; }

# thread_cpu PID: per live thread of process PID, "tid<TAB>name<TAB>CPU ms so far" (user + system
# from /proc/PID/task/*/stat; name: the thread's comm, cut to 15 characters by the kernel, digits as N).
thread_cpu() {
  { cat /proc/"$1"/task/*/stat 2>/dev/null || true; } | awk -v hz="$(getconf CLK_TCK)" 'NF {
    o = index($0, "("); c = 0; for (i = length($0); i > o; i--) if (substr($0, i, 1) == ")") { c = i; break }
    name = substr($0, o + 1, c - o - 1); gsub(/[0-9]+/, "N", name); split(substr($0, c + 2), f, " ")
    printf "%s\t%s\t%d\n", $1, name, (f[12] + f[13]) * 1000 / hz }'
}

# thread_cpu_ms BEFORE AFTER REGEX: CPU ms used between two thread_cpu snapshots by the threads whose
# name (as thread_cpu writes it) matches REGEX; a thread that ended in between is not counted.
thread_cpu_ms() {
  awk -F'\t' -v re="$3" 'NR == FNR { b[$1] = $3; next } $2 ~ re { s += $3 - ($1 in b ? b[$1] : 0) }
    END { printf "%d\n", s }' "$1" "$2"
}

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

# metric PORT NAME [DECIMALS]: the sum of a metric's samples (every label set) from /metrics on
# PORT, with DECIMALS decimals (default 0); 0 when it cannot be read.
metric() {
  curl -fsS "http://localhost:$1/metrics" 2>/dev/null | awk -v m="$2" -v d="${3:-0}" '$1 == m || index($1, m "{") == 1 { s += $2 }
    END { printf "%.*f\n", d, s }'
}

# await_flushed PORT MAX_SECONDS: waits until the aggregator on ingest PORT holds no counter delta
# (adreport_buffer_cells 0) and has sent no counter cell for 5 s in a row (the flush that took the
# last deltas has ended), up to MAX_SECONDS; prints how long it waited and what it found.
await_flushed() {
  local port="$1" max="$2" start=$SECONDS last="" same=0 cells sent
  while [ $((SECONDS - start)) -lt "$max" ]; do
    cells=$(metric "$port" adreport_buffer_cells) sent=$(metric "$port" adreport_increment_cells_sent_total)
    if [ "$cells" = 0 ] && [ "$sent" = "$last" ]; then same=$((same + 1)); else same=0; fi
    last="$sent"
    if [ "$same" -ge 5 ]; then
      echo "flushed after $((SECONDS - start)) s: buffer empty, $sent counter cells sent in all" >&2; return 0
    fi
    sleep 1
  done
  echo "not flushed after $max s: buffer cells $cells, $sent counter cells sent" >&2
}
