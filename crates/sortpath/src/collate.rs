//! Locale-aware collation sort keys (feature `collate`), built on ICU4X's
//! `icu_collator`.
//!
//! Byte order of UTF-8 is code point order: `"Z" < "a"`, `"é"` after `"z"`, German `"ä"`
//! nowhere near `"a"`. A [`Collation`] turns a string into a [`SortKey`] whose bytes
//! compare exactly as the Unicode Collation Algorithm (with the locale's CLDR
//! tailoring) compares the strings, at the chosen [`Strength`]:
//!
//! - [`Strength::Primary`]: base letters only: case- and accent-insensitive
//!   (`"resume" == "Résumé"`).
//! - [`Strength::Secondary`]: accents matter, case does not.
//! - [`Strength::Tertiary`]: accents and case matter (the usual "dictionary" order).
//! - [`Strength::Quaternary`], [`Strength::Identical`]: finer tie-breaking; `Identical`
//!   appends the NFD form, so only canonically equivalent strings get equal keys.
//!
//! Use a sort key as a key field *next to* the original string (the key is one-way:
//! the string cannot be recovered from it), e.g. `[sort_key, original]` so equal keys
//! still order deterministically.
//!
//! Limits, by design of collation sort keys:
//! - Keys are only comparable with keys made by the same locale, strength and ICU4X
//!   data version. A new CLDR/Unicode version or ICU4X release may change them, so
//!   stored keys must be recomputable (keep the original string, and record which
//!   version made the index).
//! - At `Primary` strength a key can be a byte prefix of another (`"ab"` of `"abc"`);
//!   put keys in a key path or codec field (which delimits them), not raw concatenation.
//! - Keys contain no `0x00` byte (levels are separated by `0x01`).
//!
//! ```
//! use sortpath::collate::{Collation, Strength};
//! let german = Collation::new("de", Strength::Primary)?;
//! assert_eq!(german.sort_key("Äpfel"), german.sort_key("apfel"));
//! assert!(german.sort_key("Apfel") < german.sort_key("Birne"));
//! assert!(german.sort_key("Äpfel") < german.sort_key("Birne")); // bytes: "Ä" > "B"
//! # Ok::<(), sortpath::collate::CollateError>(())
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use icu_collator::options::{CollatorOptions, Strength as IcuStrength};
use icu_collator::CollatorBorrowed;
use icu_locale_core::Locale;

#[cfg(test)]
mod tests;

/// How many differences between strings count.
///
/// ```
/// use sortpath::collate::{Collation, Strength};
/// let c = Collation::new("en", Strength::Secondary)?;
/// assert_eq!(c.sort_key("Cafe"), c.sort_key("cafe"));
/// assert_ne!(c.sort_key("café"), c.sort_key("cafe"));
/// # Ok::<(), sortpath::collate::CollateError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Strength {
    /// Base letters only: case- and accent-insensitive.
    Primary,
    /// Base letters and accents: case-insensitive.
    Secondary,
    /// Base letters, accents and case.
    Tertiary,
    /// Also punctuation/kana distinctions the locale puts on the fourth level.
    Quaternary,
    /// Everything above, then the NFD code points.
    Identical,
}

impl Strength {
    fn icu(self) -> IcuStrength {
        match self {
            Strength::Primary => IcuStrength::Primary,
            Strength::Secondary => IcuStrength::Secondary,
            Strength::Tertiary => IcuStrength::Tertiary,
            Strength::Quaternary => IcuStrength::Quaternary,
            Strength::Identical => IcuStrength::Identical,
        }
    }
}

/// Why a collation could not be created, or text is not a sort key.
///
/// ```
/// let err = sortpath::collate::Collation::new("not a locale!", sortpath::collate::Strength::Primary).unwrap_err();
/// assert!(err.to_string().starts_with("expected a BCP 47 locale"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CollateError {
    /// The locale tag does not parse.
    #[error("expected a BCP 47 locale such as \"de\" or \"sv-SE\", found {0:?}")]
    Locale(String),
    /// ICU4X has no collation data for the locale.
    #[error("expected a locale with collation data, found {locale:?}: {reason}")]
    Data {
        /// The locale.
        locale: String,
        /// ICU4X's error.
        reason: String,
    },
    /// Sort key text is not an even number of hex digits.
    #[error("expected a hex digit pair at byte offset {0} of sort key text")]
    Hex(usize),
}

