//! Several client machines as the schedulers users run start them, with nothing agreed by hand:
//! under Slurm, for real (a private one-node cluster, `scripts/slurm-local.sh`: munged, slurmctld
//! and slurmd with a configuration of their own, stopped and removed after), and as separate
//! hosts placed as a Kubernetes Indexed Job places its pods (each client in a network namespace
//! of the test's own). Three tpcb clients with `--shard auto` and no start time against one
//! private PostgreSQL, and `hakari merge --wait 3` gathering them.

mod common;
use common::{assert_placed_by, intervals, private_postgres, stderr};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One test at a time: each runs three clients and a server on this machine's two cores, and
/// the separate hosts' test holds their start to 50 ms, which the others' load would blur.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The private Slurm cluster in a directory: stopped, and the directory removed, when dropped.
struct Slurm(PathBuf);

impl Slurm {
    fn start(dir: &Path) -> Slurm {
        let o = Command::new(script())
            .arg("start")
            .arg(dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "slurm-local.sh start: {}", stderr(&o));
        Slurm(dir.to_path_buf())
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        let _ = Command::new(script()).arg("stop").arg(&self.0).status();
    }
}

fn script() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm-local.sh")
}

/// Counts every row inserted into a table named `%history` from now on, in a table of the
/// test's own: the database's own count of tpcb's transactions (each inserts one history row),
/// taken by triggers that an event trigger puts on each history table as it is created.
const COUNT_HISTORY: &str = "
CREATE TABLE test_counted (one int);
CREATE FUNCTION test_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.test_counted VALUES (1); RETURN NULL; END $$;
CREATE FUNCTION test_watch() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE TABLE' LOOP
    IF r.object_identity LIKE '%history' THEN
      EXECUTE format('CREATE TRIGGER test_counted AFTER INSERT ON %s FOR EACH ROW EXECUTE FUNCTION public.test_count()', r.object_identity);
    END IF;
  END LOOP;
END $$;
CREATE EVENT TRIGGER test_watch ON ddl_command_end EXECUTE FUNCTION test_watch();
";

/// `srun -n 3` starts three clients, each placed by the variables srun gives it (`--shard
/// auto`), none told when to start; they check in, start together, and `merge --wait 3`, started
/// before them, merges them once all three are in: placed as Slurm placed them, their merged
/// transactions those of the window they shared, and the database's own count of transactions
/// what the three clients counted.
#[test]
fn srun_starts_three_clients_that_merge_into_one_run() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let _slurm = Slurm::start(&dir.path().join("slurm"));
    let (_server, url, mut db) = counting_postgres(dir.path());

    let (drop, merged, waiting) = merge_waiting(dir.path());
    let o = Command::new("timeout")
        .args(["300", "srun", "--quiet", "--overcommit", "-n", "3"])
        .arg(env!("CARGO_BIN_EXE_hakari"))
        .args(tpcb_client(&url, "auto", &into(&drop)))
        .env("SLURM_CONF", dir.path().join("slurm/slurm.conf"))
        .output()
        .unwrap();
    assert!(o.status.success(), "srun: {}", stderr(&o));
    let o = waiting.wait_with_output().unwrap();
    assert!(o.status.success(), "merge --wait: {}", stderr(&o));

    let result = hakari::results::store::read(&merged).unwrap();
    assert_placed_by(&result, 3, Some(hakari::shard::Scheduler::Slurm));

    let sum = assert_within_window(&result, &clients_of(&drop));
    assert_counted_by_the_database(&mut db, sum);
}

/// The database's own count of transactions (`COUNT_HISTORY`) is what the three clients
/// counted: each counted transaction inserted one history row; a client's last one, in flight
/// as its step ended, may have committed uncounted.
fn assert_counted_by_the_database(db: &mut postgres::Client, sum: u64) {
    let counted: i64 = (db.query_one("SELECT count(*) FROM public.test_counted", &[]))
        .unwrap()
        .get(0);
    assert!(
        (sum..=sum + 3).contains(&(counted as u64)),
        "the database counted {counted} transactions, the clients {sum}"
    );
}

