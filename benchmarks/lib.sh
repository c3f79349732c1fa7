# benchmarks/lib.sh: what the benchmark scripts that start `bin/adreport local` share (sourced, not run).

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
