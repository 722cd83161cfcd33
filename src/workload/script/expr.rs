//! pgbench's expression language (`\set name expression`): integers, doubles, booleans and
//! NULL; `:variables`; arithmetic, comparison, bitwise and logical operators with pgbench's
//! precedence; `CASE WHEN ... THEN ... ELSE ... END`; and its functions. Parsed into an
//! [`Expr`] tree; `eval.rs` evaluates it.

use super::value::Value;

/// A function or operator, by what it computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    And,
    Or,
    Not,
    Is,
    Case,
    Abs,
    Least,
    Greatest,
    Debug,
    Pi,
    Sqrt,
    Ln,
    Exp,
    Int,
    Double,
    Pow,
    Random,
    RandomExponential,
    RandomGaussian,
    RandomZipfian,
    HashMurmur2,
    HashFnv1a,
    Permute,
}

/// How many arguments a function takes: at least, at most; and whether a missing last one is
/// `:default_seed` (the hashes and `permute`).
fn arity(f: Func) -> (usize, usize, bool) {
    use Func::*;
    match f {
        Pi => (0, 0, false),
        Abs | Debug | Sqrt | Ln | Exp | Int | Double | Not => (1, 1, false),
        Least | Greatest => (1, usize::MAX, false),
        Pow | Random => (2, 2, false),
        RandomExponential | RandomGaussian | RandomZipfian => (3, 3, false),
        HashMurmur2 | HashFnv1a => (1, 2, true),
        Permute => (2, 3, true),
        _ => (2, 2, false),
    }
}

fn function(name: &str) -> Option<Func> {
    use Func::*;
    Some(match name.to_ascii_lowercase().as_str() {
        "abs" => Abs,
        "least" => Least,
        "greatest" => Greatest,
        "debug" => Debug,
        "pi" => Pi,
        "sqrt" => Sqrt,
        "ln" => Ln,
        "exp" => Exp,
        "int" => Int,
        "double" => Double,
        "pow" | "power" => Pow,
        "mod" => Mod,
        "random" => Random,
        "random_exponential" => RandomExponential,
        "random_gaussian" => RandomGaussian,
        "random_zipfian" => RandomZipfian,
        "hash" | "hash_murmur2" => HashMurmur2,
        "hash_fnv1a" => HashFnv1a,
        "permute" => Permute,
        _ => return None,
    })
}

/// An expression tree. Variables are named, and given their slot in the client's variables
/// once every script is read (`slot`).
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(Value),
    Var { name: String, slot: usize },
    Call(Func, Vec<Expr>),
}

impl Expr {
    /// Gives each variable its slot.
    pub fn resolve(&mut self, slot_of: &mut dyn FnMut(&str) -> usize) {
        match self {
            Expr::Const(_) => {}
            Expr::Var { name, slot } => *slot = slot_of(name),
            Expr::Call(_, args) => args.iter_mut().for_each(|a| a.resolve(slot_of)),
        }
    }
}

/// A parse error at a byte offset of the expression text.
#[derive(Debug, PartialEq)]
pub struct ExprError {
    pub at: usize,
    pub message: String,
}

fn error<T>(at: usize, message: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError {
        at,
        message: message.into(),
    })
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Int(i64),
    /// 9223372036854775808: out of range but after a minus, as pgbench reads INT64_MIN.
    MaxIntPlusOne,
    Double(f64),
    Word(String),
    Var(String),
    Op(&'static str),
    End,
}

const OPS: [&str; 20] = [
    "<=", ">=", "<>", "!=", "<<", ">>", "+", "-", "*", "/", "%", "(", ")", ",", "<", ">", "=", "&",
    "|", "#",
];

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || !c.is_ascii()
}

fn is_name_char(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit()
}

