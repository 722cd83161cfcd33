//! Evaluating expressions as pgbench does (its types, coercions, overflow and NULL rules), and
//! checking them before any client starts: whatever can be found wrong from the constants
//! alone (a division by zero, `random` with min > max, an undefined variable) is found then.

use super::expr::{Expr, Func};
use super::random::{self, Prng, MIN_GAUSSIAN_PARAM, ZIPFIAN_PARAMS};
use super::value::Value;
use smallvec::SmallVec;

thread_local! {
    /// The script and command (from 1) this thread's client is at, for `debug()`'s line.
    static AT: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// Says which script and command (from 1) the calling thread's client runs next, as pgbench's
/// `debug()` names them.
pub fn at(script: usize, command: usize) {
    AT.with(|at| at.set((script, command)));
}

/// Evaluates `e` with a client's variables (by slot) and random stream.
pub fn eval(e: &Expr, vars: &[Option<Value>], rng: &mut Prng) -> Result<Value, String> {
    match e {
        Expr::Const(v) => Ok(v.clone()),
        Expr::Var { name, slot } => match vars.get(*slot).and_then(Option::as_ref) {
            Some(v) => v
                .in_expression()
                .map_err(|e| format!("variable :{name}: {e}")),
            None => Err(format!("undefined variable :{name}")),
        },
        Expr::Call(Func::And | Func::Or, args) => {
            let or = matches!(e, Expr::Call(Func::Or, _));
            let left = eval(&args[0], vars, rng)?;
            if left == Value::Null {
                return Ok(Value::Null);
            }
            if boolean(&left)? == or {
                return Ok(Value::Bool(or));
            }
            match eval(&args[1], vars, rng)? {
                Value::Null => Ok(Value::Null),
                right => Ok(Value::Bool(boolean(&right)?)),
            }
        }
        Expr::Call(Func::Case, args) => {
            for pair in args.chunks(2) {
                match pair {
                    [condition, then] => {
                        if truth(&eval(condition, vars, rng)?) {
                            return eval(then, vars, rng);
                        }
                    }
                    [otherwise] => return eval(otherwise, vars, rng),
                    _ => unreachable!("chunks of two"),
                }
            }
            Ok(Value::Null)
        }
        Expr::Call(f, args) => {
            // On the stack: evaluated for every `\set` of every transaction.
            let mut values = SmallVec::<[Value; 4]>::new();
            for a in args {
                values.push(eval(a, vars, rng)?);
            }
            apply(*f, &values, rng)
        }
    }
}

/// What is known of a value before the run: the value itself, or only that it is an integer
/// (a random draw), or nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum Known {
    Value(Value),
    Int,
    Any,
}

fn is_random(f: Func) -> bool {
    matches!(
        f,
        Func::Random | Func::RandomExponential | Func::RandomGaussian | Func::RandomZipfian
    )
}

/// Checks `e` with what is known of the variables (None: not defined at that point).
pub fn check(e: &Expr, vars: &[Option<Known>]) -> Result<Known, String> {
    match e {
        Expr::Const(v) => Ok(Known::Value(v.clone())),
        Expr::Var { name, slot } => match vars.get(*slot).cloned().flatten() {
            Some(Known::Value(v)) => v
                .in_expression()
                .map(Known::Value)
                .map_err(|e| format!("variable :{name}: {e}")),
            Some(k) => Ok(k),
            None => Err(format!("undefined variable :{name}")),
        },
        Expr::Call(Func::Debug, args) => check(&args[0], vars),
        Expr::Call(Func::And | Func::Or | Func::Case, _) => check_lazily(e, vars),
        Expr::Call(f, args) => {
            let known = (args.iter())
                .map(|a| check(a, vars))
                .collect::<Result<Vec<_>, _>>()?;
            let values: Option<Vec<Value>> = (known.iter())
                .map(|k| match k {
                    Known::Value(v) => Some(v.clone()),
                    _ => None,
                })
                .collect();
            if let Some(values) = values {
                // Every argument is known: evaluate it (a draw checks its arguments).
                let call = Expr::Call(*f, values.into_iter().map(Expr::Const).collect());
                let v = eval(&call, &[], &mut Prng::seeded(0))?;
                return Ok(if is_random(*f) {
                    Known::Int
                } else {
                    Known::Value(v)
                });
            }
            check_partly_known(*f, &known)?;
            Ok(match f {
                Func::Mod | Func::BitAnd | Func::BitOr | Func::BitXor | Func::Shl | Func::Shr => {
                    Known::Int
                }
                Func::Int | Func::HashMurmur2 | Func::HashFnv1a | Func::Permute => Known::Int,
                f if is_random(*f) => Known::Int,
                _ => Known::Any,
            })
        }
    }
}

