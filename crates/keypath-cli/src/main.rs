//! The `keypath` command-line tool.
fn main() {
    println!("keypath");
}
