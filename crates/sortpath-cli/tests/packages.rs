//! The npm package and the Python wheel as a user gets them: packed, then installed into a
//! fresh project or virtualenv in a temporary directory, away from the repository, with
//! what users install beside them. This catches what the in-repository tests cannot: files
//! left out of a package, metadata that does not install beside current dependencies,
//! entry points that only one module system can load, tests that pass only beside the
//! repository's sources.
//!
//! - npm: `npm pack` (its `prepack` builds and copies the license files in), then `npm
//!   install` of the tarball beside `@aws-sdk/client-dynamodb@latest` (the newest release at
//!   test time: this needs the npm registry, and fails without it); `import` and `require`
//!   of both entry points, and TypeScript programs compiled against the installed package
//!   under `node16`, `nodenext` (CommonJS and ES module files) and `bundler` resolution;
//!   `@arethetypeswrong/cli` on the tarball.
//! - Python: `hatchling build` (sdist and wheel), the wheel installed into a new Python 3.11
//!   virtualenv, then with its `[dynamodb]` extra (boto3 from PyPI), and into a Python 3.9
//!   virtualenv when pyenv has 3.9 (`~/.pyenv/versions/3.9.18`; said on stderr when not).
//!
//! Each encodes the seed example path, and the 63 bytes are compared with this crate's
//! `sortpath::KeyPath` encoding. The license files must be in each package, byte for byte the
//! repository root's, and the README each package shows must link nothing it does not ship.

mod bindings_setup;

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use bindings_setup::{
    describe, install_typescript_dev_dependencies, python, python_package_dir, require_node,
    run_in_typescript_package, run_ok, venv_python, workspace_root,
};
use serde_json::Value;

/// The seed example of issue #47: a UUID, two integers of different widths and a small one.
const SEED_PATH: &str =
    "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42";

/// The `@arethetypeswrong/cli` release that checks the tarball's type resolution.
const ATTW: &str = "@arethetypeswrong/cli@0.18.5";

const LICENSES: [&str; 2] = ["LICENSE-MIT", "LICENSE-APACHE"];

/// The seed path's encoding by this crate, in lowercase hex.
fn rust_hex() -> String {
    let path: sortpath::KeyPath = SEED_PATH.parse().expect("the seed path parses");
    let bytes = path.encode();
    assert_eq!(bytes.len(), 63, "the seed path encodes to 63 bytes");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The root's license file `name`, which every package must carry unchanged.
fn root_license(name: &str) -> Vec<u8> {
    let path = workspace_root().join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn only_file_with_suffix(dir: &Path, suffix: &str) -> PathBuf {
    let found: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "expected one *{suffix} in {}, found {found:?}",
        dir.display()
    );
    found.into_iter().next().unwrap()
}

/// GitHub's anchor of a heading: lowercase, punctuation dropped, spaces as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The README a package shows (on its registry's page, or installed) links only headings of
/// its own and absolute URLs: a relative link names a file the page cannot open.
fn check_readme_links(readme: &str, what: &str) {
    assert!(
        readme.starts_with("# sortpath for "),
        "{what}: the README shown is not the package's: {:?}",
        readme.get(..80).unwrap_or(readme)
    );
    let mut in_code = false;
    let mut prose = Vec::new();
    for line in readme.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code {
            prose.push(line);
        }
    }
    let anchors: HashSet<String> = prose
        .iter()
        .filter(|l| l.starts_with('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect();
    let text = prose.join("\n");
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        let target = &rest[..rest.find(')').unwrap_or(rest.len())];
        if let Some(heading) = target.strip_prefix('#') {
            assert!(
                anchors.contains(heading),
                "{what}: the README links #{heading}, which no heading of it makes"
            );
        } else {
            assert!(
                target.starts_with("https://"),
                "{what}: the README links {target:?}, a file the package does not ship (where \
                 the package is shown, the link is broken): name it in the text instead"
            );
        }
    }
}

/// A JSON object printed as the last line of `output`'s stdout.
fn last_json(output: &std::process::Output, what: &str) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or("");
    serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("{what} printed no JSON line ({e}): {}", describe(output)))
}

/// `key` of `json`, a string.
fn field<'a>(json: &'a Value, key: &str, what: &str) -> &'a str {
    json[key]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: no string {key:?} in {json}"))
}