/// A collator for one locale and strength that makes [`SortKey`]s.
///
/// ```
/// use sortpath::collate::{Collation, Strength};
/// let swedish = Collation::new("sv", Strength::Tertiary)?;
/// // In Swedish, "ö" sorts after "z".
/// assert!(swedish.sort_key("zebra") < swedish.sort_key("öl"));
/// let english = Collation::new("en", Strength::Tertiary)?;
/// assert!(english.sort_key("öl") < english.sort_key("zebra"));
/// # Ok::<(), sortpath::collate::CollateError>(())
/// ```
pub struct Collation {
    collator: CollatorBorrowed<'static>,
    locale: String,
    strength: Strength,
}

impl fmt::Debug for Collation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Collation")
            .field("locale", &self.locale)
            .field("strength", &self.strength)
            .finish()
    }
}

impl Collation {
    /// A collation for a BCP 47 locale (`"und"` for the root order) at `strength`.
    /// Unicode extension keywords work too, e.g. `"de-u-co-phonebk"` or `"en-u-kn"`
    /// (numeric: `"a2" < "a10"`).
    ///
    /// ```
    /// use sortpath::collate::{Collation, Strength};
    /// let numeric = Collation::new("en-u-kn", Strength::Primary)?;
    /// assert!(numeric.sort_key("file2") < numeric.sort_key("file10"));
    /// # Ok::<(), sortpath::collate::CollateError>(())
    /// ```
    pub fn new(locale: &str, strength: Strength) -> Result<Collation, CollateError> {
        let parsed =
            Locale::try_from_str(locale).map_err(|_| CollateError::Locale(locale.to_string()))?;
        let mut options = CollatorOptions::default();
        options.strength = Some(strength.icu());
        let collator = CollatorBorrowed::try_new((&parsed).into(), options).map_err(|e| {
            CollateError::Data {
                locale: locale.to_string(),
                reason: e.to_string(),
            }
        })?;
        Ok(Collation {
            collator,
            locale: locale.to_string(),
            strength,
        })
    }

    /// The locale tag given to [`Collation::new`].
    ///
    /// ```
    /// let c = sortpath::collate::Collation::new("fr", sortpath::collate::Strength::Primary)?;
    /// assert_eq!(c.locale(), "fr");
    /// # Ok::<(), sortpath::collate::CollateError>(())
    /// ```
    pub fn locale(&self) -> &str {
        &self.locale
    }

    /// The strength.
    ///
    /// ```
    /// use sortpath::collate::{Collation, Strength};
    /// assert_eq!(Collation::new("und", Strength::Secondary)?.strength(), Strength::Secondary);
    /// # Ok::<(), sortpath::collate::CollateError>(())
    /// ```
    pub fn strength(&self) -> Strength {
        self.strength
    }

    /// Appends the sort key bytes of `text` to `out`.
    ///
    /// ```
    /// use sortpath::collate::{Collation, Strength};
    /// let c = Collation::new("und", Strength::Primary)?;
    /// let mut out = Vec::new();
    /// c.encode_into("a", &mut out);
    /// assert!(!out.is_empty() && !out.contains(&0));
    /// # Ok::<(), sortpath::collate::CollateError>(())
    /// ```
    pub fn encode_into(&self, text: &str, out: &mut Vec<u8>) {
        let Ok(()) = self.collator.write_sort_key_to(text, out);
    }

    /// The sort key of `text`.
    ///
    /// ```
    /// use sortpath::collate::{Collation, Strength};
    /// let c = Collation::new("und", Strength::Primary)?;
    /// assert_eq!(c.sort_key("resume"), c.sort_key("Résumé"));
    /// # Ok::<(), sortpath::collate::CollateError>(())
    /// ```
    pub fn sort_key(&self, text: &str) -> SortKey {
        let mut out = Vec::with_capacity(text.len() * 2 + 4);
        self.encode_into(text, &mut out);
        SortKey(out)
    }

