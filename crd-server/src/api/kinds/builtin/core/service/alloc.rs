//! Cluster IPs and node ports, allocated in the store as kube-apiserver's IPAddress
//! allocator does: one record per taken address (`/registry/ipaddresses/<ip>`, an
//! `networking.k8s.io/v1` IPAddress naming its Service) and one per taken node port
//! (`/registry/servicenodeports/<port>`). Taking one is a store `create`, which fails
//! when the key exists: two concurrent writes never get the same address, on one
//! server or on several sharing etcd. The ranges themselves are stored too (the
//! `kubernetes` ServiceCIDR, the node port RangeAllocation), written from the flags at
//! start, so every replica allocates from the same ranges.
//!
//! A record whose Service is gone or no longer holds it (a crash between the record and
//! the Service, a namespace removed with its contents) is taken over once it is older
//! than [`GRACE`], the time a write between the two steps may take.

use std::collections::HashSet;
use std::net::IpAddr;

use bytes::Bytes;
use serde_json::{Value, json};

use crate::api::kinds::builtin::checks::strings;
use crate::api::kinds::builtin::core::service::ip_range::{Cidr, PortRange};
use crate::api::object::now;
use crate::store::{Revision, Store, StoreError};

/// The `kubernetes` ServiceCIDR: the range cluster IPs come from.
pub const CIDR_KEY: &str = "/registry/servicecidrs/kubernetes";
/// The node port range (a RangeAllocation, as upstream stores it).
pub const PORT_RANGE_KEY: &str = "/registry/services/nodeports";
const IP_PREFIX: &str = "/registry/ipaddresses/";
const PORT_PREFIX: &str = "/registry/servicenodeports/";
const SERVICE_PREFIX: &str = "/registry/services/specs/";
/// How old an orphaned record must be before another Service takes it over.
pub const GRACE: chrono::TimeDelta = chrono::TimeDelta::seconds(60);

/// The ranges a server allocates from (`--service-cluster-ip-range`,
/// `--service-node-port-range`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ranges {
    pub cidr: Cidr,
    pub ports: PortRange,
}

/// Why an allocation failed.
#[derive(Debug, PartialEq, Eq)]
pub enum AllocError {
    /// The requested value is held by another Service.
    Allocated,
    /// No free value is left.
    Full,
    /// The store failed.
    Store(String),
}

impl From<StoreError> for AllocError {
    fn from(e: StoreError) -> Self {
        AllocError::Store(e.to_string())
    }
}

/// The Service a record belongs to.
#[derive(Clone, Copy, Debug)]
pub struct Owner<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
}

/// What a pool hands out: addresses of the service CIDR or ports of the range.
#[derive(Clone, Copy)]
pub enum Pool {
    Ips(Cidr),
    Ports(PortRange),
}

impl Pool {
    fn prefix(&self) -> &'static str {
        match self {
            Pool::Ips(_) => IP_PREFIX,
            Pool::Ports(_) => PORT_PREFIX,
        }
    }

    /// The store key of one value.
    pub fn key(&self, value: &str) -> String {
        format!("{}{value}", self.prefix())
    }

    fn size(&self) -> u128 {
        match self {
            Pool::Ips(c) => c.size(),
            Pool::Ports(p) => u128::from(p.size()),
        }
    }

    /// The lower band kept for requested values: dynamic allocation starts above it.
    fn static_band(&self) -> u128 {
        match self {
            Pool::Ips(c) => c.static_band(),
            Pool::Ports(p) => (u128::from(p.size()) / 32).clamp(16, 128).min(self.size()),
        }
    }

    fn value_at(&self, offset: u128) -> String {
        match self {
            Pool::Ips(c) => c.at(offset).to_string(),
            Pool::Ports(p) => (u128::from(p.base) + offset).to_string(),
        }
    }

    fn offset_of(&self, value: &str) -> Option<u128> {
        match self {
            Pool::Ips(c) => c.offset(value.parse::<IpAddr>().ok()?),
            Pool::Ports(p) => {
                let port: u16 = value.parse().ok()?;
                p.contains(i64::from(port))
                    .then(|| u128::from(port - p.base))
            }
        }
    }

    fn record(&self, value: &str, owner: Owner<'_>) -> Value {
        let parent = json!({"group": "", "resource": "services",
            "namespace": owner.namespace, "name": owner.name});
        let meta = |labels: Value| {
            json!({"name": value, "uid": uuid::Uuid::new_v4().to_string(),
                "creationTimestamp": now(), "labels": labels})
        };
        match self {
            Pool::Ips(c) => json!({
                "apiVersion": "networking.k8s.io/v1",
                "kind": "IPAddress",
                "metadata": meta(json!({
                    "ipaddress.kubernetes.io/ip-family": c.family(),
                    "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io",
                })),
                "spec": {"parentRef": parent},
            }),
            Pool::Ports(_) => json!({
                "apiVersion": "v1",
                "kind": "ServiceNodePort",
                "metadata": meta(json!({})),
                "spec": {"parentRef": parent},
            }),
        }
    }

    /// Whether `svc` holds `value` in this pool.
    fn holds(&self, svc: &Value, value: &str) -> bool {
        match self {
            Pool::Ips(_) => cluster_ips(svc).iter().any(|ip| ip == value),
            Pool::Ports(_) => node_ports(svc).iter().any(|p| p.to_string() == value),
        }
    }
}

