# Sourced by the bench scripts: starts a private MariaDB in a temporary directory on a Unix
# socket (no network), stopped and removed on exit, with a database hakari_bench. Its own
# defaults except what a benchmark box would set: a 1GB buffer pool and LOAD DATA LOCAL allowed.
# Sets $my_work, $my_socket, $my_url and the client command $my_client (an array).
command -v mariadbd >/dev/null || { echo "MariaDB missing: scripts/setup-servers.sh" >&2; exit 1; }
my_work="$(mktemp -d)"; chmod 755 "$my_work"
my_socket="$my_work/mysqld.sock"
my_user=(); [ "$(id -u)" -eq 0 ] && { chown mysql "$my_work"; my_user=(--user=mysql); }
stop_private_mariadb() {
  # Waits for the server's own exit: it still writes its files after its socket is gone.
  kill "$my_pid" 2>/dev/null
  for _ in $(seq 600); do kill -0 "$my_pid" 2>/dev/null || break; sleep 0.1; done
  rm -rf "$my_work"
}
mariadb-install-db --no-defaults --datadir="$my_work/data" --auth-root-authentication-method=normal \
  --skip-test-db "${my_user[@]}" >/dev/null 2>&1
mariadbd --no-defaults --datadir="$my_work/data" --socket="$my_socket" --skip-networking \
  --pid-file="$my_work/mysqld.pid" --log-error="$my_work/log" --skip-log-bin --tmpdir="$my_work" \
  --innodb-buffer-pool-size=1G --local-infile=1 "${my_user[@]}" &
my_pid=$!
for _ in $(seq 300); do [ -S "$my_socket" ] && break; sleep 0.1; done
my_client=(mariadb --no-defaults --local-infile=1 -S "$my_socket" -u root)
"${my_client[@]}" -e "CREATE DATABASE hakari_bench"
my_url="mysql://root@localhost/hakari_bench?socket=$my_socket"
trap stop_private_mariadb EXIT
