//! A progress bar on stderr, drawn only when stderr is a terminal (so piped output and
//! tests stay clean), redrawn at most ten times a second.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

const WIDTH: u64 = 30;
const REDRAW: Duration = Duration::from_millis(100);

pub(crate) struct Progress {
    what: &'static str,
    total: u64,
    done: u64,
    started: Instant,
    drawn: Option<Instant>,
    visible: bool,
}

impl Progress {
    /// A bar for `total` units of `what`; `total` 0 means unknown (a counter only).
    pub(crate) fn new(what: &'static str, total: u64) -> Progress {
        Progress {
            what,
            total,
            done: 0,
            started: Instant::now(),
            drawn: None,
            visible: std::io::stderr().is_terminal(),
        }
    }

    pub(crate) fn add(&mut self, n: u64) {
        self.done += n;
        if self.visible && self.drawn.is_none_or(|t| t.elapsed() >= REDRAW) {
            self.draw();
        }
    }

    fn draw(&mut self) {
        self.drawn = Some(Instant::now());
        let rate = self.done as f64 / self.started.elapsed().as_secs_f64().max(1e-9);
        let line = if let Some(filled) = (self.done.min(self.total) * WIDTH).checked_div(self.total)
        {
            let filled = filled as usize;
            format!(
                "\r  [{}{}] {}/{} {} ({:.0}/s)",
                "#".repeat(filled),
                " ".repeat(WIDTH as usize - filled),
                self.done,
                self.total,
                self.what,
                rate
            )
        } else {
            format!("\r  {} {} ({:.0}/s)", self.done, self.what, rate)
        };
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(line.as_bytes());
        let _ = err.flush();
    }

    /// Draws the final state and ends the line.
    pub(crate) fn finish(mut self) {
        if self.visible {
            self.draw();
        }
        // Drop ends the line.
    }
}

impl Drop for Progress {
    /// Ends the bar's line, so that what is printed next (an error, when the work stopped
    /// early) starts on a line of its own.
    fn drop(&mut self) {
        if self.drawn.is_some() {
            let _ = writeln!(std::io::stderr().lock());
        }
    }
}