    /// Compares two strings directly (same order as their sort keys).
    ///
    /// ```
    /// use sortpath::collate::{Collation, Strength};
    /// let c = Collation::new("und", Strength::Tertiary)?;
    /// assert_eq!(c.compare("a", "B"), std::cmp::Ordering::Less);
    /// # Ok::<(), sortpath::collate::CollateError>(())
    /// ```
    pub fn compare(&self, a: &str, b: &str) -> Ordering {
        self.collator.compare(a, b)
    }
}

/// The bytes of a collation sort key: compare them to compare the strings.
///
/// `Display`/`FromStr` use upper-case hex (which sorts like the bytes); as a serde
/// value it is that hex text in human-readable formats and raw bytes otherwise.
///
/// ```
/// use sortpath::collate::{Collation, SortKey, Strength};
/// let key = Collation::new("und", Strength::Primary)?.sort_key("a");
/// let text = key.to_string();
/// assert_eq!(text.parse::<SortKey>()?, key);
/// # Ok::<(), sortpath::collate::CollateError>(())
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SortKey(Vec<u8>);

impl SortKey {
    /// The key bytes.
    ///
    /// ```
    /// let key = sortpath::collate::SortKey::from_bytes(vec![0x2A, 0x01]);
    /// assert_eq!(key.as_bytes(), [0x2A, 0x01]);
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// A key from stored bytes.
    ///
    /// ```
    /// assert!(sortpath::collate::SortKey::from_bytes(vec![]).as_bytes().is_empty());
    /// ```
    pub fn from_bytes(bytes: Vec<u8>) -> SortKey {
        SortKey(bytes)
    }

    /// The key bytes, by value.
    ///
    /// ```
    /// assert_eq!(sortpath::collate::SortKey::from_bytes(vec![7]).into_bytes(), vec![7]);
    /// ```
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

impl fmt::Display for SortKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02X}"))
    }
}

impl fmt::Debug for SortKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SortKey({self})")
    }
}

impl FromStr for SortKey {
    type Err = CollateError;

    fn from_str(s: &str) -> Result<SortKey, CollateError> {
        let bytes = s.as_bytes();
        if !bytes.len().is_multiple_of(2) {
            return Err(CollateError::Hex(bytes.len() - 1));
        }
        bytes
            .chunks(2)
            .enumerate()
            .map(|(i, pair)| {
                std::str::from_utf8(pair)
                    .ok()
                    .filter(|p| {
                        p.bytes()
                            .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b))
                    })
                    .and_then(|p| u8::from_str_radix(p, 16).ok())
                    .ok_or(CollateError::Hex(2 * i))
            })
            .collect::<Result<Vec<u8>, _>>()
            .map(SortKey)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for SortKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.collect_str(self)
        } else {
            serializer.serialize_bytes(&self.0)
        }
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for SortKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<SortKey, D::Error> {
        struct KeyVisitor;
        impl<'de> serde::de::Visitor<'de> for KeyVisitor {
            type Value = SortKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a collation sort key as upper-case hex or bytes")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<SortKey, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<SortKey, E> {
                Ok(SortKey(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<SortKey, E> {
                Ok(SortKey(v))
            }
        }
        if deserializer.is_human_readable() {
            deserializer.deserialize_str(KeyVisitor)
        } else {
            deserializer.deserialize_byte_buf(KeyVisitor)
        }
    }
}

impl From<SortKey> for crate::Id {
    /// A key path ID holding the sort key bytes.
    ///
    /// ```
    /// use sortpath::{collate::{Collation, Strength}, KeyPath};
    /// let c = Collation::new("de", Strength::Primary)?;
    /// let path = |name: &str| KeyPath::new().push("name", c.sort_key(name)).unwrap().encode();
    /// assert!(path("Äpfel") < path("Birne"));
    /// # Ok::<(), sortpath::collate::CollateError>(())
    /// ```
    fn from(key: SortKey) -> crate::Id {
        crate::Id::Bytes(key.0)
    }
}
