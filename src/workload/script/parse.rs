//! Reading a script file in pgbench's syntax: SQL statements ended by `;` (over any number of
//! lines; quotes, dollar quotes and comments respected), each `:name` outside quotes made a
//! bound parameter; and meta-commands on a line of their own (`\set`, `\sleep`), a
//! trailing backslash continuing the line. Errors name the file, line and column.

use super::expr::{self, Expr};

/// Where in a file: line and column, from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// A script error: the file, where, and what.
#[derive(Debug, PartialEq)]
pub struct ScriptError {
    pub file: String,
    pub at: Position,
    pub message: String,
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Position { line, column } = self.at;
        write!(f, "{}:{line}:{column}: {}", self.file, self.message)
    }
}

impl std::error::Error for ScriptError {}

/// A transaction-control statement, run through the engine's own begin, commit and rollback
/// (so `BEGIN; ... END;` works on engines whose SQL has no `END`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Begin,
    Commit,
    Rollback,
}

/// A variable read by a statement or a meta-command, with its slot once resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct VarRef {
    pub name: String,
    pub slot: usize,
    pub at: Position,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Sql {
    /// As the engine gets it: each `:name` replaced by a `?` placeholder, comments removed.
    pub text: String,
    /// As written, on one line, for messages and per-statement figures.
    pub shown: String,
    /// The variables bound to the placeholders, in order.
    pub params: Vec<VarRef>,
    pub control: Option<Control>,
    /// `\gset` or `\aset` after it: its result's columns stored in variables.
    pub store: Option<Store>,
}

/// A conditional; where each goes is worked out after the file is read (`branch::link`).
#[derive(Clone, Debug, PartialEq)]
pub enum Branch {
    /// `\if cond`: when false, on to step `next` (its block's next `\elif`, `\else`, `\endif`).
    If {
        cond: Expr,
        next: usize,
    },
    /// `\elif cond`: tried when the branches above it were false; when false, on to `next`.
    /// Reached from the end of the branch above it, on past `end` (the block's `\endif`).
    Elif {
        cond: Expr,
        next: usize,
        end: usize,
    },
    /// `\else`: reached from the end of the branch above it, on past `end`.
    Else {
        end: usize,
    },
    Endif,
}

/// Where a query's result goes: variables named after its columns, `prefix` before each name;
/// under `\gset` the one row it must return, under `\aset` its last row, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Store {
    pub prefix: String,
    pub any_rows: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Sql(Sql),
    /// `\set name expression`
    Set {
        target: VarRef,
        expr: Expr,
    },
    /// `\sleep amount [us | ms | s]`: microseconds = amount x `micros`.
    Sleep {
        amount: Amount,
        micros: u64,
    },
    /// `\if`, `\elif`, `\else`, `\endif`.
    Branch(Branch),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Amount {
    Fixed(i64),
    Var(VarRef),
}

/// A command and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub at: Position,
    pub command: Command,
}

struct Cursor<'a> {
    file: &'a str,
    text: &'a [u8],
    pos: usize,
    at: Position,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }
    fn peek_at(&self, n: usize) -> Option<u8> {
        self.text.get(self.pos + n).copied()
    }
    fn starts_with(&self, s: &str) -> bool {
        self.text[self.pos..].starts_with(s.as_bytes())
    }
    fn bump(&mut self) -> u8 {
        let b = self.text[self.pos];
        self.pos += 1;
        if b == b'\n' {
            self.at.line += 1;
            self.at.column = 1;
        } else if b & 0xC0 != 0x80 {
            self.at.column += 1;
        }
        b
    }
    fn error<T>(&self, at: Position, message: impl Into<String>) -> Result<T, ScriptError> {
        Err(ScriptError {
            file: self.file.to_string(),
            at,
            message: message.into(),
        })
    }
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_name_char(b: u8) -> bool {
    is_name_start(b) || b.is_ascii_digit()
}

