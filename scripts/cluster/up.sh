#!/usr/bin/env bash
# scripts/cluster/up.sh: a multi-host HBase/HDFS/YARN cluster on this one Linux machine, and
# adreport deployed on it as docs/CLUSTER.md (README's former "Run on a cluster") says. See scripts/cluster/README.md.
#
#   hosts     master   ZooKeeper, HDFS NameNode, HBase Master, YARN ResourceManager, MR job history
#             worker1  HDFS DataNode, HBase RegionServer, YARN NodeManager
#             worker2  HDFS DataNode, HBase RegionServer
#             edge     the operator's shell: schema apply, keys add, segments load, hadoop jar
#             agg1     bin/adreport aggregator (aggregator.instances=2)
#             agg2     bin/adreport aggregator (aggregator.instances=2)
#             api      bin/adreport report-api
#
# Each host is a network namespace on a bridge this script creates (a 10.231.N.0/24 subnet no
# route of this machine uses), with its own mount and UTS namespaces (own /tmp on a tmpfs, own
# /etc/hosts, own hostname). Without root or `ip`, it says so and runs the same daemons as plain
# processes on 127.0.0.1 (ADREPORT_CLUSTER_NETNS=0 forces that). Daemons are started by main class
# on a classpath Maven resolves from scripts/cluster/pom.xml (versions pinned in the parent pom).
# Every host gets only operator configuration files (core-, hdfs-, hbase-, yarn-, mapred-site.xml)
# in RUN/hosts/HOST/conf. State lives in RUN = $ADREPORT_CLUSTER_DIR or target/cluster.
# Any failure runs down.sh (nothing left behind) after naming the daemon that did not come up.
#
# Options (environment): ADREPORT_CLUSTER_NETNS=0|1, ADREPORT_CLUSTER_KEEP_ON_FAILURE=1 (debug),
# ADREPORT_CLUSTER_BUILD=1|0 (build the project first with mvn -B -q -DskipTests package, or not;
# by default only when its jars are missing, e.g. after `mvn -B verify` it is not rebuilt).
# ADREPORT_CLUSTER_RS_HEAP (default 512m): each region server's heap; one region server holding
# every region under load (roles.sh --region-servers "2 1") needs about 1g.
# ADREPORT_CLUSTER_RS_GC (default serial): the region servers' collector, serial or g1.
# ADREPORT_CLUSTER_AGG_HEAP (default 768m): each aggregator's heap.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
RS_HEAP="${ADREPORT_CLUSTER_RS_HEAP:-512m}"
RS_GC="${ADREPORT_CLUSTER_RS_GC:-serial}"
AGG_HEAP="${ADREPORT_CLUSTER_AGG_HEAP:-768m}"
API_HEAP=768m # each report API's heap

T_START=$(date +%s)
PHASE_T=$T_START
phase() { local now; now=$(date +%s); log "up: $1 done in $((now - PHASE_T)) s"; echo "$1 $((now - PHASE_T))" >>"$RUN/up-times"; PHASE_T=$now; }

if load_state 2>/dev/null; then
  log "up: a cluster is already up in $RUN (mode $MODE); run scripts/cluster/down.sh first"
  exit 1
fi
rm -rf "$RUN/hosts" "$RUN/logs" "$RUN/pids" "$RUN/keys" "$RUN/up-times"
mkdir -p "$RUN/logs" "$RUN/pids" "$RUN/keys"

on_failure() {
  local rc=$?
  trap - ERR EXIT INT TERM
  if [ "$rc" -ne 0 ]; then
    if [ "${ADREPORT_CLUSTER_KEEP_ON_FAILURE:-0}" = 1 ]; then
      log "up: failed (exit $rc); left running for debugging (ADREPORT_CLUSTER_KEEP_ON_FAILURE=1): scripts/cluster/down.sh stops it"
    else
      log "up: failed (exit $rc); stopping everything (scripts/cluster/down.sh)"
      "$CLUSTER_HOME/down.sh" || true
    fi
  fi
  exit "$rc"
}
trap on_failure EXIT
trap 'exit 130' INT TERM

