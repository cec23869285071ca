//! A schema compiled once into a flat arena: sorted property lookups, compiled
//! regular expressions (or the error the server reports for them), numeric bounds
//! as `f64`, and flags the walkers test without touching the original schema.

use serde_json::Value;

use super::EngineError;
use super::formats::{self, Format};
use super::numeric::{self, GoNum};
use super::regex_go;
use crate::correlation::{ListPairing, Shape};
use crate::model::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool, ValidationRule,
};
use crate::version::KubeVersion;

/// Index of a node in [`CompiledSchema::nodes`].
pub type NodeId = u32;

/// Deepest schema nesting compiled: as deep as a CRD body can carry a schema.
pub use crate::depth::schema::MAX_SCHEMA_DEPTH;

/// A JSON type as kube-openapi names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonType {
    /// `object`
    Object,
    /// `array`
    Array,
    /// `string`
    String,
    /// `integer`
    Integer,
    /// `number`
    Number,
    /// `boolean`
    Boolean,
    /// Anything else written in `type` (never matches a value).
    Other,
}

impl JsonType {
    fn parse(s: &str) -> JsonType {
        match s {
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "string" => JsonType::String,
            "integer" => JsonType::Integer,
            "number" => JsonType::Number,
            "boolean" => JsonType::Boolean,
            _ => JsonType::Other,
        }
    }

    /// The kube-openapi type name.
    pub fn name(self) -> &'static str {
        match self {
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::String => "string",
            JsonType::Integer => "integer",
            JsonType::Number => "number",
            JsonType::Boolean => "boolean",
            JsonType::Other => "",
        }
    }
}

/// `additionalProperties` as the walkers see it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Additional {
    /// Not given.
    #[default]
    Absent,
    /// `true` / `false`: present, without a value schema.
    Bool(bool),
    /// A value schema.
    Schema(NodeId),
}

/// `x-kubernetes-list-type`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ListType {
    /// Not set, or `atomic`.
    #[default]
    Atomic,
    /// `set`: items are unique.
    Set,
    /// `map`: items are unique by their key fields.
    Map(Vec<String>),
}

/// A compiled `pattern`.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// The pattern as written (reported in messages).
    pub source: String,
    /// The compiled expression, or Go's error text for an invalid one.
    pub regex: Result<regex::Regex, String>,
}

/// `maximum` / `minimum` / `multipleOf`.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// The bound as a float, like kube-openapi reads it.
    pub value: f64,
    /// `exclusiveMaximum` / `exclusiveMinimum`.
    pub exclusive: bool,
    /// Whether the bound itself fits the node's type and format.
    pub in_range: bool,
}

/// One compiled schema node.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// The `type` list as kube-openapi sees it (`integer,string` for int-or-string).
    pub types: Vec<JsonType>,
    /// `types` joined with `,` for messages.
    pub type_label: String,
    /// `nullable`.
    pub nullable: bool,
    /// `x-kubernetes-preserve-unknown-fields`.
    pub preserve_unknown: bool,
    /// `x-kubernetes-embedded-resource`.
    pub embedded: bool,
    /// `format` after dropping formats the API server ignores for this type.
    pub format: String,
    /// The string format checker, when `format` names one.
    pub format_check: Option<Format>,
    /// `default` (absent when not given or `null`).
    pub default: Option<Value>,
    /// Specified properties, sorted by name.
    pub properties: Vec<(String, NodeId)>,
    /// [`crate::keyprint::key_print`] of each property name, in the same order.
    pub property_prints: Vec<u64>,
    /// `additionalProperties`.
    pub additional: Additional,
    /// `items` (single-schema form).
    pub items: Option<NodeId>,
    /// `allOf`.
    pub all_of: Vec<NodeId>,
    /// `anyOf`.
    pub any_of: Vec<NodeId>,
    /// `oneOf`.
    pub one_of: Vec<NodeId>,
    /// `not`.
    pub not: Option<NodeId>,
    /// `enum`.
    pub enum_values: Option<Vec<Value>>,
    /// `pattern`.
    pub pattern: Option<Pattern>,
    /// `maximum`.
    pub maximum: Option<Bound>,
    /// `minimum`.
    pub minimum: Option<Bound>,
    /// `multipleOf`.
    pub multiple_of: Option<Bound>,
    /// `maxLength`.
    pub max_length: Option<i64>,
    /// `minLength`.
    pub min_length: Option<i64>,
    /// `maxItems`.
    pub max_items: Option<i64>,
    /// `minItems`.
    pub min_items: Option<i64>,
    /// `uniqueItems`.
    pub unique_items: bool,
    /// `maxProperties`.
    pub max_properties: Option<i64>,
    /// `minProperties`.
    pub min_properties: Option<i64>,
    /// `required`.
    pub required: Vec<String>,
    /// `x-kubernetes-list-type` (+ map keys).
    pub list_type: ListType,
    /// No `x-kubernetes-list-type` at all: items pair with the old list's by position.
    pub list_type_unset: bool,
    /// `x-kubernetes-validations` (evaluated by an extra pass, e.g. CEL).
    pub rules: Vec<ValidationRule>,
    /// Whether a default exists anywhere below (properties, additional values, items).
    pub defaults_below: bool,
    /// Properties that have a default themselves.
    pub defaulted: Vec<(String, NodeId)>,
    /// Properties with defaults somewhere below them (where defaulting descends).
    pub default_paths: Vec<(String, NodeId)>,
    /// Whether an embedded resource exists at or below this node.
    pub embedded_below: bool,
    /// Whether a `set` or `map` list exists at or below this node.
    pub list_types_below: bool,
    /// Whether the subtree carries `x-kubernetes-validations`.
    pub rules_below: bool,
}