/// A private PostgreSQL in `dir` whose database counts tpcb's transactions (`COUNT_HISTORY`):
/// the server, its URL, and a connection to read the count with.
fn counting_postgres(dir: &Path) -> (hakari::server::Launched, String, postgres::Client) {
    let (server, port) = private_postgres(dir);
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let mut db = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    db.batch_execute(COUNT_HISTORY).unwrap();
    (server, url, db)
}

/// A results folder in `dir`, and `hakari merge --wait 3` started on it before any client,
/// to write `dir`/merged.json.
fn merge_waiting(dir: &Path) -> (PathBuf, PathBuf, std::process::Child) {
    let drop = dir.join("results");
    std::fs::create_dir(&drop).unwrap();
    let merged = dir.join("merged.json");
    let waiting = Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args(["merge", "--wait", "3", drop.to_str().unwrap()])
        .args(["-o", merged.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    (drop, merged, waiting)
}

/// A client's result and interval log left in the folder `drop`.
fn into(drop: &Path) -> Vec<String> {
    let drop = drop.to_str().unwrap();
    ["--hlog", drop, "--out", drop].map(String::from).to_vec()
}

/// A tpcb client's arguments: one connection for 4 s against `url`, placed by `shard`, its
/// result and interval log left where `out` says.
fn tpcb_client(url: &str, shard: &str, out: &[String]) -> Vec<String> {
    let args = [
        "run",
        "tpcb",
        "--clients",
        "1",
        "--duration",
        "4",
        "--runs",
        "1",
        "--scale",
        "3",
        "--accounts-per-branch",
        "100",
        "--engine",
        "postgres",
        "--url",
        url,
        "--shard",
        shard,
    ];
    let mut args = args.map(String::from).to_vec();
    args.extend_from_slice(out);
    args
}

/// The three clients' own results in `drop` (not the merged one).
fn clients_of(drop: &Path) -> Vec<hakari::results::RunResult> {
    let clients: Vec<_> = hakari::results::store::expand(&[drop.to_path_buf()])
        .unwrap()
        .iter()
        .map(|f| hakari::results::store::read(f).unwrap())
        .filter(|r| r.merged_from.is_empty())
        .collect();
    assert_eq!(clients.len(), 3);
    clients
}

/// The merged run is the window all the clients were running in; started together, that is
/// nearly all of what they did. Returns the transactions they counted.
fn assert_within_window(
    merged: &hakari::results::RunResult,
    clients: &[hakari::results::RunResult],
) -> u64 {
    let sum: u64 = (clients.iter())
        .map(|r| r.measurements[0].runs[0].ops)
        .sum();
    let window = merged.measurements[0].runs[0].ops;
    assert!(
        window <= sum && window as f64 >= 0.9 * sum as f64,
        "merged {window} of the clients' {sum}"
    );
    sum
}

/// A network namespace of the test's own, as a separate host: its own loopback and a veth pair
/// to this one, `10.231.N.2` inside and `10.231.N.1` here. Removed, with its pair, when dropped.
struct Host {
    name: String,
    link: String,
}

fn ip(args: &[&str]) {
    let o = Command::new("ip").args(args).output().unwrap();
    assert!(o.status.success(), "ip {args:?}: {}", stderr(&o));
}

impl Host {
    fn new(n: usize) -> Host {
        let tag = std::process::id() % 100_000;
        let host = Host {
            name: format!("hk{tag}c{n}"),
            link: format!("hk{tag}h{n}"),
        };
        let inside = format!("hk{tag}n{n}");
        ip(&["netns", "add", &host.name]);
        ip(&[
            "link", "add", &host.link, "type", "veth", "peer", "name", &inside,
        ]);
        ip(&["link", "set", &inside, "netns", &host.name]);
        ip(&[
            "addr",
            "add",
            &format!("10.231.{n}.1/24"),
            "dev",
            &host.link,
        ]);
        ip(&["link", "set", &host.link, "up"]);
        let within = |args: &[&str]| ip(&[&["-n", host.name.as_str()], args].concat());
        within(&["addr", "add", &format!("10.231.{n}.2/24"), "dev", &inside]);
        within(&["link", "set", &inside, "up"]);
        within(&["link", "set", "lo", "up"]);
        host
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .status();
        let _ = Command::new("ip")
            .args(["link", "del", &self.link])
            .status();
    }
}

/// The server's end of the wire: every connection to `listen` forwarded to `to` both ways, on
/// threads of its own (the private PostgreSQL listens on loopback only).
fn relay(listen: SocketAddr, to: SocketAddr) {
    let listener = TcpListener::bind(listen).unwrap();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(to) else {
                continue;
            };
            for s in [&client, &server] {
                s.set_nodelay(true).unwrap();
            }
            let (c, s) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut &client, &mut &server);
                let _ = server.shutdown(std::net::Shutdown::Write);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut &s, &mut &c);
                let _ = c.shutdown(std::net::Shutdown::Write);
            });
        }
    });
}

