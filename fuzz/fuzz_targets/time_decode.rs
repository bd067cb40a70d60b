//! Arbitrary bytes never make `Timestamp::decode_prefix` panic at any precision or
//! direction; whatever decodes re-encodes to the bytes it used. Text parsing likewise.
#![no_main]

use sortpath::time::{Precision, Timestamp};
use sortpath::Order;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for precision in [Precision::Seconds, Precision::Millis, Precision::Nanos] {
        for direction in [Order::Ascending, Order::Descending] {
            if let Ok((t, used)) = Timestamp::decode_prefix(data, precision, direction) {
                assert_eq!(t.encode(precision, direction), &data[..used]);
            }
        }
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(t) = text.parse::<Timestamp>() {
        assert_eq!(t.to_string().parse::<Timestamp>(), Ok(t));
    }
});
