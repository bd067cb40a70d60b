//! A dynamic model for property tests: random schemas (types), random values of a schema,
//! serialization that drives serde exactly as the equivalent static Rust type would, a
//! schema-driven decoder, and the intended order written independently of the encoder.

use std::cmp::Ordering;
use std::fmt;

use proptest::prelude::*;
use serde::de::{self, DeserializeSeed, EnumAccess, VariantAccess};
use serde::ser::{
    SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleVariant,
};
use serde::{Serialize, Serializer};

use super::super::desc::DESC_NAME;
use super::super::{de::Deserializer, to_vec, Desc, Error};

/// Field and variant names: serde wants `&'static str`.
const FIELDS: [&str; 6] = ["f0", "f1", "f2", "f3", "f4", "f5"];
const VARIANTS: [&str; 6] = ["V0", "V1", "V2", "V3", "V4", "V5"];

#[derive(Clone, Debug)]
pub enum Schema {
    Bool,
    U8,
    U16,
    U32,
    U64,
    U128,
    I8,
    I16,
    I32,
    I64,
    I128,
    F32,
    F64,
    Char,
    Str,
    Bytes,
    Unit,
    Option(Box<Schema>),
    Seq(Box<Schema>),
    Map(Box<Schema>, Box<Schema>),
    Tuple(Vec<Schema>),
    Struct(Vec<Schema>),
    Enum(Vec<Variant>),
    Desc(Box<Schema>),
}

#[derive(Clone, Debug)]
pub enum Variant {
    Unit,
    Newtype(Schema),
    Tuple(Vec<Schema>),
    Struct(Vec<Schema>),
}

impl Variant {
    fn fields(&self) -> &[Schema] {
        match self {
            Variant::Unit => &[],
            Variant::Newtype(s) => std::slice::from_ref(s),
            Variant::Tuple(f) | Variant::Struct(f) => f,
        }
    }
}

/// A value of some [`Schema`]. Floats are kept as bits so `PartialEq` is exact.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i128),
    U128(u128),
    F32(u32),
    F64(u64),
    Char(char),
    Str(String),
    Bytes(Vec<u8>),
    Unit,
    Option(Option<Box<Value>>),
    Seq(Vec<Value>),
    Map(Vec<(Value, Value)>),
    Tuple(Vec<Value>),
    Enum(u32, Vec<Value>),
    Desc(Box<Value>),
}

/// The intended order of two values of `schema`, stated without looking at bytes.
pub fn model_cmp(schema: &Schema, a: &Value, b: &Value) -> Ordering {
    use Value as V;
    match (schema, a, b) {
        (_, V::Bool(x), V::Bool(y)) => x.cmp(y),
        (_, V::Int(x), V::Int(y)) => x.cmp(y),
        (_, V::U128(x), V::U128(y)) => x.cmp(y),
        (_, V::F32(x), V::F32(y)) => f32::from_bits(*x).total_cmp(&f32::from_bits(*y)),
        (_, V::F64(x), V::F64(y)) => f64::from_bits(*x).total_cmp(&f64::from_bits(*y)),
        (_, V::Char(x), V::Char(y)) => x.cmp(y),
        (_, V::Str(x), V::Str(y)) => x.cmp(y),
        (_, V::Bytes(x), V::Bytes(y)) => x.cmp(y),
        (_, V::Unit, V::Unit) => Ordering::Equal,
        (Schema::Option(s), V::Option(x), V::Option(y)) => match (x, y) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(x), Some(y)) => model_cmp(s, x, y),
        },
        (Schema::Seq(s), V::Seq(x), V::Seq(y)) => {
            lexicographic(x.iter().zip(y), x.len().cmp(&y.len()), |(x, y)| {
                model_cmp(s, x, y)
            })
        }
        (Schema::Map(k, v), V::Map(x), V::Map(y)) => lexicographic(
            x.iter().zip(y),
            x.len().cmp(&y.len()),
            |((xk, xv), (yk, yv))| model_cmp(k, xk, yk).then_with(|| model_cmp(v, xv, yv)),
        ),
        (Schema::Tuple(s) | Schema::Struct(s), V::Tuple(x), V::Tuple(y)) => fields_cmp(s, x, y),
        (Schema::Enum(vs), V::Enum(i, x), V::Enum(j, y)) => i
            .cmp(j)
            .then_with(|| fields_cmp(vs[*i as usize].fields(), x, y)),
        (Schema::Desc(s), V::Desc(x), V::Desc(y)) => model_cmp(s, x, y).reverse(),
        _ => panic!("values {a:?} and {b:?} do not match schema {schema:?}"),
    }
}

