//! Descending order: [`Desc<T>`] for one field, [`Order`] for a whole key.
//!
//! A descending field is encoded ascending and then every byte of it is inverted
//! (`b -> !b`, XOR [`DESC_MASK`]). Inversion reverses byte order *between encodings that
//! differ inside the field*, and that is every pair of distinct values: each type's
//! encodings are prefix-free (no encoding of a value is a proper prefix of another
//! encoding of the same type), so two distinct values differ at a byte both of them have.
//! This is why strings end with a terminator instead of relying on the end of the key:
//! `"ab"` (`61 62 00`) sorts before `"abc"` (`61 62 63 00`) because `00 < 63`, and inverted
//! (`9E 9D FF` vs `9E 9D 9C FF`) it sorts after, as a descending field must.

use std::cmp::Ordering;
use std::fmt;

use serde::de::{Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// XOR mask applied to every byte of a descending field.
pub const DESC_MASK: u8 = 0xFF;

/// The serde newtype-struct name by which the codec recognises [`Desc`]. Other formats
/// see an ordinary newtype and (de)serialize the inner value transparently.
pub(crate) const DESC_NAME: &str = "\0sortpath::codec::Desc";

/// Sorts the wrapped value in descending order, inside an otherwise ascending key.
///
/// `Desc` works for any type (strings, options, tuples, nested `Desc`) and its `Ord`
/// is the reverse of `T`'s, so the encoded bytes order like the Rust values.
///
/// ```
/// use sortpath::codec::{to_vec, Desc};
/// // Newest first within a tenant: tenant ascending, time descending.
/// let older = to_vec(&(7u64, Desc(100u64), "x")).unwrap();
/// let newer = to_vec(&(7u64, Desc(200u64), "x")).unwrap();
/// assert!(newer < older);
/// // A string sorts after its extensions when descending.
/// assert!(to_vec(&Desc("abc")).unwrap() < to_vec(&Desc("ab")).unwrap());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Desc<T>(pub T);

impl<T: Ord> Ord for Desc<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.cmp(&self.0)
    }
}

/// The reverse of `T`'s partial order, so a key struct with a `Desc<f64>` field can
/// derive `PartialOrd`.
///
/// ```
/// use sortpath::codec::Desc;
/// assert!(Desc(2.5f64) < Desc(1.0));
/// assert_eq!(Desc(f64::NAN).partial_cmp(&Desc(1.0)), None);
/// ```
impl<T: PartialOrd> PartialOrd for Desc<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        other.0.partial_cmp(&self.0)
    }
}

impl<T: Serialize> Serialize for Desc<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(DESC_NAME, &self.0)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Desc<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DescVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for DescVisitor<T> {
            type Value = Desc<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a descending field")
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Desc<T>, D::Error> {
                T::deserialize(d).map(Desc)
            }
        }
        deserializer.deserialize_newtype_struct(DESC_NAME, DescVisitor(std::marker::PhantomData))
    }
}
