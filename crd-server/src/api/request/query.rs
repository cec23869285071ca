//! Query parameters, read once per request, and the typed options each verb takes from
//! them: list/watch options, write options (`dryRun`, `fieldManager`,
//! `fieldValidation`, `force`) and `DeleteOptions` (query and body).

use serde_json::Value;

use crate::api::status::ApiError;

/// The query parameters the API reads.
#[derive(Debug, Default, Clone)]
pub struct Query {
    pub watch: bool,
    pub resource_version: Option<String>,
    pub resource_version_match: Option<String>,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub limit: Option<usize>,
    pub continue_token: Option<String>,
    pub timeout_seconds: Option<u64>,
    pub allow_watch_bookmarks: bool,
    pub send_initial_events: bool,
    pub field_validation: Option<String>,
    pub dry_run: bool,
    pub field_manager: Option<String>,
    pub force: bool,
    pub include_object: Option<String>,
    pub propagation_policy: Option<String>,
    pub grace_period_seconds: Option<i64>,
    pub orphan_dependents: Option<bool>,
    /// The parameters the generic verbs do not read (a pod log's `container`, …).
    pub extra: Vec<(String, String)>,
}

fn truthy(v: &str) -> bool {
    matches!(v, "true" | "1" | "True" | "TRUE")
}

fn integer<T: std::str::FromStr>(key: &str, v: &str) -> Result<T, ApiError> {
    v.trim_end_matches('s').parse().map_err(|_| {
        ApiError::bad_request(format!("{key}: Invalid value: \"{v}\": must be an integer"))
    })
}

impl Query {
    /// Parses the query string; malformed numbers are the server's 400s.
    pub fn parse(raw: Option<&str>) -> Result<Query, ApiError> {
        let mut q = Query::default();
        let Some(raw) = raw else { return Ok(q) };
        let uri = format!("/?{raw}")
            .parse()
            .map_err(|_| ApiError::bad_request("invalid query string"))?;
        let pairs = axum::extract::Query::<Vec<(String, String)>>::try_from_uri(&uri)
            .map_err(|e| ApiError::bad_request(format!("invalid query string: {e}")))?
            .0;
        let text = |v: String| Some(v).filter(|v| !v.is_empty());
        for (k, v) in pairs {
            match k.as_str() {
                "watch" => q.watch = truthy(&v),
                "resourceVersion" => q.resource_version = text(v),
                "resourceVersionMatch" => q.resource_version_match = text(v),
                "labelSelector" => q.label_selector = text(v),
                "fieldSelector" => q.field_selector = text(v),
                "limit" => {
                    let n: i64 = integer("limit", &v)?;
                    q.limit = (n > 0).then_some(n as usize);
                }
                "continue" => q.continue_token = text(v),
                "timeoutSeconds" => q.timeout_seconds = Some(integer(&k, &v)?),
                // A client-side request deadline (a Go duration, `32s`); kube-apiserver
                // ignores it on watches, and answers every other request well within it.
                "timeout" => {}
                "allowWatchBookmarks" => q.allow_watch_bookmarks = truthy(&v),
                "sendInitialEvents" => q.send_initial_events = truthy(&v),
                "fieldValidation" => q.field_validation = Some(v),
                "dryRun" => q.dry_run = v == "All",
                "fieldManager" => q.field_manager = Some(v),
                "force" => q.force = truthy(&v),
                "includeObject" => q.include_object = Some(v),
                "propagationPolicy" => q.propagation_policy = text(v),
                "gracePeriodSeconds" => q.grace_period_seconds = Some(integer(&k, &v)?),
                "orphanDependents" => q.orphan_dependents = Some(truthy(&v)),
                _ => q.extra.push((k, v)),
            }
        }
        Ok(q)
    }
}

/// What to do with unknown and duplicate fields in a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValidation {
    Strict,
    Warn,
    Ignore,
}

/// The options of a write (create, update, patch, apply).
#[derive(Clone, Debug)]
pub struct WriteOptions {
    pub dry_run: bool,
    /// `fieldManager` as given (apply requires one).
    pub field_manager: Option<String>,
    /// The manager a write is recorded under: `fieldManager`, else the User-Agent's
    /// program (`kubectl/v1.32.0 (...)` → `kubectl`), else `unknown`.
    pub manager: String,
    pub validation: FieldValidation,
    pub force: bool,
}

