//! serde for key paths: the text form in human-readable formats, the binary form otherwise.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::KeyPath;

impl Serialize for KeyPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.collect_str(self)
        } else {
            serializer.serialize_bytes(self.as_bytes())
        }
    }
}

struct KeyPathVisitor;

impl<'de> Visitor<'de> for KeyPathVisitor {
    type Value = KeyPath;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key path (text such as \"/user-1/post-2\", or its binary form)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyPath, E> {
        v.parse().map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<KeyPath, E> {
        KeyPath::decode(v).map_err(E::custom)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<KeyPath, A::Error> {
        let mut bytes = Vec::new();
        while let Some(b) = seq.next_element::<u8>()? {
            bytes.push(b);
        }
        self.visit_bytes(&bytes)
    }
}

impl<'de> Deserialize<'de> for KeyPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<KeyPath, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_str(KeyPathVisitor)
        } else {
            deserializer.deserialize_bytes(KeyPathVisitor)
        }
    }
}
