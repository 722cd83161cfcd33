use super::*;

fn sql(step: &Step) -> &Sql {
    match &step.command {
        Command::Sql(s) => s,
        other => panic!("not SQL: {other:?}"),
    }
}

/// pgbench's built-in TPC-B (sort of), as `--builtin tpcb-like` runs it.
const TPCB: &str = include_str!("../builtin/tpcb-like.sql");

#[test]
fn pgbenchs_own_script_reads() {
    let steps = parse("tpcb.sql", TPCB).unwrap();
    assert_eq!(steps.len(), 11);
    assert!(matches!(&steps[0].command, Command::Set { target, .. } if target.name == "aid"));
    assert_eq!(steps[0].at, Position { line: 2, column: 1 });
    assert_eq!(sql(&steps[4]).control, Some(Control::Begin));
    let update = sql(&steps[5]);
    assert_eq!(
        update.text,
        "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?"
    );
    let names: Vec<&str> = update.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["delta", "aid"]);
    assert_eq!(
        update.params[0].at,
        Position {
            line: 7,
            column: 51
        }
    );
    let insert = sql(&steps[9]);
    assert_eq!(insert.params.len(), 4);
    assert_eq!(
        insert.shown,
        "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP)"
    );
    assert_eq!(steps[9].at.line, 11);
    assert_eq!(sql(&steps[10]).control, Some(Control::Commit));
}

#[test]
fn quotes_casts_comments_and_continuations() {
    let text = "SELECT ':no', \"a:b\", 1::int, $$ :x ; $$, $t$;$t$ /* :c; */ FROM t -- :d ;\n WHERE k = :k;\n\\set n 1 + \\\n  2\n\\sleep :n ms\n\\sleep 5\nSELECT 1";
    let steps = parse("s.sql", text).unwrap();
    assert_eq!(steps.len(), 5);
    let s = sql(&steps[0]);
    assert_eq!(s.params.len(), 1);
    assert_eq!(s.params[0].name, "k");
    assert!(s
        .text
        .starts_with("SELECT ':no', \"a:b\", 1::int, $$ :x ; $$, $t$;$t$   FROM t"));
    assert!(s.text.ends_with("WHERE k = ?"));
    assert!(!s.text.contains(":d"));
    assert!(matches!(&steps[1].command, Command::Set { .. }));
    assert!(
        matches!(&steps[2].command, Command::Sleep { amount: Amount::Var(v), micros: 1000 } if v.name == "n")
    );
    assert!(matches!(
        &steps[3].command,
        Command::Sleep {
            amount: Amount::Fixed(5),
            micros: 1_000_000
        }
    ));
    assert_eq!(sql(&steps[4]).text, "SELECT 1");
    // START TRANSACTION, COMMIT WORK, ROLLBACK, ABORT; a BEGIN with options runs as written,
    // the transaction then open.
    let steps = parse(
        "t.sql",
        "start transaction; commit work; ROLLBACK; abort; BEGIN ISOLATION LEVEL SERIALIZABLE;",
    )
    .unwrap();
    let controls: Vec<Option<Control>> = steps.iter().map(|s| sql(s).control).collect();
    use Control::*;
    assert_eq!(
        controls,
        [
            Some(Begin),
            Some(Commit),
            Some(Rollback),
            Some(Rollback),
            Some(Open)
        ]
    );
}

#[test]
fn escape_strings_and_nested_comments_scan_as_postgresql_scans_them() {
    let steps = parse(
        "t.sql",
        "SELECT E'it\\'s :no;', e'\\\\', 'plain\\' /* a /* nested; */ :c; */ FROM t WHERE k = :k;",
    )
    .unwrap();
    assert_eq!(steps.len(), 1);
    let s = sql(&steps[0]);
    assert_eq!(
        s.text,
        "SELECT E'it\\'s :no;', e'\\\\', 'plain\\'   FROM t WHERE k = ?"
    );
    assert_eq!(s.params.len(), 1);
    // Without the E, a backslash is an ordinary character: the quote ends the string.
    let steps = parse("t.sql", "SELECT 'a\\' , :x;").unwrap();
    assert_eq!(sql(&steps[0]).params[0].name, "x");
    assert_eq!(
        error("SELECT 1 /* a /* b */"),
        "bad.sql:1:10: unterminated /* comment"
    );
}

