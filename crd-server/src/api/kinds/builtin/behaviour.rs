//! What kube-apiserver's Go code for one built-in kind does beyond the generic
//! strategy, one small trait per concern: [`Defaulter`] (`SetDefaults_*`, decode
//! conversions), [`Validator`] (`Validate*`), [`Preparer`] (`PrepareFor*`),
//! [`Printer`] (the table printer), [`Serving`] (which releases serve the kind, a
//! scale subresource, answers of kinds never stored), [`Deleter`]
//! (`DefaultGarbageCollectionPolicy`) and [`Allocator`] (`BeginCreate`,
//! `BeginUpdate`, `AfterDelete`). A kind implements those it changes; the
//! [`defaults!`](crate::api::kinds::builtin::defaults) macro implements the others at
//! their defaults. [`Behaviour`] is all of them.

use futures::future::BoxFuture;
use serde_json::Value;

use crate::api::kinds::{Allocation, Context, GcPolicy, ScalePaths, Subresource};
use crate::api::status::ApiError;
use crate::api::table::Column;
use crd_runtime::field::ErrorList;

/// Every concern of a built-in kind (what [`crate::api::kinds::builtin::Spec`] holds).
pub trait Behaviour:
    Defaulter + Validator + Preparer + Printer + Serving + Deleter + Allocator
{
}

impl<T> Behaviour for T where
    T: Defaulter + Validator + Preparer + Printer + Serving + Deleter + Allocator
{
}

/// Decoding beyond the schema.
pub trait Defaulter: Sync {
    /// Defaults (`SetDefaults_*`), conversions such as a Secret's `stringData` into
    /// `data`. An error is a 400 decode error's text.
    fn decode(&self, _obj: &mut Value) -> Result<(), String> {
        Ok(())
    }
}

/// The kind's validation, after `ValidateObjectMeta`.
pub trait Validator: Sync {
    /// The kind's `Validate` (`old` is `None` on create).
    fn validate(&self, _obj: &Value, _old: Option<&Value>, _errs: &mut ErrorList) {}

    /// [`Validator::validate`] for kinds that need the release (CEL environments) or
    /// the endpoint (a status update validates the status only).
    fn validate_with(
        &self,
        obj: &Value,
        old: Option<&Value>,
        _cx: &Validation,
        errs: &mut ErrorList,
    ) {
        self.validate(obj, old, errs)
    }
}

/// `PrepareForCreate` and `PrepareForUpdate`.
pub trait Preparer: Sync {
    /// `PrepareForCreate` beyond dropping a status subresource's status: generation,
    /// the status the kind starts with, fields the server generates. `obj` has its uid.
    fn prepare_for_create(&self, _obj: &mut Value) {}

    /// `PrepareForUpdate` after the generic copy (status kept on the main endpoint,
    /// spec kept on `status`): generation bumps, what an endpoint may not change.
    fn prepare_for_update(&self, _new: &mut Value, _old: &Value, _sub: Subresource) {}

    /// `PrepareForCreate` (`old` is `None`) and `PrepareForUpdate` beyond the status
    /// reset: what the server sets (a new volume's phase).
    fn prepare(&self, _obj: &mut Value, _old: Option<&Value>, _sub: Subresource) {}
}

/// The kind's table printer.
pub trait Printer: Sync {
    /// The kind's table columns after Name (kube-apiserver's printer).
    fn columns(&self) -> Vec<Column> {
        vec![Column::age()]
    }
}

/// What the kind serves besides its objects.
pub trait Serving: Sync {
    /// Whether a default kube-apiserver of release `v` serves the kind.
    fn served_in(&self, _v: crd_runtime::KubeVersion) -> bool {
        true
    }

    /// Where the scale subresource reads and writes (`None`: no scale subresource).
    fn scale(&self) -> Option<ScalePaths> {
        None
    }

    /// The answer to a create of a kind that is never stored (access reviews): the
    /// decoded request in, the object with its status out.
    fn answer_create(&self, _obj: &Value) -> Option<Value> {
        None
    }
}

/// What a DELETE does with the object's dependents.
pub trait Deleter: Sync {
    /// `DefaultGarbageCollectionPolicy`: background deletion unless the kind orphans.
    fn default_gc_policy(&self) -> GcPolicy {
        GcPolicy::DeleteDependents
    }
}

/// What the kind takes from pools kept in the store.
pub trait Allocator: Sync {
    /// [`AllocateStrategy::allocate`](crate::api::kinds::AllocateStrategy::allocate):
    /// what the object takes from pools kept in the store.
    fn allocate<'a>(
        &'a self,
        _cx: &'a Context<'a>,
        _obj: &'a mut Value,
        _old: Option<&'a Value>,
        _dry_run: bool,
    ) -> BoxFuture<'a, Result<Allocation, ApiError>> {
        Box::pin(async { Ok(Allocation::default()) })
    }

    /// [`AllocateStrategy::release`](crate::api::kinds::AllocateStrategy::release):
    /// what a removed object gives back.
    fn release<'a>(&'a self, _cx: &'a Context<'a>, _obj: &'a Value) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}

/// Implements the concerns a kind leaves at their defaults:
/// `defaults!(Leases: Defaulter, Preparer);`.
macro_rules! defaults {
    ($kind:ty: $($concern:ident),+) => {
        $(impl $crate::api::kinds::builtin::behaviour::$concern for $kind {})+
    };
}
pub(crate) use defaults;

/// What [`Validator::validate_with`] gets besides the objects.
pub struct Validation {
    pub kube_version: crd_runtime::KubeVersion,
    /// A write through the status subresource.
    pub status: bool,
    /// The endpoint written (a Pod's `resize` and `ephemeralcontainers` have rules of
    /// their own).
    pub sub: Subresource,
}

impl Validation {
    /// A write of the object itself in the newest release, for kinds whose validation
    /// does not depend on either (their `validate` calls `validate_with` with it).
    pub fn main() -> Validation {
        Validation {
            kube_version: crd_runtime::KubeVersion::NEWEST,
            status: false,
            sub: Subresource::Main,
        }
    }
}
