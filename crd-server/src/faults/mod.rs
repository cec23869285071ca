//! Fault injection: rules that make the requests they match fail, slow down or (for
//! watches) end early, the way an API server misbehaves under load or in an outage —
//! what a controller's tests need to see and no real cluster does on demand.
//!
//! A rule ([`FaultRule`], `--fault RULE` or `TestServerBuilder::fault`) names what it
//! matches (`verb`, `resource`, `namespace`, `name`, `user`), what it does (`code`, with
//! kube-apiserver's `Status` for it; `delay`; `close-after` for watches) and how often
//! (`count`, `after`, `probability` with `seed`). Requests no rule matches are untouched;
//! with no rules the request path pays one atomic load. A server's [`Faults`] change at
//! run time; each fault is logged on standard error as it is injected.

mod rule;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

pub use rule::{CODES, FaultRule, FaultRuleError, KEYS, ResourceMatch, VERBS};

/// A request as rules see it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Request<'a> {
    pub verb: &'a str,
    /// Empty for the core group.
    pub group: &'a str,
    pub resource: &'a str,
    pub subresource: Option<&'a str>,
    pub namespace: Option<&'a str>,
    pub name: Option<&'a str>,
    /// The authenticated user, when the request has one.
    pub user: Option<&'a str>,
}

/// What one rule does to one request.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Injection {
    /// The rule's handle and text (for the log line).
    pub rule: FaultId,
    pub text: String,
    pub code: Option<u16>,
    pub delay: Option<Duration>,
    pub close_after: Option<u64>,
    pub retry_after: Option<u32>,
}

/// The handle of a rule a server applies (to remove it, or to ask how often it acted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FaultId(u64);

impl std::fmt::Display for FaultId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[derive(Default)]
struct Counters {
    /// Requests the rule matched.
    matched: u64,
    /// Requests it acted on.
    injected: u64,
    /// The state of its pseudo-random choices (splitmix64).
    random: u64,
}

struct Active {
    id: FaultId,
    rule: FaultRule,
    counters: Mutex<Counters>,
}

impl Active {
    fn counters(&self) -> std::sync::MutexGuard<'_, Counters> {
        // Counters are plain numbers: a panic elsewhere cannot leave them half-written.
        self.counters.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// splitmix64: small, fast and the same on every platform (a seed gives the same
/// choices everywhere).
fn next_random(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// The fault rules a server applies, in the order they were added (the first rule that
/// acts on a request decides what happens to it).
#[derive(Default)]
pub struct Faults {
    rules: RwLock<Vec<Arc<Active>>>,
    /// Whether there is any rule: the one thing a request checks when there is none.
    any: AtomicBool,
    next: AtomicU64,
}

impl Faults {
    /// A set of rules.
    pub fn new(rules: impl IntoIterator<Item = FaultRule>) -> Faults {
        let faults = Faults::default();
        for rule in rules {
            faults.add(rule);
        }
        faults
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Arc<Active>>> {
        self.rules.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Arc<Active>>> {
        self.rules.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies `rule` from now on (after the rules already there).
    pub fn add(&self, rule: FaultRule) -> FaultId {
        let id = FaultId(self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let counters = Counters {
            random: rule.seed,
            ..Counters::default()
        };
        let mut rules = self.write();
        rules.push(Arc::new(Active {
            id,
            rule,
            counters: Mutex::new(counters),
        }));
        self.any.store(true, Ordering::Release);
        id
    }

    /// Stops applying a rule; `false` when there is no such rule.
    pub fn remove(&self, id: FaultId) -> bool {
        let mut rules = self.write();
        let before = rules.len();
        rules.retain(|a| a.id != id);
        self.any.store(!rules.is_empty(), Ordering::Release);
        rules.len() != before
    }

    /// Stops applying every rule.
    pub fn clear(&self) {
        let mut rules = self.write();
        rules.clear();
        self.any.store(false, Ordering::Release);
    }

    /// The rules applied now, with their handles.
    pub fn rules(&self) -> Vec<(FaultId, FaultRule)> {
        self.read().iter().map(|a| (a.id, a.rule.clone())).collect()
    }

    /// How many requests a rule acted on so far (`None`: no such rule).
    pub fn injected(&self, id: FaultId) -> Option<u64> {
        self.read()
            .iter()
            .find(|a| a.id == id)
            .map(|a| a.counters().injected)
    }

    /// Whether any rule is set (else no request needs looking at).
    pub(crate) fn is_active(&self) -> bool {
        self.any.load(Ordering::Acquire)
    }

    /// What happens to a request: the first rule that matches it and acts on it this
    /// time (every matching rule counts it).
    pub(crate) fn decide(&self, req: &Request<'_>) -> Option<Injection> {
        if !self.any.load(Ordering::Acquire) {
            return None;
        }
        let rules = self.read();
        for active in rules.iter() {
            let rule = &active.rule;
            if !rule.matches(req) {
                continue;
            }
            let mut c = active.counters();
            c.matched += 1;
            if c.matched <= rule.after || rule.count.is_some_and(|n| c.injected >= n) {
                continue;
            }
            if rule.probability < 1.0 && next_random(&mut c.random) >= rule.probability {
                continue;
            }
            c.injected += 1;
            return Some(Injection {
                rule: active.id,
                text: rule.to_string(),
                code: rule.code,
                delay: rule.delay,
                close_after: rule.close_after,
                retry_after: rule.retry_after,
            });
        }
        None
    }
}

#[cfg(test)]
#[path = "faults_tests.rs"]
mod tests;
