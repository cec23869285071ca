//! Which function libraries each Kubernetes release's CEL environment declares
//! (`k8s.io/apiserver/pkg/cel/environment/base.go`), and the docs table made
//! from it.
//!
//! Most libraries are gated by the *compatibility version* of the environment
//! (`IntroducedVersion`/`RemovedVersion` in base.go): a 1.N server compiles new
//! expressions at 1.(N-1) and stored ones at 1.N (see
//! [`CelEnvironment`](super::CelEnvironment)). A few functions come with the
//! cel-go version the server binary vendors instead (unversioned
//! `cel.OptionalTypes()`): those follow the server release for both kinds of
//! expression.

use crate::cel::environment::CelEnvironment;

/// What decides whether a library is present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    /// base.go's `IntroducedVersion` (and `RemovedVersion`): the compatibility
    /// version of the environment.
    Compat { since: u32, removed: Option<u32> },
    /// The server binary's cel-go: every expression of a server of at least
    /// this release has it.
    Server(u32),
}

/// Where a library's functions can be called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Host {
    /// Every Kubernetes CEL expression.
    All,
    /// Only where the host declares the library's receiver (`authorizer`:
    /// admission policies and match conditions).
    Admission,
    /// Only in MutatingAdmissionPolicy expressions (`HasPatchTypes`).
    MutatingPolicy,
}

/// One library (at one version) of the base environment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Library {
    /// The Go constructor, as base.go calls it (the docs table's).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) name: &'static str,
    pub(crate) gate: Gate,
    pub(crate) host: Host,
    /// Functions and methods (namespaced ones as `ns.fn`).
    pub(crate) functions: &'static [&'static str],
    /// Macros the library adds (expanded by the parser; the docs table's).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) macros: &'static [&'static str],
}

const fn compat(since: u32) -> Gate {
    Gate::Compat {
        since,
        removed: None,
    }
}

const K8S_LISTS: &[&str] = &["isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"];
/// `ext.Strings(v2)`: v0's functions, then `format` and `strings.quote`.
const STRINGS_V2: &[&str] = &[
    "charAt",
    "indexOf",
    "lastIndexOf",
    "join",
    "lowerAscii",
    "replace",
    "split",
    "substring",
    "trim",
    "upperAscii",
    "format",
    "strings.quote",
];
/// `ext.Strings(v0)`.
const STRINGS_V0: &[&str] = STRINGS_V2.split_at(STRINGS_V2.len() - 2).0;

/// `library.Authz`: the builders of a check (`path` … `name`), then `check` and the
/// decision's methods.
const AUTHZ: &[&str] = &[
    "path",
    "group",
    "serviceAccount",
    "resource",
    "subresource",
    "namespace",
    "name",
    "check",
    "allowed",
    "errored",
    "error",
    "reason",
];

/// `library.AuthzSelectors`: the selectors of a resource check.
const AUTHZ_SELECTORS: &[&str] = &["fieldSelector", "labelSelector"];

/// The functions of the authorizer library that build a check (`path`, `group`, …,
/// `fieldSelector`, `labelSelector`): each returns the check being built.
pub(crate) fn authz_builders() -> impl Iterator<Item = &'static str> {
    AUTHZ[..7].iter().chain(AUTHZ_SELECTORS).copied()
}

