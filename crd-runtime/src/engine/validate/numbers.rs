//! kube-openapi's number validator: a range check of the value against the node's
//! type and format ("Checked value must be of type ..."), then `multipleOf`,
//! `minimum`, `maximum`, compared natively (integers against truncated bounds).

use serde_json::Number;

use super::{SchemaValidator, is_json_integer};
use crate::engine::compiled::{Bound, JsonType, Node};
use crate::engine::numeric::{GoNum, fits};
use crate::engine::path::PathRef;
use crate::field::{BadValue, go_float};

fn range_message(prefix: &str, n: &Node, name: &str) -> String {
    let t = n.single_type().map_or("", JsonType::name);
    if n.format.is_empty() {
        format!("{prefix} value must be of type {t} (default format) in {name}")
    } else {
        format!(
            "{prefix} value must be of type {t} with format {} in {name}",
            n.format
        )
    }
}

impl SchemaValidator<'_> {
    pub(super) fn check_number(&mut self, n: &Node, num: &Number, path: &PathRef<'_>) {
        let v = GoNum::of(num);
        let single = n.single_type();
        if !fits(v, single == Some(JsonType::Integer), &n.format) {
            self.plain(range_message("Checked", n, &path.openapi_name()));
        }
        if let Some(b) = n.multiple_of {
            self.bound_range("MultipleOf", n, b, path);
            self.multiple_of(v, b, path);
        }
        if let Some(b) = n.minimum {
            self.bound_range("Minimum boundary", n, b, path);
            self.compare(v, b, path, false);
        }
        if let Some(b) = n.maximum {
            self.bound_range("Maximum boundary", n, b, path);
            self.compare(v, b, path, true);
        }
    }

    fn bound_range(&mut self, prefix: &str, n: &Node, b: Bound, path: &PathRef<'_>) {
        if !b.in_range {
            self.plain(range_message(prefix, n, &path.openapi_name()));
        }
    }

    fn multiple_of(&mut self, v: GoNum, b: Bound, path: &PathRef<'_>) {
        // The name only for a message: most numbers pass.
        match v {
            GoNum::Int(i) if b.in_range => {
                let factor = b.value as i64;
                if factor < 0 {
                    let name = path.openapi_name();
                    let msg =
                        format!("factor MultipleOf declared for {name} must be positive: {factor}");
                    self.invalid_at(name, BadValue::Int(factor), msg);
                } else if factor != 0 && i % factor != 0 {
                    let name = path.openapi_name();
                    let msg = format!("{name} in body should be a multiple of {factor}");
                    self.invalid_at(name, v.bad_value(), msg);
                }
            }
            _ => {
                let (data, factor) = (v.as_f64(), b.value);
                if factor < 0.0 {
                    let name = path.openapi_name();
                    let msg = format!(
                        "factor MultipleOf declared for {name} must be positive: {}",
                        go_float(factor)
                    );
                    self.invalid_at(name, BadValue::Float(factor), msg);
                    return;
                }
                let mult = if factor < 1.0 {
                    1.0 / factor * data
                } else {
                    data / factor
                };
                if !is_json_integer(mult) {
                    let name = path.openapi_name();
                    let msg = format!(
                        "{name} in body should be a multiple of {}",
                        go_float(factor)
                    );
                    self.invalid_at(name, v.bad_value(), msg);
                }
            }
        }
    }

    fn compare(&mut self, v: GoNum, b: Bound, path: &PathRef<'_>, is_max: bool) {
        let integers = matches!(v, GoNum::Int(_)) && b.in_range;
        let fails = match v {
            GoNum::Int(i) if integers => {
                let bound = b.value as i64;
                match (is_max, b.exclusive) {
                    (true, false) => i > bound,
                    (true, true) => i >= bound,
                    (false, false) => i < bound,
                    (false, true) => i <= bound,
                }
            }
            _ => {
                let (x, bound) = (v.as_f64(), b.value);
                match (is_max, b.exclusive) {
                    (true, false) => x > bound,
                    (true, true) => x >= bound,
                    (false, false) => x < bound,
                    (false, true) => x <= bound,
                }
            }
        };
        if !fails {
            return;
        }
        // The bound is printed only for a message (it was a string per number checked).
        let shown = if integers {
            (b.value as i64).to_string()
        } else {
            go_float(b.value)
        };
        let relation = match (is_max, b.exclusive) {
            (true, false) => "less than or equal to",
            (true, true) => "less than",
            (false, false) => "greater than or equal to",
            (false, true) => "greater than",
        };
        let name = path.openapi_name();
        let msg = format!("{name} in body should be {relation} {shown}");
        self.invalid_at(name, v.bad_value(), msg);
    }
}