fn lexicographic<I: Iterator>(
    pairs: I,
    tie: Ordering,
    mut f: impl FnMut(I::Item) -> Ordering,
) -> Ordering {
    for pair in pairs {
        let o = f(pair);
        if o != Ordering::Equal {
            return o;
        }
    }
    tie
}

fn fields_cmp(schemas: &[Schema], x: &[Value], y: &[Value]) -> Ordering {
    lexicographic(
        schemas.iter().zip(x.iter().zip(y)),
        Ordering::Equal,
        |(s, (x, y))| model_cmp(s, x, y),
    )
}

/// A value together with its schema, serialized as the matching static type would be.
pub struct Typed<'a>(pub &'a Schema, pub &'a Value);

fn int<T: TryFrom<i128>>(v: &Value) -> T
where
    T::Error: fmt::Debug,
{
    match v {
        Value::Int(i) => T::try_from(*i).expect("value fits its schema"),
        _ => panic!("not an integer: {v:?}"),
    }
}

impl Serialize for Typed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use Value as V;
        match (self.0, self.1) {
            (Schema::Bool, V::Bool(b)) => s.serialize_bool(*b),
            (Schema::U8, v) => s.serialize_u8(int(v)),
            (Schema::U16, v) => s.serialize_u16(int(v)),
            (Schema::U32, v) => s.serialize_u32(int(v)),
            (Schema::U64, v) => s.serialize_u64(int(v)),
            (Schema::U128, V::U128(v)) => s.serialize_u128(*v),
            (Schema::I8, v) => s.serialize_i8(int(v)),
            (Schema::I16, v) => s.serialize_i16(int(v)),
            (Schema::I32, v) => s.serialize_i32(int(v)),
            (Schema::I64, v) => s.serialize_i64(int(v)),
            (Schema::I128, v) => s.serialize_i128(int(v)),
            (Schema::F32, V::F32(b)) => s.serialize_f32(f32::from_bits(*b)),
            (Schema::F64, V::F64(b)) => s.serialize_f64(f64::from_bits(*b)),
            (Schema::Char, V::Char(c)) => s.serialize_char(*c),
            (Schema::Str, V::Str(t)) => s.serialize_str(t),
            (Schema::Bytes, V::Bytes(b)) => s.serialize_bytes(b),
            (Schema::Unit, V::Unit) => s.serialize_unit(),
            (Schema::Option(_), V::Option(None)) => s.serialize_none(),
            (Schema::Option(inner), V::Option(Some(v))) => s.serialize_some(&Typed(inner, v)),
            (Schema::Seq(inner), V::Seq(items)) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Typed(inner, item))?;
                }
                seq.end()
            }
            (Schema::Map(k, v), V::Map(entries)) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(&Typed(k, key), &Typed(v, value))?;
                }
                map.end()
            }
            (Schema::Tuple(fields), V::Tuple(values)) => {
                let mut t = s.serialize_tuple(fields.len())?;
                for (f, v) in fields.iter().zip(values) {
                    t.serialize_element(&Typed(f, v))?;
                }
                t.end()
            }
            (Schema::Struct(fields), V::Tuple(values)) => {
                let mut t = s.serialize_struct("S", fields.len())?;
                for (i, (f, v)) in fields.iter().zip(values).enumerate() {
                    t.serialize_field(FIELDS[i], &Typed(f, v))?;
                }
                t.end()
            }
            (Schema::Enum(variants), V::Enum(i, values)) => {
                let idx = *i as usize;
                match &variants[idx] {
                    Variant::Unit => s.serialize_unit_variant("E", *i, VARIANTS[idx]),
                    Variant::Newtype(f) => {
                        s.serialize_newtype_variant("E", *i, VARIANTS[idx], &Typed(f, &values[0]))
                    }
                    Variant::Tuple(fields) => {
                        let mut t =
                            s.serialize_tuple_variant("E", *i, VARIANTS[idx], fields.len())?;
                        for (f, v) in fields.iter().zip(values) {
                            t.serialize_field(&Typed(f, v))?;
                        }
                        t.end()
                    }
                    Variant::Struct(fields) => {
                        let mut t =
                            s.serialize_struct_variant("E", *i, VARIANTS[idx], fields.len())?;
                        for (n, (f, v)) in fields.iter().zip(values).enumerate() {
                            t.serialize_field(FIELDS[n], &Typed(f, v))?;
                        }
                        t.end()
                    }
                }
            }
            (Schema::Desc(inner), V::Desc(v)) => Desc(Typed(inner, v)).serialize(s),
            (schema, value) => panic!("value {value:?} does not match schema {schema:?}"),
        }
    }
}

