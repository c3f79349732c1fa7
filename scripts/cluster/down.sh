#!/usr/bin/env bash
# scripts/cluster/down.sh: stops what scripts/cluster/up.sh started and leaves no process,
# namespace, veth, bridge or mount behind (up.sh runs it on any failure). Data stays in the run
# directory (target/cluster or $ADREPORT_CLUSTER_DIR) until the next up.sh.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

if ! load_state; then
  log "down: no cluster in $RUN"
  exit 0
fi

# A recorded pid is only signalled while it is still the process up.sh started (its command line
# names the run directory), never a process that reused the number.
ours() { [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$RUN"; }

pids=()
for f in "$RUN"/pids/*.pid; do
  [ -f "$f" ] || continue
  p=$(cat "$f")
  if ours "$p"; then pids+=("$p"); fi
done
if [ ${#pids[@]} -gt 0 ]; then
  kill -TERM "${pids[@]}" 2>/dev/null
  kill -CONT "${pids[@]}" 2>/dev/null   # a SIGSTOPped region server would never see the TERM
  for _ in $(seq 1 20); do
    alive=(); for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive+=("$p"); done
    [ ${#alive[@]} -eq 0 ] && break
    sleep 0.5
  done
  for p in "${alive[@]}"; do kill -KILL "$p" 2>/dev/null; done
fi

if [ "$MODE" = netns ]; then
  for h in "${HOSTS[@]}"; do
    ns=$(ns_name "$h")
    ip netns list 2>/dev/null | grep -qw "$ns" || continue
    # Whatever still runs in the host (task JVMs of YARN, the holder), then the namespace itself.
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    for _ in $(seq 1 20); do [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break; sleep 0.2; done
    ip netns del "$ns" 2>/dev/null || log "down: could not delete namespace $ns"
  done
  # Holders not (or no longer) in a named namespace.
  for h in "${HOSTS[@]}"; do
    f="$RUN/hosts/$h/holder.pid"
    [ -f "$f" ] && ours "$(cat "$f")" && kill -KILL "$(cat "$f")" 2>/dev/null
    rm -f "$f" "$RUN/hosts/$h/holder.ok"
  done
  ip link del "adr${TAG}-br" 2>/dev/null
  for h in "${HOSTS[@]}"; do ip link del "adr${TAG}-${OCTET[$h]}" 2>/dev/null; done
  # `ip netns add` bind-mounts /run/netns on itself the first time; with no namespace left in it
  # (none of ours, none of anybody's) that mount goes too (ip recreates it when needed).
  if [ -d /run/netns ] && [ -z "$(ls -A /run/netns 2>/dev/null)" ] && grep -q ' /run/netns ' /proc/mounts; then
    umount /run/netns 2>/dev/null || true
  fi
  left=$(ip netns list 2>/dev/null | grep -c "^adr${TAG}-" || true)
  links=$(ip -o link show 2>/dev/null | grep -c "adr${TAG}-" || true)
  [ "$left" = 0 ] && [ "$links" = 0 ] || log "down: WARNING: $left namespaces and $links links named adr${TAG}-* remain"
else
  # Task JVMs that YARN started in loopback mode: their command line names the run directory.
  for p in $(pgrep -d ' ' java 2>/dev/null); do ours "$p" && kill -KILL "$p" 2>/dev/null; done
fi
rm -f "$RUN/state" "$RUN"/pids/*.pid
log "down: stopped (${#pids[@]} processes$( [ "$MODE" = netns ] && echo ", namespaces adr${TAG}-*, bridge adr${TAG}-br"))"