impl WriteOptions {
    /// The write options of `q`; `user_agent` names the default manager.
    pub fn from_query(q: &Query, user_agent: Option<&str>) -> Result<WriteOptions, ApiError> {
        let validation = match q.field_validation.as_deref() {
            None | Some("") | Some("Warn") => FieldValidation::Warn,
            Some("Strict") => FieldValidation::Strict,
            Some("Ignore") => FieldValidation::Ignore,
            Some(other) => {
                return Err(ApiError::bad_request(format!(
                    "fieldValidation parameter unsupported: \"{other}\""
                )));
            }
        };
        let agent = user_agent
            .and_then(|ua| ua.split('/').next())
            .map(str::trim)
            .filter(|m| !m.is_empty());
        let manager = q
            .field_manager
            .as_deref()
            .or(agent)
            .unwrap_or("unknown")
            .to_string();
        Ok(WriteOptions {
            dry_run: q.dry_run,
            field_manager: q.field_manager.clone(),
            manager,
            validation,
            force: q.force,
        })
    }
}

impl WriteOptions {
    /// The options of the writes the server makes itself (seeding, controllers),
    /// recorded under `manager`.
    pub fn server(manager: &str) -> WriteOptions {
        WriteOptions {
            dry_run: false,
            field_manager: Some(manager.to_string()),
            manager: manager.to_string(),
            validation: FieldValidation::Strict,
            force: false,
        }
    }
}

/// How dependents go with a deleted owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Propagation {
    Orphan,
    Background,
    Foreground,
}

/// `DeleteOptions`, from the body and the query (the query wins where both are set,
/// as the server merges them).
#[derive(Clone, Debug, Default)]
pub struct DeleteOptions {
    pub precondition_uid: Option<String>,
    pub precondition_resource_version: Option<String>,
    /// How dependents go (the `orphan` / `foregroundDeletion` finalizers the garbage
    /// collector acts on).
    pub propagation: Option<Propagation>,
    /// The grace period asked for (Pods are deleted gracefully; other kinds at once).
    pub grace_period_seconds: Option<i64>,
    /// `false` asks for a 202 when the object is not removed at once.
    pub orphan_dependents: Option<bool>,
    pub dry_run: bool,
}

impl DeleteOptions {
    /// The options as the `DeleteOptions` object admission and webhooks see.
    pub fn to_json(&self) -> Value {
        let mut o = serde_json::json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"});
        if let Some(g) = self.grace_period_seconds {
            o["gracePeriodSeconds"] = g.into();
        }
        if let Some(p) = self.propagation {
            o["propagationPolicy"] = match p {
                Propagation::Orphan => "Orphan",
                Propagation::Background => "Background",
                Propagation::Foreground => "Foreground",
            }
            .into();
        }
        if let Some(o2) = self.orphan_dependents {
            o["orphanDependents"] = o2.into();
        }
        let mut pre = serde_json::Map::new();
        if let Some(uid) = &self.precondition_uid {
            pre.insert("uid".into(), uid.clone().into());
        }
        if let Some(rv) = &self.precondition_resource_version {
            pre.insert("resourceVersion".into(), rv.clone().into());
        }
        if !pre.is_empty() {
            o["preconditions"] = Value::Object(pre);
        }
        if self.dry_run {
            o["dryRun"] = serde_json::json!(["All"]);
        }
        o
    }

