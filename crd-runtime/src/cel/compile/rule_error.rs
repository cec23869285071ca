//! What can be wrong with one `x-kubernetes-validations` rule when it is compiled.

use crate::field::{BadValue, ErrorType, FieldError, Path};

/// The `reason`s a rule may give (`FieldValueErrorReason`).
pub const SUPPORTED_REASONS: [&str; 4] = [
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

pub(in crate::cel) const FIELD_PATH_INVALID: &str = "fieldPath must be a valid path";

/// Which field of a `ValidationRule` a compile problem is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleField {
    /// `rule`
    Rule,
    /// `message`
    Message,
    /// `messageExpression`
    MessageExpression,
    /// `reason`
    Reason,
    /// `fieldPath`
    FieldPath,
    /// `optionalOldSelf`
    OptionalOldSelf,
}

impl RuleField {
    /// The JSON name of the field.
    pub fn json_name(self) -> &'static str {
        match self {
            RuleField::Rule => "rule",
            RuleField::Message => "message",
            RuleField::MessageExpression => "messageExpression",
            RuleField::Reason => "reason",
            RuleField::FieldPath => "fieldPath",
            RuleField::OptionalOldSelf => "optionalOldSelf",
        }
    }
}

/// A problem with one rule, found when compiling it.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleError {
    /// Index of the rule in `x-kubernetes-validations`.
    pub index: usize,
    /// The field of the rule at fault.
    pub field: RuleField,
    /// `Required`, `Invalid` or `NotSupported`, as the API server reports it.
    pub type_: ErrorType,
    /// The offending value as the API server prints it.
    pub bad_value: BadValue,
    /// What is wrong (`compilation failed: ERROR: <input>:1:6: undefined field 'x'`).
    pub detail: String,
}

impl RuleError {
    /// Whether the problem comes from compiling the rule (syntax, types, fields,
    /// `fieldPath` resolution, `oldSelf` use) rather than from the shape of the
    /// `ValidationRule` (empty or multi-line fields, unknown reason), which a CRD
    /// checker reports without CEL.
    pub fn from_compiler(&self) -> bool {
        match self.field {
            RuleField::Rule | RuleField::MessageExpression => self.type_ == ErrorType::Invalid,
            RuleField::FieldPath => self.detail == FIELD_PATH_INVALID,
            RuleField::OptionalOldSelf => true,
            RuleField::Message | RuleField::Reason => false,
        }
    }

    /// The error at `x-kubernetes-validations[i].<field>` below `node_path`
    /// (e.g. `spec.versions[0].schema.openAPIV3Schema.properties[spec]`).
    pub fn to_field_error(&self, node_path: &Path) -> FieldError {
        let path = node_path
            .child("x-kubernetes-validations")
            .index(self.index)
            .child(self.field.json_name());
        FieldError::new(
            self.type_,
            path,
            self.bad_value.clone(),
            self.detail.clone(),
        )
    }
}
