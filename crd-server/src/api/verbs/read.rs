//! GET of one object and LIST with selectors and pagination, as JSON or as a
//! `meta.k8s.io` Table.

use serde_json::{Value, json};

use super::{Reply, Scope, paging};
use crate::api::kinds::Resource;
use crate::api::request::media::partial_metadata;
use crate::api::request::{Query, Representation};
use crate::api::selectors::{FieldSelector, LabelSelector};
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::api::storage;
use crate::api::table::{Cell, Column, table};
use crate::store::{ListOptions, Revision, StoreError};

/// GET of one object (the whole object on `/status`, as the server answers).
pub async fn get(scope: &Scope<'_>) -> Result<Reply, ApiError> {
    if scope.req.representation()? == Representation::Json {
        let json = storage::get_json(scope.shared, scope.target()).await?;
        let mut reply = Reply::ok(Value::Null);
        reply.json = Some(json);
        return Ok(reply);
    }
    let obj = storage::get(scope.shared, scope.target()).await?.obj;
    if scope.req.representation()? == Representation::Metadata {
        return Ok(Reply::ok(partial_metadata(&obj)));
    }
    let meta = json!({"resourceVersion": obj.pointer("/metadata/resourceVersion")});
    let body = table(
        &columns(&scope.res),
        &[obj],
        scope.req.query.include_object.as_deref(),
        meta,
    );
    Ok(Reply::ok(body))
}

/// The Table columns of a kind: Name, then the kind's own (unless the kind places the
/// name itself, as the Events printer does, or writes it, as the StorageClass printer).
pub fn columns(res: &Resource) -> Vec<Column> {
    let own = res.columns();
    if own
        .iter()
        .any(|c| matches!(c.cell, Cell::Name) || c.name == "Name")
    {
        return own;
    }
    let mut cols = vec![Column::name()];
    cols.extend(own);
    cols
}

/// LIST.
pub async fn list(scope: &Scope<'_>) -> Result<Reply, ApiError> {
    let repr = scope.req.representation()?;
    let listed = match list_page(scope.shared, &scope.res, scope.ns(), &scope.req.query).await {
        Ok(listed) => listed,
        Err(ListError::Api(e)) => return Err(e),
        Err(ListError::ContinueExpired { token }) => {
            // kube-apiserver's answer carries a token that reads the rest of the list at
            // the latest revision, in the Status's list metadata.
            let mut status = ApiError::expired(INCONSISTENT_CONTINUE).to_status();
            status["metadata"] = json!({"continue": token});
            return Ok(Reply::new(http::StatusCode::GONE, status, Vec::new()));
        }
    };
    let body = match repr {
        Representation::Json => list_object(&scope.res, listed),
        Representation::Metadata => {
            let mut list = list_object(&scope.res, listed);
            list["kind"] = json!("PartialObjectMetadataList");
            list["apiVersion"] = json!("meta.k8s.io/v1");
            if let Some(items) = list["items"].as_array_mut() {
                for item in items {
                    *item = partial_metadata(item);
                }
            }
            list
        }
        Representation::Table => {
            let mut meta = json!({"resourceVersion": listed.revision.to_string()});
            if let Some(c) = &listed.continue_token {
                meta["continue"] = json!(c);
            }
            table(
                &columns(&scope.res),
                &listed.items,
                scope.req.query.include_object.as_deref(),
                meta,
            )
        }
    };
    Ok(Reply::ok(body))
}

/// A list at a revision no longer kept (`storage/etcd3`'s words).
const EXPIRED: &str = "The resourceVersion for the provided list is too old.";
/// A continue token whose revision is no longer kept, when the answer carries a token
/// that continues at the latest revision.
const INCONSISTENT_CONTINUE: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/// Why a list failed.
enum ListError {
    Api(ApiError),
    /// The continue token's revision is compacted: 410, continue with `token` (at the
    /// latest revision) for the rest.
    ContinueExpired {
        token: String,
    },
}

impl From<ApiError> for ListError {
    fn from(e: ApiError) -> ListError {
        ListError::Api(e)
    }
}

/// A list answer: items, revision, continue token and remaining count.
pub struct Listed {
    pub items: Vec<Value>,
    pub revision: Revision,
    pub continue_token: Option<String>,
    pub remaining: Option<u64>,
}

/// The label and field selectors of a list or watch.
pub struct Selectors {
    labels: Option<LabelSelector>,
    fields: Option<FieldSelector>,
}

impl Selectors {
    /// Reads `labelSelector` and `fieldSelector` (fields the kind selects on only).
    pub fn parse(res: &Resource, q: &Query) -> Result<Selectors, ApiError> {
        let labels = q
            .label_selector
            .as_deref()
            .map(LabelSelector::parse)
            .transpose()?;
        let fields = match q.field_selector.as_deref() {
            None => None,
            Some(s) => {
                let mut supported =
                    vec![("metadata.name".to_string(), "metadata.name".to_string())];
                if res.info().namespaced {
                    supported.push(("metadata.namespace".into(), "metadata.namespace".into()));
                }
                supported.extend(res.selectable_fields());
                Some(FieldSelector::parse(s, &supported)?)
            }
        };
        Ok(Selectors { labels, fields })
    }

