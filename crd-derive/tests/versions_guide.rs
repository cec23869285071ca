//! The code of docs/versions.md: every ```rust block of the guide is a piece of this file
//! (checked below), so the guide's examples compile and run here.

use crd_runtime::CustomResourceExt;
use serde_json::json;

#[crd_runtime::versioned(
    version(
        name = "v1alpha1",
        deprecated = "backup.example.com/v1alpha1 is deprecated; use v1"
    ),
    version(name = "v1beta1"),
    version(name = "v1")
)]
pub mod backup {
    use crd_runtime::CrdSchema;
    use serde::{Deserialize, Serialize};

    fn seven() -> i32 {
        7
    }

    /// A scheduled backup.
    #[derive(Serialize, Deserialize, Clone, Debug)]
    #[crd(group = "backup.example.com", kind = "Backup", namespaced, status = BackupStatus,
          printcolumn(name = "Target", type = "string", json_path = ".spec.target"))]
    #[serde(rename_all = "camelCase")]
    pub struct BackupSpec {
        /// When to run (`cron` in v1alpha1).
        #[versioned(changed(since = "v1beta1", from_name = "cron"))]
        pub schedule: String,
        /// How many backups to keep (since v1beta1).
        #[versioned(added(since = "v1beta1", default = "seven"))]
        pub keep: i32,
        /// Seconds before a run is cancelled: a `u16` before v1.
        #[versioned(changed(since = "v1", from_type = "u16"))]
        pub timeout: u32,
        /// Compress the archive (deprecated in v1, which always compresses).
        #[versioned(deprecated(since = "v1", note = "v1 always compresses"))]
        #[serde(default)]
        pub deprecated_compress: bool,
        /// Gone in v1.
        #[versioned(removed(since = "v1"))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub legacy_path: Option<String>,
        /// Where backups go.
        pub target: Target,
    }

    /// Where backups go.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default)]
    #[serde(rename_all = "camelCase")]
    pub enum Target {
        #[default]
        Disk,
        #[versioned(added(since = "v1"))]
        Bucket,
    }

    /// Observed state.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default)]
    pub struct BackupStatus {
        pub last: Option<String>,
    }
}

#[test]
fn types_per_version() {
    let old = backup::v1alpha1::BackupSpec {
        cron: "0 3 * * *".into(),
        timeout: 600,
        compress: true,
        legacy_path: None,
        target: backup::v1alpha1::Target::Disk,
    };
    let new: backup::v1::Backup = backup::v1alpha1::Backup::new("nightly", old).into();
    assert_eq!(new.spec.keep, 7);
    assert!(new.spec.deprecated_compress);
}

#[test]
fn the_crd() -> Result<(), Box<dyn std::error::Error>> {
    use crd_runtime::model::WebhookClientConfig;

    let crd = backup::crd_with_webhook(WebhookClientConfig {
        url: Some("https://backup-webhook.example.com/convert".into()),
        ..Default::default()
    })?;
    crd_runtime::assert_valid_crd(&crd);
    println!("{}", crd_runtime::to_yaml(&crd)?);
    assert!(backup::crd().is_err()); // the schemas differ: strategy None would lose fields
    Ok(())
}

#[test]
fn converting() -> Result<(), Box<dyn std::error::Error>> {
    let converter = backup::converter();
    let v1 = json!({
        "apiVersion": "backup.example.com/v1", "kind": "Backup",
        "metadata": {"name": "nightly", "namespace": "default"},
        "spec": {"schedule": "0 3 * * *", "keep": 30, "timeout": 100000,
                 "deprecatedCompress": true, "target": "bucket"}
    });
    let old = converter.convert(&v1, "backup.example.com/v1alpha1")?;
    assert_eq!(
        old["spec"],
        json!({"cron": "0 3 * * *", "timeout": 0, "compress": true, "target": "disk"})
    );
    assert_eq!(
        old["metadata"]["annotations"],
        json!({
            "backup.example.com/conversion.v1": r#"{"/spec/target":"bucket","/spec/timeout":100000}"#,
            "backup.example.com/conversion.v1beta1": r#"{"/spec/keep":30}"#
        })
    );
    assert_eq!(converter.convert(&old, "backup.example.com/v1")?, v1);
    backup::check_round_trip(&v1)?;
    Ok(())
}

#[test]
fn the_version_modules_are_derived_types() {
    assert_eq!(
        backup::v1beta1::Backup::API_VERSION,
        "backup.example.com/v1beta1"
    );
    assert_eq!(backup::STORAGE_VERSION, "v1");
}

/// Each ```rust block of the guide, with its lines trimmed, is a run of lines of this file.
#[test]
fn the_guide_shows_this_files_code() {
    let guide = include_str!("../../docs/versions.md");
    let this: Vec<&str> = include_str!("versions_guide.rs")
        .lines()
        .map(str::trim)
        .collect();
    let mut blocks = 0;
    let mut lines = guide.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "```rust" {
            continue;
        }
        let block: Vec<&str> = lines
            .by_ref()
            .take_while(|l| l.trim() != "```")
            .map(str::trim)
            .collect();
        blocks += 1;
        assert!(
            this.windows(block.len()).any(|w| w == block.as_slice()),
            "docs/versions.md shows code this file does not have:\n{}",
            block.join("\n")
        );
    }
    assert!(blocks >= 3, "{blocks} rust blocks");
}
