//! The renderer and the diff on a crate of known API (tests/fixture): every kind of item
//! is rendered as expected, and an added, a removed and a changed item each show in the
//! diff, so the snapshot check can fail.

use std::path::{Path, PathBuf};

use sortpath_api::{diff, load, render, rustdoc_json, to_text};

fn fixture_manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture/Cargo.toml")
}

/// `<target>/api-fixture`, beside this test's own profile directory.
fn target_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(Path::to_path_buf))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
        .join("api-fixture")
}

fn fixture(features: &[&str]) -> String {
    let json = rustdoc_json(&fixture_manifest(), "api-fixture", features, &target_dir())
        .unwrap_or_else(|e| panic!("{e}"));
    to_text(&render(&load(&json).unwrap_or_else(|e| panic!("{e}"))))
}

const EXPECTED: &str = "\
api_fixture  crate api_fixture
api_fixture::Id  impl core::marker::Send for api_fixture::Id
api_fixture::Id  impl core::marker::Sync for api_fixture::Id
api_fixture::Id  impl core::marker::Unpin for api_fixture::Id
api_fixture::Id  impl core::panic::unwind_safe::RefUnwindSafe for api_fixture::Id
api_fixture::Id  impl core::panic::unwind_safe::UnwindSafe for api_fixture::Id
api_fixture::Id  pub struct Id(pub u64, _)
api_fixture::MAGIC  pub const MAGIC: u8 = 0x01
api_fixture::Point  #[non_exhaustive] pub struct Point<T> { /* private fields */ }
api_fixture::Point  impl<T: core::clone::Clone> core::clone::Clone for api_fixture::Point<T>
api_fixture::Point  impl<T: core::cmp::PartialEq> core::cmp::PartialEq for api_fixture::Point<T>
api_fixture::Point  impl<T: core::fmt::Debug> core::fmt::Debug for api_fixture::Point<T>
api_fixture::Point  impl<T> core::marker::Send for api_fixture::Point<T> where T: core::marker::Send
api_fixture::Point  impl<T> core::marker::Sync for api_fixture::Point<T> where T: core::marker::Sync
api_fixture::Point  impl<T> core::marker::Unpin for api_fixture::Point<T> where T: core::marker::Unpin
api_fixture::Point  impl<T> core::panic::unwind_safe::RefUnwindSafe for api_fixture::Point<T> where T: core::panic::unwind_safe::RefUnwindSafe
api_fixture::Point  impl<T> core::panic::unwind_safe::UnwindSafe for api_fixture::Point<T> where T: core::panic::unwind_safe::UnwindSafe
api_fixture::Point::get  pub fn get(&self) -> T where T: core::marker::Copy
api_fixture::Point::new  pub fn new(x: T) -> Self where T: core::marker::Copy
api_fixture::Point::x  pub x: T
api_fixture::removed  pub fn removed<'a>(s: &'a str, _n: impl core::convert::Into<u64>) -> core::option::Option<&'a str>
api_fixture::shapes  pub mod shapes
api_fixture::shapes::Area  impl api_fixture::shapes::Area for u8 { type Unit = u8; }
api_fixture::shapes::Area  pub trait Area
api_fixture::shapes::Area::Unit  type Unit;
api_fixture::shapes::Area::area  fn area(&self) -> Self::Unit;
api_fixture::shapes::Area::twice  fn twice(&self) -> (Self::Unit, Self::Unit) where Self::Unit: core::clone::Clone { .. }
api_fixture::shapes::ReexportedPoint  pub use api_fixture::Point
api_fixture::shapes::Shape  impl api_fixture::shapes::Area for api_fixture::shapes::Shape { type Unit = f64; }
api_fixture::shapes::Shape  impl core::fmt::Debug for api_fixture::shapes::Shape
api_fixture::shapes::Shape  impl core::marker::Send for api_fixture::shapes::Shape
api_fixture::shapes::Shape  impl core::marker::Sync for api_fixture::shapes::Shape
api_fixture::shapes::Shape  impl core::marker::Unpin for api_fixture::shapes::Shape
api_fixture::shapes::Shape  impl core::panic::unwind_safe::RefUnwindSafe for api_fixture::shapes::Shape
api_fixture::shapes::Shape  impl core::panic::unwind_safe::UnwindSafe for api_fixture::shapes::Shape
api_fixture::shapes::Shape  pub enum Shape
api_fixture::shapes::Shape::Circle  Circle(f64)
api_fixture::shapes::Shape::Empty  Empty
api_fixture::shapes::Shape::Rect  Rect { w: u32, h: u32 }
";

// One test, so the two `cargo rustdoc` runs on the fixture do not wait on each other's lock.
#[test]
fn fixture_is_rendered_and_each_kind_of_change_shows_in_the_diff() {
    let before = fixture(&[]);
    // Private items (`inner`, `Point::private`, `Point`'s `hidden` field), `#[doc(hidden)]`
    // ones and the compiler's unstable marker traits are not part of it.
    assert_eq!(before, EXPECTED, "the fixture's rendering:\n{before}");
    assert_eq!(diff(EXPECTED, &before), None);

    let after = fixture(&["--features", "changed"]);
    let d = diff(&before, &after).expect("the `changed` feature changes the API");
    assert_eq!(
        d,
        "\
- api_fixture::Point::get  pub fn get(&self) -> T where T: core::marker::Copy
+ api_fixture::Point::get  pub fn get(&self, _scale: u32) -> T where T: core::marker::Copy
+ api_fixture::added  #[deprecated(note = \"use removed\")] pub fn added()
- api_fixture::removed  pub fn removed<'a>(s: &'a str, _n: impl core::convert::Into<u64>) -> core::option::Option<&'a str>
"
    );
}

#[test]
fn diff_reports_each_side_and_ignores_order_and_blank_lines() {
    let a = "x::a  pub fn a()\nx::b  pub fn b()\n";
    assert_eq!(diff(a, "\nx::b  pub fn b()\nx::a  pub fn a()\n"), None);
    assert_eq!(
        diff(a, "x::a  pub fn a()\n").as_deref(),
        Some("- x::b  pub fn b()\n")
    );
    assert_eq!(
        diff(a, "x::a  pub fn a()\nx::b  pub fn b()\nx::c  pub fn c()\n").as_deref(),
        Some("+ x::c  pub fn c()\n")
    );
    assert_eq!(
        diff("", a).as_deref(),
        Some("+ x::a  pub fn a()\n+ x::b  pub fn b()\n")
    );
}

#[test]
fn another_format_version_is_named() {
    let err = sortpath_api::parse(r#"{"format_version": 1}"#).expect_err("version 1 is not read");
    assert!(
        err.contains(&format!(
            "expected rustdoc JSON format version {}",
            rustdoc_types::FORMAT_VERSION
        )) && err.contains("found 1"),
        "{err}"
    );
    let err = sortpath_api::parse("[]").expect_err("not rustdoc JSON");
    assert!(err.contains("found no format_version"), "{err}");
    let err = sortpath_api::parse("{").expect_err("not JSON");
    assert!(err.starts_with("expected rustdoc JSON"), "{err}");
}
