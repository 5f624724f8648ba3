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

    fn serialize_bool(self, _: bool) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_i8(self, _: i8) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_i16(self, _: i16) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_i32(self, _: i32) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_i64(self, _: i64) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_u8(self, _: u8) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_u16(self, _: u16) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_u32(self, _: u32) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_u64(self, _: u64) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_f32(self, _: f32) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_f64(self, _: f64) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_char(self, _: char) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_str(self, _: &str) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
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
    fn serialize_seq(self, _: Option<usize>) -> Result<Refused, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple(self, _: usize) -> Result<Refused, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Refused, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Refused, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Refused, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Refused, NotAStruct> {
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
        let value = serde_json::to_value(value).map_err(|_| NotAStruct)?;
        self.0.push((name, value));
        Ok(())
    }

    fn end(self) -> Result<Self::Ok, NotAStruct> {
        Ok(self.0)
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
}
