//! The namespace rule: one or more ASCII letters or `_`.

/// `NAMESPACE_BYTE[b]` is whether byte `b` may appear in a namespace (ASCII letter or `_`).
pub(crate) const NAMESPACE_BYTE: [bool; 256] = {
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

/// Length of the namespace at the start of `text`: how many bytes from the start are ASCII
/// letters or `_`.
#[inline]
pub(crate) fn prefix_len(text: &[u8]) -> usize {
    text.iter()
        .position(|&b| !NAMESPACE_BYTE[usize::from(b)])
        .unwrap_or(text.len())
}
