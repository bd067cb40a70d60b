//! Prints the public API of one package of a workspace: `show MANIFEST PACKAGE [CARGO ARGS]`.
//!
//! ```text
//! cargo run -p sortpath-api --example show -- Cargo.toml sortpath --all-features
//! ```
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [manifest, package, rest @ ..] = args.as_slice() else {
        eprintln!("usage: show MANIFEST PACKAGE [CARGO ARGS]");
        std::process::exit(2);
    };
    let features: Vec<&str> = rest.iter().map(String::as_str).collect();
    // The snapshot test's directory: `$CARGO_TARGET_DIR/api-snapshot`, else
    // `target/api-snapshot` under the current directory.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new("target").to_path_buf())
        .join("api-snapshot");
    let result = sortpath_api::rustdoc_json(Path::new(manifest), package, &features, &target)
        .and_then(|json| sortpath_api::load(&json));
    match result {
        Ok(krate) => print!("{}", sortpath_api::to_text(&sortpath_api::render(&krate))),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
