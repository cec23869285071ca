//! The rules [`super::diff`] applies: name (as written in policy files), class, and
//! why the class holds.

use std::fmt;

/// How a change affects existing objects and clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Stored objects can fail validation or lose data, or clients stop working.
    Breaking,
    /// Everything that worked keeps working (a loosened bound, a new optional field).
    Compatible,
    /// Worth a look, but neither (a printer column, a description, an API-style lint).
    Informational,
}

impl Class {
    /// `breaking`, `compatible` or `informational`.
    pub fn name(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::Compatible => "compatible",
            Class::Informational => "informational",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

macro_rules! rules {
    ($($variant:ident $name:literal $class:ident $why:literal;)*) => {
        /// A kind of change. Its [`name`](Rule::name) is what policy files and output use.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $(#[doc = $why] $variant,)*
        }

        impl Rule {
            /// Every rule, in documentation order.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The kebab-case name (`field-removed`).
            pub fn name(self) -> &'static str {
                match self { $(Rule::$variant => $name,)* }
            }

            /// The class of every change this rule reports.
            pub fn class(self) -> Class {
                match self { $(Rule::$variant => Class::$class,)* }
            }

            /// Why changes of this kind have their class.
            pub fn why(self) -> &'static str {
                match self { $(Rule::$variant => $why,)* }
            }

            /// The rule called `name`.
            pub fn from_name(name: &str) -> Option<Rule> {
                Rule::ALL.iter().copied().find(|r| r.name() == name)
            }
        }
    };
}