/// The tokens of `text`, each with its byte offset.
fn tokens(text: &str) -> Result<Vec<(usize, Token)>, ExprError> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(at, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let rest = &text[at..];
        let taken = |pred: fn(char) -> bool| {
            rest.char_indices()
                .find(|&(_, c)| !pred(c))
                .map_or(rest.len(), |(i, _)| i)
        };
        let (len, token) = if c == ':' {
            let name_len = rest[1..]
                .chars()
                .next()
                .filter(|c| is_name_start(*c))
                .map(|_| 1 + taken_from(&rest[1..]))
                .unwrap_or(0);
            if name_len == 0 {
                return error(at, "':' must be followed by a variable name");
            }
            (name_len, Token::Var(rest[1..name_len].to_string()))
        } else if c.is_ascii_digit()
            || (c == '.' && rest[1..].starts_with(|c: char| c.is_ascii_digit()))
        {
            number(rest, at)?
        } else if is_name_start(c) {
            let n = taken(is_name_char);
            (n, Token::Word(rest[..n].to_string()))
        } else if c == '~' {
            (1, Token::Op("~"))
        } else if let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) {
            (op.len(), Token::Op(op))
        } else {
            return error(at, format!("unexpected character '{c}'"));
        };
        out.push((at, token));
        let end = at + len;
        while chars.peek().is_some_and(|&(i, _)| i < end) {
            chars.next();
        }
    }
    out.push((text.len(), Token::End));
    Ok(out)
}

fn taken_from(s: &str) -> usize {
    s.char_indices()
        .find(|&(_, c)| !is_name_char(c))
        .map_or(s.len(), |(i, _)| i)
}

/// An integer (`42`) or a double (`4.2`, `.5`, `1e3`, `2.5E-1`).
fn number(rest: &str, at: usize) -> Result<(usize, Token), ExprError> {
    let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let mut n = digits(rest);
    let mut double = false;
    if rest[n..].starts_with('.') {
        double = true;
        n += 1 + digits(&rest[n + 1..]);
    }
    let exp = &rest[n..];
    if exp.starts_with(['e', 'E']) {
        let sign = usize::from(exp[1..].starts_with(['+', '-']));
        let d = digits(&exp[1 + sign..]);
        if d > 0 {
            double = true;
            n += 1 + sign + d;
        }
    }
    let text = &rest[..n];
    if double {
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok((n, Token::Double(v))),
            _ => error(at, format!("double constant {text} is out of range")),
        }
    } else {
        match text.parse::<i64>() {
            Ok(v) => Ok((n, Token::Int(v))),
            Err(_) if text == "9223372036854775808" => Ok((n, Token::MaxIntPlusOne)),
            Err(_) => error(at, format!("integer constant {text} is out of range")),
        }
    }
}

/// Parses a whole expression.
pub fn parse(text: &str) -> Result<Expr, ExprError> {
    let mut p = Parser {
        tokens: tokens(text)?,
        pos: 0,
        depth: 0,
    };
    let e = p.expr(0)?;
    match p.peek() {
        Token::End => Ok(e),
        t => error(
            p.at(),
            format!("unexpected {} after the expression", describe(t)),
        ),
    }
}

fn describe(t: &Token) -> String {
    match t {
        Token::Int(i) => format!("number {i}"),
        Token::MaxIntPlusOne => "integer constant 9223372036854775808, out of range".into(),
        Token::Double(d) => format!("number {d}"),
        Token::Word(w) => format!("'{w}'"),
        Token::Var(v) => format!("variable :{v}"),
        Token::Op(o) => format!("'{o}'"),
        Token::End => "end of expression".into(),
    }
}

struct Parser {
    tokens: Vec<(usize, Token)>,
    pos: usize,
    /// How deep the expression nests so far: parsing and evaluating recurse, so a limit keeps
    /// a pathological expression from overflowing the stack.
    depth: usize,
}

/// The deepest nesting an expression may have.
const MAX_DEPTH: usize = 1_000;

/// Binding powers, lowest first, as pgbench (PostgreSQL's own order).
const OR: u8 = 1;
const AND: u8 = 2;
const NOT: u8 = 3;
const IS: u8 = 4;
const COMPARE: u8 = 5;
const BITWISE: u8 = 6;
const SUM: u8 = 7;
const PRODUCT: u8 = 8;
const UNARY: u8 = 9;

