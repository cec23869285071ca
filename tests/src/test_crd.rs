//! The test CRD: one version `v1`, served and stored, of a namespaced kind, around the
//! `openAPIV3Schema` a test needs. Tests of every package wrap their schemas in it
//! instead of pasting the CRD; packages other than this one include this file with
//! `#[path = ".../tests/src/test_crd.rs"] mod test_crd;` (it uses no dependency).
// Each including test uses part of it.
#![allow(dead_code)]

/// A one-version CRD of `kind` in `group`: named `<plural>.<group>`, plural the
/// lower-cased kind plus `s`, singular the lower-cased kind, `listKind` `<kind>List`.
pub struct TestCrd<'a> {
    group: &'a str,
    kind: &'a str,
    version_fields: Vec<&'a str>,
}

impl<'a> TestCrd<'a> {
    /// The CRD of `kind` in `group`.
    pub fn new(group: &'a str, kind: &'a str) -> Self {
        TestCrd {
            group,
            kind,
            version_fields: Vec::new(),
        }
    }

    /// Adds a field to the version, as one line of YAML
    /// (`selectableFields: [{jsonPath: .spec.color}]`); [`TestCrd::yaml`] only.
    pub fn version_field(mut self, yaml: &'a str) -> Self {
        self.version_fields.push(yaml);
        self
    }

    /// The plural resource name.
    pub fn plural(&self) -> String {
        format!("{}s", self.kind.to_lowercase())
    }

    /// `<plural>.<group>`.
    pub fn name(&self) -> String {
        format!("{}.{}", self.plural(), self.group)
    }

    /// The CRD as YAML. `schema` is the `openAPIV3Schema` in YAML: a flow mapping on
    /// one line (`{type: object}`, JSON too), or a block, whose lines are moved to
    /// their place keeping their indentation relative to each other. The schema
    /// starts on line 14.
    pub fn yaml(&self, schema: &str) -> String {
        let kind = self.kind;
        let singular = kind.to_lowercase();
        let mut out = format!(
            "apiVersion: apiextensions.k8s.io/v1\n\
             kind: CustomResourceDefinition\n\
             metadata: {{name: {name}}}\n\
             spec:\n  \
               group: {group}\n  \
               scope: Namespaced\n  \
               names: {{plural: {plural}, singular: {singular}, kind: {kind}, listKind: {kind}List}}\n  \
               versions:\n  \
               - name: v1\n    \
                 served: true\n    \
                 storage: true\n",
            name = self.name(),
            group = self.group,
            plural = self.plural(),
        );
        for field in &self.version_fields {
            out.push_str("    ");
            out.push_str(field);
            out.push('\n');
        }
        out.push_str("    schema:\n      openAPIV3Schema:\n");
        indent_block(schema, 8, &mut out);
        out
    }

    /// The CRD as JSON text; `schema` is the `openAPIV3Schema` as JSON text, spliced in
    /// as it is (so it may be deeper than a JSON parser would read).
    pub fn json(&self, schema: &str) -> String {
        assert!(
            self.version_fields.is_empty(),
            "version fields are YAML lines: use TestCrd::yaml"
        );
        let kind = self.kind;
        format!(
            r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{{"name":"{name}"}},"spec":{{"group":"{group}","scope":"Namespaced","names":{{"plural":"{plural}","singular":"{singular}","kind":"{kind}","listKind":"{kind}List"}},"versions":[{{"name":"v1","served":true,"storage":true,"schema":{{"openAPIV3Schema":{schema}}}}}]}}}}"#,
            name = self.name(),
            group = self.group,
            plural = self.plural(),
            singular = kind.to_lowercase(),
        )
    }
}

/// [`TestCrd::yaml`] of `kind` in `group`.
pub fn crd_yaml(group: &str, kind: &str, schema: &str) -> String {
    TestCrd::new(group, kind).yaml(schema)
}

/// Appends `text`'s lines to `out`, the least indented at `indent` spaces; blank lines
/// at the start and end are dropped.
fn indent_block(text: &str, indent: usize, out: &mut String) {
    let text = text.trim_start_matches(['\n', '\r']).trim_end();
    let common = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    let pad = " ".repeat(indent);
    for line in text.lines() {
        if !line.trim().is_empty() {
            out.push_str(&pad);
            out.push_str(&line[common..]);
        }
        out.push('\n');
    }
}
