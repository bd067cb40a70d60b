//! Criterion benchmarks of keypath against peer key encodings (see `benches/`).
//!
//! This crate has no library API: it exists so the benches can depend on peers
//! without those peers ever becoming dependencies of keypath itself.