fn call(f: Func, args: Vec<Expr>) -> Expr {
    Expr::Call(f, args)
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.tokens[self.pos].1
    }
    fn at(&self) -> usize {
        self.tokens[self.pos].0
    }
    fn next(&mut self) -> Token {
        let t = self.tokens[self.pos].1.clone();
        if t != Token::End {
            self.pos += 1;
        }
        t
    }
    fn keyword(&self, word: &str) -> bool {
        matches!(self.peek(), Token::Word(w) if w.eq_ignore_ascii_case(word))
    }
    fn expect(&mut self, op: &str) -> Result<(), ExprError> {
        match self.peek() {
            Token::Op(o) if *o == op => {
                self.next();
                Ok(())
            }
            t => error(self.at(), format!("expected '{op}', found {}", describe(t))),
        }
    }
    fn expect_keyword(&mut self, word: &str) -> Result<(), ExprError> {
        if !self.keyword(word) {
            return error(
                self.at(),
                format!("expected {word}, found {}", describe(self.peek())),
            );
        }
        self.next();
        Ok(())
    }

    /// An infix or postfix operator binding at least `min`, and what it makes.
    fn infix(&self) -> Option<(u8, Func, bool)> {
        let f = match self.peek() {
            Token::Op(o) => match *o {
                "+" => (SUM, Func::Add, false),
                "-" => (SUM, Func::Sub, false),
                "*" => (PRODUCT, Func::Mul, false),
                "/" => (PRODUCT, Func::Div, false),
                "%" => (PRODUCT, Func::Mod, false),
                "<" => (COMPARE, Func::Lt, false),
                "<=" => (COMPARE, Func::Le, false),
                ">" => (COMPARE, Func::Lt, true),
                ">=" => (COMPARE, Func::Le, true),
                "=" => (COMPARE, Func::Eq, false),
                "<>" | "!=" => (COMPARE, Func::Ne, false),
                "&" => (BITWISE, Func::BitAnd, false),
                "|" => (BITWISE, Func::BitOr, false),
                "#" => (BITWISE, Func::BitXor, false),
                "<<" => (BITWISE, Func::Shl, false),
                ">>" => (BITWISE, Func::Shr, false),
                _ => return None,
            },
            Token::Word(w) => match w.to_ascii_lowercase().as_str() {
                "and" => (AND, Func::And, false),
                "or" => (OR, Func::Or, false),
                "is" | "isnull" | "notnull" => (IS, Func::Is, false),
                _ => return None,
            },
            _ => return None,
        };
        Some(f)
    }

    fn expr(&mut self, min: u8) -> Result<Expr, ExprError> {
        if self.depth >= MAX_DEPTH {
            return error(
                self.at(),
                format!("expression nested more than {MAX_DEPTH} levels deep"),
            );
        }
        self.depth += 1;
        let parsed = self.expr_at_depth(min);
        self.depth -= 1;
        parsed
    }

    fn expr_at_depth(&mut self, min: u8) -> Result<Expr, ExprError> {
        let mut left = self.prefix()?;
        let mut previous = None;
        while let Some((power, f, swapped)) = self.infix() {
            if power < min {
                break;
            }
            // Comparisons and IS do not chain in pgbench's grammar: `1 < 2 < 3` is an error.
            if (power == COMPARE || power == IS) && previous == Some(power) {
                return error(
                    self.at(),
                    "syntax error: comparisons do not chain (write a < b AND b < c)",
                );
            }
            previous = Some(power);
            let word = match self.next() {
                Token::Word(w) => w.to_ascii_lowercase(),
                _ => String::new(),
            };
            left = match (f, word.as_str()) {
                (Func::Is, "isnull") => call(Func::Is, vec![left, Expr::Const(Value::Null)]),
                (Func::Is, "notnull") => call(
                    Func::Not,
                    vec![call(Func::Is, vec![left, Expr::Const(Value::Null)])],
                ),
                (Func::Is, _) => self.is_tail(left)?,
                _ => {
                    let right = self.expr(power + 1)?;
                    if swapped {
                        call(f, vec![right, left])
                    } else {
                        call(f, vec![left, right])
                    }
                }
            };
        }
        Ok(left)
    }

    /// After `IS`: `[NOT] NULL | TRUE | FALSE`.
    fn is_tail(&mut self, left: Expr) -> Result<Expr, ExprError> {
        let negated = self.keyword("not");
        if negated {
            self.next();
        }
        let value = match self.peek() {
            Token::Word(w) if w.eq_ignore_ascii_case("null") => Value::Null,
            Token::Word(w) if w.eq_ignore_ascii_case("true") => Value::Bool(true),
            Token::Word(w) if w.eq_ignore_ascii_case("false") => Value::Bool(false),
            t => {
                let found = describe(t);
                return error(
                    self.at(),
                    format!("expected NULL, TRUE or FALSE after IS, found {found}"),
                );
            }
        };
        self.next();
        let is = call(Func::Is, vec![left, Expr::Const(value)]);
        Ok(if negated {
            call(Func::Not, vec![is])
        } else {
            is
        })
    }

    fn prefix(&mut self) -> Result<Expr, ExprError> {
        let at = self.at();
        match self.next() {
            Token::Int(i) => Ok(Expr::Const(Value::Int(i))),
            Token::Double(d) => Ok(Expr::Const(Value::Double(d))),
            Token::Var(name) => Ok(Expr::Var { name, slot: 0 }),
            Token::Op("(") => {
                let e = self.expr(0)?;
                self.expect(")")?;
                Ok(e)
            }
            Token::Op("+") => self.expr(UNARY),
            // -9223372036854775808 is INT64_MIN, though its digits alone are out of range.
            Token::Op("-") if matches!(self.peek(), Token::MaxIntPlusOne) => {
                self.next();
                Ok(Expr::Const(Value::Int(i64::MIN)))
            }
            Token::Op("-") => Ok(call(
                Func::Sub,
                vec![Expr::Const(Value::Int(0)), self.expr(UNARY)?],
            )),
            Token::Op("~") => Ok(call(
                Func::BitXor,
                vec![Expr::Const(Value::Int(-1)), self.expr(UNARY)?],
            )),
            Token::Word(w) => self.word(at, w),
            t => error(at, format!("unexpected {}", describe(&t))),
        }
    }

    fn word(&mut self, at: usize, w: String) -> Result<Expr, ExprError> {
        match w.to_ascii_lowercase().as_str() {
            "null" => Ok(Expr::Const(Value::Null)),
            "true" => Ok(Expr::Const(Value::Bool(true))),
            "false" => Ok(Expr::Const(Value::Bool(false))),
            "not" => Ok(call(Func::Not, vec![self.expr(NOT)?])),
            "case" => self.case(),
            _ => {
                let Some(f) = function(&w) else {
                    return error(at, format!("unknown function '{w}'"));
                };
                self.expect("(")?;
                let mut args = Vec::new();
                if *self.peek() != Token::Op(")") {
                    args.push(self.expr(0)?);
                    while *self.peek() == Token::Op(",") {
                        self.next();
                        args.push(self.expr(0)?);
                    }
                }
                self.expect(")")?;
                let (min, max, seeded) = arity(f);
                if args.len() < min || args.len() > max {
                    let wanted = match (min, max) {
                        (a, b) if a == b => format!("{a}"),
                        (a, usize::MAX) => format!("at least {a}"),
                        (a, b) => format!("{a} or {b}"),
                    };
                    let given = args.len();
                    return error(
                        at,
                        format!("{w}() takes {wanted} argument(s), {given} given"),
                    );
                }
                if seeded && args.len() == min {
                    args.push(Expr::Var {
                        name: "default_seed".into(),
                        slot: 0,
                    });
                }
                Ok(call(f, args))
            }
        }
    }

    /// `CASE WHEN c THEN v [WHEN ...] [ELSE e] END`: arguments c1, v1, c2, v2, ..., else.
    fn case(&mut self) -> Result<Expr, ExprError> {
        let mut args = Vec::new();
        if !self.keyword("when") {
            return error(self.at(), "expected WHEN after CASE");
        }
        while self.keyword("when") {
            self.next();
            args.push(self.expr(0)?);
            self.expect_keyword("then")?;
            args.push(self.expr(0)?);
        }
        if self.keyword("else") {
            self.next();
            args.push(self.expr(0)?);
        } else {
            args.push(Expr::Const(Value::Null));
        }
        self.expect_keyword("end")?;
        Ok(call(Func::Case, args))
    }
}

#[cfg(test)]
mod tests;
