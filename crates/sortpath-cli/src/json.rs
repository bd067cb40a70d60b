//! JSON in and out of the store: item values read from the shell are checked for integers
//! the store cannot hold exactly, and stored values print as JSON even when they hold
//! things JSON has no type for (byte strings, map keys that are not strings).

use std::fmt;

use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The deepest nesting of arrays and objects an item value may have: what `put` accepts,
/// so that every value the CLI stores has an export line (one level more) that `import`
/// reads back.
pub(crate) const MAX_VALUE_DEPTH: usize = 127;

/// Parses `text` as an item value: [`parse_nested`] with [`MAX_VALUE_DEPTH`].
pub(crate) fn parse(text: &str) -> Result<Value, String> {
    parse_nested(text, MAX_VALUE_DEPTH)
}

/// Parses `text` as a JSON value nested at most `max_depth` arrays and objects deep.
/// Integers must fit in 64 bits (signed or unsigned): the parser would otherwise turn a
/// larger one into the nearest float, and the store would keep a different number than the
/// one given.
pub(crate) fn parse_nested(text: &str, max_depth: usize) -> Result<Value, String> {
    if let Some(column) = too_deep(text, max_depth) {
        return Err(format!(
            "at column {column}: nested more than {max_depth} arrays and objects deep"
        ));
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    // The depth is checked above, so the parser's own limit (128) is not needed: it would
    // refuse an export line one level deeper than a value `put` accepts.
    deserializer.disable_recursion_limit();
    let parsed = Given::deserialize(&mut deserializer).and_then(|Given(v)| {
        deserializer.end()?;
        Ok(v)
    });
    let value: Value = parsed.map_err(|e| {
        // serde_json ends its message with the position, counted from the first line of
        // `text`; callers say which line of a file `text` is, so give the column only.
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(at) => &message[..at],
            None => &message,
        };
        format!("expected JSON: at column {}: {message}", e.column())
    })?;
    if let Some((column, digits)) = wide_integer(text) {
        return Err(format!(
            "at column {column}: the integer {digits} does not fit in 64 bits; \
             give it as a string (or as a float, if rounding it is fine)"
        ));
    }
    Ok(value)
}