/// A Service's cluster IPs (`clusterIPs`, else `clusterIP`), `None` and empty left out.
pub fn cluster_ips(svc: &Value) -> Vec<String> {
    let spec = &svc["spec"];
    let mut ips = strings(&spec["clusterIPs"]);
    if ips.is_empty()
        && let Some(ip) = spec["clusterIP"].as_str()
    {
        ips.push(ip.to_string());
    }
    ips.retain(|ip| !ip.is_empty() && ip != "None");
    ips
}

/// A Service's node ports (every port's `nodePort` and `healthCheckNodePort`).
pub fn node_ports(svc: &Value) -> Vec<i64> {
    let spec = &svc["spec"];
    let mut ports: Vec<i64> = spec["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["nodePort"].as_i64())
        .filter(|p| *p != 0)
        .collect();
    if let Some(hc) = spec["healthCheckNodePort"].as_i64().filter(|p| *p != 0) {
        ports.push(hc);
    }
    ports.sort_unstable();
    ports.dedup();
    ports
}

fn encode(v: &Value) -> Bytes {
    Bytes::from(serde_json::to_vec(v).unwrap_or_default())
}

/// Writes the ranges (the flags of the server starting win over what is stored).
pub async fn install(store: &dyn Store, ranges: &Ranges) -> Result<(), StoreError> {
    let cidr = json!({
        "apiVersion": "networking.k8s.io/v1",
        "kind": "ServiceCIDR",
        "metadata": {"name": "kubernetes", "uid": uuid::Uuid::new_v4().to_string(),
            "creationTimestamp": now()},
        "spec": {"cidrs": [ranges.cidr.to_string()]},
    });
    put_if_changed(store, CIDR_KEY, cidr, "/spec").await?;
    let ports = json!({
        "apiVersion": "v1",
        "kind": "RangeAllocation",
        "metadata": {"name": "", "creationTimestamp": now()},
        "range": ranges.ports.to_string(),
    });
    put_if_changed(store, PORT_RANGE_KEY, ports, "/range").await
}

/// Creates `key`, or replaces it when the part at `pointer` differs.
async fn put_if_changed(
    store: &dyn Store,
    key: &str,
    value: Value,
    pointer: &str,
) -> Result<(), StoreError> {
    for _ in 0..8 {
        let Some(kv) = store.get(key).await? else {
            match store.create(key, encode(&value)).await {
                Err(StoreError::AlreadyExists { .. }) => continue,
                other => return other.map(|_| ()),
            }
        };
        let old: Value = serde_json::from_slice(&kv.value).unwrap_or(Value::Null);
        if old.pointer(pointer) == value.pointer(pointer) {
            return Ok(());
        }
        let mut next = old;
        if !next.is_object() {
            next = value.clone();
        }
        if let (Some(slot), Some(v)) = (next.pointer_mut(pointer), value.pointer(pointer)) {
            *slot = v.clone();
        } else {
            next = value.clone();
        }
        match store.update(key, encode(&next), kv.mod_revision).await {
            Err(StoreError::Conflict { .. } | StoreError::NotFound { .. }) => continue,
            other => return other.map(|_| ()),
        }
    }
    Err(StoreError::Unavailable(format!(
        "{key} kept changing while it was written"
    )))
}

/// The ranges in force (as the last server started wrote them).
pub async fn ranges(store: &dyn Store) -> Result<Ranges, String> {
    let read = |key: &'static str| async move {
        let kv = store
            .get(key)
            .await
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("{key} is missing: the service ranges were never set"))?;
        serde_json::from_slice::<Value>(&kv.value).map_err(|e| format!("{key}: {e}"))
    };
    let cidr = read(CIDR_KEY).await?;
    let cidr = Cidr::parse(cidr["spec"]["cidrs"][0].as_str().unwrap_or(""))?;
    let ports = read(PORT_RANGE_KEY).await?;
    let ports = PortRange::parse(ports["range"].as_str().unwrap_or(""))?;
    Ok(Ranges { cidr, ports })
}