/// Reads a script file's text (`file` names it in errors).
pub fn parse(file: &str, text: &str) -> Result<Vec<Step>, ScriptError> {
    let mut c = Cursor {
        file,
        text: text.as_bytes(),
        pos: 0,
        at: Position { line: 1, column: 1 },
    };
    let mut steps: Vec<Step> = Vec::new();
    loop {
        while c.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            c.bump();
        }
        let Some(b) = c.peek() else { break };
        if c.starts_with("--") {
            while c.peek().is_some_and(|b| b != b'\n') {
                c.bump();
            }
        } else if b == b'\\' {
            meta(&mut c, &mut steps)?;
        } else {
            let at = c.at;
            if let Some(sql) = sql(&mut c)? {
                steps.push(Step {
                    at,
                    command: Command::Sql(sql),
                });
            }
        }
    }
    Ok(steps)
}

/// One SQL statement, up to its `;`, a meta-command's backslash, or the end of the file.
fn sql(c: &mut Cursor) -> Result<Option<Sql>, ScriptError> {
    let mut out = Vec::new();
    let mut shown = Vec::new();
    let mut params = Vec::new();
    while let Some(b) = c.peek() {
        match b {
            b';' => {
                c.bump();
                break;
            }
            b'\\' => break,
            b'\'' | b'"' => {
                let start = c.at;
                let quoted = quoted(c, b)
                    .ok_or(())
                    .or_else(|_| c.error(start, "unterminated quoted text"))?;
                out.extend_from_slice(&quoted);
                shown.extend_from_slice(&quoted);
            }
            b'$' if dollar_tag(c).is_some() => {
                let start = c.at;
                let tag = dollar_tag(c).unwrap_or_default();
                let body = dollar_quoted(c, &tag).ok_or(()).or_else(|_| {
                    c.error(start, format!("unterminated dollar-quoted text ({tag})"))
                })?;
                out.extend_from_slice(&body);
                shown.extend_from_slice(&body);
            }
            b'-' if c.starts_with("--") => {
                while c.peek().is_some_and(|b| b != b'\n') {
                    c.bump();
                }
            }
            b'/' if c.starts_with("/*") => {
                let start = c.at;
                while !c.starts_with("*/") {
                    if c.peek().is_none() {
                        return c.error(start, "unterminated /* comment");
                    }
                    c.bump();
                }
                c.bump();
                c.bump();
                out.push(b' ');
            }
            b':' if c.peek_at(1) == Some(b':') => {
                out.extend_from_slice(b"::");
                shown.extend_from_slice(b"::");
                c.bump();
                c.bump();
            }
            b':' if c.peek_at(1).is_some_and(is_name_start) => {
                let at = c.at;
                c.bump();
                let mut name = Vec::new();
                while c.peek().is_some_and(is_name_char) {
                    name.push(c.bump());
                }
                let name = String::from_utf8_lossy(&name).into_owned();
                out.push(b'?');
                shown.push(b':');
                shown.extend_from_slice(name.as_bytes());
                params.push(VarRef { name, slot: 0, at });
            }
            b'?' => {
                return c.error(
                    c.at,
                    "'?' outside quotes: hakari binds each :variable as a '?' parameter, so a \
                     script cannot use '?' itself",
                )
            }
            _ => {
                let b = c.bump();
                out.push(b);
                shown.push(if b.is_ascii_whitespace() { b' ' } else { b });
            }
        }
    }
    let text = String::from_utf8_lossy(&out).trim().to_string();
    if text.is_empty() {
        return Ok(None);
    }
    let shown = String::from_utf8_lossy(&shown)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let control = if params.is_empty() {
        control(&text)
    } else {
        None
    };
    Ok(Some(Sql {
        text,
        shown,
        params,
        control,
        store: None,
    }))
}

/// Text in quotes `q` (doubled quotes inside), as written; None when unterminated.
fn quoted(c: &mut Cursor, q: u8) -> Option<Vec<u8>> {
    let mut out = vec![c.bump()];
    loop {
        let b = c.peek()?;
        out.push(c.bump());
        if b == q {
            if c.peek() == Some(q) {
                out.push(c.bump());
                continue;
            }
            return Some(out);
        }
    }
}

