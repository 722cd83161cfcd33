//! Meta-commands: a backslash, a word, and the rest of its line (`\set`, `\sleep`, `\if` and
//! its kin, `\gset`/`\aset` attached to the statement before them, `\shell`/`\setshell`, the
//! pipeline's three).

use super::*;

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

pub(super) fn meta(c: &mut Cursor, steps: &mut Vec<Step>) -> Result<(), ScriptError> {
    let (at, start) = (c.at, c.pos);
    c.bump();
    let mut word = String::new();
    while c.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
        word.push(c.bump() as char);
    }
    let (args, from) = meta_line(c);
    // Its text ends before the line's end, a CR too.
    let end = c.pos - usize::from(c.text[..c.pos].ends_with(b"\r"));
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
        "shell" | "setshell" => shell(c, &word, &args, &pos)?,
        "gset" | "aset" => return store(c, steps, &word, at, &args[first_arg..], pos(first_arg)),
        "startpipeline" | "syncpipeline" | "endpipeline" => {
            if !args.trim().is_empty() {
                return c.error(pos(first_arg), "unexpected argument");
            }
            Command::Pipeline(match word.as_str() {
                "startpipeline" => Pipeline::Start,
                "syncpipeline" => Pipeline::Sync,
                _ => Pipeline::End,
            })
        }
        _ => return c.error(at, format!("unknown meta-command '\\{word}'")),
    };
    steps.push(Step {
        at,
        command,
        span: start..end,
    });
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
    let last = steps.last().map(|s| &s.command);
    let Some(Command::Sql(sql)) =
        last.filter(|c| !matches!(c, Command::Sql(s) if s.store.is_some()))
    else {
        return c.error(at, format!("\\{word} must follow an SQL command"));
    };
    if sql.control.is_some() {
        return c.error(at, format!("\\{word} must follow a query"));
    }
    let store = Store {
        prefix: prefix.to_string(),
        any_rows: word == "aset",
    };
    // `\aset` stores the columns of every statement of a compound, `\gset` the last one's.
    let last = steps.len() - 1;
    let joined = |i: &usize| matches!(&steps[*i].command, Command::Sql(s) if s.joined);
    let first = match store.any_rows {
        true => (0..last).rev().take_while(joined).last().unwrap_or(last),
        false => last,
    };
    for step in &mut steps[first..] {
        if let Command::Sql(sql) = &mut step.command {
            sql.store = Some(store.clone());
        }
    }
    Ok(())
}

/// `\shell` or `\setshell` (`word`) with its arguments: words split at white space, as pgbench
/// splits them.
fn shell(
    c: &Cursor,
    word: &str,
    args: &str,
    pos: &dyn Fn(usize) -> Position,
) -> Result<Command, ScriptError> {
    let mut words = (args.split_whitespace())
        .map(|w| (w.as_ptr() as usize - args.as_ptr() as usize, w))
        .peekable();
    let target = match word {
        "setshell" => {
            let Some((at, name)) = words.next() else {
                return c.error(pos(0), "\\setshell needs a variable and a command");
            };
            if !name.bytes().all(is_name_char) || !is_name_start(name.as_bytes()[0]) {
                let message = format!("\\setshell needs a variable name, found '{name}'");
                return c.error(pos(at), message);
            }
            let (name, at) = (name.to_string(), pos(at));
            Some(VarRef { name, slot: 0, at })
        }
        _ => None,
    };
    if words.peek().is_none() {
        return c.error(pos(args.len()), format!("\\{word} needs a command"));
    }
    let words = words
        .map(
            |(at, w)| match (w.strip_prefix("::"), w.strip_prefix(':')) {
                (Some(_), _) => Word::Text(w[1..].to_string()),
                (None, Some(name)) if !name.is_empty() => Word::Var(VarRef {
                    name: name.to_string(),
                    slot: 0,
                    at: pos(at),
                }),
                _ => Word::Text(w.to_string()),
            },
        )
        .collect();
    Ok(Command::Shell { target, words })
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
