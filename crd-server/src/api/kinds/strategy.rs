//! What differs per kind, one small trait per concern as kube-apiserver composes its
//! registry strategies: [`CreateStrategy`] (`RESTCreateStrategy`), [`UpdateStrategy`]
//! (`RESTUpdateStrategy`), [`ValidateStrategy`] (their `Validate`/`ValidateUpdate` and
//! `Canonicalize`), [`DeleteStrategy`] (`RESTDeleteStrategy`,
//! `GarbageCollectionDeleteStrategy`, the kinds with a `Delete` of their own),
//! [`ResetFieldsStrategy`], [`TableConvertor`], [`CodecStrategy`] (decoding and the
//! storage version), [`SchemaStrategy`] (the schemas apply, OpenAPI, strategic merge
//! patch and field selectors read) and [`AllocateStrategy`] (`BeginCreate`,
//! `BeginUpdate`, `AfterDelete`), each over [`Identity`].
//!
//! [`Strategy`] is all of them: every kind implements each concern, overriding only
//! the defaults it changes, and says it is a `Strategy`; the verbs find it through the
//! registry.

use crd_runtime::model::JSONSchemaProps;
use futures::future::BoxFuture;
use serde_json::Value;

use super::{Allocation, Context, GcPolicy, KindInfo, ResetFields, Subresource};

/// What a validation answers: the warnings to send, or the error.
pub type Validated<'a> = BoxFuture<'a, Result<Vec<String>, ApiError>>;

/// What an allocation answers: the keys it took and freed, or the error.
pub type Allocated<'a> = BoxFuture<'a, Result<Allocation, ApiError>>;
use crate::api::read_cache::ReadCache;
use crate::api::status::ApiError;
use crate::api::table::Column;

/// The behaviour of one kind at one version: every concern. See the module docs.
pub trait Strategy:
    Identity
    + CreateStrategy
    + UpdateStrategy
    + ValidateStrategy
    + DeleteStrategy
    + ResetFieldsStrategy
    + TableConvertor
    + CodecStrategy
    + SchemaStrategy
    + AllocateStrategy
{
}

/// A kind's identity at one version, and what discovery lists of it.
pub trait Identity: Send + Sync {
    /// Identity, subresources and storage prefix.
    fn info(&self) -> &KindInfo;

    /// The verbs discovery lists for the object itself (those it serves, unless the
    /// kind says otherwise while it goes away).
    fn discovery_verbs(&self) -> &'static [&'static str] {
        self.info().verbs
    }

    /// Whether writes change what the server serves (CRDs): a write then returns only
    /// once the registry reflects it.
    fn defines_kinds(&self) -> bool {
        false
    }
}

/// `RESTCreateStrategy`.
pub trait CreateStrategy: Identity {
    /// Clears what a client may not set on create (status behind a subresource) and
    /// sets what the server owns (generation, a namespace's phase and finalizer).
    fn prepare_for_create(&self, obj: &mut Value);

    /// Refuses a POST create before its body is read (a terminating CRD's kind answers
    /// 405, as apiextensions-apiserver's handler does).
    fn check_post_create(&self) -> Result<(), ApiError> {
        Ok(())
    }

    /// Admission of a create, after decoding and before the object is named and
    /// validated (a terminating CRD's kind refuses new objects).
    fn check_create(&self, _obj: &Value) -> Result<(), ApiError> {
        Ok(())
    }

    /// For kinds that are never stored (access reviews): the answer to a create of
    /// `obj` (`None`: the kind is stored as every other).
    fn answer_create(&self, _obj: Value) -> Option<Result<Value, ApiError>> {
        None
    }
}

/// `RESTUpdateStrategy`.
pub trait UpdateStrategy: Identity {
    /// Keeps what the endpoint may not change (`new` already carries `old`'s identity:
    /// uid, creation timestamp, deletion fields, generation).
    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Subresource);

    /// Whether a PUT without `metadata.resourceVersion` is allowed.
    fn allow_unconditional_update(&self) -> bool;
}

/// `Validate` and `ValidateUpdate` of the create and update strategies, and
/// `Canonicalize`.
pub trait ValidateStrategy: Identity {
    /// `Validate` (create, `cx.old` is `None`) or `ValidateUpdate`; the warnings to send.
    /// Asynchronous: a CRD's names are checked against the stored CRDs.
    fn validate<'a>(&'a self, cx: &'a Context<'a>, obj: &'a mut Value) -> Validated<'a>;

    /// Normalizes an object after validation.
    fn canonicalize(&self, _obj: &mut Value) {}
}

/// `RESTDeleteStrategy`, `GarbageCollectionDeleteStrategy` and what the kinds with a
/// `Delete` of their own do (namespaces, CRDs).
pub trait DeleteStrategy: Identity {
    /// Refuses a DELETE the server never allows (the immortal namespaces).
    fn check_delete(&self, _name: &str) -> Result<(), ApiError> {
        Ok(())
    }

    /// What a DELETE without a propagation policy does with dependents.
    fn default_gc_policy(&self) -> GcPolicy {
        GcPolicy::DeleteDependents
    }

    /// Marks the start of an object's deletion beyond its `deletionTimestamp`, as the
    /// kinds with their own `Delete` in kube-apiserver do (a namespace turns
    /// `Terminating`, a CRD gets its cleanup finalizer); `true`: the object now waits
    /// on its controller instead of going at once.
    fn begin_deletion(&self, _obj: &mut Value) -> bool {
        false
    }

