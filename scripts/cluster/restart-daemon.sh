#!/usr/bin/env bash
# scripts/cluster/restart-daemon.sh NAME: starts again a daemon of scripts/cluster/up.sh that was
# stopped or killed (e.g. regionserver-worker2 after the e2e's kill -9), on its host, with its
# configuration, and waits until it is back. NAME: a file name under RUN/pids without .pid.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
load_state || die "no cluster in $RUN"
name="${1:?usage: restart-daemon.sh NAME}"
[ -f "$RUN/pids/$name.spec" ] || die "no daemon $name in $RUN/pids"
if pid_alive "$RUN/pids/$name.pid"; then die "$name still runs (pid $(cat "$RUN/pids/$name.pid"))"; fi
mv "$RUN/logs/$name.log" "$RUN/logs/$name.log.$(date +%s)" 2>/dev/null || true
eval "start_daemon $(cat "$RUN/pids/$name.spec")"
M=$(host_name master)
case "$name" in
  regionserver-*) await "$name" 120 "registered with the master (2 region servers)" equals 2 \
                    jmx master "http://$M:$HM_INFO" Hadoop:service=HBase,name=Master,sub=Server numRegionServers ;;
  *) sleep 5; await "$name" 1 "still running 5 s after its start" true ;;
esac
log "restart: $name is back (pid $(cat "$RUN/pids/$name.pid"))"
