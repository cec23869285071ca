//! The leader election's options, as kube-controller-manager's `--leader-elect*` flags
//! set them, and the checks client-go's elector makes of them.

use std::time::Duration;

/// Leader election among replicas sharing a store, as kube-controller-manager's
/// `--leader-elect*` flags set it: the replica holding the Lease runs the controllers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderElection {
    /// `--leader-elect`: elect a leader (otherwise the controllers start at once).
    pub leader_elect: bool,
    /// `--leader-elect-lease-duration`: how long a holder that stopped renewing keeps
    /// the Lease, as the other replicas measure it.
    pub lease_duration: Duration,
    /// `--leader-elect-renew-deadline`: how long the leader keeps trying to renew before
    /// it stops leading (and its controllers).
    pub renew_deadline: Duration,
    /// `--leader-elect-retry-period`: the time between attempts to acquire or renew.
    pub retry_period: Duration,
    /// `--leader-elect-resource-name`: the Lease's name.
    pub resource_name: String,
    /// `--leader-elect-resource-namespace`: the Lease's namespace.
    pub resource_namespace: String,
}

impl Default for LeaderElection {
    /// kube-controller-manager's defaults: on, 15s / 10s / 2s,
    /// `kube-system/kube-controller-manager`.
    fn default() -> Self {
        LeaderElection {
            leader_elect: true,
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
            resource_name: "kube-controller-manager".into(),
            resource_namespace: "kube-system".into(),
        }
    }
}

/// client-go's factor: attempts to acquire wait a retry period plus up to 1.2 more.
pub(crate) const JITTER_FACTOR: f64 = 1.2;

impl LeaderElection {
    /// No election: the controllers start at once.
    pub fn disabled() -> LeaderElection {
        LeaderElection {
            leader_elect: false,
            ..LeaderElection::default()
        }
    }

    /// The checks client-go's leader elector makes (and its messages), plus a whole
    /// second of lease, the Lease's unit.
    pub fn validate(&self) -> Result<(), String> {
        if !self.leader_elect {
            return Ok(());
        }
        if self.lease_duration <= self.renew_deadline {
            return Err("leaseDuration must be greater than renewDeadline".into());
        }
        if self.renew_deadline <= self.retry_period.mul_f64(JITTER_FACTOR) {
            return Err("renewDeadline must be greater than retryPeriod*JitterFactor".into());
        }
        if self.lease_duration < Duration::from_secs(1) {
            return Err("leaseDuration must be at least 1s (a Lease counts whole seconds)".into());
        }
        if self.retry_period.is_zero() {
            return Err("retryPeriod must be greater than zero".into());
        }
        if self.resource_name.is_empty() || self.resource_namespace.is_empty() {
            return Err("the leader election resource needs a name and a namespace".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leader_election_checks() {
        let short = LeaderElection {
            renew_deadline: Duration::from_secs(15),
            ..LeaderElection::default()
        };
        let jitter = LeaderElection {
            retry_period: Duration::from_secs(9),
            ..LeaderElection::default()
        };
        let off = LeaderElection {
            renew_deadline: Duration::from_secs(60),
            ..LeaderElection::disabled()
        };
        let cases = [
            (LeaderElection::default(), Ok(())),
            (
                short,
                Err("leaseDuration must be greater than renewDeadline"),
            ),
            (
                jitter,
                Err("renewDeadline must be greater than retryPeriod*JitterFactor"),
            ),
            (off, Ok(())),
        ];
        for (config, expected) in cases {
            assert_eq!(config.validate(), expected.map_err(String::from));
        }
    }
}
