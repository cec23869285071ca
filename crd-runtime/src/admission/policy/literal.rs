//! Object literals of mutating policies (`Object{spec: Object.spec{replicas: 1}}`,
//! `JSONPatch{op: "add", …}`) rewritten into maps keyed by field name before
//! evaluation: the `cel` interpreter cannot evaluate message literals. Type names
//! are dropped; the fields are what the patchers read.

use kube_cel::cel::common::ast::{
    EntryExpr, Expr, IdedEntryExpr, IdedExpr, LiteralValue, MapEntryExpr, MapExpr,
};

use crate::cel::for_each_child_mut;

/// Rewrites every message literal of `e` into a map literal, in place.
pub(super) fn maps_for_literals(e: &mut IdedExpr) {
    for_each_child_mut(e, &mut maps_for_literals);
    if let Expr::Struct(s) = &mut e.expr {
        let entries = std::mem::take(&mut s.entries)
            .into_iter()
            .map(|entry| match entry.expr {
                EntryExpr::StructField(f) => IdedEntryExpr {
                    id: entry.id,
                    expr: EntryExpr::MapEntry(MapEntryExpr {
                        key: IdedExpr {
                            id: 0,
                            expr: Expr::Literal(LiteralValue::String(f.field.into())),
                        },
                        value: f.value,
                        optional: f.optional,
                    }),
                },
                EntryExpr::MapEntry(m) => IdedEntryExpr {
                    id: entry.id,
                    expr: EntryExpr::MapEntry(m),
                },
            })
            .collect();
        e.expr = Expr::Map(MapExpr { entries });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_cel::cel::objects::Value;

    #[test]
    fn literals_evaluate_as_maps() {
        let mut e = crate::cel::parse_program(
            "Object{spec: Object.spec{replicas: 2, ?paused: optional.none()}}",
        )
        .unwrap();
        maps_for_literals(&mut e);
        let v = crate::cel::with_root(|ctx| ctx.resolve(&e)).unwrap();
        let Value::Map(m) = v else {
            panic!("not a map")
        };
        let spec = m.map.values().next().unwrap();
        let Value::Map(spec) = spec else {
            panic!("spec not a map")
        };
        assert_eq!(spec.map.len(), 1);
    }
}
