//! Pruning of unknown fields (`pruning/algorithm.go`) and, in the same walk, the
//! removal of `null`s of non-nullable fields without a default
//! (`PruneNonNullableNullsWithoutDefaults`): both only look at keys whose schema is
//! known, and pruning children never creates or removes a null at the parent.

use serde_json::Value;

use super::compiled::{Additional, CompiledSchema, Node, NodeId};
use super::path::PathRef;
use crate::depth::MAX_DEPTH;

/// Keys kept at a resource root and in embedded resources.
pub(crate) fn is_meta_field(k: &str) -> bool {
    matches!(k, "apiVersion" | "kind" | "metadata")
}

pub(crate) struct Pruner<'s> {
    pub schema: &'s CompiledSchema,
    /// Treat the root as a resource root (keeps `apiVersion`, `kind`, `metadata`).
    pub resource_root: bool,
    /// Also drop `null`s of non-nullable fields without a default.
    pub drop_nulls: bool,
    /// Pruned paths, when the caller wants them.
    pub pruned: Option<Vec<String>>,
    /// Set when the value nests deeper than [`MAX_DEPTH`]; the walk stops there.
    pub too_deep: bool,
}

impl Pruner<'_> {
    fn record(&mut self, path: &PathRef<'_>) {
        if let Some(p) = &mut self.pruned {
            p.push(path.pruned_path());
        }
    }

    fn drops_null(&self, v: &Value, id: NodeId) -> bool {
        if !self.drop_nulls || !v.is_null() {
            return false;
        }
        let n = self.schema.node(id);
        !n.nullable && n.default.is_none()
    }

    /// Prunes the entry `k` of an object whose schema is `n` (`embedded`: it keeps
    /// `apiVersion`, `kind` and `metadata`): `Some(keep)` for a key the schema
    /// declares (a property, or any key of a map), `None` for an unknown key.
    fn prune_entry(
        &mut self,
        k: &str,
        child: &mut Value,
        n: &Node,
        path: &PathRef<'_>,
        embedded: bool,
    ) -> Option<bool> {
        if embedded && is_meta_field(k) {
            return Some(true);
        }
        // Scalars have nothing to prune: no call for them (unless the call is what
        // reports the depth limit).
        let nested =
            matches!(child, Value::Object(_) | Value::Array(_)) || path.depth() >= MAX_DEPTH;
        if let Some(c) = n.property(k) {
            if nested {
                self.prune(child, Some(c), &path.field(k));
            }
            return Some(!self.drops_null(child, c));
        }
        match n.additional {
            Additional::Schema(c) => {
                if nested {
                    self.prune(child, Some(c), &path.key(k));
                }
                Some(!self.drops_null(child, c))
            }
            Additional::Bool(_) => {
                if nested {
                    self.prune(child, None, &path.key(k));
                }
                Some(true)
            }
            Additional::Absent => None,
        }
    }

    /// Whether [`Pruner::prune_entry`] keeps the entry `k` (already pruned below).
    fn kept(&self, k: &str, child: &Value, n: &Node, embedded: bool) -> bool {
        if embedded && is_meta_field(k) {
            return true;
        }
        match n.property(k) {
            Some(c) => !self.drops_null(child, c),
            None => match n.additional {
                Additional::Schema(c) => !self.drops_null(child, c),
                Additional::Bool(_) => true,
                Additional::Absent => false,
            },
        }
    }

    pub fn prune(&mut self, v: &mut Value, id: Option<NodeId>, path: &PathRef<'_>) {
        if path.depth() > MAX_DEPTH {
            self.too_deep = true;
            return;
        }
        let node = self.schema.get(id);
        if let Some(n) = node
            && n.preserve_unknown
        {
            self.skip_prune(v, n, path);
            return;
        }
        match v {
            Value::Object(map) => {
                let Some(n) = node else {
                    if self.pruned.is_some() {
                        for k in map.keys() {
                            let p = path.field(k);
                            self.record(&p);
                        }
                    }
                    map.clear();
                    return;
                };
                let embedded = n.embedded || (path.depth() == 0 && self.resource_root);
                let at_root = path.depth() == 0;
                // Walk in place first; the map is rebuilt (`retain`) only when an
                // entry must go, which most objects never need.
                let mut drops = false;
                // The first 64 entries' verdicts, so the rebuild needs no second lookup.
                let mut dropped: u64 = 0;
                for (i, (k, child)) in map.iter_mut().enumerate() {
                    let verdict = self.prune_entry(k, child, n, path, embedded);
                    if verdict != Some(true) && i < 64 {
                        dropped |= 1 << i;
                    }
                    match verdict {
                        Some(keep) => drops |= !keep,
                        None => {
                            drops = true;
                            // The API server does not report the type meta fields it drops at the root.
                            if !(at_root && is_meta_field(k)) {
                                let p = path.field(k);
                                self.record(&p);
                            }
                        }
                    }
                }
                if drops {
                    let mut i = 0;
                    map.retain(|k, child| {
                        let keep = match i {
                            0..64 => dropped & 1 << i == 0,
                            _ => self.kept(k, child, n, embedded),
                        };
                        i += 1;
                        keep
                    });
                }
            }
            Value::Array(items) => {
                let items_id = node.and_then(|n| n.items);
                for (i, item) in items.iter_mut().enumerate() {
                    let p = path.index(i);
                    self.prune(item, items_id, &p);
                }
            }
            _ => {}
        }
    }

    /// A node with `x-kubernetes-preserve-unknown-fields`: unknown keys stay, known
    /// ones are still pruned by their own schema.
    fn skip_prune(&mut self, v: &mut Value, n: &Node, path: &PathRef<'_>) {
        if path.depth() > MAX_DEPTH {
            self.too_deep = true;
            return;
        }
        match v {
            Value::Object(map) => {
                let embedded = n.embedded || (path.depth() == 0 && self.resource_root);
                map.retain(|k, child| {
                    self.prune_entry(k, child, n, path, embedded)
                        .unwrap_or(true)
                });
            }
            Value::Array(items) => {
                if let Some(items_node) = self.schema.get(n.items) {
                    for (i, item) in items.iter_mut().enumerate() {
                        let p = path.index(i);
                        self.skip_prune(item, items_node, &p);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Null dropping on its own (the admit path does it inside the prune walk).
pub(crate) fn prune_nulls_only(
    schema: &CompiledSchema,
    v: &mut Value,
    id: Option<NodeId>,
    depth: usize,
) {
    let Some(n) = schema.get(id) else { return };
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(map) => {
            map.retain(|k, child| {
                let c = match n.property(k) {
                    Some(c) => c,
                    None => match n.additional {
                        Additional::Schema(c) => c,
                        _ => return true,
                    },
                };
                let cn = schema.node(c);
                if child.is_null() && !cn.nullable && cn.default.is_none() {
                    return false;
                }
                prune_nulls_only(schema, child, Some(c), depth + 1);
                true
            });
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                prune_nulls_only(schema, item, n.items, depth + 1);
            }
        }
        _ => {}
    }
}