/// Encodes a value of `schema`.
pub fn encode(schema: &Schema, value: &Value) -> Vec<u8> {
    to_vec(&Typed(schema, value)).expect("every value encodes")
}

/// Decodes exactly `bytes` as a value of `schema`.
pub fn decode(schema: &Schema, bytes: &[u8]) -> Result<Value, Error> {
    let mut de = Deserializer::new(bytes);
    let value = schema.deserialize(&mut de)?;
    if de.position() != bytes.len() {
        return Err(de::Error::custom("trailing bytes"));
    }
    Ok(value)
}

impl<'de> DeserializeSeed<'de> for &Schema {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let v = Build(self);
        match self {
            Schema::Bool => d.deserialize_bool(v),
            Schema::U8 => d.deserialize_u8(v),
            Schema::U16 => d.deserialize_u16(v),
            Schema::U32 => d.deserialize_u32(v),
            Schema::U64 => d.deserialize_u64(v),
            Schema::U128 => d.deserialize_u128(v),
            Schema::I8 => d.deserialize_i8(v),
            Schema::I16 => d.deserialize_i16(v),
            Schema::I32 => d.deserialize_i32(v),
            Schema::I64 => d.deserialize_i64(v),
            Schema::I128 => d.deserialize_i128(v),
            Schema::F32 => d.deserialize_f32(v),
            Schema::F64 => d.deserialize_f64(v),
            Schema::Char => d.deserialize_char(v),
            Schema::Str => d.deserialize_string(v),
            Schema::Bytes => d.deserialize_byte_buf(v),
            Schema::Unit => d.deserialize_unit(v),
            Schema::Option(_) => d.deserialize_option(v),
            Schema::Seq(_) => d.deserialize_seq(v),
            Schema::Map(..) => d.deserialize_map(v),
            Schema::Tuple(f) => d.deserialize_tuple(f.len(), v),
            Schema::Struct(f) => d.deserialize_struct("S", &FIELDS[..f.len()], v),
            Schema::Enum(vs) => d.deserialize_enum("E", &VARIANTS[..vs.len()], v),
            Schema::Desc(_) => d.deserialize_newtype_struct(DESC_NAME, v),
        }
    }
}

/// Visitor that builds a [`Value`] of the schema it holds.
struct Build<'a>(&'a Schema);

impl Build<'_> {
    fn fields<'de, A: de::SeqAccess<'de>>(
        schemas: &[Schema],
        mut seq: A,
    ) -> Result<Vec<Value>, A::Error> {
        schemas
            .iter()
            .map(|s| {
                seq.next_element_seed(s)?
                    .ok_or_else(|| de::Error::custom("missing field"))
            })
            .collect()
    }
}

impl<'de> de::Visitor<'de> for Build<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a value of {:?}", self.0)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Value, E> {
        Ok(Value::U128(v))
    }
    fn visit_f32<E>(self, v: f32) -> Result<Value, E> {
        Ok(Value::F32(v.to_bits()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::F64(v.to_bits()))
    }
    fn visit_char<E>(self, v: char) -> Result<Value, E> {
        Ok(Value::Char(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Bytes(v.to_owned()))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Unit)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Option(None))
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let Schema::Option(inner) = self.0 else {
            unreachable!()
        };
        Ok(Value::Option(Some(Box::new(
            inner.as_ref().deserialize(d)?,
        ))))
    }
    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let Schema::Desc(inner) = self.0 else {
            unreachable!()
        };
        Ok(Value::Desc(Box::new(inner.as_ref().deserialize(d)?)))
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        match self.0 {
            Schema::Seq(inner) => {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element_seed(inner.as_ref())? {
                    items.push(item);
                }
                Ok(Value::Seq(items))
            }
            Schema::Tuple(f) | Schema::Struct(f) => Ok(Value::Tuple(Self::fields(f, seq)?)),
            Schema::Enum(vs) => Err(de::Error::custom(format!("sequence for enum {vs:?}"))),
            _ => unreachable!(),
        }
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Schema::Map(k, v) = self.0 else {
            unreachable!()
        };
        let mut entries = Vec::new();
        while let Some(key) = map.next_key_seed(k.as_ref())? {
            entries.push((key, map.next_value_seed(v.as_ref())?));
        }
        Ok(Value::Map(entries))
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let Schema::Enum(vs) = self.0 else {
            unreachable!()
        };
        let (index, access): (u32, _) = data.variant()?;
        let Some(variant) = vs.get(index as usize) else {
            return Err(de::Error::custom("unknown variant"));
        };
        let fields = match variant {
            Variant::Unit => access.unit_variant().map(|()| Vec::new())?,
            Variant::Newtype(s) => vec![access.newtype_variant_seed(s)?],
            Variant::Tuple(f) => {
                match access.tuple_variant(f.len(), Build(&Schema::Tuple(f.clone())))? {
                    Value::Tuple(v) => v,
                    _ => unreachable!(),
                }
            }
            Variant::Struct(f) => match access
                .struct_variant(&FIELDS[..f.len()], Build(&Schema::Struct(f.clone())))?
            {
                Value::Tuple(v) => v,
                _ => unreachable!(),
            },
        };
        Ok(Value::Enum(index, fields))
    }
}

