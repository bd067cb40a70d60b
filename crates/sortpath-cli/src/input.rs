//! Inputs from arguments or stdin lines, each with a name for error messages.

use std::io::{self, BufRead};

use crate::Failure;

/// Calls `each(name, text)` for every argument, or for every stdin line when there are none.
/// Lines are split on `\n` with one trailing `\r` removed; nothing else is trimmed.
pub(crate) fn for_each_input(
    args: &[String],
    mut each: impl FnMut(&dyn Fn() -> String, &str) -> Result<(), Failure>,
) -> Result<(), Failure> {
    if !args.is_empty() {
        for (i, arg) in args.iter().enumerate() {
            each(&|| format!("argument {} ({arg:?})", i + 1), arg)?;
        }
        return Ok(());
    }
    let stdin = io::stdin();
    let mut reader = io::BufReader::with_capacity(1 << 16, stdin.lock());
    let mut line = Vec::new();
    let mut number = 0usize;
    while read_line(&mut reader, &mut line)
        .map_err(|e| Failure::BadInput(format!("cannot read stdin: {e}")))?
    {
        number += 1;
        let n = number;
        let text = std::str::from_utf8(&line).map_err(|e| {
            Failure::BadInput(format!(
                "line {n}: at byte {}: expected UTF-8 text",
                e.valid_up_to()
            ))
        })?;
        each(&|| format!("line {n}"), text)?;
    }
    Ok(())
}

/// Reads the next line into `line` (cleared first), without its `\n` and one trailing `\r`;
/// `false` at the end of the input.
pub(crate) fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    if reader.read_until(b'\n', line)? == 0 {
        return Ok(false);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(true)
}
