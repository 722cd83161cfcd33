//! Reading a script file in pgbench's syntax: SQL statements ended by `;` (over any number of
//! lines; quotes, dollar quotes and comments respected), each `:name` outside quotes made a
//! bound parameter; and meta-commands on a line of their own (`\set`, `\sleep`), a
//! trailing backslash continuing the line. Errors name the file, line and column.

use super::expr::{self, Expr};
use std::ops::Range;

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
    /// `BEGIN` or `START TRANSACTION` with options (`ISOLATION LEVEL ...`, `READ ONLY`): sent as
    /// written, the transaction then known to be open (and rolled back after a failure).
    Open,
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
    /// As written, on one line, for messages (`-r` lists the file's own text: `Program::parts`).
    pub shown: String,
    /// The variables bound to the placeholders, in order.
    pub params: Vec<VarRef>,
    pub control: Option<Control>,
    /// `\gset` or `\aset` after it: its result's columns stored in variables.
    pub store: Option<Store>,
    /// Ended by `\;`: it and the statements after it up to one not so ended are one compound
    /// statement, run as one implicit transaction (pgbench sends them as one query).
    pub joined: bool,
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
    /// `\shell command args...`, or `\setshell name command args...` (its output, an integer,
    /// into `target`): run by the shell, only under `--allow-shell`.
    Shell {
        target: Option<VarRef>,
        words: Vec<Word>,
    },
    /// `\startpipeline`, `\syncpipeline`, `\endpipeline`.
    Pipeline(Pipeline),
}

/// What a pipeline meta-command does: the statements between `Start` and `Sync` or `End` are
/// sent together, with one round trip and one implicit transaction, as PostgreSQL's pipeline
/// mode sends everything up to its sync point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipeline {
    Start,
    Sync,
    End,
}

/// A word of a shell command: as written, or a variable's value (`:name`; `::x` is `:x`).
#[derive(Clone, Debug, PartialEq)]
pub enum Word {
    Text(String),
    Var(VarRef),
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
    /// Where it stands in the script's text: an SQL statement from its first character to its
    /// `;` or `\;`, a meta-command from its backslash to the end of its last line (a trailing
    /// backslash continues one), the line's end left out.
    pub span: Range<usize>,
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
            meta::meta(&mut c, &mut steps)?;
        } else {
            let (at, start) = (c.at, c.pos);
            if let Some(sql) = sql(&mut c)? {
                steps.push(Step {
                    at,
                    command: Command::Sql(sql),
                    span: start..c.pos,
                });
            }
        }
    }
    // A compound ends at its last statement, or where a meta-command follows its `\;`.
    for i in 0..steps.len() {
        let next_is_sql =
            matches!(steps.get(i + 1), Some(s) if matches!(s.command, Command::Sql(_)));
        if let Command::Sql(sql) = &mut steps[i].command {
            sql.joined &= next_is_sql;
        }
    }
    Ok(steps)
}

/// One SQL statement, up to its `;`, `\;`, a meta-command's backslash, or the end of the file.
fn sql(c: &mut Cursor) -> Result<Option<Sql>, ScriptError> {
    let mut out = Vec::new();
    let mut shown = Vec::new();
    let mut params = Vec::new();
    let mut joined = false;
    while let Some(b) = c.peek() {
        match b {
            b';' => {
                c.bump();
                break;
            }
            b'\\' if c.peek_at(1) == Some(b';') => {
                c.bump();
                c.bump();
                joined = true;
                break;
            }
            b'\\' => break,
            b'\'' | b'"' => {
                let start = c.at;
                // E'...' (after a lone E): a backslash escapes the next character, as in
                // PostgreSQL's escape strings.
                let escaped = b == b'\''
                    && matches!(out.last(), Some(b'E' | b'e'))
                    && !out
                        .len()
                        .checked_sub(2)
                        .is_some_and(|i| is_name_char(out[i]));
                let quoted = quoted(c, b, escaped)
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
                comment(c)?;
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
    Ok(statement(&out, &shown, params, joined))
}

/// The statement read: its text for the engine and as shown (None when there is none).
fn statement(out: &[u8], shown: &[u8], params: Vec<VarRef>, joined: bool) -> Option<Sql> {
    let text = String::from_utf8_lossy(out).trim().to_string();
    if text.is_empty() {
        return None;
    }
    let shown = (String::from_utf8_lossy(shown).split_whitespace())
        .collect::<Vec<_>>()
        .join(" ");
    let control = params.is_empty().then(|| control(&text)).flatten();
    Some(Sql {
        text,
        shown,
        params,
        control,
        store: None,
        joined,
    })
}

/// Skips a `/* */` comment; comments nest, as PostgreSQL scans them.
fn comment(c: &mut Cursor) -> Result<(), ScriptError> {
    let start = c.at;
    let mut depth = 0;
    loop {
        if c.starts_with("/*") {
            depth += 1;
        } else if c.starts_with("*/") {
            depth -= 1;
        } else if c.peek().is_none() {
            return c.error(start, "unterminated /* comment");
        } else {
            c.bump();
            continue;
        }
        c.bump();
        c.bump();
        if depth == 0 {
            return Ok(());
        }
    }
}

/// Text in quotes `q` (doubled quotes inside; a backslash escaping the next character when
/// `escaped`), as written; None when unterminated.
fn quoted(c: &mut Cursor, q: u8, escaped: bool) -> Option<Vec<u8>> {
    let mut out = vec![c.bump()];
    loop {
        let b = c.peek()?;
        out.push(c.bump());
        if escaped && b == b'\\' {
            c.peek()?;
            out.push(c.bump());
            continue;
        }
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
/// `ABORT` (with `WORK` or `TRANSACTION` after it), or a `BEGIN` or `START TRANSACTION` with
/// options, and which.
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
        Some((first, _)) if first == "BEGIN" => Some(Control::Open),
        Some((first, rest))
            if first == "START" && rest.first().is_some_and(|w| w == "TRANSACTION") =>
        {
            Some(Control::Open)
        }
        Some((first, rest)) if (first == "COMMIT" || first == "END") && rest_ok(rest) => {
            Some(Control::Commit)
        }
        Some((first, rest)) if (first == "ROLLBACK" || first == "ABORT") && rest_ok(rest) => {
            Some(Control::Rollback)
        }
        _ => None,
    }
}

mod meta;

#[cfg(test)]
mod tests;