    /// Whether any selector is given.
    pub fn filtering(&self) -> bool {
        self.labels.is_some() || self.fields.is_some()
    }

    /// Whether `obj` passes both selectors.
    pub fn matches(&self, obj: &Value) -> bool {
        self.labels.as_ref().is_none_or(|l| l.matches(obj))
            && self.fields.as_ref().is_none_or(|f| f.matches(obj))
    }
}

/// `resourceVersion` text as a revision (400 otherwise).
pub fn parse_rv(rv: &str) -> Result<Revision, ApiError> {
    rv.parse()
        .map_err(|_| ApiError::bad_request(format!("invalid resource version: \"{rv}\"")))
}

/// LIST with selectors and pagination.
pub async fn list_objects(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    q: &Query,
) -> Result<Listed, ApiError> {
    list_page(shared, res, ns, q).await.map_err(|e| match e {
        ListError::Api(e) => e,
        ListError::ContinueExpired { .. } => ApiError::expired(INCONSISTENT_CONTINUE),
    })
}

/// Where a list starts: after which key, at which revision (`None`: the latest).
fn list_start(prefix: &str, q: &Query) -> Result<(Option<String>, Option<Revision>), ApiError> {
    if let Some(token) = &q.continue_token {
        if q.resource_version.as_deref().is_some_and(|rv| rv != "0") {
            return Err(ApiError::bad_request(
                "specifying resource version is not allowed when using continue",
            ));
        }
        let c = paging::decode(token, prefix)?;
        return Ok((Some(c.start_after), c.revision));
    }
    let Some(rv) = q.resource_version.as_deref() else {
        return Ok((None, None));
    };
    match q.resource_version_match.as_deref() {
        Some("Exact") => Ok((None, Some(parse_rv(rv)?))),
        // The legacy exact match: a paginated list from a resourceVersion reads at it.
        None if q.limit.is_some() && rv != "0" => Ok((None, Some(parse_rv(rv)?))),
        _ => Ok((None, None)),
    }
}

async fn list_page(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    q: &Query,
) -> Result<Listed, ListError> {
    let selectors = Selectors::parse(res, q)?;
    let info = res.info();
    let prefix = info.list_prefix(ns);
    let (mut start_after, mut revision) = list_start(&prefix, q)?;
    let mut items = Vec::new();
    let want = q.limit.unwrap_or(usize::MAX);
    loop {
        let options = ListOptions {
            limit: q.limit.map(|l| l.max(1)),
            start_after: start_after.clone(),
            revision,
        };
        let page = match shared.store.list(&prefix, options).await {
            Ok(page) => page,
            Err(StoreError::Compacted { .. }) => {
                return Err(match (&q.continue_token, &start_after) {
                    (Some(_), Some(after)) => ListError::ContinueExpired {
                        token: paging::encode(&prefix, after, None),
                    },
                    _ => ListError::Api(ApiError::expired(EXPIRED)),
                });
            }
            Err(e) => return Err(ApiError::from_store(&info.q, "", e).into()),
        };
        revision = Some(page.revision);
        let last_key = page.items.last().map(|kv| kv.key.clone());
        let mut remaining_in_page = page.items.len();
        let objects = storage::present(res, &page.items).await?;
        for (kv, obj) in page.items.iter().zip(objects) {
            remaining_in_page -= 1;
            if !selectors.matches(&obj) {
                continue;
            }
            items.push(obj);
            if items.len() == want {
                let more = page.remaining > 0 || remaining_in_page > 0;
                let token = more.then(|| paging::encode(&prefix, &kv.key, Some(page.revision)));
                let remaining = (!selectors.filtering() && more)
                    .then_some(page.remaining + remaining_in_page as u64);
                return Ok(Listed {
                    items,
                    revision: page.revision,
                    continue_token: token,
                    remaining,
                });
            }
        }
        if page.remaining == 0 || last_key.is_none() {
            return Ok(Listed {
                items,
                revision: page.revision,
                continue_token: None,
                remaining: None,
            });
        }
        start_after = last_key;
    }
}

/// The list object (`CronTabList`).
pub fn list_object(res: &Resource, listed: Listed) -> Value {
    let info = res.info();
    let mut meta = json!({"resourceVersion": listed.revision.to_string()});
    if let Some(c) = listed.continue_token {
        meta["continue"] = json!(c);
    }
    if let Some(r) = listed.remaining {
        meta["remainingItemCount"] = json!(r);
    }
    json!({"kind": info.list_kind, "apiVersion": info.api_version(), "metadata": meta, "items": listed.items})
}
