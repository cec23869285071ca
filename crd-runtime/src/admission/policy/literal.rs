//! Object literals of mutating policies (`Object{spec: Object.spec{replicas: 1}}`,
//! `JSONPatch{op: "add", …}`) rewritten into maps keyed by field name before
//! evaluation: the `cel` interpreter cannot evaluate message literals. Type names
//! are dropped; the fields are what the patchers read.

use kube_cel::cel::common::ast::{
    EntryExpr, Expr, IdedEntryExpr, IdedExpr, LiteralValue, MapEntryExpr, MapExpr, StructExpr,
};

use crate::cel::{for_each_child, for_each_child_mut};

/// `CheckTypeNamesMatchFieldPathNames`, statically: every object literal nested in
/// another's field must be named by the path of field names from the outer one
/// (`Object{spec: Object.spec{template: Object.spec.template{}}}`). The messages are
/// kube-apiserver's, joined by newlines.
pub(super) fn type_name_errors(e: &IdedExpr) -> Option<String> {
    let mut errs = Vec::new();
    roots(e, &mut errs);
    (!errs.is_empty()).then(|| errs.join("\n"))
}

fn roots(e: &IdedExpr, errs: &mut Vec<String>) {
    match &e.expr {
        Expr::Struct(s) => fields(s, &s.type_name, errs),
        _ => for_each_child(e, &mut |c| roots(c, errs)),
    }
}

fn fields(s: &StructExpr, path: &str, errs: &mut Vec<String>) {
    for entry in &s.entries {
        if let EntryExpr::StructField(f) = &entry.expr {
            nested(&f.value, &format!("{path}.{}", f.field), errs);
        }
    }
}

/// A field's value: literals in it (also inside list and map literals and the
/// branches of `?:`) must be named `path`.
fn nested(e: &IdedExpr, path: &str, errs: &mut Vec<String>) {
    match &e.expr {
        Expr::Struct(s) => {
            if s.type_name != path {
                errs.push(format!(
                    "unexpected type name {}, expected {}, which matches field name path from root Object type",
                    crate::go::quote(&s.type_name),
                    crate::go::quote(path)
                ));
            }
            fields(s, path, errs);
        }
        Expr::List(l) => l.elements.iter().for_each(|x| nested(x, path, errs)),
        Expr::Map(m) => {
            for entry in &m.entries {
                if let EntryExpr::MapEntry(me) = &entry.expr {
                    nested(&me.value, path, errs);
                }
            }
        }
        Expr::Call(c) if c.func_name == "_?_:_" && c.args.len() == 3 => {
            roots(&c.args[0], errs);
            nested(&c.args[1], path, errs);
            nested(&c.args[2], path, errs);
        }
        _ => roots(e, errs),
    }
}

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
    fn nested_type_names_follow_field_paths() {
        let check = |src: &str| type_name_errors(&crate::cel::parse_program(src).unwrap());
        assert_eq!(
            check("Object{spec: Object.spec{template: Object.spec.template{}}}"),
            None
        );
        assert_eq!(check("[JSONPatch{op: 'add', value: Object.x{}}]"), Some(
            "unexpected type name \"Object.x\", expected \"JSONPatch.value\", which matches field name path from root Object type".into()
        ));
        assert_eq!(check("Object{spec: Object.spec{ports: [Object.spec.port{}]}}"), Some(
            "unexpected type name \"Object.spec.port\", expected \"Object.spec.ports\", which matches field name path from root Object type".into()
        ));
    }

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
