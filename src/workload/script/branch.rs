//! pgbench's conditionals: `\if`, `\elif`, `\else` and `\endif`. After a file is read, each
//! one is linked to where the run goes from it, so a client steps through a script by index
//! without a stack of its own; the structure errors pgbench finds before its run are found here.

use super::expr::Expr;
use super::parse::{Branch, Command, Position, Step};

fn branch(steps: &[Step], i: usize) -> Option<&Branch> {
    match &steps[i].command {
        Command::Branch(b) => Some(b),
        _ => None,
    }
}

/// Links every conditional of `steps` (read with their targets unset) to its block; or the
/// first structure error, with where it is, in pgbench's words.
pub fn link(steps: &mut [Step]) -> Result<(), (Position, String)> {
    // Each open block: the steps of its `\if`, `\elif`s and `\else`, and whether it had `\else`.
    let mut open: Vec<(Vec<usize>, bool)> = Vec::new();
    for i in 0..steps.len() {
        let at = steps[i].at;
        let error = |what: &str| Err((at, what.to_string()));
        match branch(steps, i) {
            Some(Branch::If { .. }) => open.push((vec![i], false)),
            Some(Branch::Elif { .. }) => match open.last_mut() {
                None => return error("\\elif without matching \\if"),
                Some((_, true)) => return error("\\elif after \\else"),
                Some((arms, false)) => arms.push(i),
            },
            Some(Branch::Else { .. }) => match open.last_mut() {
                None => return error("\\else without matching \\if"),
                Some((_, true)) => return error("\\else after \\else"),
                Some((arms, had_else)) => {
                    arms.push(i);
                    *had_else = true;
                }
            },
            Some(Branch::Endif) => {
                let Some((arms, _)) = open.pop() else {
                    return error("\\endif without matching \\if");
                };
                let mut after = arms.iter().skip(1).copied().chain([i]);
                for &arm in &arms {
                    let to = after.next().unwrap_or(i);
                    if let Command::Branch(b) = &mut steps[arm].command {
                        match b {
                            Branch::If { next, .. } => *next = to,
                            Branch::Elif { next, end, .. } => (*next, *end) = (to, i),
                            Branch::Else { end } => *end = i,
                            Branch::Endif => {}
                        }
                    }
                }
            }
            None => {}
        }
    }
    match open.first() {
        Some((arms, _)) => Err((steps[arms[0]].at, "\\if without matching \\endif".into())),
        None => Ok(()),
    }
}

/// The step after conditional step `at`, `truth` deciding its conditions: into a branch whose
/// condition holds, or on to the block's next arm, or past its end.
pub fn next<E>(
    steps: &[Step],
    at: usize,
    mut truth: impl FnMut(&Expr) -> Result<bool, E>,
) -> Result<usize, E> {
    let mut arm = match branch(steps, at) {
        Some(Branch::If { cond, next }) => match truth(cond)? {
            true => return Ok(at + 1),
            false => *next,
        },
        Some(Branch::Elif { end, .. } | Branch::Else { end }) => return Ok(end + 1),
        Some(Branch::Endif) | None => return Ok(at + 1),
    };
    loop {
        match branch(steps, arm) {
            Some(Branch::Elif { cond, next, .. }) if !truth(cond)? => arm = *next,
            _ => return Ok(arm + 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    fn linked(text: &str) -> Result<Vec<Step>, String> {
        let mut steps = parse("t.sql", text).unwrap();
        link(&mut steps).map_err(|(_, message)| message)?;
        Ok(steps)
    }

    /// The steps a run takes through `text` with the conditions' truths in order.
    fn walk(text: &str, mut truths: Vec<bool>) -> Vec<usize> {
        let steps = linked(text).unwrap();
        let (mut at, mut walked) = (0, Vec::new());
        while at < steps.len() {
            walked.push(steps[at].at.line);
            at = match branch(&steps, at) {
                Some(_) => next(&steps, at, |_| Ok::<_, ()>(truths.remove(0))).unwrap(),
                None => at + 1,
            };
        }
        walked
    }

    const BLOCK: &str =
        "\\if 1\n\\set a 1\n\\elif 2\n\\set a 2\n\\else\n\\set a 3\n\\endif\n\\set b 0\n";

    #[test]
    fn a_run_takes_the_first_branch_whose_condition_holds() {
        assert_eq!(walk(BLOCK, vec![true]), [1, 2, 3, 8]);
        assert_eq!(walk(BLOCK, vec![false, true]), [1, 4, 5, 8]);
        assert_eq!(walk(BLOCK, vec![false, false]), [1, 6, 7, 8]);
        let nested = "\\if 1\n\\if 0\n\\set a 1\n\\endif\n\\set b 1\n\\endif\n\\set c 1\n";
        assert_eq!(walk(nested, vec![true, false]), [1, 2, 5, 6, 7]);
        assert_eq!(walk(nested, vec![false]), [1, 7]);
    }

    #[test]
    fn broken_blocks_are_refused_in_pgbench_words() {
        let error = |text: &str| linked(text).unwrap_err();
        assert_eq!(error("\\endif\n"), "\\endif without matching \\if");
        assert_eq!(error("\\else\n"), "\\else without matching \\if");
        assert_eq!(error("\\elif 1\n"), "\\elif without matching \\if");
        assert_eq!(
            error("\\if 1\n\\else\n\\else\n\\endif\n"),
            "\\else after \\else"
        );
        assert_eq!(
            error("\\if 1\n\\else\n\\elif 1\n\\endif\n"),
            "\\elif after \\else"
        );
        assert_eq!(
            error("\\if 1\n\\set a 1\n"),
            "\\if without matching \\endif"
        );
    }
}