/// Takes `value` for `owner`: its record's revision (`None` on a dry run, where the
/// value is only checked).
pub async fn take(
    store: &dyn Store,
    pool: Pool,
    value: &str,
    owner: Owner<'_>,
    dry_run: bool,
) -> Result<Option<Revision>, AllocError> {
    let key = pool.key(value);
    for _ in 0..4 {
        if dry_run {
            return match store.get(&key).await? {
                Some(kv) if !stale(store, pool, value, &kv.value).await? => {
                    Err(AllocError::Allocated)
                }
                _ => Ok(None),
            };
        }
        match store.create(&key, encode(&pool.record(value, owner))).await {
            Ok(kv) => return Ok(Some(kv.mod_revision)),
            Err(StoreError::AlreadyExists { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        let Some(kv) = store.get(&key).await? else {
            continue;
        };
        if !stale(store, pool, value, &kv.value).await? {
            return Err(AllocError::Allocated);
        }
        // An orphan: removed if nobody changed it since, then taken like a free one.
        match store.delete(&key, Some(kv.mod_revision)).await {
            Ok(_) | Err(StoreError::NotFound { .. } | StoreError::Conflict { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Err(AllocError::Allocated)
}

/// Takes any free value: the upper band first, from a random place, then the lower
/// band (as the allocators keep the lower band for requested values); an orphan last.
pub async fn take_next(
    store: &dyn Store,
    pool: Pool,
    owner: Owner<'_>,
    dry_run: bool,
) -> Result<(String, Option<Revision>), AllocError> {
    let listed = store
        .list(pool.prefix(), crate::store::ListOptions::default())
        .await?;
    let held: HashSet<u128> = listed
        .items
        .iter()
        .filter_map(|kv| pool.offset_of(kv.key.strip_prefix(pool.prefix())?))
        .collect();
    let size = pool.size();
    let band = pool.static_band();
    let random = u128::from_le_bytes(uuid::Uuid::new_v4().into_bytes());
    let upper = size - band;
    let start = if upper > 0 { random % upper } else { 0 };
    let candidates = (0..upper)
        .map(|i| band + (start + i) % upper)
        .chain(0..band);
    // Every free value is tried at most once; huge IPv6 ranges stop early (the held
    // ones are few, so a free value comes within the first tries).
    let mut tries = 0usize;
    for offset in candidates.filter(|o| !held.contains(o)) {
        tries += 1;
        if tries > held.len() + 1024 {
            break;
        }
        let value = pool.value_at(offset);
        match take(store, pool, &value, owner, dry_run).await {
            Ok(rev) => return Ok((value, rev)),
            Err(AllocError::Allocated) => continue,
            Err(e) => return Err(e),
        }
    }
    for kv in &listed.items {
        let Some(value) = kv.key.strip_prefix(pool.prefix()) else {
            continue;
        };
        if pool.offset_of(value).is_some() && stale(store, pool, value, &kv.value).await? {
            match take(store, pool, value, owner, dry_run).await {
                Ok(rev) => return Ok((value.to_string(), rev)),
                Err(AllocError::Allocated) => continue,
                Err(e) => return Err(e),
            }
        }
    }
    Err(AllocError::Full)
}

/// The record of `value` when `owner` holds it: its revision (to give it back).
pub async fn held_by(
    store: &dyn Store,
    pool: Pool,
    value: &str,
    owner: Owner<'_>,
) -> Option<Revision> {
    let kv = store.get(&pool.key(value)).await.ok()??;
    let record: Value = serde_json::from_slice(&kv.value).ok()?;
    let parent = &record["spec"]["parentRef"];
    (parent["namespace"] == owner.namespace && parent["name"] == owner.name)
        .then_some(kv.mod_revision)
}

/// Whether a record is an orphan old enough to take over: its Service is gone or no
/// longer holds the value.
async fn stale(
    store: &dyn Store,
    pool: Pool,
    value: &str,
    record: &[u8],
) -> Result<bool, AllocError> {
    let Ok(record) = serde_json::from_slice::<Value>(record) else {
        return Ok(true);
    };
    let created = record["metadata"]["creationTimestamp"]
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
    let old_enough = created.is_none_or(|t| chrono::Utc::now().signed_duration_since(t) > GRACE);
    if !old_enough {
        return Ok(false);
    }
    let parent = &record["spec"]["parentRef"];
    let key = format!(
        "{SERVICE_PREFIX}{}/{}",
        parent["namespace"].as_str().unwrap_or(""),
        parent["name"].as_str().unwrap_or("")
    );
    let Some(kv) = store.get(&key).await? else {
        return Ok(true);
    };
    let svc: Value = serde_json::from_slice(&kv.value).unwrap_or(Value::Null);
    Ok(!pool.holds(&svc, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    fn pool() -> Pool {
        Pool::Ips(Cidr::parse("10.0.0.0/28").unwrap())
    }

    const A: Owner<'static> = Owner {
        namespace: "default",
        name: "a",
    };

    #[tokio::test]
    async fn taken_values_are_refused_and_every_value_goes_once() {
        let store = MemoryStore::new();
        assert!(
            take(&store, pool(), "10.0.0.5", A, false)
                .await
                .unwrap()
                .is_some()
        );
        assert_eq!(
            take(&store, pool(), "10.0.0.5", A, false).await,
            Err(AllocError::Allocated)
        );
        assert_eq!(
            take(&store, pool(), "10.0.0.5", A, true).await,
            Err(AllocError::Allocated)
        );
        // 14 addresses in a /28: 13 more, then the range is full.
        let mut seen = HashSet::from(["10.0.0.5".to_string()]);
        for _ in 0..13 {
            let (ip, rev) = take_next(&store, pool(), A, false).await.unwrap();
            assert!(rev.is_some());
            assert!(seen.insert(ip.clone()), "{ip} given twice");
            assert!(pool().offset_of(&ip).is_some(), "{ip} out of range");
        }
        assert_eq!(
            take_next(&store, pool(), A, false).await,
            Err(AllocError::Full)
        );
        assert!(held_by(&store, pool(), "10.0.0.5", A).await.is_some());
        let b = Owner {
            namespace: "default",
            name: "b",
        };
        assert!(held_by(&store, pool(), "10.0.0.5", b).await.is_none());
    }

    #[tokio::test]
    async fn old_orphans_are_taken_over_and_young_ones_are_not() {
        let store = MemoryStore::new();
        let mut record = pool().record("10.0.0.7", A);
        store
            .create(&pool().key("10.0.0.7"), encode(&record))
            .await
            .unwrap();
        // Young: its Service may be on its way.
        assert_eq!(
            take(&store, pool(), "10.0.0.7", A, false).await,
            Err(AllocError::Allocated)
        );
        record["metadata"]["creationTimestamp"] = json!("2020-01-01T00:00:00Z");
        let kv = store.get(&pool().key("10.0.0.7")).await.unwrap().unwrap();
        store
            .update(&pool().key("10.0.0.7"), encode(&record), kv.mod_revision)
            .await
            .unwrap();
        assert!(
            take(&store, pool(), "10.0.0.7", A, false)
                .await
                .unwrap()
                .is_some()
        );
    }

    #[tokio::test]
    async fn ranges_are_stored_and_replaced_by_the_next_start() {
        let store = MemoryStore::new();
        let r = Ranges {
            cidr: Cidr::parse("10.0.0.0/24").unwrap(),
            ports: PortRange::parse("30000-32767").unwrap(),
        };
        install(&store, &r).await.unwrap();
        assert_eq!(ranges(&store).await.unwrap(), r);
        let r2 = Ranges {
            cidr: Cidr::parse("10.96.0.0/16").unwrap(),
            ports: PortRange::parse("31000-31010").unwrap(),
        };
        install(&store, &r2).await.unwrap();
        assert_eq!(ranges(&store).await.unwrap(), r2);
    }
}
