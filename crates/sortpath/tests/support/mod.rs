//! Shared helpers for integration tests. Each test binary uses a different subset.
#![allow(dead_code)]
pub mod python;
