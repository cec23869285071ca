//! Admission per family: what the API server's strategies do before a write — custom
//! resources through crd-runtime's engine (prune, default, validate, CEL with `oldSelf`),
//! CRDs through crd-runtime's CRD validation plus the names controller's status, and
//! Namespaces with their name rules and `Active` phase.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::model::CustomResourceDefinition;
use crd_runtime::{CheckOptions, validate_crd};
use serde_json::{Map, Value, json};

use super::Shared;
use super::request::FieldValidation;
use super::resource::{Family, Resource};
use super::status::ApiError;
use crate::store::ListOptions;

/// A write ready for the store, with the warnings to send.
pub struct Admitted {
    pub obj: Value,
    pub warnings: Vec<String>,
}

/// Which endpoint an update came through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    Main,
    Status,
}

pub fn name_of(obj: &Value) -> &str {
    obj.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn meta_mut(obj: &mut Value) -> &mut Map<String, Value> {
    if !obj.get("metadata").is_some_and(Value::is_object) {
        obj["metadata"] = json!({});
    }
    match obj.get_mut("metadata") {
        Some(Value::Object(m)) => m,
        _ => unreachable!("metadata was just made an object"),
    }
}

/// Admission of a create.
pub async fn admit_create(
    shared: &Shared,
    res: &Resource,
    mut obj: Value,
    fv: FieldValidation,
) -> Result<Admitted, ApiError> {
    match &res.family {
        Family::Custom(_) => {
            if res.has_status()
                && let Value::Object(m) = &mut obj
            {
                m.remove("status");
            }
            custom(res, obj, None, fv)
        }
        Family::Crd => {
            let crd = crd_status(shared, res, obj, None).await?;
            Ok(Admitted {
                obj: crd,
                warnings: Vec::new(),
            })
        }
        Family::Namespace => namespace(res, obj).map(|obj| Admitted {
            obj,
            warnings: Vec::new(),
        }),
    }
}

/// Admission of an update of `old` (both carry their metadata; identity fields of `old`
/// already copied into `new` by the caller).
pub async fn admit_update(
    shared: &Shared,
    res: &Resource,
    mut new: Value,
    old: &Value,
    endpoint: Endpoint,
    fv: FieldValidation,
) -> Result<Admitted, ApiError> {
    if res.has_status() {
        // The main endpoint leaves status alone; /status changes nothing else.
        new = match endpoint {
            Endpoint::Main => {
                let mut n = new;
                if let Value::Object(m) = &mut n {
                    match old.get("status") {
                        Some(s) => m.insert("status".into(), s.clone()),
                        None => m.remove("status"),
                    };
                }
                n
            }
            Endpoint::Status => {
                let mut n = old.clone();
                if let Value::Object(m) = &mut n {
                    match new.get("status") {
                        Some(s) => m.insert("status".into(), s.clone()),
                        None => m.remove("status"),
                    };
                    // The caller's metadata (resourceVersion precondition) is kept.
                    if let Some(meta) = new.get("metadata") {
                        m.insert("metadata".into(), meta.clone());
                    }
                }
                n
            }
        };
    }
    match &res.family {
        Family::Custom(_) => custom(res, new, Some(old), fv),
        Family::Crd => {
            let obj = crd_status(shared, res, new, Some(old)).await?;
            Ok(Admitted {
                obj,
                warnings: Vec::new(),
            })
        }
        Family::Namespace => namespace(res, new).map(|obj| Admitted {
            obj,
            warnings: Vec::new(),
        }),
    }
}

/// Unknown fields by `fieldValidation`, then the engine.
fn custom(
    res: &Resource,
    mut obj: Value,
    old: Option<&Value>,
    fv: FieldValidation,
) -> Result<Admitted, ApiError> {
    let served = res
        .served()
        .ok_or_else(|| ApiError::internal("the version is no longer served"))?;
    let engine = served.engine.as_ref().map_err(|e| {
        ApiError::internal(format!(
            "the schema of {} version {} cannot be used: {e}",
            res.q.resource(),
            res.version
        ))
    })?;
    let mut warnings = Vec::new();
    if fv != FieldValidation::Ignore {
        let mut probe = obj.clone();
        let unknown: Vec<String> = engine
            .prune(&mut probe)
            .into_iter()
            .map(|p| format!("unknown field \"{p}\""))
            .collect();
        if !unknown.is_empty() {
            if fv == FieldValidation::Strict {
                return Err(ApiError::bad_request(format!(
                    "{kind} in version \"{v}\" cannot be handled as a {kind}: strict decoding error: {}",
                    unknown.join(", "),
                    kind = res.q.kind,
                    v = res.version,
                )));
            }
            warnings = unknown;
        }
    }
    let result = match old {
        None => engine.admit(&mut obj),
        Some(old) => engine.admit_update(&mut obj, old),
    };
    result.map_err(|errs| ApiError::invalid(&res.q, name_of(&obj), &errs))?;
    Ok(Admitted { obj, warnings })
}

fn namespace(res: &Resource, mut obj: Value) -> Result<Value, ApiError> {
    let name = name_of(&obj).to_string();
    let mut errs = ErrorList::new();
    for m in crd_runtime::engine::names::dns1123_label(&name) {
        errs.push(FieldError::invalid(
            Path::new("metadata").child("name"),
            BadValue::Str(name.clone()),
            m,
        ));
    }
    if !errs.is_empty() {
        return Err(ApiError::invalid(&res.q, &name, &errs));
    }
    if obj.pointer("/spec/finalizers").is_none() {
        obj["spec"] = json!({"finalizers": ["kubernetes"]});
    }
    let terminating = obj.pointer("/metadata/deletionTimestamp").is_some();
    obj["status"] = json!({"phase": if terminating { "Terminating" } else { "Active" }});
    Ok(obj)
}

fn condition(type_: &str, ok: bool, reason: &str, message: &str, now: &str) -> Value {
    json!({"type": type_, "status": if ok { "True" } else { "False" },
           "lastTransitionTime": now, "reason": reason, "message": message})
}

/// Validates a CRD and sets the status the API server's controllers would: accepted
/// names, `NamesAccepted`/`Established`, `storedVersions`.
async fn crd_status(
    shared: &Shared,
    res: &Resource,
    mut obj: Value,
    old: Option<&Value>,
) -> Result<Value, ApiError> {
    let name = name_of(&obj).to_string();
    let crd: CustomResourceDefinition = serde_json::from_value(obj.clone()).map_err(|e| {
        ApiError::bad_request(format!(
            "CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: {e}"
        ))
    })?;
    let errs = validate_crd(&crd, &CheckOptions::api_server_create());
    if !errs.is_empty() {
        return Err(ApiError::invalid(&res.q, &name, &errs));
    }
    if let Some(old) = old {
        let old_group = old.pointer("/spec/group");
        let old_scope = old.pointer("/spec/scope");
        let mut errs = ErrorList::new();
        if old_group != obj.pointer("/spec/group") {
            errs.push(FieldError::invalid(
                Path::new("spec").child("group"),
                BadValue::from_json(obj.pointer("/spec/group").unwrap_or(&Value::Null)),
                "field is immutable",
            ));
        }
        if old_scope != obj.pointer("/spec/scope") {
            errs.push(FieldError::invalid(
                Path::new("spec").child("scope"),
                BadValue::from_json(obj.pointer("/spec/scope").unwrap_or(&Value::Null)),
                "field is immutable",
            ));
        }
        if !errs.is_empty() {
            return Err(ApiError::invalid(&res.q, &name, &errs));
        }
    }
    // Names taken by other CRDs of the group.
    let others = shared
        .store
        .list(super::registry::CRD_PREFIX, ListOptions::default())
        .await
        .map_err(|e| ApiError::from_store(&res.q, &name, e))?;
    let names = &crd.spec.names;
    let mut conflict = None;
    for kv in &others.items {
        let Ok(other) = serde_json::from_slice::<Value>(&kv.value) else {
            continue;
        };
        if name_of(&other) == name || other.pointer("/spec/group") != obj.pointer("/spec/group") {
            continue;
        }
        let Some(accepted) = other.pointer("/status/acceptedNames") else {
            continue;
        };
        let taken = |field: &str| {
            accepted
                .get(field)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let mut taken_names: Vec<String> = ["plural", "singular"]
            .iter()
            .filter_map(|f| taken(f))
            .collect();
        if let Some(shorts) = accepted.get("shortNames").and_then(Value::as_array) {
            taken_names.extend(shorts.iter().filter_map(|s| s.as_str().map(str::to_string)));
        }
        let ours_singular = names.singular.clone().unwrap_or_default();
        for candidate in std::iter::once(&names.plural)
            .chain(std::iter::once(&ours_singular))
            .chain(names.short_names.iter().flatten())
        {
            if !candidate.is_empty() && taken_names.contains(candidate) {
                conflict = Some(format!("\"{candidate}\" is already in use"));
            }
        }
        if taken("kind").as_deref() == Some(&names.kind) {
            conflict = Some(format!("\"{}\" is already in use", names.kind));
        }
        if conflict.is_some() {
            break;
        }
    }
    let now = super::now();
    let mut stored: Vec<String> = old
        .and_then(|o| o.pointer("/status/storedVersions"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if let Some(storage) = crd.spec.versions.iter().find(|v| v.storage)
        && !stored.contains(&storage.name)
    {
        stored.push(storage.name.clone());
    }
    let terminating = obj.pointer("/metadata/deletionTimestamp").is_some();
    let mut accepted = serde_json::to_value(&crd.spec.names).unwrap_or_else(|_| json!({}));
    if accepted
        .get("singular")
        .is_none_or(|s| s.as_str() == Some(""))
    {
        accepted["singular"] = json!(names.kind.to_lowercase());
    }
    if accepted.get("listKind").is_none() {
        accepted["listKind"] = json!(format!("{}List", names.kind));
    }
    let (status_ok, conditions) = match &conflict {
        None => (
            true,
            vec![
                condition(
                    "NamesAccepted",
                    true,
                    "NoConflicts",
                    "no conflicts found",
                    &now,
                ),
                condition(
                    "Established",
                    !terminating,
                    if terminating {
                        "Terminating"
                    } else {
                        "InitialNamesAccepted"
                    },
                    if terminating {
                        "the instances are being deleted"
                    } else {
                        "the initial names have been accepted"
                    },
                    &now,
                ),
            ],
        ),
        Some(why) => (
            false,
            vec![
                condition(
                    "NamesAccepted",
                    false,
                    "MultipleNamesNotAccepted",
                    why,
                    &now,
                ),
                condition(
                    "Established",
                    false,
                    "NotAccepted",
                    "not all names are accepted",
                    &now,
                ),
            ],
        ),
    };
    // Keep transition times of conditions whose status did not change.
    let old_conditions = old
        .and_then(|o| o.pointer("/status/conditions"))
        .and_then(Value::as_array);
    let conditions: Vec<Value> = conditions
        .into_iter()
        .map(|mut c| {
            if let Some(prev) = old_conditions.and_then(|cs| {
                cs.iter()
                    .find(|p| p["type"] == c["type"] && p["status"] == c["status"])
            }) {
                c["lastTransitionTime"] = prev["lastTransitionTime"].clone();
            }
            c
        })
        .collect();
    let mut status = json!({"conditions": conditions, "storedVersions": stored});
    status["acceptedNames"] = if status_ok {
        accepted
    } else {
        old.and_then(|o| o.pointer("/status/acceptedNames"))
            .cloned()
            .unwrap_or_else(|| json!({"plural": "", "kind": ""}))
    };
    obj["status"] = status;
    // The CRD as stored is the v1-defaulted one (what the server returns).
    let defaulted = serde_json::to_value(&crd).unwrap_or(Value::Null);
    if let (Value::Object(o), Value::Object(d)) = (&mut obj, defaulted)
        && let Some(spec) = d.get("spec")
    {
        o.insert("spec".into(), spec.clone());
    }
    let _ = meta_mut(&mut obj);
    Ok(obj)
}
