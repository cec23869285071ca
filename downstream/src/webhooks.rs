//! The operator's webhooks, on crd-server's helpers: a validating webhook that admits
//! a `Backup` as the API server would and refuses the `kube-system` namespace, a
//! mutating one that labels backups, and the conversion webhook between `v1` and `v2`.
//! Served with `crd_webhook::serve_router` (HTTPS); the tests drive the routers
//! in-process.

use crd_runtime::CustomResourceExt;
use crd_runtime::admission::review::{AdmissionRequest, AdmissionResponse};
use crd_runtime::conversion::Converter;
use crd_webhook::{AdmissionRequestExt, AdmissionRoutes, mutate_object};

use crate::backup::{v1, v2};

/// Denies backups in `kube-system` and objects the CRD's schema and rules refuse.
pub fn validate(request: &AdmissionRequest) -> AdmissionResponse {
    if request.namespace == "kube-system" {
        return AdmissionResponse::deny(&request.uid, "no backups in kube-system");
    }
    let mut backup: v1::Backup = match request.object_as() {
        Ok(backup) => backup,
        Err(e) => return e.deny(&request.uid),
    };
    match backup.admit() {
        Ok(()) => AdmissionResponse::allow(&request.uid),
        Err(e) => AdmissionResponse::deny(&request.uid, e.to_string()),
    }
}

/// Labels every backup with the volume it backs up (`backup.ops.example.com/volume`).
pub fn mutate(request: &AdmissionRequest) -> AdmissionResponse {
    let labelled = mutate_object(request, |backup: &mut v1::Backup| {
        let volume = backup.spec.volume.clone();
        backup
            .metadata
            .labels
            .get_or_insert_with(Default::default)
            .insert("backup.ops.example.com/volume".into(), volume);
    });
    labelled.unwrap_or_else(|e| e.deny(&request.uid))
}

/// `/validate` and `/mutate`.
pub fn admission_routes() -> AdmissionRoutes {
    AdmissionRoutes::new()
        .route("/validate", validate)
        .route("/mutate", mutate)
}

/// `v1` (the hub) ⇄ `v2`.
pub fn converter() -> Converter<v1::Backup> {
    Converter::<v1::Backup>::hub().spoke::<v2::Backup>()
}
