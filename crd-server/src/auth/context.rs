//! The identity of the request a task serves, as kube-apiserver's request context
//! carries it: set by the filter around the handler, read by admission (its
//! `userInfo`), the reviews and the RBAC write checks. Work outside any request (the
//! server's own seeding, its controllers) is the server's: `system:apiserver`-like
//! `system:admin` in `system:masters`.

use std::sync::Arc;

use tokio::task::futures::TaskLocalFuture;

use crd_runtime::rbac::UserInfo;

use super::Authorizer;

/// Who a request is and who decides what it may do.
#[derive(Clone)]
pub struct Caller {
    /// The user the request is authorized as (the impersonated one, if any).
    pub user: UserInfo,
    /// The server's authorizer.
    pub authorizer: Arc<Authorizer>,
}

tokio::task_local! {
    static CALLER: Arc<Caller>;
}

/// Runs `f` as `caller`'s request. Not an `async fn`: one would keep `f` beside the
/// scope that holds it, and every request's future would carry the copy.
pub fn scope<F: std::future::Future>(caller: Arc<Caller>, f: F) -> TaskLocalFuture<Arc<Caller>, F> {
    CALLER.scope(caller, f)
}

/// The caller of the request this task serves, if any.
pub fn caller() -> Option<Arc<Caller>> {
    CALLER.try_with(Arc::clone).ok()
}

/// The user of the request this task serves (the server itself outside requests).
pub fn user() -> UserInfo {
    caller()
        .map(|c| c.user.clone())
        .unwrap_or_else(super::authenticate::admin)
}
