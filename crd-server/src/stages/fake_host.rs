//! A [`Host`] with fixed surroundings, for the tests of templates and of the kubelet
//! that renders them.

use super::Host;

/// The node and Pod a test renders a template for; `now` and `qos_class` vary by test.
pub struct FakeHost {
    /// `Now`.
    pub now: String,
    /// `PodIP`.
    pub pod_ip: &'static str,
    /// `QOSClass`.
    pub qos_class: String,
}

impl Host for FakeHost {
    fn now(&self) -> String {
        self.now.clone()
    }
    fn pod_ip(&self) -> Result<String, String> {
        Ok(self.pod_ip.into())
    }
    fn node_ip(&self) -> String {
        "172.18.0.2".into()
    }
    fn node_name(&self) -> String {
        "kwok-node-0".into()
    }
    fn qos_class(&self) -> String {
        self.qos_class.clone()
    }
}
