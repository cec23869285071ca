//! The functions the interpreter runs, as the API server has them: corrections to
//! kube-cel's Kubernetes libraries where its values or error wording differ from the
//! API server's (`format`, `lists`, `net`, `quantity`, `semver`, `urls`), cel-go's
//! extension lists (`ext_lists`), conversions (`duration`, `timestamp`, `dyn`), the
//! authorizer and JSONPatch libraries of admission expressions, and `==`/`!=` on
//! values typed by the schema (`equality`). [`crate::cel::eval`] registers them all.

pub(in crate::cel) mod authz;
pub(in crate::cel) mod conversions;
pub(super) mod delegate;
pub(in crate::cel) mod equality;
pub(in crate::cel) mod ext_lists;
pub(super) mod format;
pub(in crate::cel) mod jsonpatch;
pub(super) mod lists;
pub(super) mod net;
pub(super) mod quantity;
pub(super) mod semver;
pub(super) mod urls;

/// The message of the function error `result` of evaluating `src` (tests).
#[cfg(test)]
pub(super) fn function_error(src: &str, result: kube_cel::cel::ResolveResult) -> String {
    match result {
        Err(kube_cel::cel::ExecutionError::FunctionError { message, .. }) => message,
        other => panic!("{src}: {other:?}"),
    }
}
