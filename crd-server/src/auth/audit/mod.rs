//! The audit log: `audit.k8s.io/v1` Event JSON lines written to `--audit-log-path`
//! (a file, or `-` for standard output) at the level `--audit-policy-file` gives each
//! request, with the authorizer's `authorization.k8s.io/decision` and `reason`
//! annotations — and, for a [`TestServer`](crate::TestServer), kept in memory as the
//! record of every identity's requests.

pub mod policy;

use std::io::Write;
use std::sync::Mutex;

use chrono::{DateTime, SecondsFormat, Utc};
use crd_runtime::rbac::{Attributes, UserInfo};
use serde_json::{Value, json};

pub use policy::{Level, Policy, Stage};

use super::AuthConfig;
use crate::auth::ConfigError;

enum Sink {
    Stdout,
    File(std::fs::File),
}

/// Where a server's audit events go.
pub struct Auditor {
    policy: Option<Policy>,
    sink: Option<Mutex<Sink>>,
    record: Option<Mutex<Vec<Value>>>,
}

impl Auditor {
    /// The auditor `config` describes: nothing is logged without a policy (as
    /// kube-apiserver), a test server's record at `Metadata` unless a policy says more.
    pub fn open(config: &AuthConfig) -> Result<Auditor, ConfigError> {
        let policy = match &config.audit_policy_file {
            Some(path) => Some(
                Policy::read(path).map_err(|e| ConfigError(format!("--audit-policy-file: {e}")))?,
            ),
            None if config.audit_record => Some(Policy::metadata_for_all()),
            None => None,
        };
        let sink = match &config.audit_log_path {
            None => None,
            Some(p) if p.as_os_str() == "-" => Some(Mutex::new(Sink::Stdout)),
            Some(p) => {
                if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|e| {
                        ConfigError(format!("--audit-log-path: {}: {e}", dir.display()))
                    })?;
                }
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .map_err(|e| ConfigError(format!("--audit-log-path: {}: {e}", p.display())))?;
                Some(Mutex::new(Sink::File(file)))
            }
        };
        Ok(Auditor {
            policy,
            sink,
            record: config.audit_record.then(|| Mutex::new(Vec::new())),
        })
    }

    /// Whether anything is audited.
    pub fn is_on(&self) -> bool {
        self.policy.is_some() && (self.sink.is_some() || self.record.is_some())
    }

    /// The level of a request and the stages left out.
    pub fn level_of(&self, attrs: &Attributes) -> (Level, Vec<Stage>) {
        match (&self.policy, self.sink.is_some() || self.record.is_some()) {
            (Some(p), true) => p.level_of(attrs),
            _ => (Level::None, Vec::new()),
        }
    }

    /// Writes one event (and keeps it in the record).
    pub fn emit(&self, event: Value) {
        if let Some(sink) = &self.sink {
            let mut line = serde_json::to_vec(&event).unwrap_or_default();
            line.push(b'\n');
            let mut sink = sink.lock().unwrap_or_else(|e| e.into_inner());
            // A full disk loses audit lines, not requests.
            let _ = match &mut *sink {
                Sink::Stdout => std::io::stdout().lock().write_all(&line),
                Sink::File(f) => f.write_all(&line),
            };
        }
        if let Some(record) = &self.record {
            record.lock().unwrap_or_else(|e| e.into_inner()).push(event);
        }
    }

    /// The events recorded so far.
    pub fn recorded(&self) -> Vec<Value> {
        self.record
            .as_ref()
            .map(|r| r.lock().unwrap_or_else(|e| e.into_inner()).clone())
            .unwrap_or_default()
    }
}

/// A `MicroTime` as events write it.
pub fn micro_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// What an event knows of its request before it is answered.
pub struct Draft {
    pub level: Level,
    pub omit: Vec<Stage>,
    pub id: String,
    pub uri: String,
    pub verb: String,
    pub user: UserInfo,
    pub impersonated: Option<UserInfo>,
    pub source_ip: Option<String>,
    pub user_agent: Option<String>,
    pub attrs: Attributes,
    pub received: DateTime<Utc>,
    pub annotations: serde_json::Map<String, Value>,
    pub request_object: Option<Value>,
}

impl Draft {
    /// The authorizer's `decision` (its audit annotation) and reason, as kube-apiserver
    /// annotates every event of an authorized request.
    pub fn note_authorization(&mut self, decision: &str, reason: &str) {
        self.annotations
            .insert("authorization.k8s.io/decision".into(), json!(decision));
        self.annotations
            .insert("authorization.k8s.io/reason".into(), json!(reason));
    }

    /// The event at `stage` with the answer's code (and Status, for a failure) and
    /// body.
    pub fn event(&self, stage: Stage, response: Option<(u16, Option<&Value>)>) -> Value {
        let mut e = json!({
            "kind": "Event",
            "apiVersion": "audit.k8s.io/v1",
            "level": self.level.name(),
            "auditID": self.id,
            "stage": stage.name(),
            "requestURI": self.uri,
            "verb": self.verb,
            "user": self.user,
        });
        if let Some(imp) = &self.impersonated {
            e["impersonatedUser"] = json!(imp);
        }
        if let Some(ip) = &self.source_ip {
            e["sourceIPs"] = json!([ip]);
        }
        if let Some(agent) = &self.user_agent {
            e["userAgent"] = json!(agent);
        }
        let a = &self.attrs;
        if a.resource_request {
            let mut o = json!({"resource": a.resource});
            for (k, v) in [
                ("namespace", &a.namespace),
                ("name", &a.name),
                ("apiGroup", &a.api_group),
                ("apiVersion", &a.api_version),
                ("subresource", &a.subresource),
            ] {
                if !v.is_empty() {
                    o[k] = json!(v);
                }
            }
            e["objectRef"] = o;
        }
        if let Some((code, body)) = response {
            let mut status = json!({"metadata": {}, "code": code});
            if let Some(b) = body.filter(|b| b["kind"] == "Status") {
                for k in ["status", "message", "reason", "details"] {
                    if let Some(v) = b.get(k).filter(|v| !v.is_null()) {
                        status[k] = v.clone();
                    }
                }
                if code >= 400 {
                    status.as_object_mut().map(|m| m.remove("details"));
                }
            }
            e["responseStatus"] = status;
            if self.level >= Level::RequestResponse
                && stage == Stage::ResponseComplete
                && let Some(b) = body
            {
                e["responseObject"] = b.clone();
            }
        }
        if self.level >= Level::Request
            && let Some(obj) = &self.request_object
        {
            e["requestObject"] = obj.clone();
        }
        e["requestReceivedTimestamp"] = json!(micro_time(self.received));
        e["stageTimestamp"] = json!(micro_time(Utc::now()));
        if stage != Stage::RequestReceived && !self.annotations.is_empty() {
            e["annotations"] = Value::Object(self.annotations.clone());
        }
        e
    }
}
