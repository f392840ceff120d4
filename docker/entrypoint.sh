#!/usr/bin/env bash
# The container's entry point: runs one role of the cluster in the foreground, with the same configuration and
# ports as 'gstore cluster' (the process cluster) would give it, logging to stdout.
#   entrypoint.sh zookeeper|namenode|datanode|master|rs1|rs2|...
# GSTORE_BASE_PORT (default 24000) and GSTORE_REGION_SERVERS (default 3) must be the same for every container of
# one cluster; the containers share the host's network, so their ports must not collide.
# The cluster secret is mounted at /etc/gstore/gstore.secret.in; it is copied to a file only root can read.
set -euo pipefail
role="${1:?usage: entrypoint.sh zookeeper|namenode|datanode|master|rsN}"
case "$role" in
  rs[0-9]) selector=(--rs "${role#rs}") ;;
  *) selector=(--role "$role") ;;
esac
secret=/etc/gstore/gstore.secret
if [ -f "$secret.in" ]; then
  install -m 600 "$secret.in" "$secret"
fi
mapfile -t command < <(GSTORE_HEAP=-Xmx192m /opt/gstore/bin/gstore cluster command "${selector[@]}" --dir /data \
  --region-servers "${GSTORE_REGION_SERVERS:-3}" --base-port "${GSTORE_BASE_PORT:-24000}" \
  --set "gstore.cluster.secret.file=$secret")
[ "${#command[@]}" -gt 0 ] || { echo "entrypoint.sh: no command for $role" >&2; exit 2; }
exec "${command[@]}"