rules! {
    // The CRD as a whole.
    CrdRemoved "crd-removed" Breaking "Deleting a CRD deletes every object of it.";
    CrdAdded "crd-added" Compatible "A new CRD affects no existing object.";
    CrdInvalid "crd-invalid" Breaking "The API server refuses to apply the new CRD (structural rules, CEL compilation, cost budget).";
    ScopeChanged "scope-changed" Breaking "Objects move between cluster and namespace scope: every path and client changes.";
    GroupChanged "group-changed" Breaking "A new group is a new API: clients of the old one find nothing.";
    NamesChanged "names-changed" Breaking "A new kind, plural, singular or list kind breaks clients, manifests and RBAC rules that name the old one.";
    ShortNameRemoved "short-name-removed" Breaking "Scripts using `kubectl get SHORT` stop working.";
    ShortNameAdded "short-name-added" Compatible "A new short name only adds a way to call the resource.";
    CategoryRemoved "category-removed" Breaking "`kubectl get CATEGORY` no longer lists the resource.";
    CategoryAdded "category-added" Compatible "A new category only adds the resource to a `kubectl get CATEGORY`.";
    ConversionChanged "conversion-changed" Informational "A new conversion strategy or webhook changes how objects are converted between versions.";
    // Versions.
    VersionRemoved "version-removed" Breaking "Clients of the version get 404; objects stored in it can no longer be read.";
    StoredVersionRemoved "stored-version-removed" Breaking "status.storedVersions lists it: the API server refuses the update until the objects are migrated.";
    VersionUnserved "version-unserved" Breaking "Clients of the version get 404.";
    VersionServed "version-served" Compatible "A version served again adds an endpoint.";
    VersionAdded "version-added" Compatible "A new version adds an endpoint.";
    StorageVersionChanged "storage-version-changed" Informational "New writes are stored in another version; old objects stay as they are until rewritten.";
    StorageVersionUnserved "storage-version-unserved" Breaking "The old storage version is no longer served, so objects stored in it cannot be read back until migrated.";
    VersionDeprecated "version-deprecated" Informational "Clients of the version now get a deprecation warning.";
    SubresourceRemoved "subresource-removed" Breaking "Clients and controllers of /status or /scale get 404; for /status, status becomes writable through the main resource.";
    StatusSubresourceAdded "status-subresource-added" Breaking "Status changes sent through the main resource are now silently dropped; clients must use /status.";
    ScaleSubresourceAdded "scale-subresource-added" Compatible "A /scale endpoint is added.";
    ScalePathsChanged "scale-paths-changed" Breaking "The scale subresource reads and writes other fields: autoscalers act on the wrong ones.";
    PrinterColumnsChanged "printer-columns-changed" Informational "`kubectl get` shows other columns; scripts parsing its output may change.";
    SelectableFieldRemoved "selectable-field-removed" Breaking "Field selectors on it are now refused.";
    SelectableFieldAdded "selectable-field-added" Compatible "A new field selector adds a way to list.";
    // Fields of a version's schema.
    FieldRemoved "field-removed" Breaking "The field is pruned from every object on its next write; clients reading it get nothing.";
    FieldAdded "field-added" Compatible "A new optional field is absent from existing objects, which stay valid.";
    TypeChanged "type-changed" Breaking "Stored values of the old type fail validation; typed clients fail to decode.";
    FormatChanged "format-changed" Breaking "Stored values may not match the new format; typed clients change type.";
    FormatRemoved "format-removed" Compatible "Values are no longer checked against the format.";
    RequiredAdded "required-added" Breaking "Existing objects without the field fail validation on their next update; clients must now send it.";
    RequiredRemoved "required-removed" Compatible "Objects may now leave the field out.";
    EnumAdded "enum-added" Breaking "A free field is now limited to a list: stored values outside it fail validation.";
    EnumValueRemoved "enum-value-removed" Breaking "Stored objects with the removed value fail validation on their next update.";
    EnumValueAdded "enum-value-added" Compatible "Existing values stay valid; clients that switch over the values may meet a new one (crdify's additionPolicy: set this rule to error to forbid).";
    EnumRemoved "enum-removed" Compatible "Any value is now accepted.";
    MaximumTightened "maximum-tightened" Breaking "Stored values above the new maximum fail validation on their next update.";
    MaximumLoosened "maximum-loosened" Compatible "Every value valid before stays valid.";
    MinimumTightened "minimum-tightened" Breaking "Stored values below the new minimum fail validation on their next update.";
    MinimumLoosened "minimum-loosened" Compatible "Every value valid before stays valid.";
    MaxLengthTightened "max-length-tightened" Breaking "Stored strings longer than the new maxLength fail validation.";
    MaxLengthLoosened "max-length-loosened" Compatible "Every value valid before stays valid (CEL cost estimates grow).";
    MinLengthTightened "min-length-tightened" Breaking "Stored strings shorter than the new minLength fail validation.";
    MinLengthLoosened "min-length-loosened" Compatible "Every value valid before stays valid.";
    MaxItemsTightened "max-items-tightened" Breaking "Stored lists longer than the new maxItems fail validation.";
    MaxItemsLoosened "max-items-loosened" Compatible "Every value valid before stays valid (CEL cost estimates grow).";
    MinItemsTightened "min-items-tightened" Breaking "Stored lists shorter than the new minItems fail validation.";
    MinItemsLoosened "min-items-loosened" Compatible "Every value valid before stays valid.";
    MaxPropertiesTightened "max-properties-tightened" Breaking "Stored maps with more entries fail validation.";
    MaxPropertiesLoosened "max-properties-loosened" Compatible "Every value valid before stays valid (CEL cost estimates grow).";
    MinPropertiesTightened "min-properties-tightened" Breaking "Stored maps with fewer entries fail validation.";
    MinPropertiesLoosened "min-properties-loosened" Compatible "Every value valid before stays valid.";
    MultipleOfChanged "multiple-of-changed" Breaking "Stored numbers may not be multiples of the new multipleOf.";
    MultipleOfLoosened "multiple-of-loosened" Compatible "multipleOf is gone or divides the old one: every value valid before stays valid.";
    UniqueItemsAdded "unique-items-added" Breaking "Stored lists with duplicates fail validation.";
    UniqueItemsRemoved "unique-items-removed" Compatible "Duplicates are now accepted.";
    PatternChanged "pattern-changed" Breaking "Stored strings may not match the new pattern.";
    PatternRemoved "pattern-removed" Compatible "Any string is now accepted.";
    DefaultAdded "default-added" Breaking "Objects without the field get the default when read and written: behaviour changes for them.";
    DefaultChanged "default-changed" Breaking "Objects relying on the old default get the new one on their next write.";
    DefaultRemoved "default-removed" Breaking "New objects no longer get the value; controllers must handle its absence.";
    ValidationRuleAdded "validation-rule-added" Breaking "Stored objects that fail the new CEL rule are refused on their next update (unless ratcheting lets unchanged values through).";
    ValidationRuleChanged "validation-rule-changed" Breaking "Stored objects may fail the changed CEL rule on their next update.";
    ValidationRuleRemoved "validation-rule-removed" Compatible "Objects are checked by fewer rules.";
    ValidationMessageChanged "validation-message-changed" Informational "The same rule reports failures in other words.";
    NullableRemoved "nullable-removed" Breaking "Explicit nulls now fail validation (or are pruned); clients sending null are refused.";
    NullableAdded "nullable-added" Informational "Clients may now read null where there was always a value.";
    PreserveUnknownFieldsRemoved "preserve-unknown-fields-removed" Breaking "Fields the schema does not name are pruned from objects on their next write: data is lost.";
    PreserveUnknownFieldsAdded "preserve-unknown-fields-added" Compatible "Unknown fields are now kept instead of pruned.";
    IntOrStringRemoved "int-or-string-removed" Breaking "Values of the other type fail validation.";
    IntOrStringAdded "int-or-string-added" Informational "Values may now be integers or strings: typed clients must accept both.";
    EmbeddedResourceChanged "embedded-resource-changed" Breaking "apiVersion/kind/metadata of the embedded object are now checked, or no longer kept.";
    ListTypeChanged "list-type-changed" Breaking "Server-side apply merges the list differently; a set or map list also refuses duplicates.";
    ListMapKeysChanged "list-map-keys-changed" Breaking "Server-side apply identifies items by other keys; stored lists may now have duplicate keys.";
    MapTypeChanged "map-type-changed" Breaking "Server-side apply merges the object differently.";
    CompositionAdded "composition-added" Breaking "A new allOf/anyOf/oneOf/not constrains values that were valid.";
    CompositionChanged "composition-changed" Breaking "A changed allOf/anyOf/oneOf/not may refuse values that were valid.";
    CompositionRemoved "composition-removed" Compatible "Fewer constraints apply.";
    DescriptionChanged "description-changed" Informational "Only documentation (kubectl explain) changes.";
    // Served versions of one revision compared with each other (crdify's served-version validator).
    ServedVersionFieldRemoved "served-version-field-removed" Breaking "A field of an older served version is missing from a newer one: objects written through the newer version lose it (pruned).";
    ServedVersionTypeChanged "served-version-type-changed" Breaking "A field has another type in a newer served version: values written through one version are invalid in the other, typed clients fail to decode.";
    ServedVersionRequiredAdded "served-version-required-added" Breaking "A newer served version requires a field an older one does not: clients moving to it must send it.";
    ServedVersionTightened "served-version-tightened" Breaking "A value constraint (enum, bounds, pattern, format, CEL rule) is tighter in a newer served version; validation ratcheting lets unchanged stored values through, so only new or changed values are refused (warn by default).";
    ServedVersionIncompatible "served-version-incompatible" Breaking "Another breaking difference between served versions that ratcheting does not cover (defaults, list or map type, pruning, nullable, embedded resource, a transition rule).";
    // API-style checks on new fields (openshift crd-schema-checker).
    NewBoolField "new-bool-field" Informational "A boolean cannot grow a third state later; an enum can (crd-schema-checker NoBools).";
    NewFloatField "new-float-field" Informational "Floats do not round-trip exactly across languages (crd-schema-checker NoFloats).";
    NewMapField "new-map-field" Informational "Maps of free keys are hard to evolve and to merge (crd-schema-checker NoMaps).";
    NewUintField "new-uint-field" Informational "Unsigned integers do not exist in every client language (crd-schema-checker NoUints).";
    NewListWithoutListType "new-list-without-list-type" Informational "Without x-kubernetes-list-type, server-side apply replaces the whole list (crd-schema-checker ListsMustHaveSSATags).";
    ConditionsWithoutMapListType "conditions-without-map-list-type" Informational "A conditions list should be a map list keyed by type, so controllers can apply their own conditions (crd-schema-checker ConditionsMustHaveProperSSATags).";
    StatusMissing "status-missing" Informational "A new version without a status field or /status subresource (crd-schema-checker MustHaveStatus).";
}

impl Rule {
    /// Whether the rule compares served versions of one revision (`served-version-*`).
    pub fn is_served_version(self) -> bool {
        matches!(
            self,
            Rule::ServedVersionFieldRemoved
                | Rule::ServedVersionTypeChanged
                | Rule::ServedVersionRequiredAdded
                | Rule::ServedVersionTightened
                | Rule::ServedVersionIncompatible
        )
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case_and_round_trip() {
        let mut seen = std::collections::BTreeSet::new();
        for rule in Rule::ALL {
            assert!(seen.insert(rule.name()), "{} twice", rule.name());
            assert!(
                rule.name()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-')
            );
            assert_eq!(Rule::from_name(rule.name()), Some(*rule));
            assert!(rule.why().ends_with('.'), "{}", rule.name());
        }
        assert_eq!(Rule::from_name("no-such-rule"), None);
    }
}
