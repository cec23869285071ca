//! Values printed as Go's `fmt` prints the `interface{}` values apimachinery decodes JSON
//! into (integers as int64, other numbers as float64): the patch errors quote them.

use serde_json::Value;

/// The Go type of a decoded JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoType {
    Nil,
    Bool,
    Int,
    Float,
    String,
    Slice,
    Map,
}

pub fn type_of(v: &Value) -> GoType {
    match v {
        Value::Null => GoType::Nil,
        Value::Bool(_) => GoType::Bool,
        Value::Number(n) if n.is_i64() => GoType::Int,
        Value::Number(_) => GoType::Float,
        Value::String(_) => GoType::String,
        Value::Array(_) => GoType::Slice,
        Value::Object(_) => GoType::Map,
    }
}

/// `reflect.TypeOf(v)` with `%s`.
pub fn go_type(v: &Value) -> &'static str {
    match type_of(v) {
        GoType::Nil => "%!s(<nil>)",
        GoType::Bool => "bool",
        GoType::Int => "int64",
        GoType::Float => "float64",
        GoType::String => "string",
        GoType::Slice => "[]interface {}",
        GoType::Map => "map[string]interface {}",
    }
}

/// `%v`: maps as `map[k:v ...]` with sorted keys, slices as `[a b]`, nil as `<nil>`.
pub fn go_v(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(_) => number(v),
        Value::String(s) => s.clone(),
        Value::Array(_) | Value::Object(_) => container(v, go_v),
    }
}

/// `%s`: strings as they are, other values as `%!s(type=value)`.
pub fn go_s(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "%!s(<nil>)".into(),
        Value::Array(_) | Value::Object(_) => container(v, go_s),
        _ => format!("%!s({}={})", go_type(v), go_v(v)),
    }
}

/// A slice as `[a b]` and a map as `map[k:v ...]` with sorted keys, each item printed
/// with `verb` (`%v` and `%s` print containers alike, their items each its own way).
fn container(v: &Value, verb: fn(&Value) -> String) -> String {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", verb(&map[k])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(verb).collect();
            format!("[{}]", parts.join(" "))
        }
        _ => verb(v),
    }
}

/// A number as `%v` prints it: int64 in decimal, float64 as `%g` with the shortest
/// digits (an exponent below 1e-04 and from 1e+06 on).
fn number(v: &Value) -> String {
    if let Some(i) = v.as_i64() {
        return i.to_string();
    }
    let f = v.as_f64().unwrap_or(0.0);
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        return f.to_string();
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_print_as_go_prints_them() {
        let v = json!({"name": "a", "port": 80, "on": true, "x": null, "l": ["b", 1.5]});
        assert_eq!(go_v(&v), "map[l:[b 1.5] name:a on:true port:80 x:<nil>]");
        assert_eq!(go_v(&json!(1e21)), "1e+21");
        assert_eq!(go_v(&json!(123456789.0)), "1.23456789e+08");
        assert_eq!(go_v(&json!(0.00001)), "1e-05");
        assert_eq!(go_v(&json!(2.0)), "2");
        assert_eq!(go_v(&json!(123456.0)), "123456");
        assert_eq!(go_s(&json!(1)), "%!s(int64=1)");
        assert_eq!(go_s(&json!("x")), "x");
        assert_eq!(go_type(&json!([])), "[]interface {}");
    }
}
