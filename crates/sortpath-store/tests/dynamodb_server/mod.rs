//! A local DynamoDB server for tests, started once per test binary.
//!
//! - With `java` on PATH: DynamoDB Local (Amazon's emulator) from the npm package
//!   `amplify-dynamodb-simulator` (its `emulator/` folder holds `DynamoDBLocal.jar`),
//!   installed once under `<workspace>/.dynamodb-local/` (git-ignored): each test binary
//!   builds in its own staging folder and publishes it with an atomic `rename`, so binaries
//!   that start together do not clash.
//! - Without `java`: `moto[server]` from PyPI in a virtualenv there, started as
//!   `python -m moto.server -H 127.0.0.1 -p PORT`.
//!
//! `SORTPATH_DYNAMODB_SERVER=moto` forces the fallback. The server gets a free port on
//! 127.0.0.1 and the tests only connect through `http://127.0.0.1:PORT`. DynamoDB Local has
//! no option to choose its listening address (it listens on all interfaces while it runs;
//! it is started with `-disableTelemetry`, so it sends nothing out). It is started through
//! `sh -c 'server & read _; kill $!'` with a pipe on stdin held by the test process: test
//! binaries never run destructors of statics, but when the process exits the pipe closes,
//! `read` returns and the server is killed. Which server ran is printed to stderr. A
//! missing `npm`, `java` or `python3` fails with a message saying what to install; the
//! tests never skip.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The npm package (pinned) that ships DynamoDB Local.
const NPM_PACKAGE: &str = "amplify-dynamodb-simulator@2.9.30";
/// The PyPI requirement of the fallback.
const MOTO: &str = "moto[server]==5.1.*";
/// Written last into a finished install.
const READY_MARKER: &str = "sortpath-ready";
/// How long a server may take to answer.
const START_TIMEOUT: Duration = Duration::from_secs(90);

/// A running local server.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
    /// Which server runs, for messages.
    pub kind: String,
    /// The wrapper shell; its stdin is the pipe whose closing stops the server.
    child: Mutex<Child>,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn base_dir() -> PathBuf {
    workspace_root().join(".dynamodb-local")
}

