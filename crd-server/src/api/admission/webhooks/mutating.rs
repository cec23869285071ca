//! The MutatingAdmissionWebhook dispatcher: matching webhooks called one after the
//! other, each answer's JSON patch applied to the object the next one sees; webhooks
//! with `reinvocationPolicy: IfNeeded` called once more when a later webhook changed
//! the object.

use std::collections::HashSet;

use crd_runtime::admission::Attributes;
use crd_runtime::admission::matching::Invocation;
use serde_json::Value;

use super::call::{self, HookError, calling_error, denial, internal};
use super::configurations::{Hook, HookSet};
use super::matcher::{Matcher, convert_one, convert_to};
use crate::api::admission::Backend;
use crate::api::status::ApiError;

/// Runs the mutating webhooks of `set` on `attrs.object`; the warnings they sent.
pub async fn dispatch(
    set: &HookSet,
    shared: &Backend<'_>,
    attrs: &mut Attributes,
) -> Result<Vec<String>, ApiError> {
    let mut matcher = Matcher::new(shared);
    let mut warnings = Vec::new();
    // kube-apiserver's reinvocation context: webhooks called since the last change
    // that may be called again, and those to call again.
    let mut invoked = HashSet::new();
    let mut reinvoke = HashSet::new();
    for round in 0..2 {
        if round == 1 && reinvoke.is_empty() {
            break;
        }
        for (i, hook) in set.hooks.iter().enumerate() {
            // A webhook that did not match in the first round is not called in the second.
            if round == 1 && !reinvoke.contains(&i) {
                continue;
            }
            let Some(invocation) = matcher.should_call(hook, attrs).await? else {
                continue;
            };
            let outcome = call_one(hook, shared, attrs, &invocation, &mut warnings).await;
            if matches!(outcome, Ok(true)) {
                reinvoke.extend(invoked.drain());
            }
            if hook.reinvoke && round == 0 {
                invoked.insert(i);
            }
            match outcome {
                Ok(_) => {}
                // failurePolicy Ignore: kube-apiserver only annotates the audit event.
                Err(HookError::Calling(_)) if hook.ignore_failures => {}
                Err(HookError::Calling(reason)) => return Err(calling_error(&hook.name, &reason)),
                Err(HookError::Reject(e)) => return Err(e),
            }
        }
    }
    Ok(warnings)
}

/// Calls one webhook and applies its patch: whether the object changed.
async fn call_one(
    hook: &Hook,
    shared: &Backend<'_>,
    attrs: &mut Attributes,
    invocation: &Invocation,
    warnings: &mut Vec<String>,
) -> Result<bool, HookError> {
    let converted = if invocation.converts(attrs) {
        Some(
            convert_to(shared, attrs, invocation)
                .await
                .map_err(HookError::Reject)?,
        )
    } else {
        None
    };
    let sent = converted.as_ref().unwrap_or(attrs);
    let answer = call::call(hook, sent, invocation, true).await?;
    warnings.extend(answer.warnings);
    if !answer.allowed {
        return Err(HookError::Reject(denial(
            &hook.name,
            answer.status.as_ref(),
        )));
    }
    let Some(bytes) = answer.patch else {
        return Ok(false);
    };
    let patch: json_patch::Patch = serde_json::from_slice(&bytes).map_err(|e| {
        HookError::Calling(format!(
            "received undecodable patch in webhook response: {e}"
        ))
    })?;
    if patch.0.is_empty() {
        return Ok(false);
    }
    let Some(before) = sent.object.as_ref().filter(|o| !o.is_null()) else {
        return Err(HookError::Reject(internal(format!(
            "admission webhook \"{}\" attempted to modify the object, which is not supported for this operation",
            hook.name
        ))));
    };
    match answer.patch_type.as_deref() {
        Some("JSONPatch") => {}
        other => {
            return Err(HookError::Calling(format!(
                "unsupported patch type {:?}",
                other.unwrap_or("")
            )));
        }
    }
    let mut patched = before.clone();
    apply_as_go(&mut patched, patch).map_err(|e| HookError::Reject(internal(e.to_string())))?;
    if patched == *before {
        return Ok(false);
    }
    attrs.object = if converted.is_some() {
        convert_one(shared.res, Some(patched))
            .await
            .map_err(HookError::Reject)?
    } else {
        Some(patched)
    };
    Ok(true)
}

/// A JSON patch applied as the Go library kube-apiserver uses applies it: a `test`
/// of `null` passes where the path is missing; a failure leaves nothing applied.
fn apply_as_go(doc: &mut Value, patch: json_patch::Patch) -> Result<(), json_patch::PatchError> {
    let mut work = doc.clone();
    for op in patch.0 {
        if let json_patch::PatchOperation::Test(test) = &op
            && test.value.is_null()
            && work.pointer(test.path.as_str()).is_none()
        {
            continue;
        }
        json_patch::patch(&mut work, &[op])?;
    }
    *doc = work;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patches_apply_whole_or_not_at_all() {
        let mut doc = json!({"metadata": {"name": "a"}});
        let patch: json_patch::Patch = serde_json::from_value(json!([
            {"op": "test", "path": "/metadata/labels", "value": null},
            {"op": "add", "path": "/metadata/labels", "value": {"x": "1"}}
        ]))
        .unwrap();
        apply_as_go(&mut doc, patch).unwrap();
        assert_eq!(doc["metadata"]["labels"], json!({"x": "1"}));
        let bad: json_patch::Patch = serde_json::from_value(json!([
            {"op": "add", "path": "/metadata/annotations", "value": {}},
            {"op": "remove", "path": "/nothing/here"}
        ]))
        .unwrap();
        let before = doc.clone();
        assert!(apply_as_go(&mut doc, bad).is_err());
        assert_eq!(doc, before);
    }
}