/// Every library of base.go, in its order, plus the ones hosts add.
pub(crate) const LIBRARIES: &[Library] = &[
    Library {
        name: "library.URLs",
        gate: compat(0),
        host: Host::All,
        functions: &[
            "url",
            "isURL",
            "getScheme",
            "getHost",
            "getHostname",
            "getPort",
            "getEscapedPath",
            "getQuery",
        ],
        macros: &[],
    },
    Library {
        name: "library.Regex",
        gate: compat(0),
        host: Host::All,
        functions: &["find", "findAll"],
        macros: &[],
    },
    Library {
        name: "library.Lists(v0)",
        gate: Gate::Compat {
            since: 0,
            removed: Some(37),
        },
        host: Host::All,
        functions: K8S_LISTS,
        macros: &[],
    },
    Library {
        name: "library.Authz",
        gate: compat(27),
        host: Host::Admission,
        functions: AUTHZ,
        macros: &[],
    },
    Library {
        name: "cel.OptionalTypes",
        gate: compat(28),
        host: Host::All,
        functions: &[
            "optional.of",
            "optional.ofNonZeroValue",
            "optional.none",
            "hasValue",
            "value",
            "or",
            "orValue",
        ],
        macros: &["optMap", "optFlatMap"],
    },
    Library {
        name: "library.Quantity",
        gate: compat(28),
        host: Host::All,
        functions: &[
            "quantity",
            "isQuantity",
            "sign",
            "isInteger",
            "asInteger",
            "asApproximateFloat",
            "add",
            "sub",
            "isGreaterThan",
            "isLessThan",
            "compareTo",
        ],
        macros: &[],
    },
    Library {
        name: "ext.Strings(v0)",
        gate: Gate::Compat {
            since: 0,
            removed: Some(29),
        },
        host: Host::All,
        functions: STRINGS_V0,
        macros: &[],
    },
    Library {
        name: "ext.Strings(v2)",
        gate: compat(29),
        host: Host::All,
        functions: STRINGS_V2,
        macros: &[],
    },
    Library {
        name: "ext.Sets",
        gate: compat(29),
        host: Host::All,
        functions: &["sets.contains", "sets.equivalent", "sets.intersects"],
        macros: &[],
    },
    Library {
        name: "library.IP",
        gate: compat(30),
        host: Host::All,
        functions: &[
            "ip",
            "isIP",
            "ip.isCanonical",
            "family",
            "isUnspecified",
            "isLoopback",
            "isLinkLocalMulticast",
            "isLinkLocalUnicast",
            "isGlobalUnicast",
        ],
        macros: &[],
    },
    Library {
        name: "library.CIDR",
        gate: compat(30),
        host: Host::All,
        functions: &[
            "cidr",
            "isCIDR",
            "containsIP",
            "containsCIDR",
            "prefixLength",
            "masked",
        ],
        macros: &[],
    },
    Library {
        name: "library.Format",
        gate: compat(31),
        host: Host::All,
        functions: &[
            "format.named",
            "format.dns1123Label",
            "format.dns1123Subdomain",
            "format.dns1035Label",
            "format.qualifiedName",
            "format.dns1123LabelPrefix",
            "format.dns1123SubdomainPrefix",
            "format.dns1035LabelPrefix",
            "format.labelValue",
            "format.uri",
            "format.uuid",
            "format.byte",
            "format.date",
            "format.datetime",
            "validate",
        ],
        macros: &[],
    },
    Library {
        name: "library.AuthzSelectors",
        gate: compat(31),
        host: Host::Admission,
        functions: AUTHZ_SELECTORS,
        macros: &[],
    },
    Library {
        name: "ext.TwoVarComprehensions",
        gate: compat(32),
        host: Host::All,
        functions: &[],
        macros: &[
            "all(i, v, p)",
            "exists(i, v, p)",
            "existsOne(i, v, p)",
            "transformList",
            "transformMap",
            "transformMapEntry",
        ],
    },
    Library {
        // cel-go v0.23 (Kubernetes 1.33) brought version 2 of the optional
        // library, which base.go enables without a version.
        name: "cel.OptionalTypes(v2)",
        gate: Gate::Server(33),
        host: Host::All,
        functions: &["first", "last"],
        macros: &[],
    },
    Library {
        name: "library.SemverLib(v1)",
        gate: compat(33),
        host: Host::All,
        functions: &[
            "semver",
            "isSemver",
            "major",
            "minor",
            "patch",
            "isGreaterThan",
            "isLessThan",
            "compareTo",
        ],
        macros: &[],
    },
    Library {
        name: "ext.Lists(v3)",
        gate: compat(34),
        host: Host::All,
        functions: &[
            "slice",
            "flatten",
            "sort",
            "lists.range",
            "reverse",
            "distinct",
        ],
        macros: &["sortBy"],
    },
    Library {
        name: "library.Lists(v1)",
        gate: compat(37),
        host: Host::All,
        functions: &[
            "isSorted",
            "sum",
            "max",
            "min",
            "indexOf",
            "lastIndexOf",
            "includes",
        ],
        macros: &[],
    },
    Library {
        name: "library.JSONPatch",
        gate: compat(0),
        host: Host::MutatingPolicy,
        functions: &["jsonpatch.escapeKey"],
        macros: &[],
    },
];

