//! What kube-apiserver's Go code for one built-in kind does beyond the generic
//! strategy, one small trait per concern: [`Defaulter`] (`SetDefaults_*`, decode
//! conversions), [`Validator`] (`Validate*`), [`Preparer`] (`PrepareFor*`),
//! [`Printer`] (the table printer), [`Serving`] (which releases serve the kind, a
//! scale subresource, answers of kinds never stored), [`Deleter`]
//! (`DefaultGarbageCollectionPolicy`) and the strategies' own [`AllocateStrategy`]
//! (`BeginCreate`, `BeginUpdate`, `AfterDelete`). A kind implements those it changes; the
//! [`defaults!`](crate::api::kinds::builtin::defaults) macro implements the others at
//! their defaults. [`Behaviour`] is all of them.

use serde_json::Value;

pub use crate::api::kinds::AllocateStrategy;
use crate::api::kinds::{GcPolicy, ScalePaths, Subresource};
use crate::api::table::Column;
use crd_runtime::field::ErrorList;

/// Every concern of a built-in kind (what [`crate::api::kinds::builtin::Spec`] holds).
pub trait Behaviour:
    Defaulter + Validator + Preparer + Printer + Serving + Deleter + AllocateStrategy
{
}

impl<T> Behaviour for T where
    T: Defaulter + Validator + Preparer + Printer + Serving + Deleter + AllocateStrategy
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
    fn validate_with(&self, obj: &Value, cx: &Validation<'_>, errs: &mut ErrorList) {
        self.validate(obj, cx.old, errs)
    }
}

/// [`Validator::validate_with`] of a kind whose status subresource validates the status
/// only: a status write keeps the spec, valid before, so `validate` runs on every
/// other write.
pub fn validate_unless_status(
    kind: &dyn Validator,
    obj: &Value,
    cx: &Validation<'_>,
    errs: &mut ErrorList,
) {
    if cx.sub != Subresource::Status {
        kind.validate(obj, cx.old, errs);
    }
}

/// What `kind` finds wrong with `obj` (an update of `old`), as a test compares it.
#[cfg(test)]
pub fn errors_of(kind: &dyn Validator, obj: &Value, old: Option<&Value>) -> Vec<String> {
    let mut errs = ErrorList::new();
    kind.validate(obj, old, &mut errs);
    errs.strings()
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

    /// `CheckGracefulDelete`: the grace period a DELETE of `obj` gives it (the one
    /// `requested` by its options, or the kind's own); `None` for a kind that is never
    /// deleted gracefully.
    fn grace_period(&self, _obj: &Value, _requested: Option<i64>) -> Option<i64> {
        None
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
pub struct Validation<'a> {
    /// The object before an update (`None` on create).
    pub old: Option<&'a Value>,
    pub kube_version: crd_runtime::KubeVersion,
    /// A write through the status subresource.
    pub status: bool,
    /// The endpoint written (a Pod's `resize` and `ephemeralcontainers` have rules of
    /// their own).
    pub sub: Subresource,
}

impl Validation<'_> {
    /// A write of the object itself in the newest release, for kinds whose validation
    /// does not depend on either (their `validate` calls `validate_with` with it).
    pub fn main(old: Option<&Value>) -> Validation<'_> {
        Validation {
            old,
            kube_version: crd_runtime::KubeVersion::NEWEST,
            status: false,
            sub: Subresource::Main,
        }
    }
}
