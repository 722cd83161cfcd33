//! The list of figures (`figures.rs` says how each kind is made): throughput, the latency
//! percentiles, then what the steps cost, in the order tables show them. Adding a figure is one
//! entry here.

use super::{cost, Definition, Made, MAX, OPS, P50, P95, P99, P999};

const CLIENT_CPU: &[&str] = &["client.cpu_user_s", "client.cpu_system_s"];
const SERVER_CPU: &[&str] = &["server.cpu_user_s", "server.cpu_system_s"];

/// Every figure hakari records: throughput, the latency percentiles, then what the steps cost,
/// in the order tables show them.
pub const DEFINITIONS: &[Definition] = &[
    OPS,
    P50,
    P95,
    P99,
    P999,
    MAX,
    cost(
        "client.cpu_us_per_op",
        "client CPU/op",
        "µs",
        Made::PerOp(CLIENT_CPU, 1e6),
    ),
    cost(
        "client.cpu_cores",
        "client CPU",
        "cores",
        Made::PerSecond(CLIENT_CPU, 1.0),
    ),
    cost(
        "client.user_s",
        "client user",
        "s",
        Made::Total(&["client.cpu_user_s"], 1.0),
    ),
    cost(
        "client.system_s",
        "client system",
        "s",
        Made::Total(&["client.cpu_system_s"], 1.0),
    ),
    cost(
        "client.context_switches_per_op",
        "client cs/op",
        "",
        Made::PerOp(&["client.context_switches"], 1.0),
    ),
    cost(
        "client.read_bytes_per_op",
        "client read/op",
        "B",
        Made::PerOp(&["client.read_bytes"], 1.0),
    ),
    cost(
        "client.write_bytes_per_op",
        "client written/op",
        "B",
        Made::PerOp(&["client.write_bytes"], 1.0),
    ),
    cost(
        "client.rss_bytes",
        "client RSS",
        "B",
        Made::Largest("client.rss_bytes"),
    ),
    cost(
        "server.cpu_us_per_op",
        "server CPU/op",
        "µs",
        Made::PerOp(SERVER_CPU, 1e6),
    ),
    cost(
        "server.cpu_cores",
        "server CPU",
        "cores",
        Made::PerSecond(SERVER_CPU, 1.0),
    ),
    cost(
        "server.cpu_s",
        "server CPU time",
        "s",
        Made::Total(SERVER_CPU, 1.0),
    ),
    cost(
        "server.read_bytes_per_op",
        "server read/op",
        "B",
        Made::PerOp(&["server.read_bytes"], 1.0),
    ),
    cost(
        "server.write_bytes_per_op",
        "server written/op",
        "B",
        Made::PerOp(&["server.write_bytes"], 1.0),
    ),
    cost(
        "server.rss_bytes",
        "server RSS",
        "B",
        Made::Largest("server.rss_bytes"),
    ),
    cost(
        "device.writes_per_op",
        "device writes/op",
        "",
        Made::PerOp(&["device.writes"], 1.0),
    ),
    cost(
        "device.write_bytes_per_op",
        "device written/op",
        "B",
        Made::PerOp(&["device.write_bytes"], 1.0),
    ),
    cost(
        "device.flushes_per_op",
        "device flushes/op",
        "",
        Made::PerOp(&["device.flushes"], 1.0),
    ),
    cost(
        "device.flushes_per_s",
        "device flushes/s",
        "",
        Made::PerSecond(&["device.flushes"], 1.0),
    ),
    cost(
        "postgres.commits",
        "server commits",
        "",
        Made::Total(&["postgres.xact_commit"], 1.0),
    ),
    cost(
        "postgres.write_transactions",
        "write transactions",
        "",
        Made::Total(&["postgres.xids"], 1.0),
    ),
    cost(
        "postgres.rollbacks",
        "server rollbacks",
        "",
        Made::Total(&["postgres.xact_rollback"], 1.0),
    ),
    cost(
        "postgres.wal_bytes_per_op",
        "WAL/op",
        "B",
        Made::PerOp(&["postgres.wal_bytes"], 1.0),
    ),
    cost(
        "postgres.wal_syncs_per_op",
        "WAL syncs/op",
        "",
        Made::PerOp(&["postgres.wal_sync"], 1.0),
    ),
    cost(
        "postgres.blocks_read_per_op",
        "blocks read/op",
        "",
        Made::PerOp(&["postgres.blks_read"], 1.0),
    ),
    Definition {
        higher_is_better: true,
        ..cost(
            "postgres.cache_hit_ratio",
            "cache hits",
            "",
            Made::Share("postgres.blks_hit", "postgres.blks_read"),
        )
    },
    cost(
        "postgres.checkpoints",
        "checkpoints",
        "",
        Made::Total(&["postgres.checkpoints"], 1.0),
    ),
    cost(
        "mysql.commits",
        "server commits",
        "",
        Made::Total(&["mysql.com_commit"], 1.0),
    ),
    cost(
        "mysql.redo_bytes_per_op",
        "redo/op",
        "B",
        Made::PerOp(&["mysql.innodb_os_log_written"], 1.0),
    ),
    cost(
        "mysql.data_fsyncs_per_op",
        "data fsyncs/op",
        "",
        Made::PerOp(&["mysql.innodb_data_fsyncs"], 1.0),
    ),
    cost(
        "mysql.row_lock_waits",
        "row lock waits",
        "",
        Made::Total(&["mysql.innodb_row_lock_waits"], 1.0),
    ),
    Definition {
        higher_is_better: true,
        ..cost(
            "mysql.buffer_pool_hit_ratio",
            "cache hits",
            "",
            Made::Share(
                "mysql.innodb_buffer_pool_read_requests",
                "mysql.innodb_buffer_pool_reads",
            ),
        )
    },
    cost(
        "rocksdb.write_amplification",
        "device B/user B",
        "",
        Made::Ratio(&["device.write_bytes"], &["rocksdb.bytes_written"]),
    ),
    cost(
        "rocksdb.wal_bytes_per_op",
        "WAL/op",
        "B",
        Made::PerOp(&["rocksdb.wal_bytes"], 1.0),
    ),
    cost(
        "rocksdb.compaction_bytes_per_op",
        "compaction/op",
        "B",
        Made::PerOp(&["rocksdb.compaction_bytes"], 1.0),
    ),
    cost(
        "rocksdb.flush_bytes_per_op",
        "flushed/op",
        "B",
        Made::PerOp(&["rocksdb.flush_bytes"], 1.0),
    ),
    Definition {
        higher_is_better: true,
        ..cost(
            "rocksdb.block_cache_hit_ratio",
            "cache hits",
            "",
            Made::Share("rocksdb.block_cache_hit", "rocksdb.block_cache_miss"),
        )
    },
    cost(
        "rocksdb.compaction_bytes",
        "compaction written",
        "B",
        Made::Total(&["rocksdb.compaction_bytes"], 1.0),
    ),
    cost(
        "rocksdb.stall_s",
        "write stalls",
        "s",
        Made::Total(&["rocksdb.stall_us"], 1e-6),
    ),
    cost(
        "bdb.log_bytes_per_op",
        "log/op",
        "B",
        Made::PerOp(&["bdb.log_bytes"], 1.0),
    ),
    cost(
        "bdb.log_syncs_per_op",
        "log syncs/op",
        "",
        Made::PerOp(&["bdb.log_syncs"], 1.0),
    ),
    Definition {
        higher_is_better: true,
        ..cost(
            "bdb.cache_hit_ratio",
            "cache hits",
            "",
            Made::Share("bdb.cache_hit", "bdb.cache_miss"),
        )
    },
    cost(
        "bdb.pages_written",
        "pages written",
        "",
        Made::Total(&["bdb.pages_written"], 1.0),
    ),
    cost(
        "lmdb.commits",
        "write transactions",
        "",
        Made::Total(&["lmdb.last_txn_id"], 1.0),
    ),
    cost(
        "lmdb.pages",
        "pages in use",
        "",
        Made::Largest("lmdb.pages"),
    ),
    cost(
        "redis.cpu_us_per_op",
        "Redis CPU/op",
        "µs",
        Made::PerOp(&["redis.cpu_user_s", "redis.cpu_system_s"], 1e6),
    ),
    cost(
        "redis.commands_per_op",
        "commands/op",
        "",
        Made::PerOp(&["redis.commands"], 1.0),
    ),
    Definition {
        higher_is_better: true,
        ..cost(
            "redis.hit_ratio",
            "key hits",
            "",
            Made::Share("redis.keyspace_hits", "redis.keyspace_misses"),
        )
    },
    cost(
        "memcached.cpu_us_per_op",
        "memcached CPU/op",
        "µs",
        Made::PerOp(&["memcached.cpu_user_s", "memcached.cpu_system_s"], 1e6),
    ),
    Definition {
        higher_is_better: true,
        ..cost(
            "memcached.hit_ratio",
            "get hits",
            "",
            Made::Share("memcached.get_hits", "memcached.get_misses"),
        )
    },
    cost(
        "readings.cpu_cores",
        "readings' CPU",
        "cores",
        Made::PerSecond(&["readings.client_cpu_s", "readings.server_cpu_s"], 1.0),
    ),
    cost(
        "postgres.wait",
        "wait events",
        "share",
        Made::Shares("postgres.wait."),
    ),
    cost(
        "mysql.wait",
        "wait time",
        "share",
        Made::Shares("mysql.wait."),
    ),
    // sysbench's counts of a script's statements (workload/sysbench/view.rs reads them).
    Definition {
        higher_is_better: true,
        ..cost(
            "sysbench.queries_per_s",
            "queries/s",
            "/s",
            Made::PerSecond(SYSBENCH_QUERIES, 1.0),
        )
    },
    cost(
        "sysbench.reads_per_op",
        "reads/txn",
        "",
        Made::PerOp(&["sysbench.reads"], 1.0),
    ),
    cost(
        "sysbench.writes_per_op",
        "writes/txn",
        "",
        Made::PerOp(&["sysbench.writes"], 1.0),
    ),
    cost(
        "sysbench.other_per_op",
        "other/txn",
        "",
        Made::PerOp(&["sysbench.other"], 1.0),
    ),
    cost(
        "sysbench.errors_per_s",
        "errors/s",
        "/s",
        Made::PerSecond(&["sysbench.errors"], 1.0),
    ),
    cost(
        "sysbench.reconnects_per_s",
        "reconnects/s",
        "/s",
        Made::PerSecond(&["sysbench.reconnects"], 1.0),
    ),
    // A script's (or one command's) transactions that failed after their last try (pgbench's
    // failures), by kind.
    cost(
        "script.failed",
        "failed",
        "",
        Made::Total(&["script.failed"], 1.0),
    ),
    cost(
        "script.serialization_failures",
        "serialization failures",
        "",
        Made::Total(&["script.serialization_failures"], 1.0),
    ),
    cost(
        "script.deadlock_failures",
        "deadlock failures",
        "",
        Made::Total(&["script.deadlock_failures"], 1.0),
    ),
    // Transactions tried more than once, and those skipped under a latency limit (by script).
    cost(
        "script.retried",
        "retried",
        "",
        Made::Total(&["script.retried"], 1.0),
    ),
    cost(
        "script.skipped",
        "skipped",
        "",
        Made::Total(&["script.skipped"], 1.0),
    ),
    // A script run's time connecting: before the step started (its clients connecting and
    // preparing), and under -C reconnecting during it (pgbench's connection times).
    cost(
        "script.initial_connection_s",
        "initial connection",
        "s",
        Made::Total(&["script.initial_connection_s"], 1.0),
    ),
    cost(
        "script.reconnect_s",
        "reconnecting",
        "s",
        Made::Total(&["script.reconnect_s"], 1.0),
    ),
    // What a step's fault cost it (`--fault`, measure/fault.rs): the largest over its runs.
    cost(
        "fault.outage_s",
        "outage",
        "s",
        Made::Largest("fault.outage_s"),
    ),
    cost(
        "fault.failed",
        "failed",
        "",
        Made::Total(&["fault.failed"], 1.0),
    ),
    cost(
        "fault.refused",
        "reconnects refused",
        "",
        Made::Total(&["fault.refused"], 1.0),
    ),
    cost(
        "fault.first_failure_s",
        "to 1st failure",
        "s",
        Made::Largest("fault.first_failure_s"),
    ),
    cost(
        "fault.recovery_s",
        "recovery",
        "s",
        Made::Largest("fault.recovery_s"),
    ),
    cost(
        "fault.p99_before_us",
        "p99 before fault",
        "µs",
        Made::Largest("fault.p99_before_us"),
    ),
    cost(
        "fault.p99_after_us",
        "p99 after fault",
        "µs",
        Made::Largest("fault.p99_after_us"),
    ),
    // Acknowledged writes missing after the fault (ycsb: its run phase's inserts, looked for).
    cost(
        "fault.lost",
        "lost writes",
        "",
        Made::Total(&["fault.lost"], 1.0),
    ),
];

const SYSBENCH_QUERIES: &[&str] = &["sysbench.reads", "sysbench.writes", "sysbench.other"];