/// AND, OR and CASE, which pgbench evaluates lazily: a branch not taken is never evaluated, so
/// an error in it (a division by zero) is no error. When every variable it reads is known and
/// it draws nothing, it is evaluated as the run will evaluate it; otherwise which branch runs is
/// not known before the run, and an error is left to the run that takes its branch.
fn check_lazily(e: &Expr, vars: &[Option<Known>]) -> Result<Known, String> {
    if !reads_only_known(e, vars) {
        return Ok(Known::Any);
    }
    let values: Vec<Option<Value>> = (vars.iter())
        .map(|k| match k {
            Some(Known::Value(v)) => Some(v.clone()),
            _ => None,
        })
        .collect();
    eval(e, &values, &mut Prng::seeded(0)).map(Known::Value)
}

/// Whether `e` reads only variables whose values are known and draws no random number.
fn reads_only_known(e: &Expr, vars: &[Option<Known>]) -> bool {
    match e {
        Expr::Const(_) => true,
        Expr::Var { slot, .. } => matches!(vars.get(*slot), Some(Some(Known::Value(_)))),
        Expr::Call(f, args) => !is_random(*f) && args.iter().all(|a| reads_only_known(a, vars)),
    }
}

/// The checks that need only some arguments known.
fn check_partly_known(f: Func, known: &[Known]) -> Result<(), String> {
    let int_of = |k: &Known| match k {
        Known::Value(v) => int(v).ok(),
        _ => None,
    };
    match f {
        Func::Div | Func::Mod => {
            let integer_division =
                f == Func::Mod || matches!(known[0], Known::Int | Known::Value(Value::Int(_)));
            if integer_division && known[1] == Known::Value(Value::Int(0)) {
                return Err("division by zero".into());
            }
        }
        f if is_random(f) => {
            if let (Some(min), Some(max)) = (int_of(&known[0]), int_of(&known[1])) {
                random_range(min, max)?;
            }
            if let Some(Known::Value(p)) = known.get(2) {
                random_parameter(f, double(p)?)?;
            }
        }
        Func::Permute if int_of(&known[1]).is_some_and(|size| size <= 0) => {
            return Err("permute size parameter must be greater than zero".into());
        }
        _ => {}
    }
    Ok(())
}

pub fn truth(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Double(d) => *d != 0.0,
        Value::Text(t) => !t.is_empty(),
    }
}

fn boolean(v: &Value) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => Err(format!("cannot coerce {} to boolean", other.type_name())),
    }
}

fn int(v: &Value) -> Result<i64, String> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Double(d) => {
            let r = d.round_ties_even();
            // NaN is in no range.
            if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
                return Err(format!("double to int overflow for {d}"));
            }
            Ok(r as i64)
        }
        other => Err(format!("cannot coerce {} to int", other.type_name())),
    }
}

fn double(v: &Value) -> Result<f64, String> {
    match v {
        Value::Int(i) => Ok(*i as f64),
        Value::Double(d) => Ok(*d),
        other => Err(format!("cannot coerce {} to double", other.type_name())),
    }
}

fn random_range(min: i64, max: i64) -> Result<(), String> {
    if min > max {
        return Err(format!("empty range given to random: {min} > {max}"));
    }
    if max
        .checked_sub(min)
        .and_then(|d| d.checked_add(1))
        .is_none()
    {
        return Err("random range is too large".into());
    }
    Ok(())
}

fn random_parameter(f: Func, p: f64) -> Result<(), String> {
    match f {
        // A NaN parameter is refused too: the draw would loop for ever.
        Func::RandomGaussian if !p.is_finite() || p < MIN_GAUSSIAN_PARAM => Err(format!(
            "gaussian parameter must be at least {MIN_GAUSSIAN_PARAM} (not {p})"
        )),
        Func::RandomZipfian if !(ZIPFIAN_PARAMS.0..=ZIPFIAN_PARAMS.1).contains(&p) => Err(format!(
            "zipfian parameter must be in range [{}, {}] (not {p})",
            ZIPFIAN_PARAMS.0, ZIPFIAN_PARAMS.1
        )),
        Func::RandomExponential if !p.is_finite() || p <= 0.0 => Err(format!(
            "exponential parameter must be greater than zero (not {p})"
        )),
        _ => Ok(()),
    }
}

