//! admissionregistration.k8s.io/v1 (MutatingAdmissionPolicies only where the release
//! serves them: see their behaviour's `served_in`).

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::admissionregistration::bindings::Bindings;
use crate::api::kinds::builtin::admissionregistration::mutating_policies::MutatingPolicies;
use crate::api::kinds::builtin::admissionregistration::validating_policies::ValidatingPolicies;
use crate::api::kinds::builtin::admissionregistration::webhook_configurations::Webhooks;
use crate::api::kinds::builtin::{NameRule, Spec};

const GROUP: &str = "admissionregistration.k8s.io";
const CATEGORIES: &[&str] = &["api-extensions"];

/// One cluster-scoped kind of the group.
const fn kind(
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    prefix: &'static str,
    definition: &'static str,
    subresources: &'static [Subresource],
    behaviour: &'static dyn crate::api::kinds::builtin::Behaviour,
) -> Spec {
    Spec {
        categories: CATEGORIES,
        subresources,
        prefix,
        name_rule: Some(NameRule::DnsSubdomain),
        ..Spec::v1(GROUP, plural, singular, kind, definition, behaviour)
    }
}

pub(crate) static KINDS: &[Spec] = &[
    kind(
        "mutatingadmissionpolicies",
        "mutatingadmissionpolicy",
        "MutatingAdmissionPolicy",
        "/registry/mutatingadmissionpolicies/",
        "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicy",
        &[],
        &MutatingPolicies,
    ),
    kind(
        "mutatingadmissionpolicybindings",
        "mutatingadmissionpolicybinding",
        "MutatingAdmissionPolicyBinding",
        "/registry/mutatingadmissionpolicybindings/",
        "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicyBinding",
        &[],
        &Bindings { mutating: true },
    ),
    kind(
        "mutatingwebhookconfigurations",
        "mutatingwebhookconfiguration",
        "MutatingWebhookConfiguration",
        "/registry/mutatingwebhookconfigurations/",
        "io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration",
        &[],
        &Webhooks { mutating: true },
    ),
    kind(
        "validatingadmissionpolicies",
        "validatingadmissionpolicy",
        "ValidatingAdmissionPolicy",
        "/registry/validatingadmissionpolicies/",
        "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy",
        &[Subresource::Status],
        &ValidatingPolicies,
    ),
    kind(
        "validatingadmissionpolicybindings",
        "validatingadmissionpolicybinding",
        "ValidatingAdmissionPolicyBinding",
        "/registry/validatingadmissionpolicybindings/",
        "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding",
        &[],
        &Bindings { mutating: false },
    ),
    kind(
        "validatingwebhookconfigurations",
        "validatingwebhookconfiguration",
        "ValidatingWebhookConfiguration",
        "/registry/validatingwebhookconfigurations/",
        "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration",
        &[],
        &Webhooks { mutating: false },
    ),
];