impl Node {
    /// Whether `type` lists `t`.
    pub fn has_type(&self, t: JsonType) -> bool {
        self.types.contains(&t)
    }

    /// The only type, if exactly one is given (kube-openapi's numeric range checks use it).
    pub fn single_type(&self) -> Option<JsonType> {
        match self.types.as_slice() {
            [t] => Some(*t),
            _ => None,
        }
    }

    /// The schema of property `name`.
    pub fn property(&self, name: &str) -> Option<NodeId> {
        // A few properties: a scan of their prints (one string comparison at most);
        // a longer table: binary search.
        if self.properties.len() <= PRINT_SCAN
            && self.property_prints.len() == self.properties.len()
        {
            let names = &self.properties;
            let print = crate::keyprint::key_print(name);
            return self
                .property_prints
                .iter()
                .zip(names)
                .find(|(p, (k, _))| crate::keyprint::same_key(**p, k, print, name))
                .map(|(_, (_, id))| *id);
        }
        self.properties
            .binary_search_by(|(k, _)| short_cmp(k.as_bytes(), name.as_bytes()))
            .ok()
            .map(|i| self.properties[i].1)
    }

    /// How this list's items pair with the old list's.
    pub fn list_pairing(&self) -> ListPairing<'_> {
        match &self.list_type {
            ListType::Map(keys) => ListPairing::MapKeys(keys),
            _ if self.list_type_unset => ListPairing::ByIndex,
            _ => ListPairing::None,
        }
    }

    /// Whether the node has any junctor.
    pub fn has_junctors(&self) -> bool {
        !self.all_of.is_empty()
            || !self.any_of.is_empty()
            || !self.one_of.is_empty()
            || self.not.is_some()
    }
}

/// Property tables up to this long are searched by their prints.
const PRINT_SCAN: usize = 16;

/// `a.cmp(b)` for short keys: property names differ in their first bytes, where an
/// inline loop answers before a call to `memcmp` would have started (the binary
/// search of property tables was 5 % of `crd-gen validate`, most of it in `memcmp`).
#[inline]
fn short_cmp(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// A schema compiled for repeated use.
#[derive(Clone, Debug, Default)]
pub struct CompiledSchema {
    /// All nodes; children refer to each other by index.
    pub nodes: Vec<Node>,
    /// The root node (`None` for "no schema").
    pub root: Option<NodeId>,
    /// The release whose rules were compiled in (known formats).
    pub kube_version: KubeVersion,
}

/// One node of a compiled schema, for [`crate::correlation`].
#[derive(Clone, Copy)]
pub struct NodeRef<'s> {
    /// The schema.
    pub schema: &'s CompiledSchema,
    /// The node.
    pub id: NodeId,
}

impl Shape for NodeRef<'_> {
    fn field(self, key: &str) -> Option<Self> {
        let n = self.schema.node(self.id);
        let id = n.property(key).or(match n.additional {
            Additional::Schema(c) => Some(c),
            _ => None,
        })?;
        Some(NodeRef { id, ..self })
    }

    fn items(self) -> Option<Self> {
        let id = self.schema.node(self.id).items?;
        Some(NodeRef { id, ..self })
    }

    fn list_pairing(&self) -> ListPairing<'_> {
        self.schema.node(self.id).list_pairing()
    }
}