/// Three clients, each on a host of its own (a network namespace; the wire and the results
/// folder are all they share), placed by `JOB_COMPLETION_INDEX` as a Kubernetes Indexed Job
/// places its pods (`--shard auto/3`), started a second apart with no start time: they check
/// in, their timed steps start within 50 ms of each other (their interval logs, on absolute
/// time), and they merge as under Slurm.
#[test]
fn clients_on_separate_hosts_start_together_and_merge() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let hosts: Vec<Host> = (0..3).map(Host::new).collect();
    let to = SocketAddr::from(([127, 0, 0, 1], port));
    for n in 0..3 {
        relay(SocketAddr::from(([10, 231, n as u8, 1], port)), to);
    }
    let (drop, merged, waiting) = merge_waiting(dir.path());
    let clients: Vec<_> = (hosts.iter().enumerate())
        .map(|(n, host)| {
            if n > 0 {
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
            let url = format!("postgresql://hakari@10.231.{n}.1:{port}/hakari");
            Command::new("ip")
                .args(["netns", "exec", &host.name])
                .arg(env!("CARGO_BIN_EXE_hakari"))
                .args(tpcb_client(&url, "auto/3", &into(&drop)))
                .env("JOB_COMPLETION_INDEX", n.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for client in clients {
        let o = client.wait_with_output().unwrap();
        assert!(o.status.success(), "a client failed: {}", stderr(&o));
    }
    let o = waiting.wait_with_output().unwrap();
    assert!(o.status.success(), "merge --wait: {}", stderr(&o));
    let result = hakari::results::store::read(&merged).unwrap();
    assert_placed_by(&result, 3, Some(hakari::shard::Scheduler::Kubernetes));
    let clients = clients_of(&drop);
    let sum = assert_within_window(&result, &clients);
    let starts: Vec<f64> = (clients.iter())
        .map(|r| intervals(&drop.join(format!("{}.hlog", r.run_id)))[0].0)
        .collect();
    let spread = starts.iter().copied().fold(f64::MIN, f64::max)
        - starts.iter().copied().fold(f64::MAX, f64::min);
    eprintln!(
        "steps started within {:.1} ms; merged {} of the clients' {sum}",
        spread * 1000.0,
        result.measurements[0].runs[0].ops
    );
    assert!(
        spread * 1000.0 < 50.0,
        "the clients' steps started {:.1} ms apart at most",
        spread * 1000.0
    );
}

/// deploy/ansible's playbook on an inventory of three clients (all this machine, reached by
/// Ansible's local connection, as three SSH hosts would be): each runs its shard, its place in
/// the group, with no start time; the playbook gathers their results here and merges them: the
/// merged run is the window they shared, and the database counted what the clients counted.
#[test]
fn the_ansible_playbook_runs_a_client_per_host_and_merges_them() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let (_server, url, mut db) = counting_postgres(dir.path());
    let inventory = dir.path().join("clients.ini");
    std::fs::write(
        &inventory,
        "[hakari_clients]\nc1\nc2\nc3\n\n[all:vars]\nansible_connection=local\n\
         ansible_python_interpreter=/usr/bin/python3\n",
    )
    .unwrap();
    let collect = dir.path().join("results");
    let bin = env!("CARGO_BIN_EXE_hakari");
    let vars = serde_json::json!({
        "url": url,
        "hakari": bin,
        "merger": bin,
        "collect": collect,
        "hakari_args": "--clients 1 --duration 4 --runs 1 --scale 3 --accounts-per-branch 100",
    });
    let o = Command::new("timeout")
        .args(["300", "ansible-playbook", "-i"])
        .arg(&inventory)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/deploy/ansible/tpcb.yml"
        ))
        .args(["-e", &vars.to_string()])
        .env("ANSIBLE_HOME", dir.path().join("ansible"))
        .env("ANSIBLE_LOCALHOST_WARNING", "false")
        .output()
        .unwrap_or_else(|e| panic!("ansible-playbook (scripts/setup.sh --with-test-tools): {e}"));
    assert!(
        o.status.success(),
        "ansible-playbook: {}{}",
        String::from_utf8_lossy(&o.stdout),
        stderr(&o)
    );
    let result = hakari::results::store::read(&collect.join("merged.json")).unwrap();
    assert_placed_by(&result, 3, None);
    let sum = assert_within_window(&result, &clients_of(&collect));
    assert_counted_by_the_database(&mut db, sum);
}