fn run(command: &mut Command, what: &str) {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("dynamodb tests: could not run {what} ({command:?}): {e}"));
    assert!(
        output.status.success(),
        "dynamodb tests: {what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn has(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Installs into `<base>/<name>` once: `build` fills a staging folder, then an atomic rename.
fn install_once(name: &str, build: impl FnOnce(&Path)) -> PathBuf {
    let base = base_dir();
    let target = base.join(name);
    if target.join(READY_MARKER).exists() {
        return target;
    }
    std::fs::create_dir_all(&base).expect("create .dynamodb-local");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let staging = base.join(format!("staging-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&staging).expect("create staging folder");
    build(&staging);
    std::fs::write(staging.join(READY_MARKER), "").expect("write ready marker");
    if let Err(e) = std::fs::rename(&staging, &target) {
        // Another test binary won the race; its install is equally good.
        let _ = std::fs::remove_dir_all(&staging);
        assert!(
            target.join(READY_MARKER).exists(),
            "dynamodb tests: could not publish {}: {e}",
            target.display()
        );
    }
    target
}

/// The folder holding `DynamoDBLocal.jar`, installing it on first use.
fn dynamodb_local() -> PathBuf {
    let dir = install_once("simulator-2.9.30", |staging| {
        assert!(
            has("npm", "--version"),
            "dynamodb tests need npm to install DynamoDB Local (Debian/Ubuntu: apt-get install npm)"
        );
        run(
            Command::new("npm")
                .args([
                    "install",
                    "--ignore-scripts",
                    "--no-audit",
                    "--no-fund",
                    "--prefix",
                ])
                .arg(staging)
                .arg(NPM_PACKAGE),
            "npm install of DynamoDB Local (needs access to the npm registry)",
        );
    });
    let emulator = dir.join("node_modules/amplify-dynamodb-simulator/emulator");
    assert!(
        emulator.join("DynamoDBLocal.jar").exists(),
        "dynamodb tests: no DynamoDBLocal.jar in {}",
        emulator.display()
    );
    emulator
}

/// The fallback's Python, installing moto on first use.
fn moto_python() -> PathBuf {
    let dir = install_once("moto-venv", |staging| {
        assert!(
            has("python3", "--version"),
            "dynamodb tests need Java 17 (for DynamoDB Local) or Python 3 (for the moto fallback): \
             apt-get install openjdk-17-jre-headless, or python3 python3-venv"
        );
        run(
            Command::new("python3").args(["-m", "venv"]).arg(staging),
            "python3 -m venv",
        );
        run(
            Command::new(staging.join("bin/python")).args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "-q",
                MOTO,
            ]),
            "pip install moto[server] (needs access to PyPI)",
        );
    });
    // The venv was built under its staging name; call its Python by the published path's
    // interpreter (the scripts' shebangs are not used).
    dir.join("bin/python")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

/// Starts `program args...` in `dir` under the stdin-watching wrapper; output goes to `log`.
fn spawn_wrapped(dir: &Path, program: &Path, args: &[String], log: &Path) -> Child {
    let log_file = std::fs::File::create(log).expect("create server log");
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(r#"cd "$1" || exit 1; shift; "$@" & pid=$!; read _ignored; kill $pid 2>/dev/null; wait $pid"#)
        .arg("sh")
        .arg(dir)
        .arg(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(log_file.try_clone().expect("log handle"))
        .stderr(log_file);
    command
        .spawn()
        .expect("start the local DynamoDB server via sh")
}

/// Waits until the server answers a `ListTables`.
async fn wait_ready(endpoint: &str, kind: &str, log: &Path, child: &mut Child) {
    let client = sortpath_store::backend::dynamodb::client(Some(endpoint), None).await;
    let start = Instant::now();
    let mut last_error;
    loop {
        match client.list_tables().send().await {
            Ok(_) => return,
            Err(e) => last_error = format!("{e:?}"),
        }
        let log_text = || std::fs::read_to_string(log).unwrap_or_default();
        if let Ok(Some(status)) = child.try_wait() {
            panic!(
                "dynamodb tests: {kind} exited ({status}) before answering:\n{}",
                log_text()
            );
        }
        if start.elapsed() > START_TIMEOUT {
            panic!(
                "dynamodb tests: {kind} did not answer ListTables at {endpoint} within {START_TIMEOUT:?} (last error: {last_error}); its log:\n{}",
                log_text()
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn start() -> Server {
    let force_moto = std::env::var("SORTPATH_DYNAMODB_SERVER").is_ok_and(|v| v == "moto");
    let port = free_port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let log = std::env::temp_dir().join(format!(
        "sortpath-dynamodb-{}-{port}.log",
        std::process::id()
    ));
    let (kind, mut child) = if !force_moto && has("java", "-version") {
        let emulator = dynamodb_local();
        let args = [
            "-Djava.library.path=./DynamoDBLocal_lib",
            "-jar",
            "DynamoDBLocal.jar",
            "-inMemory",
            "-sharedDb",
            "-disableTelemetry",
            "-port",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([port.to_string()])
        .collect::<Vec<_>>();
        let kind = format!("DynamoDB Local ({NPM_PACKAGE}, Java)");
        (
            kind,
            spawn_wrapped(&emulator, Path::new("java"), &args, &log),
        )
    } else {
        if !force_moto {
            eprintln!("dynamodb tests: no java on PATH; falling back to moto[server]");
        }
        let python = moto_python();
        let args = ["-m", "moto.server", "-H", "127.0.0.1", "-p"]
            .iter()
            .map(|s| s.to_string())
            .chain([port.to_string()])
            .collect::<Vec<_>>();
        let kind = format!("moto server ({MOTO})");
        (
            kind,
            spawn_wrapped(&std::env::temp_dir(), &python, &args, &log),
        )
    };
    wait_ready(&endpoint, &kind, &log, &mut child).await;
    eprintln!("dynamodb tests: {kind} at {endpoint}");
    Server {
        endpoint,
        kind,
        child: Mutex::new(child),
    }
}

/// The server of this test binary, started on first use.
pub async fn server() -> &'static Server {
    static SERVER: tokio::sync::OnceCell<Server> = tokio::sync::OnceCell::const_new();
    SERVER.get_or_init(start).await
}

/// A fresh table name (tests of one binary share the server).
pub fn table_name(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}