impl Library {
    /// Whether the environment `env` has this library.
    pub(crate) fn in_env(&self, env: &CelEnvironment) -> bool {
        match self.gate {
            Gate::Compat { since, removed } => {
                since <= env.libraries && removed.is_none_or(|r| env.libraries < r)
            }
            Gate::Server(since) => since <= env.release,
        }
    }
}

/// Whether library function `name` is declared in `env`: `None` when no
/// library declares it (a standard function, or unknown), `Some(true)` when a
/// library of `env` does (the host must still declare host-only libraries).
pub(crate) fn declared(name: &str, env: &CelEnvironment) -> Option<bool> {
    let mut known = false;
    for lib in LIBRARIES.iter().filter(|l| l.functions.contains(&name)) {
        if lib.in_env(env) {
            return Some(true);
        }
        known = true;
    }
    known.then_some(false)
}

/// Whether the receiver macro `name` called with `args` arguments is declared
/// in `env`: `None` for the standard macros (`all`/`exists`/`exists_one` with
/// two arguments, `map`, `filter`, `has`), which every release has. For the
/// parser's macro expansion (two-variable comprehensions, `sortBy`, `optMap`).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn macro_declared(name: &str, args: usize, env: &CelEnvironment) -> Option<bool> {
    let library = match (name, args) {
        ("all" | "exists" | "existsOne" | "exists_one", 3)
        | ("transformList" | "transformMap" | "transformMapEntry", 3 | 4) => {
            "ext.TwoVarComprehensions"
        }
        ("sortBy", 2) => "ext.Lists(v3)",
        ("optMap" | "optFlatMap", 2) => "cel.OptionalTypes",
        _ => return None,
    };
    LIBRARIES
        .iter()
        .find(|l| l.name == library)
        .map(|l| l.in_env(env))
}

/// Whether `name` needs a host declaration beyond the release (authorizer,
/// JSON patch functions) in every library that has it.
pub(crate) fn host_only(name: &str) -> bool {
    let mut libs = LIBRARIES.iter().filter(|l| l.functions.contains(&name));
    let first = libs.next();
    first.is_some_and(|l| l.host != Host::All) && libs.all(|l| l.host != Host::All)
}