#[test]
fn gset_and_aset_store_the_statement_before_them() {
    let steps = parse(
        "t.sql",
        "SELECT 1 AS one \\gset\nSELECT 2 AS two;\n\\aset p_\n",
    )
    .unwrap();
    let store = |i: usize| sql(&steps[i]).store.clone().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!((store(0).prefix.as_str(), store(0).any_rows), ("", false));
    assert_eq!((store(1).prefix.as_str(), store(1).any_rows), ("p_", true));
}

fn error(text: &str) -> String {
    parse("bad.sql", text).unwrap_err().to_string()
}

#[test]
fn bad_scripts_name_file_line_and_column() {
    assert_eq!(
        error("SELECT 1;\n\\set x random(1, \n"),
        "bad.sql:2:17: unexpected end of expression"
    );
    assert_eq!(error("\\set x 1 +* 2"), "bad.sql:1:11: unexpected '*'");
    assert_eq!(
        error("\\set 9x 1"),
        "bad.sql:1:6: \\set needs a variable name, found '9x'"
    );
    assert_eq!(error("\\set x"), "bad.sql:1:7: \\set x needs an expression");
    assert_eq!(
        error("\n  \\sleep 10 hours"),
        "bad.sql:2:13: unknown time unit 'hours' (us, ms or s)"
    );
    assert_eq!(
        error("\\sleep"),
        "bad.sql:1:7: \\sleep needs an amount of time"
    );
    assert_eq!(
        error("\\frobnicate"),
        "bad.sql:1:1: unknown meta-command '\\frobnicate'"
    );
    assert_eq!(error("\\shell"), "bad.sql:1:7: \\shell needs a command");
    assert_eq!(
        error("\\setshell 9x echo 1"),
        "bad.sql:1:11: \\setshell needs a variable name, found '9x'"
    );
    assert_eq!(
        error("\\set a 1\n\\gset"),
        "bad.sql:2:1: \\gset must follow an SQL command"
    );
    assert_eq!(
        error("SELECT 1 \\aset x y"),
        "bad.sql:1:16: \\aset takes one prefix, found 'x y'"
    );
    assert_eq!(error("\\if"), "bad.sql:1:4: \\if needs a condition");
    assert_eq!(
        error("\\if 1\n\\else 2"),
        "bad.sql:2:7: unexpected argument"
    );
    assert_eq!(
        error("SELECT 'open"),
        "bad.sql:1:8: unterminated quoted text"
    );
    assert_eq!(
        error("SELECT $q$ x"),
        "bad.sql:1:8: unterminated dollar-quoted text ($q$)"
    );
    assert_eq!(
        error("SELECT 1 /* x"),
        "bad.sql:1:10: unterminated /* comment"
    );
    assert!(error("SELECT * FROM t WHERE j ? 'k'").starts_with("bad.sql:1:25: '?' outside quotes"));
}

#[test]
fn compounds_join_their_statements_and_aset_stores_each() {
    let steps = parse(
        "c.sql",
        "SELECT 1 AS a \\; SELECT 2 AS b \\aset p_\nSELECT 3 \\; SELECT 4 \\gset\nSELECT 5 \\;\n\\set x 1\n",
    )
    .unwrap();
    let joined: Vec<bool> = steps[..5].iter().map(|s| sql(s).joined).collect();
    // A compound ends at its last statement, or where a meta-command follows its `\;`.
    assert_eq!(joined, [true, false, true, false, false]);
    let stored: Vec<bool> = steps[..4].iter().map(|s| sql(s).store.is_some()).collect();
    assert_eq!(stored, [true, true, false, true]);
    assert_eq!(sql(&steps[1]).text, "SELECT 2 AS b");
}

#[test]
fn pipeline_commands_read_and_take_no_argument() {
    let steps = parse(
        "p.sql",
        "\\startpipeline\nSELECT 1;\n\\syncpipeline\n\\endpipeline\n",
    )
    .unwrap();
    assert_eq!(steps[0].command, Command::Pipeline(Pipeline::Start));
    assert_eq!(steps[2].command, Command::Pipeline(Pipeline::Sync));
    assert_eq!(steps[3].command, Command::Pipeline(Pipeline::End));
    let e = parse("p.sql", "\\endpipeline now\n").unwrap_err();
    assert_eq!(e.to_string(), "p.sql:1:14: unexpected argument");
}