/// `$tag$` at the cursor (`$$` included), not a `$1` placeholder.
fn dollar_tag(c: &Cursor) -> Option<String> {
    let rest = &c.text[c.pos + 1..];
    let len = rest.iter().position(|b| !is_name_char(*b))?;
    if rest.first().is_some_and(u8::is_ascii_digit) || rest.get(len) != Some(&b'$') {
        return None;
    }
    Some(format!("${}$", String::from_utf8_lossy(&rest[..len])))
}

fn dollar_quoted(c: &mut Cursor, tag: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for _ in 0..tag.len() {
        out.push(c.bump());
    }
    while !c.starts_with(tag) {
        c.peek()?;
        out.push(c.bump());
    }
    for _ in 0..tag.len() {
        out.push(c.bump());
    }
    Some(out)
}

/// Whether a statement is one of `BEGIN`, `START TRANSACTION`, `COMMIT`, `END`, `ROLLBACK`,
/// `ABORT` (with `WORK` or `TRANSACTION` after it), and which.
fn control(text: &str) -> Option<Control> {
    let words: Vec<String> = text
        .split_whitespace()
        .map(str::to_ascii_uppercase)
        .collect();
    let rest_ok = |rest: &[String]| match rest {
        [] => true,
        [w] => w == "WORK" || w == "TRANSACTION",
        _ => false,
    };
    match words.split_first() {
        Some((first, rest)) if first == "BEGIN" && rest_ok(rest) => Some(Control::Begin),
        Some((first, rest)) if first == "START" && rest == ["TRANSACTION"] => Some(Control::Begin),
        Some((first, rest)) if (first == "COMMIT" || first == "END") && rest_ok(rest) => {
            Some(Control::Commit)
        }
        Some((first, rest)) if (first == "ROLLBACK" || first == "ABORT") && rest_ok(rest) => {
            Some(Control::Rollback)
        }
        _ => None,
    }
}

/// A meta-command's arguments: the rest of its line (a trailing backslash continues it), and
/// where each byte of them came from.
fn meta_line(c: &mut Cursor) -> (String, Vec<Position>) {
    let (mut args, mut from) = (Vec::new(), Vec::new());
    while let Some(b) = c.peek() {
        if b == b'\n' {
            break;
        }
        if b == b'\\' && (c.peek_at(1) == Some(b'\n') || c.starts_with("\\\r\n")) {
            while c.bump() != b'\n' {}
            args.push(b' ');
            from.push(c.at);
            continue;
        }
        from.push(c.at);
        args.push(c.bump());
    }
    from.push(c.at);
    let text = String::from_utf8_lossy(&args).trim_end().to_string();
    (text, from)
}

fn meta(c: &mut Cursor, steps: &mut Vec<Step>) -> Result<(), ScriptError> {
    let at = c.at;
    c.bump();
    let mut word = String::new();
    while c.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
        word.push(c.bump() as char);
    }
    let (args, from) = meta_line(c);
    // Where byte `i` of the arguments is in the file.
    let pos = |i: usize| from[i.min(from.len() - 1)];
    let first_arg = args.len() - args.trim_start().len();
    let word = word.to_ascii_lowercase();
    let command = match word.as_str() {
        "set" => {
            let rest = &args[first_arg..];
            let name_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let name = &rest[..name_len];
            if name.is_empty()
                || !name.bytes().all(is_name_char)
                || !is_name_start(name.as_bytes()[0])
            {
                return c.error(
                    pos(first_arg),
                    format!("\\set needs a variable name, found '{name}'"),
                );
            }
            let expr_at = first_arg + name_len;
            if rest[name_len..].trim().is_empty() {
                return c.error(pos(expr_at), format!("\\set {name} needs an expression"));
            }
            let expr = expr::parse(&args[expr_at..])
                .or_else(|e| c.error(pos(expr_at + e.at), e.message))?;
            let target = VarRef {
                name: name.to_string(),
                slot: 0,
                at: pos(first_arg),
            };
            Command::Set { target, expr }
        }
        "sleep" => sleep(c, &args, &pos)?,
        "if" | "elif" => {
            let text = &args[first_arg..];
            if text.trim().is_empty() {
                return c.error(pos(first_arg), format!("\\{word} needs a condition"));
            }
            let cond = expr::parse(text).or_else(|e| c.error(pos(first_arg + e.at), e.message))?;
            Command::Branch(match word.as_str() {
                "if" => Branch::If { cond, next: 0 },
                _ => Branch::Elif {
                    cond,
                    next: 0,
                    end: 0,
                },
            })
        }
        "else" | "endif" => {
            if !args.trim().is_empty() {
                return c.error(pos(first_arg), "unexpected argument");
            }
            Command::Branch(match word.as_str() {
                "else" => Branch::Else { end: 0 },
                _ => Branch::Endif,
            })
        }
        "shell" | "setshell" => {
            return c.error(
                at,
                format!("\\{word} is not supported: hakari runs no shell commands from scripts"),
            )
        }
        "gset" | "aset" => return store(c, steps, &word, at, &args[first_arg..], pos(first_arg)),
        "startpipeline" | "syncpipeline" | "endpipeline" => {
            return c.error(
                at,
                format!(
                    "\\{word} is not supported by hakari's scripts (pipelines are not there yet)"
                ),
            )
        }
        _ => return c.error(at, format!("unknown meta-command '\\{word}'")),
    };
    steps.push(Step { at, command });
    Ok(())
}