/// Clients that share no disk: each leaves its result and interval log in the database it ran
/// against (`--out URL`); `merge --from URL --wait 3`, started before them, fetches them,
/// merges them and deletes them there (hakari's table is gone after). A database that cannot
/// be reached is refused before anything runs.
#[test]
fn clients_leave_results_in_the_database_and_merge_from_there() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let (_server, url, mut db) = counting_postgres(dir.path());
    let merged = dir.path().join("merged.json");
    let waiting = Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args(["merge", "--from", &url, "--wait", "3", "-o"])
        .arg(&merged)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = ["--out".to_string(), url.clone()];
    let clients: Vec<_> = (1..=3)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_hakari"))
                .args(tpcb_client(&url, &format!("{i}/3"), &out))
                .current_dir(dir.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for client in clients {
        let o = client.wait_with_output().unwrap();
        assert!(o.status.success(), "a client failed: {}", stderr(&o));
        assert!(stderr(&o).contains("left in"), "{}", stderr(&o));
    }
    let o = waiting.wait_with_output().unwrap();
    assert!(o.status.success(), "merge --from: {}", stderr(&o));
    let result = hakari::results::store::read(&merged).unwrap();
    assert_placed_by(&result, 3, None);
    // The window the clients shared, nearly all they did; the database counted all of it.
    let window = result.measurements[0].runs[0].ops;
    let counted: i64 = (db.query_one("SELECT count(*) FROM public.test_counted", &[]))
        .unwrap()
        .get(0);
    assert!(
        window as f64 <= counted as f64 && counted as f64 <= window as f64 / 0.9 + 3.0,
        "merged {window}, the database counted {counted}"
    );
    // Its schema too (the files go in a schema of their own on PostgreSQL, apart from the
    // run's schema, which a user named hakari has first in the search path).
    let left: i64 = (db.query_one(
        "SELECT count(*) FROM pg_namespace WHERE nspname = 'hakari_results'",
        &[],
    ))
    .unwrap()
    .get(0);
    assert_eq!(left, 0, "hakari's schema for the results is left behind");
    assert!(
        !dir.path().join("results").exists(),
        "a client wrote a results folder"
    );

    let o = Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args(tpcb_client(
            &url,
            "1/1",
            &[
                "--out".into(),
                "postgresql://hakari@127.0.0.1:1/none".into(),
            ],
        ))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("cannot reach"), "{}", stderr(&o));
}
