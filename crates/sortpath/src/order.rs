//! The one word for a key's direction.

/// Whether a key's bytes sort like its values (`Ascending`, the default) or opposite to them
/// (`Descending`: newest first, largest first).
///
/// Every encoding that can write either direction takes an `Order`: the codec's whole keys
/// (`codec::to_vec_ordered`, the same as wrapping the key in `codec::Desc`) and timestamps
/// ([`time::Timestamp::encode`](crate::time::Timestamp::encode)). A descending key is the
/// ascending key with every byte complemented, so a forward scan reads it newest first.
///
/// ```
/// use sortpath::time::{Precision, Timestamp};
/// use sortpath::Order;
/// let (old, new) = (Timestamp::from_unix_seconds(1), Timestamp::from_unix_seconds(2));
/// assert!(old.encode(Precision::Seconds, Order::Ascending) < new.encode(Precision::Seconds, Order::Ascending));
/// assert!(new.encode(Precision::Seconds, Order::Descending) < old.encode(Precision::Seconds, Order::Descending));
/// assert_eq!(Order::default(), Order::Ascending);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Bytes order like the values (the default).
    #[default]
    Ascending,
    /// Bytes order opposite to the values.
    Descending,
}
