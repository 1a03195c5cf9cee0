//! The Arrow type of a column of JSON values, learnt from the values themselves (every message
//! of a capture, streamed), and each value made to fit it. Serde's JSON of a message is typed
//! enough: objects become structs, arrays lists, numbers integers or floats. Two things need
//! care. An enum is externally tagged (`{"Variant": {...}}`), and a unit variant is a bare string
//! (`"AddEntity"`): where strings and objects meet, the strings become `true` fields of the
//! struct, so every variant is a nullable field of one struct (DuckDB, Spark and Polars read
//! that without a union type, which Parquet lacks). Where nothing else fits, the value is kept
//! as its JSON text, so nothing is lost.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields};
use serde_json::{Map, Value};

/// Distinct strings remembered at a position while it might still turn out to hold unit
/// variants; past this it is a text column.
const VARIANT_NAMES: usize = 64;

/// What the values at one position have been.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Only nulls so far.
    Null,
    Bool,
    /// Integers that fit an `i64`.
    Int,
    /// Integers, some past `i64::MAX`.
    UInt,
    Float,
    /// Strings: the distinct ones while they are few (`None` once they are many).
    Str(Option<Vec<String>>),
    /// Anything that fits no one type: its JSON text.
    Text,
    List(Box<Shape>),
    /// Fields in the order first seen.
    Struct(Vec<(String, Shape)>),
}

impl Shape {
    /// Widens the shape to hold `v` too.
    pub fn learn(&mut self, v: &Value) {
        let taken = std::mem::replace(self, Shape::Null);
        *self = taken.merge(v);
    }

    fn merge(self, v: &Value) -> Shape {
        use Shape::*;
        match (self, v) {
            (s, Value::Null) => s,
            (Text, _) => Text,
            (Null | Bool, Value::Bool(_)) => Bool,
            (Null | Int, Value::Number(n)) if n.is_i64() => Int,
            (Null | Int | UInt, Value::Number(n)) if n.is_u64() => UInt,
            (Null | Int | UInt | Float, Value::Number(_)) => Float,
            (Null, Value::String(s)) => Str(Some(vec![s.clone()])),
            (Str(Some(mut seen)), Value::String(s)) => {
                if !seen.contains(s) {
                    seen.push(s.clone());
                }
                Str((seen.len() <= VARIANT_NAMES).then_some(seen))
            }
            (Str(None), Value::String(_)) => Str(None),
            (Null, Value::Array(items)) => List(Box::new(Null)).merge(&Value::Array(items.clone())),
            (List(mut e), Value::Array(items)) => {
                for item in items {
                    e.learn(item);
                }
                List(e)
            }
            (Null, Value::Object(o)) => Struct(Vec::new()).merge_object(o),
            (Struct(fields), Value::Object(o)) => Struct(fields).merge_object(o),
            // Unit variants meeting variants with data: each name a field that is `true`.
            (Str(Some(names)), Value::Object(o)) => {
                let fields = names.into_iter().map(|n| (n, Bool)).collect();
                Struct(fields).merge_object(o)
            }
            (Struct(mut fields), Value::String(s)) => {
                if !fields.iter().any(|(n, _)| n == s) {
                    fields.push((s.clone(), Bool));
                }
                Struct(fields)
            }
            _ => Text,
        }
    }

    fn merge_object(self, o: &Map<String, Value>) -> Shape {
        let Shape::Struct(mut fields) = self else {
            return self;
        };
        for (name, value) in o {
            match fields.iter_mut().find(|(n, _)| n == name) {
                Some((_, shape)) => shape.learn(value),
                None => {
                    let mut shape = Shape::Null;
                    shape.learn(value);
                    fields.push((name.clone(), shape));
                }
            }
        }
        Shape::Struct(fields)
    }

