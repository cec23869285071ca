//! `allOf`, `anyOf`, `oneOf`, `not` (kube-openapi's schema-props validator).
//!
//! For a failing `anyOf`/`oneOf`, only the errors of the alternative with the
//! highest match count (the first among equals) are reported, next to the
//! composite message.

use serde_json::Value;

use super::SchemaValidator;
use crate::engine::compiled::Node;
use crate::engine::path::PathRef;
use crate::field::FieldError;
use crate::go::quote as go_quote;

impl SchemaValidator<'_> {
    /// Returns the match count contributed by the junctors, including the
    /// validator's own increment.
    pub(super) fn junctors(
        &mut self,
        n: &Node,
        v: &Value,
        old: Option<&Value>,
        path: &PathRef<'_>,
    ) -> u32 {
        if !n.has_junctors() {
            return 1;
        }
        let name = || go_quote(&path.openapi_name());
        let mut count = 0;

        if !n.any_of.is_empty() {
            let mut best = None;
            let mut success = None;
            for &alt in &n.any_of {
                let (errs, c) = self.isolated(|s| s.validate(v, old, alt, path));
                if errs.is_empty() {
                    best = None;
                    success = Some(c);
                    break;
                }
                keep_best(&mut best, errs, c);
            }
            count += match success {
                Some(c) => c,
                None => {
                    self.plain(format!(
                        "{} must validate at least one schema (anyOf)",
                        name()
                    ));
                    self.report_best(best)
                }
            };
        }

        if !n.one_of.is_empty() {
            let mut best = None;
            let mut first_success = None;
            let mut validated = 0;
            for &alt in &n.one_of {
                let (errs, c) = self.isolated(|s| s.validate(v, old, alt, path));
                if errs.is_empty() {
                    validated += 1;
                    best = None;
                    first_success.get_or_insert(c);
                    continue;
                }
                if validated == 0 {
                    keep_best(&mut best, errs, c);
                }
            }
            if validated != 1 {
                let extra = if validated == 0 {
                    "Found none valid".to_string()
                } else {
                    format!("Found {validated} valid alternatives")
                };
                self.plain(format!(
                    "{} must validate one and only one schema (oneOf). {extra}",
                    name()
                ));
                count += self.report_best(best);
            } else if let Some(c) = first_success {
                count += c;
            }
        }

        if !n.all_of.is_empty() {
            let mut validated = 0;
            for &alt in &n.all_of {
                let (errs, c) = self.isolated(|s| s.validate(v, old, alt, path));
                if errs.is_empty() {
                    validated += 1;
                }
                self.errors.extend(errs);
                count += c;
            }
            if validated != n.all_of.len() {
                let extra = if validated == 0 {
                    ". None validated"
                } else {
                    ""
                };
                self.plain(format!(
                    "{} must validate all the schemas (allOf){extra}",
                    name()
                ));
            }
        }

        if let Some(not) = n.not {
            let (errs, _) = self.isolated(|s| s.validate(v, old, not, path));
            if errs.is_empty() {
                self.plain(format!("{} must not validate the schema (not)", name()));
            }
        }
        count + 1
    }

    /// Reports the errors of the best failing alternative (none when one
    /// succeeded); returns its match count.
    fn report_best(&mut self, best: Option<(Vec<FieldError>, u32)>) -> u32 {
        let Some((errs, c)) = best else {
            return 0;
        };
        self.errors.extend(errs);
        c
    }
}

/// Keeps the failing alternative with the highest match count, the first among
/// equals.
fn keep_best(best: &mut Option<(Vec<FieldError>, u32)>, errs: Vec<FieldError>, c: u32) {
    if best.as_ref().is_none_or(|(_, bc)| c > *bc) {
        *best = Some((errs, c));
    }
}
