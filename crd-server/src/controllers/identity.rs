//! Who the built-in controllers are when they call the API: kube-controller-manager's
//! identities with `--use-service-account-credentials` (one service account in
//! `kube-system` per controller, bound to its `system:controller:NAME` ClusterRole),
//! kube-scheduler's `system:kube-scheduler`, and kube-apiserver's own loopback user
//! for what runs inside the API server upstream. Each call a controller makes is
//! authorized as that user (under RBAC through the bootstrap roles), audited as a
//! request of that user, and runs as its caller (admission's `userInfo`, the RBAC
//! write checks).

use std::future::Future;
use std::sync::Arc;

use chrono::Utc;
use crd_runtime::rbac::{Attributes, UserInfo};

use crate::api::kinds::{Resource, Subresource};
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::auth::Decision;
use crate::auth::audit::{Draft, Level, Stage};
use crate::auth::context::{self, Caller};

/// The namespace of the controllers' service accounts.
pub const NAMESPACE: &str = "kube-system";

/// kube-controller-manager's user without per-controller credentials.
pub const CONTROLLER_MANAGER: &str = "system:kube-controller-manager";

/// kube-scheduler's user.
pub const SCHEDULER: &str = "system:kube-scheduler";

/// The identity of the controller writing as `manager` (its field manager name).
pub fn of_manager(manager: &str) -> UserInfo {
    let service_account = match manager {
        "deployment-controller"
        | "replicaset-controller"
        | "job-controller"
        | "statefulset-controller"
        | "cronjob-controller"
        | "endpoint-controller"
        | "endpointslice-controller"
        | "root-ca-cert-publisher"
        | "pod-garbage-collector"
        | "disruption-controller"
        | "ttl-after-finished-controller"
        | "storage-version-migrator-controller"
        | "storage-version-migration-trigger" => manager,
        "serviceaccount-controller" => "service-account-controller",
        // kube-controller-manager's service accounts of these are named differently.
        "daemonset-controller" => "daemon-set-controller",
        "persistentvolume-controller" => "persistent-volume-binder",
        "garbage-collector-controller" => "generic-garbage-collector",
        // kube-controller-manager's node IPAM controller runs as the node controller.
        "node-ipam-controller" => "node-controller",
        "validatingadmissionpolicy-status-controller" => manager,
        // kwok's own deployment runs its controller as this service account.
        "kwok-controller" => manager,
        "default-scheduler" => return UserInfo::user(SCHEDULER),
        // The CRD finalizer runs inside kube-apiserver: its loopback user.
        "kube-apiserver" => {
            let mut user = UserInfo::user("system:apiserver");
            user.groups.push(crate::auth::MASTERS.into());
            return user;
        }
        _ => return UserInfo::user(CONTROLLER_MANAGER),
    };
    UserInfo::service_account(NAMESPACE, service_account)
}

/// The service account of a kube-controller-manager controller (`NAME-controller`).
pub fn controller(name: &str) -> UserInfo {
    UserInfo::service_account(NAMESPACE, name)
}

/// One call of a controller, as the authorizer and the audit log see it.
pub struct Call<'a> {
    pub verb: &'static str,
    pub res: &'a Resource,
    pub ns: Option<&'a str>,
    pub name: &'a str,
    pub sub: Subresource,
}

impl Call<'_> {
    fn attributes(&self, user: &UserInfo) -> Attributes {
        let info = self.res.info();
        Attributes {
            user: user.clone(),
            verb: self.verb.to_string(),
            namespace: self.ns.unwrap_or("").to_string(),
            api_group: info.q.group.clone(),
            api_version: info.version.clone(),
            resource: info.q.plural.clone(),
            subresource: self.sub.name().unwrap_or("").to_string(),
            name: self.name.to_string(),
            resource_request: true,
            ..Attributes::default()
        }
    }

    /// The path a client would have requested.
    fn uri(&self) -> String {
        let info = self.res.info();
        let mut uri = if info.q.group.is_empty() {
            format!("/api/{}", info.version)
        } else {
            format!("/apis/{}/{}", info.q.group, info.version)
        };
        if let Some(ns) = self.ns {
            uri.push_str(&format!("/namespaces/{ns}"));
        }
        uri.push('/');
        uri.push_str(&info.q.plural);
        if !self.name.is_empty() {
            uri.push('/');
            uri.push_str(self.name);
        }
        if let Some(sub) = self.sub.name() {
            uri.push('/');
            uri.push_str(sub);
        }
        uri
    }
}

/// Runs `work` as `user`'s call: refused with kube-apiserver's 403 when the
/// authorizer does not allow it, recorded in the audit log (as a request from the
/// controller), and run with `user` as the request's caller.
pub async fn call<T, F>(
    shared: &Shared,
    user: &UserInfo,
    call: Call<'_>,
    work: F,
) -> Result<T, ApiError>
where
    F: Future<Output = Result<T, ApiError>>,
{
    let auth = &shared.auth;
    let attrs = call.attributes(user);
    let (level, omit) = auth.audit.level_of(&attrs);
    let mut draft = (level > Level::None).then(|| Draft {
        level,
        omit,
        id: uuid::Uuid::new_v4().to_string(),
        uri: call.uri(),
        verb: call.verb.to_string(),
        user: user.clone(),
        impersonated: None,
        source_ip: Some("127.0.0.1".into()),
        user_agent: Some(format!("kube-controller-manager ({})", user.name)),
        attrs: attrs.clone(),
        received: Utc::now(),
        annotations: serde_json::Map::new(),
        request_object: None,
    });
    if let Some(d) = &draft
        && !d.omit.contains(&Stage::RequestReceived)
    {
        auth.audit.emit(d.event(Stage::RequestReceived, None));
    }
    let (decision, reason) = if auth.authz.always_allows() {
        (Decision::Allow, String::new())
    } else {
        auth.authz.authorize_fresh(&attrs).await
    };
    if let Some(d) = &mut draft {
        d.note_authorization(decision.annotation(), &reason);
    }
    let result = if decision == Decision::Allow {
        let caller = Arc::new(Caller {
            user: user.clone(),
            authorizer: auth.authz.clone(),
        });
        context::scope(caller, work).await
    } else {
        Err(crate::api::auth_filter::forbidden(&attrs, &reason))
    };
    if let Some(d) = &draft
        && !d.omit.contains(&Stage::ResponseComplete)
    {
        let (code, status) = match &result {
            Ok(_) if call.verb == "create" => (201, None),
            Ok(_) => (200, None),
            Err(e) => (e.code.as_u16(), Some(e.to_status())),
        };
        auth.audit
            .emit(d.event(Stage::ResponseComplete, Some((code, status.as_ref()))));
    }
    result
}

#[cfg(test)]
#[path = "identity_tests.rs"]
mod tests;
