//! A Python virtualenv with pinned oracle packages, for interop tests.
//!
//! On first use the virtualenv is created under `<workspace>/.interop/` (git-ignored),
//! named by a hash of `tests/interop/requirements.txt`, and reused afterwards. Several
//! test binaries may start at once: each builds in its own temporary directory and
//! publishes it with an atomic `rename`; a loser of the race discards its copy.
//!
//! A missing `python3` (or a failing `pip install`) fails the test with a message that
//! says what to install; it never skips.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The pinned requirements; part of the virtualenv's name.
const REQUIREMENTS: &str = include_str!("../interop/requirements.txt");
/// Written last into a finished virtualenv.
const READY_MARKER: &str = "sortpath-ready";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// FNV-1a, enough to tell requirement sets apart.
fn fingerprint(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

fn run(command: &mut Command, what: &str) {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("interop tests: could not run {what} ({command:?}): {e}"));
    assert!(
        output.status.success(),
        "interop tests: {what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn create_venv() -> PathBuf {
    let base = workspace_root().join(".interop");
    let venv = base.join(format!("venv-{}", fingerprint(REQUIREMENTS)));
    if venv.join(READY_MARKER).exists() {
        return venv_python(&venv);
    }
    match Command::new("python3").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "interop tests need Python 3: `python3 --version` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!(
            "interop tests need Python 3 with the venv module on PATH as `python3` \
             (Debian/Ubuntu: apt-get install python3 python3-venv): {e}"
        ),
    }
    std::fs::create_dir_all(&base).expect("create .interop directory");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let staging = base.join(format!("staging-{}-{nanos}", std::process::id()));
    run(
        Command::new("python3").arg("-m").arg("venv").arg(&staging),
        "python3 -m venv",
    );
    let requirements = staging.join("requirements.txt");
    std::fs::write(&requirements, REQUIREMENTS).expect("write requirements");
    run(
        Command::new(venv_python(&staging))
            .args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "-q",
                "-r",
            ])
            .arg(&requirements),
        "pip install of the pinned oracle packages (needs access to PyPI)",
    );
    std::fs::write(staging.join(READY_MARKER), "").expect("write ready marker");
    // Atomic publish: if another process won the race, its venv is equally good.
    if let Err(e) = std::fs::rename(&staging, &venv) {
        let _ = std::fs::remove_dir_all(&staging);
        assert!(
            venv.join(READY_MARKER).exists(),
            "interop tests: could not publish the virtualenv at {}: {e}",
            venv.display()
        );
    }
    venv_python(&venv)
}

/// The virtualenv's Python interpreter, creating the virtualenv on first use.
pub fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(create_venv)
}

/// Runs `tests/interop/<script>` with `args`, feeding `input` on stdin; returns stdout.
/// Panics with the script's stderr when it fails.
pub fn run_script(script: &str, args: &[&str], input: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("interop")
        .join(script);
    let mut child = Command::new(python())
        .arg(&path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {}: {e}", path.display()));
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_owned();
    // Write on a thread so a large output cannot deadlock against a full input pipe.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("wait for python");
    writer
        .join()
        .expect("stdin writer")
        .expect("write to python");
    assert!(
        output.status.success(),
        "{script} {args:?} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("script output is UTF-8")
}

/// A deterministic pseudo-random sequence (xorshift64*) for test inputs.
pub struct Rng(u64);

impl Rng {
    /// A sequence from a non-zero seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Fills `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let bytes = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

/// Lower-case hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Asserts that a script printed exactly the `expected` lines, naming the input line of
/// the first difference.
pub fn assert_same_lines(output: &str, expected: &[String], input: &str) {
    let got: Vec<&str> = output.lines().collect();
    assert_eq!(
        got.len(),
        expected.len(),
        "line count of the oracle's answer"
    );
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        assert_eq!(
            g,
            e,
            "line {i}, input {:?}",
            input.lines().nth(i).unwrap_or("")
        );
    }
}
