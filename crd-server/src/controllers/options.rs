//! How the workloads run: the simulated nodes created at start (`--nodes`), the range
//! Pod IPs come from (`--cluster-cidr`), and the controllers' clock.

use std::path::PathBuf;

use super::clock::Clock;

/// kube-controller-manager's `--cluster-cidr` as kubeadm and kind set it (flannel's).
pub const DEFAULT_CLUSTER_CIDR: &str = "10.244.0.0/16";

/// kube-controller-manager's `--terminated-pod-gc-threshold` default.
pub const DEFAULT_TERMINATED_POD_GC_THRESHOLD: usize = 12500;

/// The workloads' settings.
#[derive(Clone, Debug)]
pub struct Workloads {
    /// `--nodes`: simulated nodes created at start (`kwok-node-0`, `kwok-node-1`, …).
    pub nodes: u32,
    /// `--cluster-cidr`: each node's `podCIDR` (a /24 of an IPv4 range, a /64 of an
    /// IPv6 one) is taken from it, and each Pod's IP from its node's.
    pub cluster_cidr: String,
    /// The controllers' clock (a test can move it).
    pub clock: Clock,
    /// `--stages`: the simulated kubelet's pod stages (kwok's defaults unless loaded).
    pub stages: crate::stages::StageSet,
    /// `--root-ca-file`: the CA bundle `root-ca-cert-publisher` puts in every
    /// namespace's `kube-root-ca.crt` (without it, `--tls-cert-file`'s chain; over plain
    /// HTTP, nothing).
    pub root_ca_file: Option<PathBuf>,
    /// `--terminated-pod-gc-threshold`: finished Pods kept before `podgc` deletes the
    /// oldest (0: no limit; 12500 by default).
    pub terminated_pod_gc_threshold: usize,
}

impl Default for Workloads {
    fn default() -> Self {
        Workloads {
            nodes: 1,
            cluster_cidr: DEFAULT_CLUSTER_CIDR.into(),
            clock: Clock::new(),
            stages: crate::stages::StageSet::default(),
            root_ca_file: None,
            terminated_pod_gc_threshold: DEFAULT_TERMINATED_POD_GC_THRESHOLD,
        }
    }
}