    /// Reads a DELETE's body (empty, or a `DeleteOptions` object) and query, and checks
    /// them as `ValidateDeleteOptions` does.
    pub fn parse(body: &[u8], q: &Query) -> Result<DeleteOptions, ApiError> {
        let body: Value = if body.starts_with(crate::api::protobuf::MAGIC) {
            // client-go's typed clients send it as protobuf.
            crate::api::protobuf::decode_delete_options(body)?
        } else if body.iter().all(u8::is_ascii_whitespace) {
            Value::Object(Default::default())
        } else {
            serde_json::from_slice(body)
                .map_err(|e| ApiError::bad_request(format!("couldn't decode DeleteOptions: {e}")))?
        };
        let text = |p: &str| body.pointer(p).and_then(Value::as_str).map(str::to_string);
        let policy = q
            .propagation_policy
            .clone()
            .or_else(|| text("/propagationPolicy"));
        let mut errs = crd_runtime::ErrorList::new();
        let propagation = match policy.as_deref() {
            None => None,
            Some("Orphan") => Some(Propagation::Orphan),
            Some("Background") => Some(Propagation::Background),
            Some("Foreground") => Some(Propagation::Foreground),
            Some(other) => {
                errs.push(crd_runtime::FieldError::not_supported(
                    crd_runtime::Path::new("propagationPolicy"),
                    crd_runtime::BadValue::Str(other.to_string()),
                    &["Foreground", "Background", "Orphan", "nil"],
                ));
                None
            }
        };
        let orphan_dependents = q
            .orphan_dependents
            .or_else(|| body.get("orphanDependents").and_then(Value::as_bool));
        if orphan_dependents.is_some() && policy.is_some() {
            errs.push(crd_runtime::FieldError::invalid(
                crd_runtime::Path::new("propagationPolicy"),
                crd_runtime::BadValue::Str(policy.clone().unwrap_or_default()),
                "orphanDependents and deletionPropagation cannot be both set",
            ));
        }
        if !errs.is_empty() {
            return Err(ApiError::invalid_options("DeleteOptions", &errs));
        }
        let dry_run = q.dry_run
            || body
                .get("dryRun")
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|v| v == "All"));
        Ok(DeleteOptions {
            precondition_uid: text("/preconditions/uid"),
            precondition_resource_version: text("/preconditions/resourceVersion"),
            propagation,
            grace_period_seconds: q
                .grace_period_seconds
                .or_else(|| body.get("gracePeriodSeconds").and_then(Value::as_i64)),
            orphan_dependents,
            dry_run,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_options_name_the_manager() {
        let q = Query::parse(Some("fieldManager=mgr&fieldValidation=Strict")).unwrap();
        let w = WriteOptions::from_query(&q, Some("kubectl/v1.32")).unwrap();
        assert_eq!(
            (w.manager.as_str(), w.validation),
            ("mgr", FieldValidation::Strict)
        );
        let q = Query::parse(None).unwrap();
        let w = WriteOptions::from_query(&q, Some("kubectl/v1.32.0 (linux/amd64)")).unwrap();
        assert_eq!(w.manager, "kubectl");
        assert_eq!(
            WriteOptions::from_query(&q, None).unwrap().manager,
            "unknown"
        );
        let q = Query::parse(Some("fieldValidation=Loud")).unwrap();
        let e = WriteOptions::from_query(&q, None).unwrap_err();
        assert_eq!(e.message, "fieldValidation parameter unsupported: \"Loud\"");
    }

    #[test]
    fn delete_options_merge_query_and_body_and_are_validated() {
        let q = Query::parse(Some("propagationPolicy=Foreground")).unwrap();
        let o = DeleteOptions::parse(br#"{"preconditions": {"uid": "u"}}"#, &q).unwrap();
        assert_eq!(o.propagation, Some(Propagation::Foreground));
        assert_eq!(o.precondition_uid.as_deref(), Some("u"));
        let o =
            DeleteOptions::parse(br#"{"propagationPolicy": "Orphan"}"#, &Query::default()).unwrap();
        assert_eq!(o.propagation, Some(Propagation::Orphan));

        let e = DeleteOptions::parse(br#"{"propagationPolicy": "Later"}"#, &Query::default())
            .unwrap_err();
        assert_eq!(e.code, http::StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            e.message,
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Later\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
        );
        let e = DeleteOptions::parse(b"{", &Query::default()).unwrap_err();
        assert_eq!(e.code, http::StatusCode::BAD_REQUEST);
    }

    #[test]
    fn delete_options_in_protobuf() {
        use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
        use k8s_pb::apimachinery::pkg::runtime::{TypeMeta, Unknown};
        use prost::Message as _;
        let options = meta::DeleteOptions {
            grace_period_seconds: Some(0),
            propagation_policy: Some("Foreground".into()),
            dry_run: vec!["All".into()],
            ..Default::default()
        };
        let unknown = Unknown {
            type_meta: Some(TypeMeta {
                api_version: Some("meta.k8s.io/v1".into()),
                kind: Some("DeleteOptions".into()),
            }),
            raw: Some(options.encode_to_vec()),
            ..Default::default()
        };
        let body = [b"k8s\x00".to_vec(), unknown.encode_to_vec()].concat();
        let o = DeleteOptions::parse(&body, &Query::default()).unwrap();
        assert_eq!(o.propagation, Some(Propagation::Foreground));
        assert_eq!(o.grace_period_seconds, Some(0));
        assert!(o.dry_run);
        let e = DeleteOptions::parse(&body[..body.len() - 1], &Query::default()).unwrap_err();
        assert_eq!(e.code, http::StatusCode::BAD_REQUEST);
    }

    #[test]
    fn bad_numbers_are_bad_requests() {
        let e = Query::parse(Some("limit=x")).unwrap_err();
        assert_eq!(e.message, "limit: Invalid value: \"x\": must be an integer");
        assert_eq!(
            Query::parse(Some("timeoutSeconds=5s"))
                .unwrap()
                .timeout_seconds,
            Some(5)
        );
    }
}
