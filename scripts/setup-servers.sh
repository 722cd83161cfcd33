#!/usr/bin/env bash
# Installs the servers hakari's engines and tests use, when missing: PostgreSQL (with
# postgresql-contrib for pgbench), MariaDB with the Galera provider (galera-4; its rsync state
# transfer needs rsync and ss from iproute2), Redis (redis-cli makes clusters), memcached, and the
# ODBC drivers for PostgreSQL, MariaDB and SQLite (the odbc engine's tests reach those databases
# through them). hakari starts its own private instances from these binaries; the system services
# they may also start are not needed (and left alone).
set -euo pipefail
need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
for p in postgresql postgresql-contrib mariadb-server galera-4 rsync iproute2 redis-server memcached odbc-postgresql odbc-mariadb libsqliteodbc; do
  have "$p" || need+=("$p")
done
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
if [ ${#need[@]} -gt 0 ]; then
  echo "setup-servers: installing ${need[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Debian's odbc-postgresql registers psqlODBC with its communication log on (CommLog=1), and the
# driver then opens /tmp/psqlodbc_*.log for every connection whatever the connection asks:
# turned off here, so that neither a run nor the tests leave files in /tmp.
if grep -q '^CommLog=1' /etc/odbcinst.ini 2>/dev/null; then
  "${sudo_cmd[@]}" sed -i 's/^CommLog=1/CommLog=0/' /etc/odbcinst.ini
fi