impl CompiledSchema {
    /// Compiles `schema` (or "no schema" for `None`) for the newest release.
    #[cfg(test)]
    fn compile(schema: Option<&JSONSchemaProps>) -> Result<CompiledSchema, EngineError> {
        Self::compile_for(schema, KubeVersion::NEWEST)
    }

    /// Compiles `schema` with the rules of Kubernetes `version`.
    pub fn compile_for(
        schema: Option<&JSONSchemaProps>,
        version: KubeVersion,
    ) -> Result<CompiledSchema, EngineError> {
        let mut out = CompiledSchema {
            kube_version: version,
            ..CompiledSchema::default()
        };
        if let Some(s) = schema {
            let root = out.add(s, 0)?;
            out.root = Some(root);
        }
        Ok(out)
    }

    /// The node `id`.
    #[inline]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The node `id`, if any.
    #[inline]
    pub fn get(&self, id: Option<NodeId>) -> Option<&Node> {
        id.map(|i| &self.nodes[i as usize])
    }

    fn add(&mut self, s: &JSONSchemaProps, depth: usize) -> Result<NodeId, EngineError> {
        // `depth` counts from 0 at the root.
        if depth >= MAX_SCHEMA_DEPTH {
            return Err(EngineError::SchemaTooDeep(MAX_SCHEMA_DEPTH));
        }
        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node::default());
        let mut n = compile_flat(s, self.kube_version);

        if let Some(props) = &s.properties {
            for (k, v) in props {
                let child = self.add(v, depth + 1)?;
                n.properties.push((k.clone(), child));
            }
            // BTreeMap iteration is already sorted; binary search relies on it.
            n.property_prints = n
                .properties
                .iter()
                .map(|(k, _)| crate::keyprint::key_print(k))
                .collect();
        }
        n.additional = match s.additional_properties.as_deref() {
            None => Additional::Absent,
            Some(JSONSchemaPropsOrBool::Bool(b)) => Additional::Bool(*b),
            Some(JSONSchemaPropsOrBool::Schema(sub)) => {
                Additional::Schema(self.add(sub, depth + 1)?)
            }
        };
        if let Some(JSONSchemaPropsOrArray::Schema(items)) = s.items.as_deref() {
            n.items = Some(self.add(items, depth + 1)?);
        }
        for (list, out) in [
            (&s.all_of, &mut n.all_of),
            (&s.any_of, &mut n.any_of),
            (&s.one_of, &mut n.one_of),
        ] {
            for sub in list.iter().flatten() {
                out.push(self.add(sub, depth + 1)?);
            }
        }
        if let Some(not) = s.not.as_deref() {
            n.not = Some(self.add(not, depth + 1)?);
        }

        let children: Vec<NodeId> = n
            .properties
            .iter()
            .map(|(_, c)| *c)
            .chain(match n.additional {
                Additional::Schema(c) => Some(c),
                _ => None,
            })
            .chain(n.items)
            .collect();
        for (k, c) in &n.properties {
            let child = &self.nodes[*c as usize];
            if child.default.is_some() {
                n.defaulted.push((k.clone(), *c));
            }
            if child.defaults_below {
                n.default_paths.push((k.clone(), *c));
            }
        }
        for c in children {
            let child = &self.nodes[c as usize];
            n.defaults_below |= child.default.is_some() || child.defaults_below;
            n.embedded_below |= child.embedded_below;
            n.list_types_below |= child.list_types_below;
            n.rules_below |= child.rules_below;
        }
        n.embedded_below |= n.embedded;
        n.list_types_below |= n.list_type != ListType::Atomic;
        n.rules_below |= !n.rules.is_empty();
        self.nodes[id as usize] = n;
        Ok(id)
    }
}

