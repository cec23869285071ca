//! `--controllers`: which controllers run, in kube-controller-manager's syntax — `*`
//! for every controller on by default, `NAME` to enable one, `-NAME` to disable one.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// The controllers crd-server runs, by kube-controller-manager's names (and, for the
/// parts kube-scheduler and kwok play, `scheduler` and `kwok`), each with the other
/// names kube-controller-manager accepts for it (its `-controller` names since 1.28).
pub const CONTROLLERS: &[&str] = &[
    "garbagecollector",
    "namespace",
    "customresourcecleanup",
    "validatingadmissionpolicy-status-controller",
    "clusterrole-aggregation",
    "deployment",
    "replicaset",
    "job",
    "statefulset",
    "daemonset",
    "cronjob",
    "nodeipam",
    "persistentvolume-binder",
    "scheduler",
    "kwok",
    "endpoint",
    "endpointslice",
    "serviceaccount",
    "root-ca-cert-publisher",
    "ttl-after-finished",
    "podgc",
    "disruption",
    "storage-version-migrator-controller",
    "storage-version-migration-trigger",
    "apiservice-status-available-controller",
    "kube-apiserver-autoregistration",
];

/// Controllers `*` leaves out, as kube-controller-manager's disabled-by-default ones:
/// they run only when named.
pub const OFF_BY_DEFAULT: &[&str] = &["storage-version-migration-trigger"];

/// The lifecycle controllers: what a [`crate::TestServer`] runs unless asked for the
/// workloads.
pub const LIFECYCLE: &[&str] = &[
    "garbagecollector",
    "namespace",
    "customresourcecleanup",
    "validatingadmissionpolicy-status-controller",
    "clusterrole-aggregation",
    "storage-version-migrator-controller",
    "apiservice-status-available-controller",
];

const ALIASES: &[(&str, &str)] = &[
    (
        "clusterrole-aggregation-controller",
        "clusterrole-aggregation",
    ),
    ("garbage-collector-controller", "garbagecollector"),
    ("namespace-controller", "namespace"),
    ("deployment-controller", "deployment"),
    ("replicaset-controller", "replicaset"),
    ("job-controller", "job"),
    ("statefulset-controller", "statefulset"),
    ("daemonset-controller", "daemonset"),
    ("cronjob-controller", "cronjob"),
    ("node-ipam-controller", "nodeipam"),
    (
        "persistentvolume-binder-controller",
        "persistentvolume-binder",
    ),
    ("kube-scheduler", "scheduler"),
    ("endpoints-controller", "endpoint"),
    ("endpointslice-controller", "endpointslice"),
    ("serviceaccount-controller", "serviceaccount"),
    (
        "root-ca-certificate-publisher-controller",
        "root-ca-cert-publisher",
    ),
    ("ttl-after-finished-controller", "ttl-after-finished"),
    ("pod-garbage-collector-controller", "podgc"),
    ("disruption-controller", "disruption"),
];

/// Which controllers run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    items: Vec<String>,
    enabled: BTreeSet<&'static str>,
}

impl Default for Selection {
    /// `*`: every controller.
    fn default() -> Self {
        Selection::all()
    }
}

impl Selection {
    /// Every controller (`*`).
    pub fn all() -> Selection {
        Selection {
            items: vec!["*".into()],
            enabled: CONTROLLERS
                .iter()
                .copied()
                .filter(|c| !OFF_BY_DEFAULT.contains(c))
                .collect(),
        }
    }

    /// The lifecycle controllers only ([`LIFECYCLE`]): no workloads run.
    pub fn lifecycle() -> Selection {
        Selection {
            items: LIFECYCLE.iter().map(|s| s.to_string()).collect(),
            enabled: LIFECYCLE.iter().copied().collect(),
        }
    }

    /// No controller (an empty list).
    pub fn none() -> Selection {
        Selection {
            items: Vec::new(),
            enabled: BTreeSet::new(),
        }
    }

    /// Whether the controller `name` (one of [`CONTROLLERS`]) runs.
    pub fn enabled(&self, name: &str) -> bool {
        self.enabled.contains(name)
    }

    /// Whether any controller runs.
    pub fn any(&self) -> bool {
        !self.enabled.is_empty()
    }
}

fn canonical(name: &str) -> Option<&'static str> {
    CONTROLLERS
        .iter()
        .copied()
        .find(|c| *c == name)
        .or_else(|| {
            ALIASES
                .iter()
                .find(|(alias, _)| *alias == name)
                .map(|(_, c)| *c)
        })
}

impl FromStr for Selection {
    type Err = String;

    /// A comma-separated list: `*`, `NAME`, `-NAME` (a name disabled wins over `*`).
    fn from_str(text: &str) -> Result<Selection, String> {
        let items: Vec<String> = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let mut star = false;
        let (mut on, mut off) = (BTreeSet::new(), BTreeSet::new());
        for item in &items {
            if item == "*" {
                star = true;
                continue;
            }
            let (set, name) = match item.strip_prefix('-') {
                Some(name) => (&mut off, name),
                None => (&mut on, item.as_str()),
            };
            let known = canonical(name)
                .ok_or_else(|| format!("{name:?} is not in the list of known controllers"))?;
            set.insert(known);
        }
        let enabled = CONTROLLERS
            .iter()
            .copied()
            .filter(|c| {
                !off.contains(c) && (on.contains(c) || (star && !OFF_BY_DEFAULT.contains(c)))
            })
            .collect();
        Ok(Selection { items, enabled })
    }
}

impl fmt::Display for Selection {
    /// As given (`*,-garbagecollector`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.items.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_minus_one() {
        let s: Selection = "*,-garbagecollector".parse().unwrap();
        assert!(!s.enabled("garbagecollector"));
        assert!(s.enabled("namespace") && s.enabled("customresourcecleanup"));
        assert_eq!(s.to_string(), "*,-garbagecollector");
    }

    #[test]
    fn names_and_aliases() {
        let s: Selection = "namespace-controller".parse().unwrap();
        assert!(s.enabled("namespace"));
        assert!(!s.enabled("garbagecollector"));
        let none: Selection = "".parse().unwrap();
        assert!(!none.any());
        assert_eq!(Selection::default(), "*".parse().unwrap());
    }

    #[test]
    fn unknown_names_are_refused() {
        let e = "*,-replicaset-controlller"
            .parse::<Selection>()
            .unwrap_err();
        assert_eq!(
            e,
            "\"replicaset-controlller\" is not in the list of known controllers"
        );
    }
}