# --- 0. tools -------------------------------------------------------------------------------------
need_pkgs=()
command -v java >/dev/null || die "Java 17 is needed (apt-get install openjdk-17-jdk)"
command -v mvn >/dev/null || need_pkgs+=(maven)
command -v curl >/dev/null || need_pkgs+=(curl)
command -v python3 >/dev/null || need_pkgs+=(python3)
want_netns="${ADREPORT_CLUSTER_NETNS:-1}"
if [ "$want_netns" = 1 ] && [ "$(id -u)" = 0 ]; then
  command -v ip >/dev/null || need_pkgs+=(iproute2)
  command -v nsenter >/dev/null || need_pkgs+=(util-linux)
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "up: installing ${need_pkgs[*]}"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_pkgs[@]}" >/dev/null
  else
    die "missing ${need_pkgs[*]} and cannot install them (not root, or no apt-get)"
  fi
fi

# --- 1. mode: namespaces, or loopback ---------------------------------------------------------------
MODE=loopback; TAG=""; SUBNET=""
if [ "$want_netns" != 1 ]; then
  log "up: ADREPORT_CLUSTER_NETNS=$want_netns: separate processes on 127.0.0.1 (no namespaces)"
elif [ "$(id -u)" != 0 ]; then
  log "up: not root: network namespaces are not available; falling back to separate processes on 127.0.0.1"
elif ! command -v ip >/dev/null || ! command -v nsenter >/dev/null || ! command -v unshare >/dev/null; then
  log "up: no ip/nsenter/unshare: falling back to separate processes on 127.0.0.1"
