//! Corrections to kube-cel's Kubernetes libraries where its values or error wording differ from the API server's.
pub(super) mod delegate;
pub(super) mod format;
pub(super) mod lists;
pub(super) mod net;
pub(super) mod quantity;
pub(super) mod semver;
pub(super) mod urls;
