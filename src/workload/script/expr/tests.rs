use super::*;

fn int(i: i64) -> Expr {
    Expr::Const(Value::Int(i))
}

fn var(name: &str) -> Expr {
    Expr::Var {
        name: name.into(),
        slot: 0,
    }
}

#[test]
fn precedence_is_pgbenchs() {
    // * binds before +, + before a comparison, a comparison before AND, AND before OR.
    assert_eq!(
        parse("1 + 2 * 3").unwrap(),
        call(
            Func::Add,
            vec![int(1), call(Func::Mul, vec![int(2), int(3)])]
        )
    );
    assert_eq!(
        parse("1 - 2 - 3").unwrap(),
        call(
            Func::Sub,
            vec![call(Func::Sub, vec![int(1), int(2)]), int(3)]
        )
    );
    assert_eq!(
        parse(":a < 2 and :b >= 3 or not true").unwrap(),
        call(
            Func::Or,
            vec![
                call(
                    Func::And,
                    vec![
                        call(Func::Lt, vec![var("a"), int(2)]),
                        call(Func::Le, vec![int(3), var("b")])
                    ]
                ),
                call(Func::Not, vec![Expr::Const(Value::Bool(true))])
            ]
        )
    );
    assert_eq!(
        parse("-(4) % 3").unwrap(),
        call(
            Func::Mod,
            vec![call(Func::Sub, vec![int(0), int(4)]), int(3)]
        )
    );
    assert_eq!(
        parse("1 << 2 | 1").unwrap(),
        call(
            Func::BitOr,
            vec![call(Func::Shl, vec![int(1), int(2)]), int(1)]
        )
    );
}

#[test]
fn constants_functions_and_case() {
    assert_eq!(parse("2.5e1").unwrap(), Expr::Const(Value::Double(25.0)));
    assert_eq!(parse(".5").unwrap(), Expr::Const(Value::Double(0.5)));
    assert_eq!(parse("NULL").unwrap(), Expr::Const(Value::Null));
    assert_eq!(
        parse("random(1, 10 * :scale)").unwrap(),
        call(
            Func::Random,
            vec![int(1), call(Func::Mul, vec![int(10), var("scale")])]
        )
    );
    // The hashes and permute take :default_seed when no seed is given.
    assert_eq!(
        parse("hash(:x)").unwrap(),
        call(Func::HashMurmur2, vec![var("x"), var("default_seed")])
    );
    assert_eq!(
        parse("permute(:x, 10, 7)").unwrap(),
        call(Func::Permute, vec![var("x"), int(10), int(7)])
    );
    assert_eq!(
        parse("CASE WHEN :x = 1 THEN 10 ELSE 20 END").unwrap(),
        call(
            Func::Case,
            vec![call(Func::Eq, vec![var("x"), int(1)]), int(10), int(20)]
        )
    );
    assert_eq!(
        parse(":x IS NOT NULL").unwrap(),
        call(
            Func::Not,
            vec![call(Func::Is, vec![var("x"), Expr::Const(Value::Null)])]
        )
    );
    assert!(parse("greatest(1, 2.5, :y)").is_ok());
    assert!(parse("pi()").is_ok());
    assert!(parse("random_zipfian(1, 100, 1.5)").is_ok());
}

#[test]
fn bad_expressions_say_where() {
    let e = parse("random(1, 2").unwrap_err();
    assert_eq!(
        (e.at, e.message.as_str()),
        (11, "expected ')', found end of expression")
    );
    let e = parse("1 + ").unwrap_err();
    assert_eq!(
        (e.at, e.message.as_str()),
        (4, "unexpected end of expression")
    );
    let e = parse("rnd(1)").unwrap_err();
    assert_eq!((e.at, e.message.as_str()), (0, "unknown function 'rnd'"));
    let e = parse("random(1)").unwrap_err();
    assert_eq!(e.message, "random() takes 2 argument(s), 1 given");
    let e = parse("2 $ 3").unwrap_err();
    assert_eq!((e.at, e.message.as_str()), (2, "unexpected character '$'"));
    let e = parse("1 2").unwrap_err();
    assert_eq!(e.message, "unexpected number 2 after the expression");
    let e = parse("99999999999999999999").unwrap_err();
    assert!(e.message.contains("out of range"), "{}", e.message);
    let e = parse(": x").unwrap_err();
    assert_eq!(e.at, 0);
    let e = parse("CASE 1 END").unwrap_err();
    assert_eq!(e.message, "expected WHEN after CASE");
}
