//! A progress bar on stderr (indicatif), drawn only when stderr is a terminal (so piped
//! output and tests stay clean), redrawn at most ten times a second.

use std::io::IsTerminal;

use indicatif::{BinaryBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressState};
use indicatif::{ProgressFinish, ProgressStyle};

/// Redraws per second at most.
const REDRAW_HZ: u8 = 10;

/// A known total, while running: the bar fills the terminal's width, then the count, the
/// rate and the time left.
const BAR: &str = "  [{wide_bar}] {human_pos}/{human_len} {msg} ({rate}, {eta} left)";
/// A known total, once done (or stopped): the time taken instead of the time left.
const BAR_DONE: &str = "  [{wide_bar}] {human_pos}/{human_len} {msg} ({rate}, {elapsed})";
/// The same for a total of bytes, in binary units (KiB, MiB).
const BYTES: &str = "  [{wide_bar}] {binary_bytes}/{binary_total_bytes} ({rate}, {eta} left)";
const BYTES_DONE: &str = "  [{wide_bar}] {binary_bytes}/{binary_total_bytes} ({rate}, {elapsed})";
/// An unknown total: a counter, its rate and the time taken, running and done.
const COUNTER: &str = "  {human_pos} {msg} ({rate}, {elapsed})";

pub(crate) struct Progress {
    bar: ProgressBar,
    /// The template once done: `BAR_DONE`, `BYTES_DONE` or `COUNTER`.
    done: &'static str,
    bytes: bool,
}

impl Progress {
    /// A bar for `total` units of `what`; `total` 0 means unknown (a counter only). The unit
    /// `"bytes"` is shown in binary units.
    pub(crate) fn new(what: &'static str, total: u64) -> Progress {
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr_with_hz(REDRAW_HZ)
        } else {
            ProgressDrawTarget::hidden()
        };
        let bytes = what == "bytes";
        let (len, running, done) = match (total, bytes) {
            (0, _) => (None, COUNTER, COUNTER),
            (_, true) => (Some(total), BYTES, BYTES_DONE),
            (_, false) => (Some(total), BAR, BAR_DONE),
        };
        let bar = ProgressBar::with_draw_target(len, target)
            .with_style(style(running, bytes))
            .with_message(what)
            // `Drop` below finishes the bar; this only covers a bar dropped without it.
            .with_finish(ProgressFinish::Abandon);
        Progress { bar, done, bytes }
    }

    pub(crate) fn add(&mut self, n: u64) {
        self.bar.inc(n);
    }

    /// Draws the final state (the count reached and the time taken) and ends the line.
    pub(crate) fn finish(self) {
        drop(self);
    }
}

impl Drop for Progress {
    /// Draws the final state and ends the bar's line, also when the work stopped early on an
    /// error: the bar shows where it stopped, and the error starts on a line of its own.
    fn drop(&mut self) {
        self.bar.set_style(style(self.done, self.bytes));
        // `abandon`, not `finish`: the count stays the one reached, not the total.
        self.bar.abandon();
    }
}

/// The style for `template`, with the `{rate}` key (per second, over the whole run once
/// done), or indicatif's default bar if the template did not parse (the templates are
/// constants, checked by the tests below).
fn style(template: &str, bytes: bool) -> ProgressStyle {
    let rate = move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
        let per_sec = if state.is_finished() {
            state.pos() as f64 / state.elapsed().as_secs_f64().max(1e-9)
        } else {
            state.per_sec()
        };
        let per_sec = per_sec as u64;
        let _ = if bytes {
            write!(w, "{}/s", BinaryBytes(per_sec))
        } else {
            write!(w, "{}/s", HumanCount(per_sec))
        };
    };
    ProgressStyle::with_template(template)
        .map(|s| s.progress_chars("#>-").with_key("rate", rate))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_parse() {
        for template in [BAR, BAR_DONE, BYTES, BYTES_DONE, COUNTER] {
            assert!(ProgressStyle::with_template(template).is_ok(), "{template}");
        }
    }

    /// Under `cargo test` stderr is usually not a terminal, so nothing is drawn; the count is
    /// kept either way, and the count reached stays when the work stops early.
    #[test]
    fn counts_and_stops_where_it_is() {
        let mut p = Progress::new("items", 10);
        p.add(3);
        p.add(4);
        let bar = p.bar.clone();
        assert_eq!((bar.position(), bar.length()), (7, Some(10)));
        if !std::io::stderr().is_terminal() {
            assert!(bar.is_hidden());
        }
        assert!(!bar.is_finished());
        drop(p);
        assert!(bar.is_finished());
        assert_eq!(bar.position(), 7);

        let mut p = Progress::new("bytes", 0);
        p.add(5);
        let bar = p.bar.clone();
        assert_eq!((bar.position(), bar.length()), (5, None));
        p.finish();
        assert!(bar.is_finished());
    }
}
