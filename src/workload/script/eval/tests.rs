use super::super::expr::parse;
use super::*;

fn run(text: &str) -> Result<Value, String> {
    let mut e = parse(text).unwrap();
    // Slot 0 is :x = 7, slot 1 is :d = 2.5, slot 2 is undefined.
    e.resolve(&mut |name| match name {
        "x" => 0,
        "d" => 1,
        _ => 2,
    });
    let vars = [Some(Value::Int(7)), Some(Value::Text("2.5".into())), None];
    eval(&e, &vars, &mut Prng::seeded(1))
}

fn checked(text: &str) -> Result<Known, String> {
    let mut e = parse(text).unwrap();
    e.resolve(&mut |name| match name {
        "x" => 0,
        "r" => 1,
        _ => 2,
    });
    check(
        &e,
        &[Some(Known::Value(Value::Int(7))), Some(Known::Int), None],
    )
}

#[test]
fn arithmetic_as_pgbench() {
    assert_eq!(run("1 + 2 * 3"), Ok(Value::Int(7)));
    assert_eq!(run("7 / 2"), Ok(Value::Int(3)));
    assert_eq!(run("-7 / 2"), Ok(Value::Int(-3)));
    assert_eq!(run("-7 % 3"), Ok(Value::Int(-1)));
    assert_eq!(run("7.0 / 2"), Ok(Value::Double(3.5)));
    assert_eq!(run(":x * :d"), Ok(Value::Double(17.5)));
    assert_eq!(
        run("5 % 2.5"),
        Ok(Value::Int(1)),
        "% works in integers (2.5 rounds to 2)"
    );
    assert_eq!(
        run("int(2.5) + int(3.5)"),
        Ok(Value::Int(6)),
        "rounding half to even"
    );
    assert_eq!(
        run("abs(-3) + least(4, 2, 9) + greatest(1, 5)"),
        Ok(Value::Int(10))
    );
    assert_eq!(run("greatest(1, 2.5)"), Ok(Value::Double(2.5)));
    assert_eq!(run("pow(2, 10)"), Ok(Value::Double(1024.0)));
    assert_eq!(run("~0"), Ok(Value::Int(-1)));
    assert_eq!(run("6 & 3 | 8 # 1"), Ok(Value::Int(11)));
    assert_eq!(run("1 << 4 >> 2"), Ok(Value::Int(4)));
    assert_eq!(
        run("9223372036854775807 + 1"),
        Err("bigint add out of range".into())
    );
    assert_eq!(run("1 / 0"), Err("division by zero".into()));
    assert_eq!(run("1.0 / 0"), Ok(Value::Double(f64::INFINITY)));
    assert_eq!(run(":nope + 1"), Err("undefined variable :nope".into()));
}

#[test]
fn logic_nulls_and_case() {
    assert_eq!(run("1 < 2 AND 2 <= 2"), Ok(Value::Bool(true)));
    assert_eq!(run("1 <> 1 OR 3 > 2"), Ok(Value::Bool(true)));
    assert_eq!(
        run("false AND 1 / 0 = 1"),
        Ok(Value::Bool(false)),
        "AND is lazy"
    );
    assert_eq!(run("NULL + 1"), Ok(Value::Null));
    assert_eq!(run("NULL IS NULL"), Ok(Value::Bool(true)));
    assert_eq!(run(":x IS NULL"), Ok(Value::Bool(false)));
    assert_eq!(run("true IS TRUE"), Ok(Value::Bool(true)));
    assert_eq!(run("CASE WHEN :x > 5 THEN 1 ELSE 2 END"), Ok(Value::Int(1)));
    assert_eq!(run("CASE WHEN :x > 50 THEN 1 END"), Ok(Value::Null));
    assert_eq!(run("NOT 1"), Err("cannot coerce int to boolean".into()));
}

#[test]
fn random_functions_check_their_arguments() {
    for _ in 0..100 {
        let Ok(Value::Int(v)) = run("random(5, 8)") else {
            panic!()
        };
        assert!((5..=8).contains(&v));
    }
    assert!(matches!(
        run("random_exponential(1, 10, 2.5)"),
        Ok(Value::Int(1..=10))
    ));
    assert!(matches!(
        run("random_gaussian(1, 10, 2.5)"),
        Ok(Value::Int(1..=10))
    ));
    assert!(matches!(
        run("random_zipfian(1, 10, 1.5)"),
        Ok(Value::Int(1..=10))
    ));
    assert_eq!(
        run("random(10, 1)"),
        Err("empty range given to random: 10 > 1".into())
    );
    assert!(run("random_gaussian(1, 10, 1.5)")
        .unwrap_err()
        .contains("at least 2"));
    assert!(run("random_zipfian(1, 10, 1.0)")
        .unwrap_err()
        .contains("zipfian parameter"));
    assert!(run("random_exponential(1, 10, 0)")
        .unwrap_err()
        .contains("greater than zero"));
    assert!(run("random(-9223372036854775807, 9223372036854775807)")
        .unwrap_err()
        .contains("too large"));
    assert_eq!(
        run("permute(3, 0)"),
        Err("undefined variable :default_seed".into())
    );
    assert_eq!(
        run("permute(3, 10, 5)"),
        Ok(Value::Int(super::random::permute(3, 10, 5)))
    );
    assert_eq!(
        run("hash_fnv1a(5, 1)"),
        Ok(Value::Int(super::random::fnv1a(5, 1)))
    );
}

#[test]
fn checks_find_what_constants_show() {
    // Known from constants and --set values: evaluated now.
    assert_eq!(checked(":x * 2"), Ok(Known::Value(Value::Int(14))));
    assert_eq!(checked("random(1, :x)"), Ok(Known::Int));
    assert_eq!(checked(":r + 1"), Ok(Known::Any));
    // Errors the constants show, before any client starts.
    assert_eq!(checked("1 / (:x - 7)"), Err("division by zero".into()));
    assert_eq!(
        checked(":r / 0"),
        Err("division by zero".into()),
        "a random number is an integer"
    );
    assert_eq!(checked(":r % 0"), Err("division by zero".into()));
    assert_eq!(
        checked("random(:x, 1)"),
        Err("empty range given to random: 7 > 1".into())
    );
    assert!(checked("random_gaussian(:r, 10, 1.0)")
        .unwrap_err()
        .contains("at least 2"));
    assert!(checked("permute(:r, 0, 1)")
        .unwrap_err()
        .contains("greater than zero"));
    assert_eq!(checked(":y + 1"), Err("undefined variable :y".into()));
    // What depends on a draw is left to the run.
    assert_eq!(checked("1 / :r"), Ok(Known::Any));
    assert_eq!(checked("(:r * 1.0) / 0"), Ok(Known::Any));
}
