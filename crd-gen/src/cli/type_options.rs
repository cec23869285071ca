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
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum MapArg {
    Btree,
    Hash,
}

impl TypeOptions {
    /// Sets these options on `config`.
    pub fn apply(&self, config: &mut Config) {
        config
            .derives(&self.derives)
            .map_type(match self.map_type {
                MapArg::Btree => MapType::BTreeMap,
                MapArg::Hash => MapType::HashMap,
            })
            .docs(!self.no_docs);
    }
}
