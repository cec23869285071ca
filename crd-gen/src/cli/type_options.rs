//! The options that shape the generated types, shared by `generate` and `roundtrip`
//! (a round trip checks the code `generate` writes with the same options).

use clap::{Args, ValueEnum};
use crd_gen::Config;
use crd_gen::codegen::MapType;

/// How the generated types look.
#[derive(Args, Debug)]
pub struct TypeOptions {
    /// Extra derives for every generated type, e.g. `--derive Default,Eq`. The std
    /// derives `Eq`, `Hash`, `PartialOrd`, `Ord`, `Default` and `Copy` go only on
    /// types whose fields allow them (no `Eq` over `f64`, only `Default` on roots).
    #[arg(long = "derive", value_delimiter = ',')]
    derives: Vec<String>,
    /// Map type for `additionalProperties`.
    #[arg(long, value_enum, default_value_t = MapArg::Btree)]
    map_type: MapArg,
    /// Write descriptions as `description = "..."` keywords instead of doc comments.
    #[arg(long)]
    no_docs: bool,
    /// Use k8s-openapi types (`Condition`, `LabelSelector`, `ResourceRequirements`,
    /// `PodTemplateSpec`, ...) where a schema node is one; the code then needs
    /// crd-runtime's `kube` feature and k8s-openapi with the matching `v1_*` feature.
    #[arg(long)]
    k8s_types: bool,
    /// The Kubernetes version whose k8s-openapi types `--k8s-types` matches (default:
    /// the newest supported).
    #[arg(long, value_name = "VERSION", requires = "k8s_types")]
    k8s_version: Option<String>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum MapArg {
    Btree,
    Hash,
}

impl TypeOptions {
    /// Sets these options on `config`; an error for an unsupported `--k8s-version`.
    pub fn apply(&self, config: &mut Config) -> Result<(), crd_gen::Error> {
        config.k8s_types(self.k8s_types);
        if let Some(version) = &self.k8s_version {
            config.k8s_version(version)?;
        }
        config
            .derives(&self.derives)
            .map_type(match self.map_type {
                MapArg::Btree => MapType::BTreeMap,
                MapArg::Hash => MapType::HashMap,
            })
            .docs(!self.no_docs);
        Ok(())
    }
}