// ---- strategies ----

pub fn schema() -> impl Strategy<Value = Schema> {
    let leaf = prop_oneof![
        1 => Just(Schema::Bool),
        1 => Just(Schema::U8),
        1 => Just(Schema::U16),
        1 => Just(Schema::U32),
        1 => Just(Schema::U64),
        1 => Just(Schema::U128),
        1 => Just(Schema::I8),
        1 => Just(Schema::I16),
        1 => Just(Schema::I32),
        1 => Just(Schema::I64),
        1 => Just(Schema::I128),
        1 => Just(Schema::F32),
        1 => Just(Schema::F64),
        1 => Just(Schema::Char),
        3 => Just(Schema::Str),
        2 => Just(Schema::Bytes),
        1 => Just(Schema::Unit),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        let variant = prop_oneof![
            Just(Variant::Unit),
            inner.clone().prop_map(Variant::Newtype),
            prop::collection::vec(inner.clone(), 0..3).prop_map(Variant::Tuple),
            prop::collection::vec(inner.clone(), 1..3).prop_map(Variant::Struct),
        ];
        prop_oneof![
            1 => inner.clone().prop_map(|s| Schema::Option(Box::new(s))),
            1 => inner.clone().prop_map(|s| Schema::Seq(Box::new(s))),
            1 => (inner.clone(), inner.clone()).prop_map(|(k, v)| Schema::Map(Box::new(k), Box::new(v))),
            1 => prop::collection::vec(inner.clone(), 0..5).prop_map(Schema::Tuple),
            1 => prop::collection::vec(inner.clone(), 1..5).prop_map(Schema::Struct),
            1 => prop::collection::vec(variant, 1..4).prop_map(Schema::Enum),
            3 => inner.prop_map(|s| Schema::Desc(Box::new(s))),
        ]
    })
}

/// Integers in `min..=max`: extremes and byte-length edges often, anything sometimes.
fn int_in(min: i128, max: i128) -> BoxedStrategy<i128> {
    let mut edges = vec![
        min, max, 0, 1, -1, 2, 255, 256, -255, -256, -257, 65535, 65536,
    ];
    for shift in [16, 24, 32, 48, 56, 63, 64] {
        let p = 1i128 << shift;
        edges.extend([p - 1, p, -(p - 1), -p, -p - 1]);
    }
    edges.extend([
        i64::MIN.into(),
        i64::MAX.into(),
        u64::MAX.into(),
        -i128::from(u64::MAX),
    ]);
    edges.retain(|e| (min..=max).contains(e));
    prop_oneof![
        3 => prop::sample::select(edges),
        2 => (-3i128..=3).prop_map(move |v| v.clamp(min, max)),
        2 => min..=max,
    ]
    .boxed()
}

fn float_bits64() -> BoxedStrategy<u64> {
    let specials: Vec<u64> = [
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        5e-324,
        -5e-324,
    ]
    .iter()
    .map(|f| f.to_bits())
    .chain([
        0x7FF0_0000_0000_0001,
        0xFFF8_0000_0000_0001,
        0x7FFF_FFFF_FFFF_FFFF,
    ])
    .collect();
    prop_oneof![prop::sample::select(specials), any::<u64>()].boxed()
}

