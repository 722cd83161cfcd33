# Sourced by the bench scripts: starts a private PostgreSQL (newest installed) on a free loopback
# port in a temporary directory, stopped and removed on exit. Sets $pg_bin, $work, $url, $as_pg.
# It offers TLS as Debian's packaged server does (ssl=on, a self-signed RSA 2048 certificate), so
# a client's sslmode decides the wire.
# PG_PRELOAD, when set, is its shared_preload_libraries (an extension that must load at start).
# SYNC=off has every client that reads PGOPTIONS (pgbench, hakari) commit with
# synchronous_commit=off, so the cores set the pace and not the disk's flushes.
case "${SYNC:-}" in
  "") ;; off) export PGOPTIONS="${PGOPTIONS:+$PGOPTIONS }-c synchronous_commit=off" ;;
  *) echo "SYNC: only off is known (unset: the server's setting)" >&2; exit 2 ;;
esac
pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$pg_bin/initdb" ] || { echo "PostgreSQL missing: scripts/setup-servers.sh" >&2; exit 1; }
work="$(mktemp -d)"; chmod 755 "$work"
pg_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
as_pg=(); [ "$(id -u)" -eq 0 ] && { chown postgres "$work"; as_pg=(runuser -u postgres --); }
stop_private_postgres() {
  "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$work/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap stop_private_postgres EXIT
"${as_pg[@]}" "$pg_bin/initdb" -D "$work/data" -U postgres --auth=trust --no-sync >/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/data/server.key" -out "$work/data/server.crt" \
  -days 2 -subj /CN=localhost >/dev/null 2>&1
chmod 600 "$work/data/server.key"; [ "$(id -u)" -eq 0 ] && chown postgres "$work/data/server.key" "$work/data/server.crt"
"${as_pg[@]}" "$pg_bin/pg_ctl" -D "$work/data" -l "$work/log" -w \
  -o "-c listen_addresses=127.0.0.1 -c port=$pg_port -c unix_socket_directories=$work -c max_connections=200 -c ssl=on${PG_PRELOAD:+ -c shared_preload_libraries=$PG_PRELOAD}" start >/dev/null
"$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres hakari_bench
url="postgresql://postgres@127.0.0.1:$pg_port/hakari_bench"