    /// The Arrow type of the column (every field nullable).
    pub fn data_type(&self) -> DataType {
        match self {
            // A column of nulls only, or a struct with no field (Parquet has neither): text.
            Shape::Null | Shape::Text | Shape::Str(_) => DataType::Utf8,
            Shape::Struct(fields) if fields.is_empty() => DataType::Utf8,
            Shape::Bool => DataType::Boolean,
            Shape::Int => DataType::Int64,
            Shape::UInt => DataType::UInt64,
            Shape::Float => DataType::Float64,
            Shape::List(e) => DataType::List(Arc::new(Field::new("item", e.data_type(), true))),
            Shape::Struct(fields) => DataType::Struct(Fields::from(
                fields
                    .iter()
                    .map(|(n, s)| Field::new(n, s.data_type(), true))
                    .collect::<Vec<_>>(),
            )),
        }
    }

    /// `v` made to fit the column's type: unit variants as `{"Name": true}`, what fits nowhere
    /// as its JSON text.
    pub fn fit(&self, v: Value) -> Value {
        match (self, v) {
            (_, Value::Null) => Value::Null,
            (Shape::Null | Shape::Text | Shape::Str(_), v @ Value::String(_)) => v,
            (Shape::Null | Shape::Text | Shape::Str(_), v) => Value::String(v.to_string()),
            (Shape::Struct(fields), v) if fields.is_empty() => Value::String(v.to_string()),
            (Shape::Bool, v @ Value::Bool(_)) => v,
            (Shape::Int | Shape::UInt | Shape::Float, v @ Value::Number(_)) => v,
            (Shape::List(e), Value::Array(items)) => {
                Value::Array(items.into_iter().map(|i| e.fit(i)).collect())
            }
            (Shape::Struct(fields), Value::Object(mut o)) => Value::Object(
                fields
                    .iter()
                    .filter_map(|(n, s)| Some((n.clone(), s.fit(o.remove(n)?))))
                    .collect(),
            ),
            (Shape::Struct(_), Value::String(s)) => {
                Value::Object(Map::from_iter([(s, Value::Bool(true))]))
            }
            _ => Value::Null,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn learnt(values: &[Value]) -> Shape {
        let mut s = Shape::Null;
        for v in values {
            s.learn(v);
        }
        s
    }

    #[test]
    fn unit_and_data_variants_become_one_struct_whatever_comes_first() {
        let unit = json!("AddEntity");
        let data = json!({"SetComponent": {"x": 1.5}});
        for order in [[&unit, &data], [&data, &unit]] {
            let s = learnt(&[order[0].clone(), order[1].clone()]);
            let Shape::Struct(fields) = &s else {
                panic!("{s:?}")
            };
            let mut names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
            names.sort();
            assert_eq!(names, ["AddEntity", "SetComponent"]);
            assert_eq!(s.fit(unit.clone()), json!({"AddEntity": true}));
            assert_eq!(s.fit(data.clone()), json!({"SetComponent": {"x": 1.5}}));
        }
    }

    #[test]
    fn numbers_widen_and_what_fits_nowhere_is_kept_as_text() {
        assert_eq!(learnt(&[json!(1), json!(-2)]), Shape::Int);
        assert_eq!(learnt(&[json!(1), json!(u64::MAX)]), Shape::UInt);
        assert_eq!(learnt(&[json!(1), json!(0.5)]), Shape::Float);
        let s = learnt(&[json!(1), json!([1])]);
        assert_eq!(s, Shape::Text);
        assert_eq!(s.fit(json!([1])), json!("[1]"));
        assert_eq!(s.data_type(), DataType::Utf8);
    }

    #[test]
    fn many_distinct_strings_are_a_text_column() {
        let names: Vec<Value> = (0..=VARIANT_NAMES)
            .map(|i| json!(format!("s{i}")))
            .collect();
        let mut s = learnt(&names);
        assert_eq!(s, Shape::Str(None));
        s.learn(&json!({"A": 1}));
        assert_eq!(s, Shape::Text);
    }
}