fn float_bits32() -> BoxedStrategy<u32> {
    let specials: Vec<u32> = [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::MIN_POSITIVE,
        1e-45,
    ]
    .iter()
    .map(|f| f.to_bits())
    .chain([0x7F80_0001, 0xFFFF_FFFF])
    .collect();
    prop_oneof![prop::sample::select(specials), any::<u32>()].boxed()
}

fn char_value() -> BoxedStrategy<char> {
    prop_oneof![
        3 => prop::sample::select(vec!['\0', '\u{1}', 'a', 'b', '\u{7F}', '\u{80}', 'é', '\u{FFFF}', '\u{10FFFF}']),
        1 => any::<char>(),
    ]
    .boxed()
}

fn string_value() -> BoxedStrategy<String> {
    prop_oneof![
        4 => prop::collection::vec(prop::sample::select(vec!['\0', '\u{1}', '\u{2}', 'a', 'b', 'é', '\u{10FFFF}']), 0..4)
            .prop_map(|cs| cs.into_iter().collect()),
        1 => any::<String>(),
    ]
    .boxed()
}

fn bytes_value() -> BoxedStrategy<Vec<u8>> {
    prop_oneof![
        4 => prop::collection::vec(prop::sample::select(vec![0x00u8, 0x01, 0x02, 0x61, 0xFE, 0xFF]), 0..5),
        1 => prop::collection::vec(any::<u8>(), 0..8),
    ]
    .boxed()
}

/// Random values of `schema`.
pub fn value(schema: &Schema) -> BoxedStrategy<Value> {
    use Value as V;
    let int = |min: i128, max: i128| int_in(min, max).prop_map(V::Int).boxed();
    match schema {
        Schema::Bool => any::<bool>().prop_map(V::Bool).boxed(),
        Schema::U8 => int(0, u8::MAX.into()),
        Schema::U16 => int(0, u16::MAX.into()),
        Schema::U32 => int(0, u32::MAX.into()),
        Schema::U64 => int(0, u64::MAX.into()),
        Schema::I8 => int(i8::MIN.into(), i8::MAX.into()),
        Schema::I16 => int(i16::MIN.into(), i16::MAX.into()),
        Schema::I32 => int(i32::MIN.into(), i32::MAX.into()),
        Schema::I64 => int(i64::MIN.into(), i64::MAX.into()),
        Schema::I128 => prop_oneof![int(i128::MIN, i128::MAX), Just(V::Int(i128::MIN + 1))].boxed(),
        Schema::U128 => prop_oneof![
            int_in(0, i128::MAX).prop_map(|v| V::U128(v as u128)),
            prop::sample::select(vec![u128::MAX, u128::MAX - 1, 1 << 127, 1 << 64])
                .prop_map(V::U128),
            any::<u128>().prop_map(V::U128),
        ]
        .boxed(),
        Schema::F32 => float_bits32().prop_map(V::F32).boxed(),
        Schema::F64 => float_bits64().prop_map(V::F64).boxed(),
        Schema::Char => char_value().prop_map(V::Char).boxed(),
        Schema::Str => string_value().prop_map(V::Str).boxed(),
        Schema::Bytes => bytes_value().prop_map(V::Bytes).boxed(),
        Schema::Unit => Just(V::Unit).boxed(),
        Schema::Option(s) => prop::option::of(value(s))
            .prop_map(|v| V::Option(v.map(Box::new)))
            .boxed(),
        Schema::Seq(s) => prop::collection::vec(value(s), 0..4)
            .prop_map(V::Seq)
            .boxed(),
        Schema::Map(k, v) => prop::collection::vec((value(k), value(v)), 0..3)
            .prop_map(V::Map)
            .boxed(),
        Schema::Tuple(f) | Schema::Struct(f) => fields(f).prop_map(V::Tuple).boxed(),
        Schema::Enum(vs) => {
            let arms: Vec<_> = vs
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    fields(v.fields())
                        .prop_map(move |f| V::Enum(i as u32, f))
                        .boxed()
                })
                .collect();
            prop::strategy::Union::new(arms).boxed()
        }
        Schema::Desc(s) => value(s).prop_map(|v| V::Desc(Box::new(v))).boxed(),
    }
}

fn fields(schemas: &[Schema]) -> BoxedStrategy<Vec<Value>> {
    schemas.iter().map(value).collect::<Vec<_>>().boxed()
}

/// A schema and two values of it.
pub fn schema_and_two_values() -> impl Strategy<Value = (Schema, Value, Value)> {
    schema().prop_flat_map(|s| {
        let v = value(&s);
        (Just(s), v.clone(), v)
    })
}