/// Checks what one program printed: the seed path's encoding, the modules it loaded (from
/// the fresh project's `node_modules`, in the module format asked for).
fn check_node_run(json: &Value, want_hex: &str, modules: &Path, format: &str, what: &str) {
    assert_eq!(
        field(json, "hex", what),
        want_hex,
        "{what}: the installed package's encoding of {SEED_PATH} differs from the Rust crate's"
    );
    for key in ["index", "table"] {
        let loaded = PathBuf::from(field(json, key, what));
        assert!(
            loaded.starts_with(modules.join("sortpath").join("dist").join(format)),
            "{what}: {key} was loaded from {}, not from the installed package's dist/{format}",
            loaded.display()
        );
    }
}

/// A TypeScript program over both entry points, compiled in the fresh project.
const TS_PROGRAM: &str = r#"import { KeyPath } from "sortpath";
import { DynamoDbTable } from "sortpath/dynamodb-table";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

declare const console: { log(text: string): void };

const bytes: Uint8Array = KeyPath.parse("SEED").encode();
const client = new DynamoDBClient({
  region: "us-east-1",
  credentials: { accessKeyId: "none", secretAccessKey: "none" },
});
const table = new DynamoDbTable(client, "t");
const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
console.log(JSON.stringify({ hex, get: typeof table.get }));
"#;

/// Compiles the TypeScript programs of `project/ts` with the package's own TypeScript (its dev
/// dependency) under `module`/`moduleResolution`, and runs what it emitted, if it emits.
fn compile_typescript(project: &Path, module: &str, resolution: &str, want_hex: &str) {
    let what = format!("TypeScript, module {module}, moduleResolution {resolution}");
    let ts = project.join("ts");
    let out = format!("out-{resolution}");
    let emit = resolution != "bundler";
    let files: &[&str] = if emit {
        &["program.ts", "program.mts"]
    } else {
        &["program.ts"]
    };
    let config = serde_json::json!({
        "compilerOptions": {
            "module": module,
            "moduleResolution": resolution,
            "target": "ES2022",
            "lib": ["ES2022"],
            "types": [],
            "strict": true,
            "skipLibCheck": true,
            "noEmit": !emit,
            "outDir": out,
        },
        "files": files,
    });
    let config_file = ts.join(format!("tsconfig.{resolution}.json"));
    fs::write(&config_file, config.to_string()).expect("write a tsconfig");
    let tsc = bindings_setup::typescript_package_dir().join("node_modules/typescript/bin/tsc");
    run_ok(
        Command::new("node")
            .arg(&tsc)
            .arg("-p")
            .arg(&config_file)
            .current_dir(&ts),
        &format!("{what}: tsc over the installed package"),
    );
    if emit {
        // program.ts is CommonJS here (the project's package.json has no "type"), so it
        // compiles to require() calls; program.mts is an ES module.
        for program in ["program.js", "program.mjs"] {
            let output = run_ok(
                Command::new("node")
                    .arg(ts.join(&out).join(program))
                    .current_dir(project),
                &format!("{what}: node {program}"),
            );
            let json = last_json(&output, &what);
            assert_eq!(field(&json, "hex", &what), want_hex, "{what}: {program}");
            assert_eq!(field(&json, "get", &what), "function", "{what}: {program}");
        }
    }
}