/// The position after the JSON string that opens at `open` (a `"`) in `bytes`; a backslash
/// escapes the next byte.
fn after_string(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

/// The column (1-based, in characters) where the text `text` opens its `max_depth + 1`-th
/// nested array or object, if it does; strings are skipped.
fn too_deep(text: &str, max_depth: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = after_string(bytes, i) - 1,
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return Some(text[..i].chars().count() + 1);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The first integer literal in the JSON text `text` (known to be valid JSON) outside the
/// range of `i64` and `u64`, with its column (1-based, in characters).
fn wide_integer(text: &str) -> Option<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = after_string(bytes, i),
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let literal = &text[start..i];
                let integer = !literal.contains(['.', 'e', 'E']);
                if integer && literal.parse::<i64>().is_err() && literal.parse::<u64>().is_err() {
                    return Some((text[..start].chars().count() + 1, literal));
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// A value read from JSON text, as serde_json's `Value` reads it, except that an object
/// with a name given twice is refused (serde_json keeps the last one: the store would keep
/// a value other than the one written, silently).
struct Given(Value);

impl<'de> Deserialize<'de> for Given {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Given, D::Error> {
        AnyValue { given: true }
            .deserialize(deserializer)
            .map(Given)
    }
}

/// A stored value as JSON. Byte strings become arrays of numbers (as serde_json writes
/// bytes), map keys that are not strings become their JSON text, and floats JSON cannot
/// write (NaN, infinities) become `null`, as serde_json does.
pub(crate) struct Stored(pub(crate) Value);

impl<'de> Deserialize<'de> for Stored {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Stored, D::Error> {
        AnyValue { given: false }
            .deserialize(deserializer)
            .map(Stored)
    }
}

/// Reads any value into a JSON `Value`: one read [`Given`] (a map giving a key twice is
/// refused) or [`Stored`] (the last of its values is kept: keys `1` and `"1"` of a stored
/// map are one JSON name).
#[derive(Clone, Copy)]
struct AnyValue {
    given: bool,
}

impl<'de> DeserializeSeed<'de> for AnyValue {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AnyValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Array(v.iter().map(|&b| Value::from(b)).collect()))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element_seed(self)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key_seed(self)? {
            let k = match k {
                Value::String(s) => s,
                other => other.to_string(),
            };
            if self.given && out.contains_key(&k) {
                return Err(serde::de::Error::custom(format_args!(
                    "the name {} is given twice in one object (JSON readers keep one or \
                     the other: give it once)",
                    Value::String(k)
                )));
            }
            let v = map.next_value_seed(self)?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_beyond_64_bits_are_refused_with_their_column() {
        for fits in [
            "0",
            "-9223372036854775808",
            "18446744073709551615",
            "1.5e400",
            "[1, -2]",
        ] {
            assert!(wide_integer(fits).is_none(), "{fits}");
        }
        assert_eq!(
            wide_integer(r#"{"n": 18446744073709551616}"#),
            Some((7, "18446744073709551616"))
        );
        assert_eq!(
            wide_integer(r#"["é", -9223372036854775809]"#),
            Some((7, "-9223372036854775809"))
        );
        // Digits inside strings, escaped quotes included, are not numbers.
        assert_eq!(wide_integer(r#"["\"99999999999999999999", 1]"#), None);
        let e = parse(r#"{"n": 18446744073709551616}"#).unwrap_err();
        assert!(
            e.contains("at column 7") && e.contains("does not fit in 64 bits"),
            "{e}"
        );
        // A float written as one stays a float.
        assert_eq!(
            parse("1.8446744073709552e19").unwrap(),
            serde_json::json!(1.8446744073709552e19)
        );
    }

    #[test]
    fn a_name_given_twice_in_an_object_is_refused() {
        for twice in [
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": 1, "\u0061": 2}"#,
            r#"[{"n": {"x": [], "y": 0, "x": null}}]"#,
        ] {
            let e = parse(twice).unwrap_err();
            assert!(e.contains("is given twice in one object"), "{twice}: {e}");
        }
        let e = parse(r#"{"a": 1, "a": 2}"#).unwrap_err();
        assert_eq!(
            e,
            "expected JSON: at column 12: the name \"a\" is given twice in one object \
             (JSON readers keep one or the other: give it once)"
        );
        // The same name in different objects, and as a value, is fine.
        assert_eq!(
            parse(r#"{"a": {"a": "a"}, "b": [{"a": 1}, {"a": 2}]}"#).unwrap(),
            serde_json::json!({"a": {"a": "a"}, "b": [{"a": 1}, {"a": 2}]})
        );
    }

    #[test]
    fn values_read_as_serde_json_reads_them() {
        for text in [
            "null",
            "true",
            "-0.0",
            "0",
            "-9223372036854775808",
            "18446744073709551615",
            "1.5e300",
            "2.5",
            r#""é\u0000\"""#,
            r#"{"b": [1, {"c": []}], "a": {}, "": ""}"#,
        ] {
            let ours = parse(text).unwrap();
            let theirs: Value = serde_json::from_str(text).unwrap();
            assert_eq!(ours, theirs, "{text}");
            assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
        }
    }

    #[test]
    fn json_errors_give_the_column_only() {
        let e = parse("{\"a\": }").unwrap_err();
        assert_eq!(e, "expected JSON: at column 7: expected value");
    }

    #[tokio::test]
    async fn stored_bytes_and_odd_map_keys_print_as_json() {
        use sortpath::{path::PathError, KeyPath};
        use sortpath_store::{backend::memory::MemoryBackend, Item, Store};

        #[derive(serde::Serialize, serde::Deserialize)]
        struct Thing {
            id: uuid::Uuid,
            small: [u8; 2],
            by_number: std::collections::BTreeMap<u32, bool>,
            nan: f64,
        }
        impl Item for Thing {
            const TYPE: &'static str = "thing";
            // Stored with its field names, so its JSON has them.
            const SELF_DESCRIBING: bool = true;
            fn key_path(&self) -> Result<KeyPath, PathError> {
                KeyPath::new().push("thing", 1u64)
            }
        }
        let store = Store::new(MemoryBackend::new());
        let id = uuid::Uuid::from_bytes([7; 16]);
        let thing = Thing {
            id,
            small: [0, 255],
            by_number: [(7, true)].into(),
            nan: f64::NAN,
        };
        store.put(&thing).await.unwrap();
        let path: KeyPath = "/thing-1".parse().unwrap();
        let raw = store.get_raw(&path).await.unwrap().unwrap();
        // A UUID is stored as 16 bytes: JSON gets their numbers.
        let Stored(v) = raw.decode().unwrap();
        assert_eq!(
            v,
            serde_json::json!({"id": vec![7; 16], "small": [0, 255], "by_number": {"7": true}, "nan": null})
        );
        // serde_json's own value refuses the bytes: that is what this type is for.
        assert!(raw.decode::<Value>().is_err());
    }
}
