//! Several client machines under Slurm, for real: a private one-node Slurm cluster
//! (`scripts/slurm-local.sh`: munged, slurmctld and slurmd with a configuration of their own,
//! stopped and removed after), `srun --overcommit -n 3` starting three tpcb clients with
//! `--shard auto` and no start time against one private PostgreSQL, and `hakari merge --wait 3`
//! gathering them.

mod common;
use common::{assert_placed_by_slurm, private_postgres, stderr};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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
    let dir = tempfile::tempdir().unwrap();
    let _slurm = Slurm::start(&dir.path().join("slurm"));
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let mut db = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    db.batch_execute(COUNT_HISTORY).unwrap();

    let drop = dir.path().join("results");
    std::fs::create_dir(&drop).unwrap();
    let merged = dir.path().join("merged.json");
    let waiting = Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args(["merge", "--wait", "3", drop.to_str().unwrap()])
        .args(["-o", merged.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drop_s = drop.to_str().unwrap();
    let o = Command::new("timeout")
        .args(["300", "srun", "--quiet", "--overcommit", "-n", "3"])
        .arg(env!("CARGO_BIN_EXE_hakari"))
        .args([
            "run",
            "tpcb",
            "--clients",
            "1",
            "--duration",
            "4",
            "--runs",
            "1",
        ])
        .args(["--scale", "3", "--accounts-per-branch", "100"])
        .args(["--engine", "postgres", "--url", &url, "--shard", "auto"])
        .args(["--hlog", drop_s, "--out", drop_s])
        .env("SLURM_CONF", dir.path().join("slurm/slurm.conf"))
        .output()
        .unwrap();
    assert!(o.status.success(), "srun: {}", stderr(&o));
    let o = waiting.wait_with_output().unwrap();
    assert!(o.status.success(), "merge --wait: {}", stderr(&o));

    let result = hakari::results::store::read(&merged).unwrap();
    assert_placed_by_slurm(&result, 3);

    let clients: Vec<_> = hakari::results::store::expand(std::slice::from_ref(&drop))
        .unwrap()
        .iter()
        .map(|f| hakari::results::store::read(f).unwrap())
        .filter(|r| r.merged_from.is_empty())
        .collect();
    assert_eq!(clients.len(), 3);
    let sum: u64 = (clients.iter())
        .map(|r| r.measurements[0].runs[0].ops)
        .sum();
    // The merged run is the window all three were running in; started together, that is
    // nearly all of what they did.
    let window = result.measurements[0].runs[0].ops;
    assert!(
        window <= sum && window as f64 >= 0.9 * sum as f64,
        "merged {window} of the clients' {sum}"
    );
    // Each transaction counted inserted one history row; a client's last one, in flight as its
    // step ended, may have committed uncounted.
    let counted: i64 = (db.query_one("SELECT count(*) FROM public.test_counted", &[]))
        .unwrap()
        .get(0);
    assert!(
        (sum..=sum + 3).contains(&(counted as u64)),
        "the database counted {counted} transactions, the clients {sum}"
    );
}
