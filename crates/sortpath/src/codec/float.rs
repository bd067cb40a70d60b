//! Floats in IEEE 754 total order.
//!
//! The bits of a positive float (sign bit clear) get their sign bit set; the bits of a
//! negative float are all inverted. Written big-endian, the bytes then order exactly like
//! `f64::total_cmp`: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`. The mapping is
//! a bijection on bit patterns, so every float (NaN payloads, -0.0) decodes exactly.

/// The sign bit of an `f64`.
const F64_SIGN: u64 = 1 << 63;
/// The sign bit of an `f32`.
const F32_SIGN: u32 = 1 << 31;

/// The order-preserving key bits of an `f64`.
#[inline]
pub(crate) fn f64_to_key(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits & F64_SIGN != 0 {
        !bits
    } else {
        bits | F64_SIGN
    }
}

/// Inverse of [`f64_to_key`].
#[inline]
pub(crate) fn f64_from_key(key: u64) -> f64 {
    f64::from_bits(if key & F64_SIGN != 0 {
        key & !F64_SIGN
    } else {
        !key
    })
}

/// The order-preserving key bits of an `f32`.
#[inline]
pub(crate) fn f32_to_key(v: f32) -> u32 {
    let bits = v.to_bits();
    if bits & F32_SIGN != 0 {
        !bits
    } else {
        bits | F32_SIGN
    }
}

/// Inverse of [`f32_to_key`].
#[inline]
pub(crate) fn f32_from_key(key: u32) -> f32 {
    f32::from_bits(if key & F32_SIGN != 0 {
        key & !F32_SIGN
    } else {
        !key
    })
}
