//! The extension point for further validation passes (CEL's
//! `x-kubernetes-validations` first of all).
//!
//! A [`ValidationPass`] runs after the built-in passes with the compiled schema, the
//! new value and, on updates, the old value. [`visit_rules`] does the usual walk for
//! it: every schema node that carries rules is visited with its value, the
//! correlated old value (by property or map key, and by key fields in
//! `x-kubernetes-list-type: map` lists, as the API server correlates for transition
//! rules) and its path, rendered only if the pass asks for it.

use std::fmt;

use serde_json::Value;

use super::compiled::{Additional, CompiledSchema, ListType, Node, NodeId};
use super::path::PathRef;
use crate::field::ErrorList;
use crate::load::MAX_DEPTH;

/// What a pass gets to look at.
#[derive(Clone, Copy, Debug)]
pub struct PassContext<'a> {
    /// The engine's compiled schema.
    pub schema: &'a CompiledSchema,
    /// The object being validated (already pruned and defaulted by `admit`).
    pub value: &'a Value,
    /// The previous object on updates.
    pub old: Option<&'a Value>,
}

/// A validation pass added to an [`Engine`](super::Engine) with
/// [`Engine::with_pass`](super::Engine::with_pass). Errors must use the API server's
/// wording and full paths, like the built-in passes.
pub trait ValidationPass: Send + Sync + fmt::Debug {
    /// Appends the errors found in `cx.value`.
    fn validate(&self, cx: &PassContext<'_>, errors: &mut ErrorList);
}

/// One schema node with `x-kubernetes-validations` and the value it applies to.
#[derive(Clone, Copy, Debug)]
pub struct RuleSite<'a> {
    /// The node's id.
    pub id: NodeId,
    /// The compiled node (`node.rules` holds the rules).
    pub node: &'a Node,
    /// The value at this node.
    pub value: &'a Value,
    /// The correlated old value, if any.
    pub old: Option<&'a Value>,
    /// Where the value is (render with `path.k8s_path()` or `path.field_path()`).
    pub path: &'a PathRef<'a>,
}

/// Calls `f` for every node with rules, top-down. Subtrees without rules are skipped.
pub fn visit_rules(
    schema: &CompiledSchema,
    value: &Value,
    old: Option<&Value>,
    f: &mut dyn FnMut(RuleSite<'_>),
) {
    if let Some(root) = schema.root {
        visit(schema, root, value, old, &PathRef::root(), f);
    }
}

fn visit(
    schema: &CompiledSchema,
    id: NodeId,
    v: &Value,
    old: Option<&Value>,
    path: &PathRef<'_>,
    f: &mut dyn FnMut(RuleSite<'_>),
) {
    let n = schema.node(id);
    if !n.rules_below || path.depth() > MAX_DEPTH {
        return;
    }
    if !n.rules.is_empty() {
        f(RuleSite {
            id,
            node: n,
            value: v,
            old,
            path,
        });
    }
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let old_child = old.and_then(|o| o.get(k.as_str()));
                if let Some(c) = n.property(k) {
                    visit(schema, c, child, old_child, &path.field(k), f);
                } else if let Additional::Schema(c) = n.additional {
                    visit(schema, c, child, old_child, &path.key(k), f);
                }
            }
        }
        Value::Array(items) => {
            let Some(it) = n.items else { return };
            let old_items = old.and_then(Value::as_array);
            for (i, item) in items.iter().enumerate() {
                let old_item = match (&n.list_type, old_items) {
                    (ListType::Map(keys), Some(olds)) => olds.iter().find(|o| {
                        keys.iter()
                            .all(|k| o.get(k.as_str()) == item.get(k.as_str()))
                    }),
                    _ => None,
                };
                visit(schema, it, item, old_item, &path.index(i), f);
            }
        }
        _ => {}
    }
}