/// `\gset [prefix]` or `\aset [prefix]` (`word`), at `at`: attached to the statement before it,
/// as pgbench attaches it.
fn store(
    c: &Cursor,
    steps: &mut [Step],
    word: &str,
    at: Position,
    prefix: &str,
    prefix_at: Position,
) -> Result<(), ScriptError> {
    let prefix = prefix.trim();
    if !prefix.bytes().all(is_name_char) {
        return c.error(
            prefix_at,
            format!("\\{word} takes one prefix, found '{prefix}'"),
        );
    }
    // After the statement just before it, once.
    let last = steps.last_mut().map(|s| &mut s.command);
    let Some(Command::Sql(sql)) =
        last.filter(|c| !matches!(c, Command::Sql(s) if s.store.is_some()))
    else {
        return c.error(at, format!("\\{word} must follow an SQL command"));
    };
    if sql.control.is_some() {
        return c.error(at, format!("\\{word} must follow a query"));
    }
    sql.store = Some(Store {
        prefix: prefix.to_string(),
        any_rows: word == "aset",
    });
    Ok(())
}

/// `\sleep N [us|ms|s]` or `\sleep :var [unit]`.
fn sleep(c: &Cursor, args: &str, pos: &dyn Fn(usize) -> Position) -> Result<Command, ScriptError> {
    let words: Vec<(usize, &str)> = args
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - args.as_ptr() as usize, w))
        .collect();
    let Some(&(amount_at, amount)) = words.first() else {
        return c.error(pos(0), "\\sleep needs an amount of time");
    };
    let micros = match words.get(1).map(|w| w.1.to_ascii_lowercase()) {
        None => 1_000_000,
        Some(u) if u == "s" => 1_000_000,
        Some(u) if u == "ms" => 1_000,
        Some(u) if u == "us" => 1,
        Some(u) => {
            return c.error(
                pos(words[1].0),
                format!("unknown time unit '{u}' (us, ms or s)"),
            )
        }
    };
    if let Some(&(extra_at, extra)) = words.get(2) {
        return c.error(
            pos(extra_at),
            format!("unexpected '{extra}' after \\sleep's unit"),
        );
    }
    let amount = if let Some(name) = amount.strip_prefix(':') {
        if name.is_empty() || !name.bytes().all(is_name_char) {
            return c.error(pos(amount_at), format!("bad variable name '{amount}'"));
        }
        Amount::Var(VarRef {
            name: name.to_string(),
            slot: 0,
            at: pos(amount_at),
        })
    } else {
        match amount.parse::<i64>() {
            Ok(n) if n >= 0 => Amount::Fixed(n),
            _ => {
                return c.error(
                    pos(amount_at),
                    format!(
                    "\\sleep needs a whole number of time units or a :variable, found '{amount}'"
                ),
                )
            }
        }
    };
    Ok(Command::Sleep { amount, micros })
}

#[cfg(test)]
mod tests;
