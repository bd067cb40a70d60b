//! Tests of the codec: model-based properties, the peers' known failures, golden vectors.

mod golden;
mod model;
mod props;
mod regress;

/// Lowercase hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
