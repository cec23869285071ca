//! The ValidatingAdmissionWebhook dispatcher: every matching webhook called at once;
//! the request fails with the first error in webhook order.

use std::collections::HashMap;

use crd_runtime::admission::Attributes;
use futures::future::join_all;

use super::call::{self, HookError, calling_error, denial};
use super::configurations::HookSet;
use super::matcher::{Matcher, convert_to};
use crate::api::admission::Backend;
use crate::api::status::ApiError;

/// Runs the validating webhooks of `set` on `attrs`; the warnings they sent.
pub async fn dispatch(
    set: &HookSet,
    shared: &Backend<'_>,
    attrs: &Attributes,
) -> Result<Vec<String>, ApiError> {
    let mut matcher = Matcher::new(shared);
    let mut relevant = Vec::new();
    // The request in each version a webhook is sent, converted once.
    let mut versions: HashMap<String, Attributes> = HashMap::new();
    for hook in &set.hooks {
        let Some(invocation) = matcher.should_call(hook, attrs).await? else {
            continue;
        };
        if invocation.converts(attrs) && !versions.contains_key(&invocation.resource.version) {
            let converted = convert_to(shared, attrs, &invocation).await?;
            versions.insert(invocation.resource.version.clone(), converted);
        }
        relevant.push((hook, invocation));
    }
    if relevant.is_empty() {
        return Ok(Vec::new());
    }
    let calls = relevant.iter().map(|(hook, invocation)| {
        let sent = if invocation.converts(attrs) {
            versions.get(&invocation.resource.version).unwrap_or(attrs)
        } else {
            attrs
        };
        call::call(hook, sent, invocation, false)
    });
    let results = join_all(calls).await;
    let mut warnings = Vec::new();
    let mut first_error = None;
    for ((hook, _), result) in relevant.iter().zip(results) {
        let error = match result {
            Ok(answer) => {
                warnings.extend(answer.warnings);
                if answer.allowed {
                    continue;
                }
                denial(&hook.name, answer.status.as_ref())
            }
            Err(HookError::Calling(_)) if hook.ignore_failures => continue,
            Err(HookError::Calling(reason)) => calling_error(&hook.name, &reason),
            Err(HookError::Reject(e)) => e,
        };
        first_error.get_or_insert(error);
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(warnings),
    }
}