/// The Markdown table of [`LIBRARIES`] for docs/cel.md.
#[cfg(test)]
pub(crate) fn docs_table() -> String {
    let mut out = String::from(
        "| Library (base.go) | Functions and macros | New expressions from | Stored expressions from | Removed at | Where |\n\
         | --- | --- | --- | --- | --- | --- |\n",
    );
    for lib in LIBRARIES {
        let mut names: Vec<String> = lib.functions.iter().map(|f| format!("`{f}`")).collect();
        names.extend(lib.macros.iter().map(|m| format!("`{m}` (macro)")));
        let release = |n: u32| {
            if n == 0 {
                "always".to_string()
            } else {
                format!("1.{n}")
            }
        };
        let (new, stored, removed) = match lib.gate {
            Gate::Compat { since, removed } => (
                release(if since == 0 { 0 } else { since + 1 }),
                release(since),
                removed.map_or("—".into(), |r| {
                    format!("1.{} (new), 1.{r} (stored)", r + 1)
                }),
            ),
            Gate::Server(n) => (release(n), release(n), "—".into()),
        };
        let host = match lib.host {
            Host::All => "all",
            Host::Admission => "admission policies (`authorizer`)",
            Host::MutatingPolicy => "MutatingAdmissionPolicy",
        };
        out.push_str(&format!(
            "| {} | {} | {new} | {stored} | {removed} | {host} |\n",
            lib.name,
            names.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::KubeVersion;

    fn kube(minor: u32) -> KubeVersion {
        KubeVersion::new(minor).unwrap()
    }

    #[test]
    fn new_expressions_lag_one_release_behind_stored_ones() {
        let new = CelEnvironment::for_kube(kube(37));
        let stored = CelEnvironment::stored_for_kube(kube(37));
        assert_eq!(declared("includes", &new), Some(false));
        assert_eq!(declared("includes", &stored), Some(true));
        // library.Lists v0 is gone from the stored 1.37 environment but v1 has
        // every function it had.
        assert_eq!(declared("isSorted", &stored), Some(true));
        assert_eq!(declared("isSorted", &new), Some(true));
        let new33 = CelEnvironment::for_kube(kube(33));
        assert_eq!(declared("semver", &new33), Some(false));
        assert_eq!(
            declared("semver", &CelEnvironment::stored_for_kube(kube(33))),
            Some(true)
        );
        assert_eq!(
            declared("semver", &CelEnvironment::for_kube(kube(34))),
            Some(true)
        );
        // cel-go's optional `first`/`last` follow the server binary.
        assert_eq!(declared("first", &new33), Some(true));
        assert_eq!(
            declared("first", &CelEnvironment::stored_for_kube(kube(32))),
            Some(false)
        );
    }

    #[test]
    fn macros_follow_their_library() {
        let new = |minor| CelEnvironment::for_kube(kube(minor));
        assert_eq!(macro_declared("all", 2, &new(30)), None);
        assert_eq!(macro_declared("all", 3, &new(32)), Some(false));
        assert_eq!(macro_declared("all", 3, &new(33)), Some(true));
        assert_eq!(macro_declared("transformMap", 4, &new(33)), Some(true));
        assert_eq!(
            macro_declared(
                "transformMap",
                3,
                &CelEnvironment::stored_for_kube(kube(32))
            ),
            Some(true)
        );
        assert_eq!(macro_declared("sortBy", 2, &new(34)), Some(false));
        assert_eq!(macro_declared("sortBy", 2, &new(35)), Some(true));
        assert_eq!(macro_declared("optMap", 2, &new(30)), Some(true));
    }

    #[test]
    fn libraries_no_release_has_are_unknown() {
        for name in ["math.abs", "base64.encode", "isIPv4", "size"] {
            assert_eq!(declared(name, &CelEnvironment::NEWEST), None, "{name}");
        }
        assert!(host_only("jsonpatch.escapeKey"));
        assert!(host_only("fieldSelector"));
        // `name` and `indexOf` are not only authorizer/list functions.
        assert!(!host_only("indexOf"));
    }

    #[test]
    fn docs_table_is_in_docs() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/cel.md");
        let table = docs_table();
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            let doc = std::fs::read_to_string(path).unwrap_or_default();
            let updated = replace_table(&doc, &table);
            std::fs::write(path, updated).unwrap();
            return;
        }
        let doc = std::fs::read_to_string(path).unwrap();
        assert!(
            doc.contains(&table),
            "docs/cel.md's library table differs from the code; rerun with UPDATE_GOLDEN=1"
        );
    }

    /// `doc` with the table between the markers replaced by `table`.
    fn replace_table(doc: &str, table: &str) -> String {
        const BEGIN: &str = "<!-- libraries:begin -->\n";
        const END: &str = "<!-- libraries:end -->";
        match (doc.find(BEGIN), doc.find(END)) {
            (Some(b), Some(e)) if b < e => {
                format!("{}{BEGIN}{table}{}", &doc[..b], &doc[e..])
            }
            _ => panic!("docs/cel.md has no {BEGIN:?} … {END:?} markers"),
        }
    }
}
