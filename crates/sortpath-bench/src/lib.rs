//! Criterion benchmarks of sortpath against peer key encodings (see `benches/`).
//!
//! This crate has no library API: it exists so the benches can depend on peers
//! without those peers ever becoming dependencies of sortpath itself.