else
  TAG=$(printf '%s' "$RUN" | md5sum | cut -c1-4)
  probe="adr${TAG}-probe"
  if ip netns add "$probe" 2>/dev/null && ip netns del "$probe" 2>/dev/null; then
    MODE=netns
    # A /24 that no route and no address of this machine uses.
    used="$(ip -4 route show table all; ip -4 addr show)"
    for n in $(seq $((16#${TAG:0:2} % 200 + 20)) 254) $(seq 20 254); do
      if ! grep -q "10\.231\.$n\." <<<"$used"; then SUBNET="10.231.$n"; break; fi
    done
    [ -n "$SUBNET" ] || die "no free 10.231.N.0/24 subnet"
  else
    ip netns del "$probe" 2>/dev/null || true
    log "up: cannot create network namespaces here; falling back to separate processes on 127.0.0.1"
  fi
fi
cat >"$RUN/state" <<EOF
MODE=$MODE
TAG=$TAG
SUBNET=$SUBNET
EOF
log "up: mode $MODE${SUBNET:+, subnet $SUBNET.0/24, bridge adr${TAG}-br}; state in $RUN"

# --- 2. build and classpaths ----------------------------------------------------------------------
job_jar() { ls "$ROOT"/reconcile-job/target/adreport-reconcile-job-*-job.jar 2>/dev/null | head -1 || true; } # nothing when not built
JOB_JAR=$(job_jar)
build="${ADREPORT_CLUSTER_BUILD:-auto}"
if [ "$build" = auto ]; then
  if [ -n "$JOB_JAR" ] && [ -f "$ROOT/launcher/target/classpath.txt" ]; then build=0; else build=1; fi
fi
if [ "$build" = 1 ]; then
  log "up: building adreport (mvn -B -q -DskipTests package)"
  (cd "$ROOT" && mvn -B -q -DskipTests package >"$RUN/logs/build.log" 2>&1) || { tail -40 "$RUN/logs/build.log" >&2; die "the build failed"; }
fi
JOB_JAR=$(job_jar)
[ -n "$JOB_JAR" ] && [ -f "$ROOT/launcher/target/classpath.txt" ] || die "adreport is not built (mvn -B -DskipTests package)"
CP_FILE="$RUN/daemons.classpath"
if [ ! -s "$CP_FILE" ] || [ "$CLUSTER_HOME/pom.xml" -nt "$CP_FILE" ] || [ "$ROOT/pom.xml" -nt "$CP_FILE" ]; then
  (cd "$CLUSTER_HOME" && mvn -B -q dependency:build-classpath -Dmdep.outputFile="$CP_FILE" >"$RUN/logs/classpath.log" 2>&1) \
    || { tail -40 "$RUN/logs/classpath.log" >&2; die "Maven could not resolve the daemons' classpath (scripts/cluster/pom.xml)"; }
  touch "$CP_FILE" # the plugin leaves an unchanged file as it was
fi
DCP="$(cat "$CP_FILE")"; DCP_FILE="$CP_FILE"
JAVA_HOME_DIR="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
{
  echo "JOB_JAR=$JOB_JAR"
  echo "DCP_FILE=$CP_FILE"
  echo "JAVA_HOME_DIR=$JAVA_HOME_DIR"
} >>"$RUN/state"
phase build

# --- 3. hosts: namespaces, bridge, veths, /tmp, /etc/hosts, hostname --------------------------------
hosts_file="$RUN/etc-hosts"
{
  echo "127.0.0.1 localhost"
  if [ "$MODE" = netns ]; then for h in "${HOSTS[@]}"; do echo "$SUBNET.${OCTET[$h]} $h"; done; fi
} >"$hosts_file"
for h in "${HOSTS[@]}"; do mkdir -p "$RUN/hosts/$h/conf" "$RUN/hosts/$h/data"; done
if [ "$MODE" = netns ]; then
  br="adr${TAG}-br"
  # A run of this checkout that was killed before its down.sh ran (a fresh clone at the same path has
  # lost its state) leaves namespaces and links of this name: "File exists" below. Remove them, and
  # whatever still runs in them.
  for ns in $(ip netns list 2>/dev/null | awk -v p="adr${TAG}-" 'index($1, p) == 1 { print $1 }'); do
    log "up: removing namespace $ns, left by an earlier run"
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null || true
  done
  ip link del "$br" 2>/dev/null || true
  for h in "${HOSTS[@]}"; do ip link del "adr${TAG}-${OCTET[$h]}" 2>/dev/null || true; done
  ip link add "$br" type bridge
  ip link set "$br" up
  for h in "${HOSTS[@]}"; do
    ns=$(ns_name "$h")
    ip netns add "$ns"
    ip link add "adr${TAG}-${OCTET[$h]}" type veth peer name eth0 netns "$ns"
    ip link set "adr${TAG}-${OCTET[$h]}" master "$br" up
    ip -n "$ns" addr add "$SUBNET.${OCTET[$h]}/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    # The holder: owns the host's mount and UTS namespaces for as long as the host lives.
    ip netns exec "$ns" unshare -m -u --propagation private bash -c '
      mount -t tmpfs -o size=2g,mode=1777 tmpfs /tmp && mount --bind "$1" /etc/hosts && hostname "$2" &&
      echo ok >"$3" && exec -a "adreport-cluster-host $2 $4" sleep infinity' holder "$hosts_file" "$h" "$RUN/hosts/$h/holder.ok" "$RUN" \
      </dev/null >"$RUN/logs/holder-$h.log" 2>&1 &
    echo $! >"$RUN/hosts/$h/holder.pid"; disown
  done
  for h in "${HOSTS[@]}"; do
    for _ in $(seq 1 50); do [ -f "$RUN/hosts/$h/holder.ok" ] && break; sleep 0.1; done
    [ -f "$RUN/hosts/$h/holder.ok" ] || { cat "$RUN/logs/holder-$h.log" >&2; die "host $h: its namespaces did not come up"; }
  done
  # Every host reaches every other by name, across the bridge.
  [ "$(on edge getent hosts master | awk '{print $1}')" = "$SUBNET.${OCTET[master]}" ] || die "host edge does not resolve host master"
  [ "$(on worker1 hostname)" = worker1 ] || die "host worker1: hostname not set"
fi
phase hosts

# --- 4. operator configuration, one directory per host -------------------------------------------------
prop() { printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"; }
site() { # FILE then name value pairs
  local f="$1"; shift
  { echo '<?xml version="1.0"?>'; echo '<configuration>'
    while [ $# -gt 0 ]; do prop "$1" "$2"; shift 2; done
    echo '</configuration>'; } >"$f"
}
M=$(host_name master)
CONTAINER_OPENS="$OPENS"
for h in "${HOSTS[@]}"; do
  c="$RUN/hosts/$h/conf"; d="$RUN/hosts/$h/data"; ip_=$(host_ip "$h")
  site "$c/core-site.xml" \
    fs.defaultFS "hdfs://$M:$NN_RPC" \
    hadoop.tmp.dir "$d/hadoop-tmp"
  dn=(); if [ -n "${DN_DATA[$h]:-}" ]; then dn=(
    dfs.datanode.data.dir "file://$d/dn"
    dfs.datanode.address "$ip_:${DN_DATA[$h]}"
    dfs.datanode.http.address "$ip_:${DN_HTTP[$h]}"
    dfs.datanode.ipc.address "$ip_:${DN_IPC[$h]}"
    dfs.datanode.hostname "$(host_name "$h")"); fi
  site "$c/hdfs-site.xml" \
    dfs.namenode.rpc-address "$M:$NN_RPC" \
    dfs.namenode.http-address "$M:$NN_HTTP" \
    dfs.namenode.name.dir "file://$d/nn" \
    dfs.replication 2 \
    dfs.permissions.enabled false \
    dfs.namenode.safemode.extension 0 \
    dfs.heartbeat.interval 1 \
    dfs.namenode.heartbeat.recheck-interval 10000 \
    dfs.namenode.datanode.registration.ip-hostname-check false \
    dfs.client.block.write.replace-datanode-on-failure.policy NEVER \
    "${dn[@]}"
  rs=(); if [ -n "${RS_PORT[$h]:-}" ]; then rs=(
    hbase.regionserver.port "${RS_PORT[$h]}"
    hbase.regionserver.info.port "${RS_INFO[$h]}"); fi
  # Loopback: each region server is known as 127.0.0.1 and its own port.
  [ "$MODE" = netns ] || rs+=(hbase.unsafe.regionserver.hostname 127.0.0.1 hbase.master.hostname 127.0.0.1)
  # Under G1 (1 MB regions in these heaps) HBase's 2 MB MSLAB chunks are humongous objects;
  # 1 KB under half of G1's smallest region is an ordinary one whatever the heap (docs/CLUSTER.md).
  [ "$RS_GC" != g1 ] || rs+=(hbase.hregion.memstore.mslab.chunksize 523264)
  site "$c/hbase-site.xml" \
    hbase.cluster.distributed true \
    hbase.rootdir "hdfs://$M:$NN_RPC/hbase" \
    hbase.zookeeper.quorum "$M" \
    hbase.zookeeper.property.clientPort "$ZK_PORT" \
    zookeeper.session.timeout 10000 \
    hbase.master.port "$HM_PORT" \
    hbase.master.info.port "$HM_INFO" \
    hbase.master.wait.on.regionservers.mintostart 2 \
    hbase.regionserver.msginterval 1000 \
    hbase.ipc.server.callqueue.handler.factor 0.2 \
    hbase.ipc.server.callqueue.read.ratio 0.5 \
    hbase.ipc.server.callqueue.scan.ratio 0.5 \
    hbase.server.hashNonce.gracePeriod 120000 \
    hbase.regionserver.storefile.refresh.period 2000 \
    hbase.lease.recovery.dfs.timeout 10000 \
    hbase.lease.recovery.first.pause 1000 \
    "${rs[@]}"
  site "$c/yarn-site.xml" \
    yarn.resourcemanager.hostname "$M" \
    yarn.resourcemanager.address "$M:$RM_PORT" \
    yarn.resourcemanager.scheduler.address "$M:$RM_SCHED" \
    yarn.resourcemanager.resource-tracker.address "$M:$RM_TRACKER" \
    yarn.resourcemanager.admin.address "$M:$RM_ADMIN" \
    yarn.resourcemanager.webapp.address "$M:$RM_WEB" \
    yarn.nodemanager.hostname "$(host_name "$h")" \
    yarn.nodemanager.address "$ip_:$NM_PORT" \
    yarn.nodemanager.localizer.address "$ip_:$NM_LOC" \
    yarn.nodemanager.webapp.address "$ip_:$NM_WEB" \
    yarn.nodemanager.local-dirs "$d/nm-local" \
    yarn.nodemanager.log-dirs "$d/nm-logs" \
    yarn.nodemanager.resource.memory-mb 4096 \
    yarn.nodemanager.resource.cpu-vcores 8 \
    yarn.scheduler.minimum-allocation-mb 128 \
    yarn.nodemanager.vmem-check-enabled false \
    yarn.nodemanager.pmem-check-enabled false \
    yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage 99.5 \
    yarn.nodemanager.aux-services mapreduce_shuffle \
    yarn.nodemanager.aux-services.mapreduce_shuffle.class org.apache.hadoop.mapred.ShuffleHandler \
    yarn.nodemanager.env-whitelist JAVA_HOME \
    yarn.resourcemanager.nodemanagers.heartbeat-interval-ms 500 \
    yarn.scheduler.capacity.root.queues default \
    yarn.scheduler.capacity.root.default.capacity 100 \
    yarn.scheduler.capacity.root.default.maximum-capacity 100 \
    yarn.scheduler.capacity.maximum-am-resource-percent 0.5 \
    yarn.application.classpath "$DCP" \
    yarn.log-aggregation-enable false
  site "$c/mapred-site.xml" \
    mapreduce.framework.name yarn \
    mapreduce.application.classpath "$DCP" \
    mapreduce.jobhistory.address "$M:$JHS_PORT" \
    mapreduce.jobhistory.webapp.address "$M:$JHS_WEB" \
    mapreduce.shuffle.port "$SHUFFLE_PORT" \
    yarn.app.mapreduce.am.resource.mb 512 \
    yarn.app.mapreduce.am.command-opts "-Xmx384m -XX:+UseSerialGC $CONTAINER_OPENS" \
    mapreduce.map.memory.mb 512 \
    mapreduce.reduce.memory.mb 512 \
    mapreduce.map.java.opts "-Xmx320m -XX:+UseSerialGC $CONTAINER_OPENS" \
    mapreduce.reduce.java.opts "-Xmx320m -XX:+UseSerialGC $CONTAINER_OPENS" \
    yarn.app.mapreduce.am.env "JAVA_HOME=$JAVA_HOME_DIR" \
    mapreduce.map.env "JAVA_HOME=$JAVA_HOME_DIR" \
    mapreduce.reduce.env "JAVA_HOME=$JAVA_HOME_DIR"
done
# Logging of the daemons (not an operator site file: passed by -Dlog4j.configuration).
cat >"$RUN/log4j.properties" <<'EOF'
log4j.rootLogger=INFO,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{HH:mm:ss,SSS} %-5p [%t] %c{2}: %m%n
log4j.logger.org.apache.hadoop.hbase.zookeeper.ZKWatcher=WARN
log4j.logger.org.apache.zookeeper=WARN
log4j.logger.http.requests=WARN
log4j.logger.org.apache.hadoop.hdfs.StateChange=WARN
log4j.logger.org.apache.hadoop.hdfs.server.datanode.DataNode.clienttrace=WARN
log4j.logger.org.apache.hadoop.hdfs.server.namenode.FSNamesystem.audit=WARN
log4j.logger.org.apache.hadoop.yarn.server.nodemanager.containermanager.monitor=WARN
EOF
phase config

# --- 5. daemons ---------------------------------------------------------------------------------------

MIP=$(host_ip master)
if [ "$MODE" = loopback ]; then # every daemon binds 127.0.0.1: its port must be free
  for p in $ZK_PORT $NN_RPC $NN_HTTP ${DN_DATA[*]} ${DN_HTTP[*]} ${DN_IPC[*]} $HM_PORT $HM_INFO ${RS_PORT[*]} ${RS_INFO[*]} \
           $RM_PORT $RM_SCHED $RM_TRACKER $RM_ADMIN $RM_WEB $NM_PORT $NM_LOC $NM_WEB $SHUFFLE_PORT $JHS_PORT $JHS_WEB ${INGEST_PORT[*]} $API_PORT $API_TIMELINE_PORT; do
    ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || die "port $p on 127.0.0.1 is in use (the loopback cluster needs it)"
  done
fi
start_daemon master zookeeper 128m org.apache.zookeeper.server.ZooKeeperServerMain "$ZK_PORT" "$RUN/hosts/master/data/zk" 1000
on master env java -Xmx256m $OPENS -Dlog4j.configuration="file:$RUN/log4j.properties" -cp "$RUN/hosts/master/conf:$DCP" \
  org.apache.hadoop.hdfs.server.namenode.NameNode -format -nonInteractive -force >"$RUN/logs/namenode-format.log" 2>&1 \
  || { tail -30 "$RUN/logs/namenode-format.log" >&2; die "namenode -format failed"; }
start_daemon master namenode 384m org.apache.hadoop.hdfs.server.namenode.NameNode
for w in worker1 worker2; do start_daemon "$w" "datanode-$w" 256m org.apache.hadoop.hdfs.server.datanode.DataNode; done
await zookeeper 60 "port $ZK_PORT" port_open master "$MIP" "$ZK_PORT"
phase zookeeper
await namenode 90 "RPC port $NN_RPC" port_open master "$MIP" "$NN_RPC"
await namenode 120 "2 live DataNodes" equals 2 jmx master "http://$M:$NN_HTTP" Hadoop:service=NameNode,name=FSNamesystemState NumLiveDataNodes
for w in worker1 worker2; do await "datanode-$w" 5 "registered" true; done
await namenode 60 "out of safe mode" equals "" jmx master "http://$M:$NN_HTTP" Hadoop:service=NameNode,name=NameNodeInfo Safemode
phase hdfs

start_daemon master hmaster 384m org.apache.hadoop.hbase.master.HMaster start
for w in worker1 worker2; do start_daemon "$w" "regionserver-$w" "$RS_HEAP:$RS_GC" org.apache.hadoop.hbase.regionserver.HRegionServer start; done
start_daemon master resourcemanager 384m org.apache.hadoop.yarn.server.resourcemanager.ResourceManager
start_daemon worker1 nodemanager 256m org.apache.hadoop.yarn.server.nodemanager.NodeManager
start_daemon master jobhistory 256m org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer
await hmaster 120 "port $HM_PORT" port_open master "$MIP" "$HM_PORT"
for w in worker1 worker2; do await "regionserver-$w" 120 "port ${RS_PORT[$w]}" port_open "$w" "$(host_ip "$w")" "${RS_PORT[$w]}"; done
await hmaster 180 "2 region servers and hbase:meta online" equals true jmx master "http://$M:$HM_INFO" \
  Hadoop:service=HBase,name=Master,sub=Server tag.isActiveMaster
await hmaster 180 "2 region servers registered" equals 2 jmx master "http://$M:$HM_INFO" \
  Hadoop:service=HBase,name=Master,sub=Server numRegionServers
phase hbase
await resourcemanager 120 "port $RM_PORT" port_open master "$MIP" "$RM_PORT"
await nodemanager 120 "registered with the ResourceManager (1 active node)" equals 1 \
  jmx master "http://$M:$RM_WEB" Hadoop:service=ResourceManager,name=ClusterMetrics NumActiveNMs
await jobhistory 120 "port $JHS_PORT" port_open master "$MIP" "$JHS_PORT"
phase yarn

# --- 6. adreport, as docs/CLUSTER.md says -------------------------------------------------------
# The secret that every process that hashes device ids shares (an operator's secret store).
head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$RUN/device-hash.secret"
# The beacon signing key that every ad server and aggregator shares (docs/CLUSTER.md step 3).
echo "c1:$(head -c 24 /dev/urandom | base64 | tr -d '/+=')" >"$RUN/beacon.keys"
for h in edge agg1 agg2 api; do write_adreport_cmd "$h"; done
adreport() { on "$1" "$(adreport_cmd "$1")" "${@:2}"; }
# Waits until HBase serves the tables (hbase:meta assigned), then creates them.
# Two replicas of every profiles region: checks with serve.timeline.reads=true answer from the
# secondary while a primary's region server is stopped.
schema_apply >"$RUN/logs/schema-apply.log" 2>&1 || { cat "$RUN/logs/schema-apply.log" >&2; die "bin/adreport schema apply (host edge) failed"; }
grep -E "^(placement|warning|[0-9]+ created)" "$RUN/logs/schema-apply.log" >&2 || true
for role in analyst adserver privacy; do
  adreport edge keys add --role "$role" >"$RUN/logs/keys-$role.log" 2>&1 || { cat "$RUN/logs/keys-$role.log" >&2; die "bin/adreport keys add --role $role failed"; }
  tail -1 "$RUN/logs/keys-$role.log" >"$RUN/keys/$role.key"
done
phase adreport-schema

start_service() { # HOST NAME HEAP ARGS...
  local h="$1" name="$2" heap="$3"; shift 3
  on_prefix "$h"
  ADREPORT_HEAP="$heap" "${ON[@]}" "$(adreport_cmd "$h")" "$@" </dev/null >"$RUN/logs/$name.log" 2>&1 &
  echo $! >"$RUN/pids/$name.pid"; disown
  echo "$h" >"$RUN/pids/$name.host"
}
for a in agg1 agg2; do
  start_service "$a" "$a" "$AGG_HEAP" aggregator --set aggregator.instances=2 --set "aggregator.id=$a" --ingest-port "${INGEST_PORT[$a]}"
done
# serve.deadline.ms: 500 ms, generous for seven hosts on two cores (an exact cap check must not be
# cut short by a loaded machine) and still far below the HBase client's timeouts.
start_service api report-api "$API_HEAP" report-api --port "$API_PORT" --set "serve.beacon.url=http://$(host_name agg1):${INGEST_PORT[agg1]}" \
  --set serve.deadline.ms=500
start_service api report-api-timeline "$API_HEAP" report-api --port "$API_TIMELINE_PORT" --set serve.timeline.reads=true \
  --set serve.deadline.ms=3000 --set "serve.beacon.url=http://$(host_name agg1):${INGEST_PORT[agg1]}"
for a in agg1 agg2; do await "$a" 180 "GET /healthz on port ${INGEST_PORT[$a]}" http_get edge "http://$(host_name "$a"):${INGEST_PORT[$a]}/healthz"; done
await report-api 180 "GET /healthz on port $API_PORT" http_get edge "http://$(host_name api):$API_PORT/healthz"
await report-api-timeline 180 "GET /healthz on port $API_TIMELINE_PORT" http_get edge "http://$(host_name api):$API_TIMELINE_PORT/healthz"
phase adreport-services

log "up: cluster up in $(( $(date +%s) - T_START )) s ($MODE). Hosts and their logs: $RUN/logs; keys: $RUN/keys"
trap - EXIT
