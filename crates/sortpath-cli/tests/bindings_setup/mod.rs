//! Setting up the TypeScript and Python packages in `bindings/` for the tests that run them:
//! the Python package's virtualenv (under `<workspace>/.interop/`, git-ignored) and the
//! TypeScript package's `node_modules` (`npm ci`). Shared by `bindings_python`,
//! `bindings_typescript` and `crosslang`.
#![allow(dead_code)] // each test file uses part of it

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

const REQUIREMENTS: &str = include_str!("../../../../bindings/python/requirements-dev.txt");
const PYPROJECT: &str = include_str!("../../../../bindings/python/pyproject.toml");
/// Written last into a finished virtualenv.
const READY_MARKER: &str = "sortpath-ready";

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root exists")
}

pub fn python_package_dir() -> PathBuf {
    workspace_root().join("bindings").join("python")
}

/// FNV-1a, enough to tell requirement sets apart.
pub fn fingerprint(parts: &[&str]) -> String {
    let hash = parts
        .iter()
        .flat_map(|p| p.bytes().chain([0]))
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    format!("{hash:016x}")
}

pub fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

pub fn describe(output: &Output) -> String {
    format!(
        "{}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

pub fn run_ok(command: &mut Command, what: &str) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("could not run {what} ({command:?}): {e}"));
    assert!(
        output.status.success(),
        "{what} failed: {}",
        describe(&output)
    );
    output
}

/// Installs the package, editable, into the virtualenv of `python` (its build backend is
/// among the pinned requirements, so nothing else is fetched).
pub fn install_package(python: &Path) {
    run_ok(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "-q",
                "--no-build-isolation",
                "--no-deps",
                "-e",
            ])
            .arg(python_package_dir()),
        "pip install -e bindings/python",
    );
}

pub fn create_venv() -> PathBuf {
    let base = workspace_root().join(".interop");
    let venv = base.join(format!(
        "bindings-python-{}",
        fingerprint(&[REQUIREMENTS, PYPROJECT])
    ));
    if !venv.join(READY_MARKER).exists() {
        match Command::new("python3").arg("--version").output() {
            Ok(out) if out.status.success() => {}
            Ok(out) => panic!(
                "the Python bindings' tests need Python 3.9 or later: `python3 --version` failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => panic!(
                "the Python bindings' tests need Python 3.9 or later with the venv module on \
                 PATH as `python3` (Debian/Ubuntu: apt-get install python3 python3-venv): {e}"
            ),
        }
        std::fs::create_dir_all(&base).expect("create the .interop directory");
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let staging = base.join(format!("staging-py-{}-{nanos}", std::process::id()));
        run_ok(
            Command::new("python3").arg("-m").arg("venv").arg(&staging),
            "python3 -m venv (Debian/Ubuntu: apt-get install python3-venv)",
        );
        let requirements = staging.join("requirements-dev.txt");
        std::fs::write(&requirements, REQUIREMENTS).expect("write the requirements");
        run_ok(
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
            "pip install of bindings/python/requirements-dev.txt (needs access to PyPI)",
        );
        install_package(&venv_python(&staging));
        std::fs::write(staging.join(READY_MARKER), "").expect("write the ready marker");
        // Atomic publish: if another process won the race, its virtualenv is as good.
        if let Err(e) = std::fs::rename(&staging, &venv) {
            let _ = std::fs::remove_dir_all(&staging);
            assert!(
                venv.join(READY_MARKER).exists(),
                "could not publish the virtualenv at {}: {e}",
                venv.display()
            );
        }
    }
    let python = venv_python(&venv);
    // The editable install points at one checkout's source; a virtualenv carried over from
    // another place (or from before the package moved) is pointed here again.
    let expected = python_package_dir().join("src").join("sortpath");
    let found = run_ok(
        Command::new(&python)
            .args([
                "-c",
                "import sortpath, os; print(os.path.dirname(sortpath.__file__))",
            ])
            .current_dir(&base),
        "import sortpath",
    );
    let found = PathBuf::from(String::from_utf8_lossy(&found.stdout).trim());
    if found.canonicalize().ok() != expected.canonicalize().ok() {
        install_package(&python);
    }
    python
}

/// The virtualenv's interpreter, made on first use.
pub fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(create_venv)
}

pub fn typescript_package_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bindings/typescript")
}

/// Runs `program args` in the package directory; fails the test with its output if it fails.
pub fn run_in_typescript_package(program: &str, args: &[&str]) -> Output {
    let output = Command::new(program)
        .args(args)
        .current_dir(typescript_package_dir())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        output.status.success(),
        "`{program} {}` failed ({}):\n{}\n{}",
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Checks that Node.js 20+ and npm are installed, with a message saying what to install.
pub fn require_node() {
    let install = "the TypeScript package's tests need Node.js 20 or newer and npm on PATH: \
                   install them (e.g. `apt-get install nodejs npm`, or from nodejs.org) and run \
                   the tests again";
    let version = Command::new("node")
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("`node --version` failed ({e}): {install}"));
    let text = String::from_utf8_lossy(&version.stdout);
    let major: u32 = text
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    assert!(
        version.status.success() && major >= 20,
        "found node {:?}: {install}",
        text.trim()
    );
    let npm = Command::new("npm").arg("--version").output();
    assert!(
        npm.as_ref().is_ok_and(|o| o.status.success()),
        "`npm --version` failed ({npm:?}): {install}"
    );
}

/// `npm ci`, unless `node_modules` was installed from the same package-lock.json (the lock
/// is copied into node_modules after a successful install; `npm ci` removes it first).
pub fn install_typescript_dev_dependencies() {
    let dir = typescript_package_dir();
    let lock = fs::read(dir.join("package-lock.json")).expect("package-lock.json is readable");
    let stamp = dir.join("node_modules/.sortpath-installed-lock.json");
    if fs::read(&stamp).is_ok_and(|installed| installed == lock) {
        return;
    }
    run_in_typescript_package("npm", &["ci", "--no-audit", "--no-fund"]);
    fs::write(&stamp, &lock).expect("node_modules is writable");
}