    /// Whether a DELETE of `obj` sets the garbage collector's finalizers (`orphan`,
    /// `foregroundDeletion`) from its options. Most kinds: always. The kinds with a
    /// `Delete` of their own decide: a CRD's first DELETE only begins its cleanup; a
    /// namespace already terminating is left as it is while `spec.finalizers` remain.
    fn gc_finalizers_on_delete(&self, _obj: &Value) -> bool {
        true
    }

    /// `ShouldDeleteDuringUpdate`: whether an object being deleted goes with the write
    /// that left it as `obj` (no finalizer left; a namespace also waits on its
    /// `spec.finalizers`).
    fn finalized(&self, obj: &Value) -> bool {
        crate::api::object::is_deleting(obj)
            && !crate::api::object::has_finalizers(obj)
            && crate::api::object::grace_period_of(obj) == 0
    }

    /// `CheckGracefulDelete`: the grace period a DELETE gives `obj` (`requested`: the
    /// options' `gracePeriodSeconds`); `None` for the kinds deleted at once (all but
    /// Pods).
    fn grace_period(&self, _obj: &Value, _requested: Option<i64>) -> Option<i64> {
        None
    }

    /// The answer to a DELETE that removed the object: the object, or `None` for a
    /// `Status` with `status: Success` (what most kinds answer).
    fn deleted_answer(&self, _obj: Value) -> Option<Value> {
        None
    }
}

/// `ResetFieldsStrategy`.
pub trait ResetFieldsStrategy {
    /// Top-level fields reset on `sub` (never merged by apply through it).
    fn reset_fields(&self, sub: Subresource) -> ResetFields;
}

/// `TableConvertor`: the kind's printer.
pub trait TableConvertor {
    /// Table columns after Name.
    fn columns(&self) -> Vec<Column>;
}

/// How a kind's objects are read from request bodies and from storage.
pub trait CodecStrategy: Identity {
    /// A body of this kind in `application/vnd.kubernetes.protobuf`, for the kinds
    /// kubectl sends that way (`None`: the kind takes no protobuf).
    fn decode_protobuf(&self, _body: &[u8]) -> Option<Result<Value, ApiError>> {
        None
    }

    /// Decoding as the server decodes a body of this kind: unknown fields dropped and
    /// reported (their paths, for `fieldValidation`), defaults applied.
    fn decode(&self, obj: &mut Value) -> Result<Vec<String>, ApiError>;

    /// The JSON this version last answered for each object, when answers are a
    /// function of the stored bytes (no webhook in the way).
    fn read_cache(&self) -> Option<&ReadCache> {
        None
    }

    /// Objects as stored (in any version) in this version: converted, then pruned to
    /// this version's schema, as the server does after every conversion.
    fn read_stored<'a>(
        &'a self,
        objects: Vec<Value>,
    ) -> BoxFuture<'a, Result<Vec<Value>, ApiError>> {
        let api_version = Value::String(self.info().api_version());
        Box::pin(async move {
            let mut objects = objects;
            for o in &mut objects {
                if let Value::Object(m) = o {
                    m.insert("apiVersion".into(), api_version.clone());
                }
            }
            Ok(objects)
        })
    }

    /// Whether an object stored with `api_version` is in another version than the
    /// kind's storage version (custom resources with several versions). An update that
    /// changes nothing is still written then, as kube-apiserver compares the encoded
    /// bytes: what storage version migration relies on.
    fn stored_in_other_version(&self, _api_version: &str) -> bool {
        false
    }

    /// An admitted object's stored form, when it differs from the object (another
    /// storage version); `None`: stored as it is.
    fn storage_form<'a>(
        &'a self,
        _obj: &'a Value,
    ) -> BoxFuture<'a, Result<Option<Value>, ApiError>> {
        Box::pin(async { Ok(None) })
    }
}

/// The schemas a kind is read by: apply's merge rules, OpenAPI, strategic merge
/// patch's metadata, field selectors.
pub trait SchemaStrategy {
    /// The schema that tells server-side apply how fields merge (list and map types).
    fn schema(&self) -> Option<&JSONSchemaProps>;

    /// The OpenAPI schema of the kind (for `/openapi/v2` and `/openapi/v3`).
    fn openapi_schema(&self) -> Value;

    /// The OpenAPI definition whose patch metadata a strategic merge patch of this kind
    /// follows (`io.k8s.api.core.v1.ConfigMap`); `None`: the kind refuses the media type,
    /// as custom resources do.
    fn strategic_merge_definition(&self) -> Option<&'static str> {
        None
    }

    /// Fields a field selector may use besides `metadata.name` and, when namespaced,
    /// `metadata.namespace`: (label, dotted path of the value it reads).
    fn selectable_fields(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// What a kind takes from pools kept in the store (kube-apiserver's `BeginCreate`,
/// `BeginUpdate` and `AfterDelete` hooks: a Service's cluster IPs and node ports).
pub trait AllocateStrategy {
    /// Takes what the object needs before it is validated and stored, filling it in;
    /// the write then calls [`Allocation::finish`] with its outcome. `cx.old` is `None`
    /// on create.
    fn allocate<'a>(&'a self, _cx: &'a Context<'a>, _obj: &'a mut Value) -> Allocated<'a> {
        Box::pin(async { Ok(Allocation::default()) })
    }

    /// Gives back what a removed object held in those pools (`AfterDelete`).
    fn release<'a>(&'a self, _cx: &'a Context<'a>, _obj: &'a Value) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}
