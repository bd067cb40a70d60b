//! The namespace rule: one or more ASCII letters or `_`.

/// `NAMESPACE_BYTE[b]` is whether byte `b` may appear in a namespace (ASCII letter or `_`).
const NAMESPACE_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphabetic() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// Whether `ns` is a namespace: one or more ASCII letters or `_`.
#[inline]
pub(crate) fn is_valid(ns: &[u8]) -> bool {
    !ns.is_empty() && ns.iter().all(|&b| NAMESPACE_BYTE[usize::from(b)])
}
