# Sourced by the sysbench benches: a private server for $DRIVER (mysql: MariaDB over its Unix
# socket, max_connections 200; pgsql: PostgreSQL over loopback TCP with PGSSLMODE, default
# disable), removed on exit. Sets $conn (sysbench's connection options) and $out (a directory
# for result files and figures).
driver="${DRIVER:-mysql}"
export PGSSLMODE="${PGSSLMODE:-disable}"
command -v sysbench >/dev/null || { echo "sysbench missing: apt-get install sysbench" >&2; exit 1; }
case "$driver" in
  mysql)
    . bench/private_mariadb.sh
    "${my_client[@]}" -e "SET GLOBAL max_connections = 200"
    conn=(--db-driver=mysql --mysql-socket="$my_socket" --mysql-user=root --mysql-db=hakari_bench)
    out="$my_work" ;;
  pgsql)
    . bench/private_postgres.sh
    conn=(--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$pg_port" --pgsql-user=postgres --pgsql-db=hakari_bench)
    out="$work" ;;
  *) echo "DRIVER is mysql or pgsql" >&2; exit 2 ;;
esac