/// The node's own keywords (children are filled in by the caller).
fn compile_flat(s: &JSONSchemaProps, version: KubeVersion) -> Node {
    let int_or_string = s.is_int_or_string();
    let types: Vec<JsonType> = if int_or_string {
        vec![JsonType::Integer, JsonType::String]
    } else {
        match s.type_.as_deref() {
            None | Some("") => Vec::new(),
            Some(t) => vec![JsonType::parse(t)],
        }
    };
    let type_label = if int_or_string {
        "integer,string".to_string()
    } else {
        s.type_str().to_string()
    };
    let single = match types.as_slice() {
        [t] => Some(*t),
        _ => None,
    };
    let format = supported_format(single, s.format.as_deref().unwrap_or(""), version);
    let format_check = if format.is_empty() {
        None
    } else {
        formats::lookup(&format)
    };
    let bound = |n: &Option<serde_json::Number>, exclusive: Option<bool>| {
        n.as_ref().map(|n| {
            let value = n.as_f64().unwrap_or(f64::NAN);
            Bound {
                value,
                exclusive: exclusive.unwrap_or(false),
                in_range: numeric::fits(
                    GoNum::Float(value),
                    single == Some(JsonType::Integer),
                    &format,
                ),
            }
        })
    };
    let list_type = match s.x_kubernetes_list_type.as_deref() {
        Some("set") => ListType::Set,
        Some("map") => ListType::Map(s.x_kubernetes_list_map_keys.clone().unwrap_or_default()),
        _ => ListType::Atomic,
    };
    Node {
        type_label,
        nullable: s.is_nullable(),
        preserve_unknown: s.preserves_unknown_fields(),
        embedded: s.is_embedded_resource(),
        format_check,
        default: s.default.clone().filter(|d| !d.is_null()),
        enum_values: s.enum_.clone().filter(|e| !e.is_empty()),
        pattern: s
            .pattern
            .as_ref()
            .filter(|p| !p.is_empty())
            .map(|p| Pattern {
                source: p.clone(),
                regex: regex_go::compile(p),
            }),
        maximum: bound(&s.maximum, s.exclusive_maximum),
        minimum: bound(&s.minimum, s.exclusive_minimum),
        multiple_of: bound(&s.multiple_of, None),
        max_length: s.max_length,
        min_length: s.min_length,
        max_items: s.max_items,
        min_items: s.min_items,
        unique_items: s.unique_items.unwrap_or(false),
        max_properties: s.max_properties,
        min_properties: s.min_properties,
        required: s.required.clone().unwrap_or_default(),
        list_type,
        list_type_unset: s.x_kubernetes_list_type.is_none(),
        rules: s.x_kubernetes_validations.clone().unwrap_or_default(),
        format,
        types,
        ..Node::default()
    }
}

/// The API server ignores formats it does not know, and numeric formats only mean
/// something on numeric types; what is left is what its validator sees.
/// The format the API server keeps (`StripUnsupportedFormatsPostProcessorForVersion`):
/// string formats also apply where `type` is empty (`oneOf: [{format: ipv4}, ...]`).
fn supported_format(single: Option<JsonType>, format: &str, version: KubeVersion) -> String {
    let keep = match single {
        Some(JsonType::Integer) => matches!(format, "int32" | "int64"),
        Some(JsonType::Number) => matches!(format, "float" | "double"),
        Some(JsonType::String) | None => formats::lookup(format).is_some_and(|f| {
            version.k8s_name_formats() || !matches!(f, Format::K8sShortName | Format::K8sLongName)
        }),
        _ => false,
    };
    if keep {
        format.to_string()
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(json: &str) -> JSONSchemaProps {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn compiles_lookups_and_flags() {
        let s = schema(
            r#"{"type":"object","properties":{"b":{"type":"string","default":"x"},"a":{"type":"integer","format":"int32","maximum":10}}}"#,
        );
        let c = CompiledSchema::compile(Some(&s)).unwrap();
        let root = c.node(c.root.unwrap());
        assert!(root.defaults_below);
        let a = c.node(root.property("a").unwrap());
        assert_eq!(a.format, "int32");
        assert!(a.maximum.unwrap().in_range);
        assert!(root.property("zz").is_none());
    }

    #[test]
    fn unknown_and_mismatched_formats_are_dropped() {
        let s = schema(r#"{"type":"string","format":"int32"}"#);
        let c = CompiledSchema::compile(Some(&s)).unwrap();
        assert_eq!(c.node(0).format, "");
        let s = schema(r#"{"type":"string","format":"made-up"}"#);
        let c = CompiledSchema::compile(Some(&s)).unwrap();
        assert_eq!(c.node(0).format, "");
        let s = schema(r#"{"type":"string","format":"date-time"}"#);
        let c = CompiledSchema::compile(Some(&s)).unwrap();
        assert_eq!(c.node(0).format, "date-time");
    }

    #[test]
    fn invalid_patterns_keep_their_error() {
        let s = schema(r#"{"type":"string","pattern":"+"}"#);
        let c = CompiledSchema::compile(Some(&s)).unwrap();
        let p = c.node(0).pattern.as_ref().unwrap();
        assert_eq!(
            p.regex.as_ref().unwrap_err(),
            "error parsing regexp: missing argument to repetition operator: `+`"
        );
    }
}
