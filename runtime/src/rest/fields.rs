//! A params struct read field by field, for a URL: each field's name and
//! its value as JSON, with no JSON map around them (a map allocates a
//! node and a key per field, every time a key is made). Anything but a
//! struct (a map, a flattened struct, a list) is left to a JSON map.

use serde::Serialize;
use serde::ser::{self, Impossible, SerializeStruct, Serializer};
use serde_json::Value;

/// The fields of `params` in declaration order, or `None` when `params`
/// is not a struct (nor nothing: `()` or `None` give no fields), or a
/// field does not turn into JSON.
pub(crate) fn fields_of(params: &impl Serialize) -> Option<Vec<(&'static str, Value)>> {
    params.serialize(Fields).ok()
}

/// The field `name` of `params` as JSON, read field by field from a
/// struct, else from its JSON map (`None` when it has no such field or
/// is not a map).
pub(crate) fn field_of(params: &impl Serialize, name: &str) -> Option<Value> {
    match fields_of(params) {
        Some(fields) => fields
            .into_iter()
            .find_map(|(field, value)| (field == name).then_some(value)),
        None => match to_json(params) {
            Ok(Value::Object(mut named)) => named.remove(name),
            _ => None,
        },
    }
}

/// Why [`Fields`] gave up: the caller reads the params as a JSON map.
#[derive(Debug)]
pub(crate) struct NotAStruct;

impl std::fmt::Display for NotAStruct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a struct of params")
    }
}

impl std::error::Error for NotAStruct {}

impl ser::Error for NotAStruct {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        NotAStruct
    }
}

/// Serializer methods that refuse what they are given (it is not a
/// struct): returning `Self::Ok`, or (`as Refused:`) a compound that is
/// never made.
macro_rules! refuse {
    (as Refused: $($method:ident($($arg:ty),*)),* $(,)?) => {$(
        fn $method(self, $(_: $arg),*) -> Result<Refused, NotAStruct> {
            Err(NotAStruct)
        }
    )*};
    ($($method:ident($($arg:ty),*)),* $(,)?) => {$(
        fn $method(self, $(_: $arg),*) -> Result<Self::Ok, NotAStruct> {
            Err(NotAStruct)
        }
    )*};
}

/// Reads a struct's fields; refuses anything else.
struct Fields;

/// The fields read so far.
struct StructFields(Vec<(&'static str, Value)>);

type Refused = Impossible<Vec<(&'static str, Value)>, NotAStruct>;

impl Serializer for Fields {
    type Ok = Vec<(&'static str, Value)>;
    type Error = NotAStruct;
    type SerializeSeq = Refused;
    type SerializeTuple = Refused;
    type SerializeTupleStruct = Refused;
    type SerializeTupleVariant = Refused;
    type SerializeMap = Refused;
    type SerializeStruct = StructFields;
    type SerializeStructVariant = Refused;

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<StructFields, NotAStruct> {
        Ok(StructFields(Vec::with_capacity(len)))
    }

    fn serialize_unit(self) -> Result<Self::Ok, NotAStruct> {
        Ok(Vec::new())
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok, NotAStruct> {
        Ok(Vec::new())
    }

    fn serialize_none(self) -> Result<Self::Ok, NotAStruct> {
        Ok(Vec::new())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Self::Ok, NotAStruct> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Self::Ok, NotAStruct> {
        value.serialize(self)
    }

    refuse! {
        serialize_f32(f32), serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_i64(i64), serialize_u8(u8), serialize_u16(u16), serialize_u32(u32),
        serialize_u64(u64), serialize_f64(f64), serialize_char(char),
        serialize_str(&str), serialize_bytes(&[u8]),
        serialize_unit_variant(&'static str, u32, &'static str),
    }
    refuse! { as Refused:
        serialize_seq(Option<usize>), serialize_tuple(usize),
        serialize_tuple_struct(&'static str, usize),
        serialize_tuple_variant(&'static str, u32, &'static str, usize),
        serialize_map(Option<usize>),
        serialize_struct_variant(&'static str, u32, &'static str, usize),
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
}

impl SerializeStruct for StructFields {
    type Ok = Vec<(&'static str, Value)>;
    type Error = NotAStruct;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), NotAStruct> {
        self.0.push((name, to_json(value).map_err(|_| NotAStruct)?));
        Ok(())
    }

    fn end(self) -> Result<Self::Ok, NotAStruct> {
        Ok(self.0)
    }
}

/// `value` as JSON, with each `f32` in it written with its own digits.
/// A JSON value holds an `f32` as an `f64`, whose digits show the f32's
/// rounding (`4.1` becomes `4.099999904632568`); text keeps the f32's
/// digits, so a value with a fraction in it goes through text (an `f64`
/// comes back the same from its shortest digits).
pub(crate) fn to_json(value: &(impl Serialize + ?Sized)) -> Result<Value, serde_json::Error> {
    let json = serde_json::to_value(value)?;
    match has_fraction(&json) {
        true => serde_json::from_str(&serde_json::to_string(value)?),
        false => Ok(json),
    }
}

fn has_fraction(json: &Value) -> bool {
    match json {
        Value::Number(number) => number.is_f64(),
        Value::Array(items) => items.iter().any(has_fraction),
        Value::Object(fields) => fields.values().any(has_fraction),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Params {
        id: u64,
        #[serde(rename = "q")]
        query: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        page: Option<u32>,
    }

    #[derive(Serialize)]
    struct Flat {
        #[serde(flatten)]
        inner: Params,
    }

    #[test]
    fn a_struct_gives_its_fields_and_anything_else_is_refused() {
        let params = Params {
            id: 3,
            query: None,
            page: None,
        };
        let fields = fields_of(&params).expect("a struct");
        assert_eq!(fields, [("id", json!(3)), ("q", Value::Null)]);
        assert_eq!(fields_of(&()), Some(Vec::new()));
        assert_eq!(fields_of(&None::<Params>), Some(Vec::new()));
        assert!(fields_of(&Flat { inner: params }).is_none(), "a map");
        assert!(fields_of(&BTreeMap::from([("id", 3)])).is_none());
        assert!(fields_of(&7u32).is_none());
    }

    #[test]
    fn one_field_from_a_struct_or_a_map() {
        let params = Params {
            id: 3,
            query: Some("a b".into()),
            page: None,
        };
        assert_eq!(field_of(&params, "id"), Some(json!(3)));
        assert_eq!(field_of(&params, "q"), Some(json!("a b")));
        assert_eq!(field_of(&params, "page"), None, "skipped");
        assert_eq!(field_of(&params, "query"), None, "renamed");
        assert_eq!(field_of(&Flat { inner: params }, "id"), Some(json!(3)));
        assert_eq!(field_of(&BTreeMap::from([("id", 4)]), "id"), Some(json!(4)));
        assert_eq!(field_of(&7u32, "id"), None);
    }
}