#[test]
fn npm_package_installs_beside_newest_aws_sdk_and_encodes_as_rust() {
    let started = Instant::now();
    let want_hex = rust_hex();
    require_node();
    install_typescript_dev_dependencies();
    let work = tempfile::tempdir().expect("a temporary directory");
    let packed = work.path().join("packed");
    fs::create_dir(&packed).unwrap();
    run_in_typescript_package(
        "npm",
        &[
            "pack",
            "--pack-destination",
            packed.to_str().expect("a UTF-8 temporary path"),
        ],
    );
    let tarball = only_file_with_suffix(&packed, ".tgz");

    let project = work.path().join("project");
    fs::create_dir(&project).unwrap();
    fs::write(
        project.join("package.json"),
        r#"{ "name": "sortpath-smoke", "version": "1.0.0", "private": true }"#,
    )
    .unwrap();
    run_ok(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund"])
            .arg(&tarball)
            .arg("@aws-sdk/client-dynamodb@latest")
            .current_dir(&project),
        "npm install of the packed package beside @aws-sdk/client-dynamodb@latest \
         (needs the npm registry)",
    );
    let modules = project.join("node_modules");
    let installed = modules.join("sortpath");
    let sdk: Value = serde_json::from_slice(
        &fs::read(modules.join("@aws-sdk/client-dynamodb/package.json"))
            .expect("the AWS SDK is installed"),
    )
    .expect("the SDK's package.json is JSON");
    eprintln!(
        "installed beside @aws-sdk/client-dynamodb {}",
        sdk["version"]
    );

    for name in LICENSES {
        let shipped = fs::read(installed.join(name))
            .unwrap_or_else(|e| panic!("the npm package does not ship {name}: {e}"));
        assert!(
            shipped == root_license(name),
            "the npm package's {name} differs from the repository root's"
        );
    }
    let readme = fs::read_to_string(installed.join("README.md")).expect("the package's README");
    check_readme_links(&readme, "the npm package");

    // Both entry points through both module systems, from outside the repository.
    let script = |load: &str, index: &str, table: &str| {
        format!(
            "{load}\nconst hex = Buffer.from(KeyPath.parse({SEED_PATH:?}).encode()).toString(\"hex\");\n\
             new DynamoDbTable(new DynamoDBClient({{ region: \"us-east-1\", credentials: {{ accessKeyId: \"none\", secretAccessKey: \"none\" }} }}), \"t\");\n\
             console.log(JSON.stringify({{ hex, index: {index}, table: {table} }}));\n"
        )
    };
    fs::write(
        project.join("smoke.cjs"),
        script(
            "const { KeyPath } = require(\"sortpath\");\n\
             const { DynamoDbTable } = require(\"sortpath/dynamodb-table\");\n\
             const { DynamoDBClient } = require(\"@aws-sdk/client-dynamodb\");",
            "require.resolve(\"sortpath\")",
            "require.resolve(\"sortpath/dynamodb-table\")",
        ),
    )
    .unwrap();
    fs::write(
        project.join("smoke.mjs"),
        script(
            "import { fileURLToPath } from \"node:url\";\n\
             import { KeyPath } from \"sortpath\";\n\
             import { DynamoDbTable } from \"sortpath/dynamodb-table\";\n\
             import { DynamoDBClient } from \"@aws-sdk/client-dynamodb\";",
            "fileURLToPath(import.meta.resolve(\"sortpath\"))",
            "fileURLToPath(import.meta.resolve(\"sortpath/dynamodb-table\"))",
        ),
    )
    .unwrap();
    for (file, format) in [("smoke.cjs", "cjs"), ("smoke.mjs", "esm")] {
        let what = format!("node {file} in a fresh project");
        let output = run_ok(Command::new("node").arg(file).current_dir(&project), &what);
        check_node_run(
            &last_json(&output, &what),
            &want_hex,
            &modules,
            format,
            &what,
        );
    }

    // TypeScript users: a CommonJS file (compiled to require()) and an ES module file under
    // node16 and nodenext, and a bundler's resolution (type check only).
    let ts = project.join("ts");
    fs::create_dir(&ts).unwrap();
    let program = TS_PROGRAM.replace("SEED", SEED_PATH);
    fs::write(ts.join("program.ts"), &program).unwrap();
    fs::write(ts.join("program.mts"), &program).unwrap();
    compile_typescript(&project, "node16", "node16", &want_hex);
    compile_typescript(&project, "nodenext", "nodenext", &want_hex);
    compile_typescript(&project, "esnext", "bundler", &want_hex);

    // The types of every entry point under every resolution mode, as "Are the types wrong?"
    // sees them (it exits non-zero on any problem).
    let attw = run_ok(
        Command::new("npx")
            .args([
                "--yes",
                ATTW,
                "--format",
                "ascii",
                "--no-color",
                "--no-emoji",
            ])
            .arg(&tarball)
            .current_dir(work.path()),
        &format!("npx {ATTW} on the packed package (needs the npm registry)"),
    );
    let report = String::from_utf8_lossy(&attw.stdout);
    assert!(
        report.contains("No problems found"),
        "{ATTW} reported: {report}"
    );
    eprintln!(
        "npm package: packed, installed and checked in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// Makes a virtualenv at `dir` with `interpreter`; returns its Python.
fn new_venv(interpreter: &Path, dir: &Path) -> PathBuf {
    run_ok(
        Command::new(interpreter).arg("-m").arg("venv").arg(dir),
        &format!("{} -m venv", interpreter.display()),
    );
    venv_python(dir)
}

fn pip_install(python: &Path, requirement: &str, what: &str) {
    run_ok(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "-q",
                requirement,
            ])
            .env_remove("PYTHONPATH"),
        what,
    );
}