/// A function applied to evaluated arguments (not the lazy AND, OR and CASE).
fn apply(f: Func, args: &[Value], rng: &mut Prng) -> Result<Value, String> {
    use Func::*;
    if f != Is && f != Debug && args.iter().any(|a| matches!(a, Value::Null)) {
        return Ok(Value::Null);
    }
    Ok(match f {
        Add | Sub | Mul | Div | Mod | Eq | Ne | Le | Lt => arithmetic(f, &args[0], &args[1])?,
        BitAnd | BitOr | BitXor | Shl | Shr => {
            let (a, b) = (int(&args[0])?, int(&args[1])?);
            Value::Int(match f {
                BitAnd => a & b,
                BitOr => a | b,
                BitXor => a ^ b,
                _ if !(0..64).contains(&b) => return Err(format!("shift by {b} is out of range")),
                Shl => a << b,
                _ => a >> b,
            })
        }
        Not => Value::Bool(!boolean(&args[0])?),
        Is => Value::Bool(match (&args[0], &args[1]) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            _ => false,
        }),
        Pi => Value::Double(std::f64::consts::PI),
        Abs => match &args[0] {
            Value::Int(i) => Value::Int(i.checked_abs().ok_or("bigint abs out of range")?),
            v => Value::Double(double(v)?.abs()),
        },
        Debug => {
            // As pgbench prints it: where, the type, then the value (NULL is only "null").
            let (script, command) = AT.with(|at| at.get());
            let at = format!("debug(script={script},command={command})");
            match &args[0] {
                Value::Null => eprintln!("{at}: null"),
                v => eprintln!("{at}: {} {v}", v.type_name()),
            }
            args[0].clone()
        }
        Double => Value::Double(double(&args[0])?),
        Sqrt => Value::Double(double(&args[0])?.sqrt()),
        Ln => Value::Double(double(&args[0])?.ln()),
        Exp => Value::Double(double(&args[0])?.exp()),
        Int => Value::Int(int(&args[0])?),
        Pow => Value::Double(double(&args[0])?.powf(double(&args[1])?)),
        Least | Greatest => extremum(f == Least, args)?,
        Random | RandomExponential | RandomGaussian | RandomZipfian => {
            let (min, max) = (int(&args[0])?, int(&args[1])?);
            random_range(min, max)?;
            Value::Int(match f {
                Random => rng.uniform(min, max),
                _ => {
                    let p = double(&args[2])?;
                    random_parameter(f, p)?;
                    match f {
                        RandomExponential => rng.exponential(min, max, p),
                        RandomGaussian => rng.gaussian(min, max, p),
                        _ => rng.zipfian(min, max, p),
                    }
                }
            })
        }
        HashMurmur2 => Value::Int(random::murmur2(int(&args[0])?, int(&args[1])?)),
        HashFnv1a => Value::Int(random::fnv1a(int(&args[0])?, int(&args[1])?)),
        Permute => {
            let (v, size, seed) = (int(&args[0])?, int(&args[1])?, int(&args[2])?);
            if size <= 0 {
                return Err("permute size parameter must be greater than zero".into());
            }
            Value::Int(random::permute(v, size, seed))
        }
        And | Or | Case => unreachable!("evaluated lazily"),
    })
}

/// `+ - * / %` and comparisons: in doubles when either side is one (not `%`), else in
/// integers with overflow checked.
fn arithmetic(f: Func, a: &Value, b: &Value) -> Result<Value, String> {
    use Func::*;
    let doubles = f != Mod && (matches!(a, Value::Double(_)) || matches!(b, Value::Double(_)));
    if doubles {
        let (x, y) = (double(a)?, double(b)?);
        return Ok(match f {
            Add => Value::Double(x + y),
            Sub => Value::Double(x - y),
            Mul => Value::Double(x * y),
            Div => Value::Double(x / y),
            Eq => Value::Bool(x == y),
            Ne => Value::Bool(x != y),
            Le => Value::Bool(x <= y),
            _ => Value::Bool(x < y),
        });
    }
    let (x, y) = (int(a)?, int(b)?);
    let overflow = |what: &str| format!("bigint {what} out of range");
    Ok(match f {
        Add => Value::Int(x.checked_add(y).ok_or_else(|| overflow("add"))?),
        Sub => Value::Int(x.checked_sub(y).ok_or_else(|| overflow("sub"))?),
        Mul => Value::Int(x.checked_mul(y).ok_or_else(|| overflow("mul"))?),
        Div | Mod if y == 0 => return Err("division by zero".into()),
        Div => Value::Int(x.checked_div(y).ok_or_else(|| overflow("div"))?),
        // i64::MIN % -1 is 0, which checked_rem would call an overflow.
        Mod => Value::Int(x.checked_rem(y).unwrap_or(0)),
        Eq => Value::Bool(x == y),
        Ne => Value::Bool(x != y),
        Le => Value::Bool(x <= y),
        _ => Value::Bool(x < y),
    })
}

fn extremum(least: bool, args: &[Value]) -> Result<Value, String> {
    if args.iter().any(|a| matches!(a, Value::Double(_))) {
        let values = args.iter().map(double).collect::<Result<Vec<_>, _>>()?;
        let pick = if least { f64::min } else { f64::max };
        return Ok(Value::Double(
            values.into_iter().reduce(pick).unwrap_or(0.0),
        ));
    }
    let values = args.iter().map(int).collect::<Result<Vec<_>, _>>()?;
    let v = if least {
        values.iter().min()
    } else {
        values.iter().max()
    };
    Ok(Value::Int(v.copied().unwrap_or(0)))
}

#[cfg(test)]
mod tests;