/// Imports the installed package in `python`, from `cwd` (outside the repository), and checks
/// its encoding of the seed path, where it was loaded from, and the license files in its
/// installed metadata.
fn check_wheel_install(python: &Path, cwd: &Path, venv: &Path, want_hex: &str, what: &str) {
    let script = format!(
        "import json, importlib.metadata as m, sortpath\n\
         d = m.distribution('sortpath')\n\
         print(json.dumps({{'hex': sortpath.KeyPath.parse({SEED_PATH:?}).encode().hex(),\n\
           'file': sortpath.__file__,\n\
           'LICENSE-MIT': d.read_text('licenses/LICENSE-MIT'),\n\
           'LICENSE-APACHE': d.read_text('licenses/LICENSE-APACHE'),\n\
           'description': d.metadata.get_payload() or d.metadata['Description']}}))\n"
    );
    let output = run_ok(
        Command::new(python)
            .args(["-I", "-c", &script])
            .current_dir(cwd),
        what,
    );
    let json = last_json(&output, what);
    assert_eq!(
        field(&json, "hex", what),
        want_hex,
        "{what}: the wheel's encoding of {SEED_PATH} differs from the Rust crate's"
    );
    let file = PathBuf::from(field(&json, "file", what));
    assert!(
        file.starts_with(venv),
        "{what}: sortpath was imported from {}, not from the virtualenv",
        file.display()
    );
    for name in LICENSES {
        assert!(
            field(&json, name, what).as_bytes() == root_license(name),
            "{what}: the wheel's {name} (in .dist-info/licenses) is missing or differs from \
             the repository root's"
        );
    }
    check_readme_links(field(&json, "description", what), what);
}

#[test]
fn python_wheel_installs_into_fresh_virtualenvs_and_encodes_as_rust() {
    let started = Instant::now();
    let want_hex = rust_hex();
    let work = tempfile::tempdir().expect("a temporary directory");
    let dist = work.path().join("dist");
    // The development virtualenv has the pinned build backend.
    run_ok(
        Command::new(python())
            .args(["-m", "hatchling", "build", "-d"])
            .arg(&dist)
            .current_dir(python_package_dir()),
        "hatchling build (sdist and wheel) of bindings/python",
    );
    let wheel = only_file_with_suffix(&dist, ".whl");
    let sdist = only_file_with_suffix(&dist, ".tar.gz");

    // The sdist holds the license files as files (a symbolic link would dangle once unpacked).
    let listing = run_ok(
        Command::new(python())
            .args([
                "-c",
                "import json, sys, tarfile\n\
                 t = tarfile.open(sys.argv[1])\n\
                 print(json.dumps({m.name.split('/', 1)[1]: t.extractfile(m).read().decode() \
                 for m in t.getmembers() if m.isfile() and m.name.count('/') == 1}))",
            ])
            .arg(&sdist),
        "reading the sdist",
    );
    let top = last_json(&listing, "the sdist's top-level files");
    for name in LICENSES {
        assert!(
            top[name].as_str().map(str::as_bytes) == Some(&root_license(name)[..]),
            "the sdist has no regular file {name} equal to the repository root's (its top-level \
             files: {:?})",
            top.as_object().map(|o| o.keys().collect::<Vec<_>>())
        );
    }

    let wheel_arg = wheel.to_str().expect("a UTF-8 temporary path");
    let venv = work.path().join("venv-3.11");
    let py = new_venv(Path::new("python3"), &venv);
    pip_install(
        &py,
        wheel_arg,
        "pip install of the wheel into a new virtualenv",
    );
    check_wheel_install(
        &py,
        work.path(),
        &venv,
        &want_hex,
        "the wheel under python3",
    );
    // The extra, from PyPI: boto3 and what it needs, at their newest releases.
    pip_install(
        &py,
        &format!("{wheel_arg}[dynamodb]"),
        "pip install of the wheel's [dynamodb] extra (needs PyPI)",
    );
    run_ok(
        Command::new(&py)
            .args([
                "-I",
                "-c",
                "import boto3\n\
                 from sortpath.dynamodb import TableClient\n\
                 c = boto3.client('dynamodb', region_name='us-east-1', \
                 aws_access_key_id='none', aws_secret_access_key='none')\n\
                 t = TableClient(c, 't')\n\
                 print(boto3.__version__)",
            ])
            .current_dir(work.path()),
        "sortpath.dynamodb over boto3 from the [dynamodb] extra",
    );

    // The oldest Python the package claims (requires-python >= 3.9), where pyenv has it.
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let python39 = home.join(".pyenv/versions/3.9.18/bin/python");
    if python39.exists() {
        let venv = work.path().join("venv-3.9");
        let py = new_venv(&python39, &venv);
        pip_install(
            &py,
            wheel_arg,
            "pip install of the wheel into a Python 3.9 virtualenv",
        );
        check_wheel_install(
            &py,
            work.path(),
            &venv,
            &want_hex,
            "the wheel under Python 3.9",
        );
    } else {
        eprintln!(
            "{} is not installed: the wheel was tested on python3 only, not on Python 3.9",
            python39.display()
        );
    }
    eprintln!(
        "Python package: built, installed and checked in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
