//! What a Service write takes and gives back, as kube-apiserver's service REST does in
//! `beginCreate`/`beginUpdate`/`afterDelete`: the cluster IP fields normalized and the
//! values the old object had patched in, the IP family fields initialized (a
//! single-stack cluster), cluster IPs and node ports allocated or checked, and on
//! update what the new object no longer holds marked to be freed.

use std::collections::{HashMap, HashSet};

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::checks::{go_strings, invalid_go, strings};
use crate::api::kinds::builtin::core::service::alloc;
use crate::api::kinds::builtin::core::service::alloc::{
    AllocError, Owner, Pool, Ranges, cluster_ips, held_by, node_ports, take, take_next,
};
use crate::api::kinds::builtin::core::service::fields::{
    drop_type_dependent, init_families, needs_cluster_ip, needs_node_port, normalize,
    patch_allocated, ty,
};
use crate::api::kinds::builtin::core::service::validation::needs_health_check;
use crate::api::kinds::{Allocation, Context};
use crate::api::status::{ApiError, Qualified};

fn services() -> Qualified {
    Qualified {
        group: String::new(),
        plural: "services".into(),
        kind: "Service".into(),
    }
}

fn invalid(name: &str, errs: &ErrorList) -> ApiError {
    ApiError::invalid(&services(), name, errs)
}

fn internal(what: &str, e: AllocError) -> ApiError {
    let why = match e {
        AllocError::Full => "range is full".to_string(),
        AllocError::Allocated => "provided value is already allocated".to_string(),
        AllocError::Store(s) => s,
    };
    ApiError::internal(format!(
        "Internal error occurred: failed to allocate a {what}: {why}"
    ))
}

/// `shouldAllocateNodePorts`: every NodePort, and a LoadBalancer unless it opted out.
fn allocates_node_ports(svc: &Value) -> bool {
    match ty(svc) {
        "NodePort" => true,
        "LoadBalancer" => svc["spec"]["allocateLoadBalancerNodePorts"] != json!(false),
        _ => false,
    }
}

/// One allocation in progress: the records taken (reverted on failure) and the ones
/// the old object held and the new one does not (freed on success).
struct Txn<'a> {
    cx: &'a Context<'a>,
    owner: Owner<'a>,
    name: &'a str,
    ranges: Ranges,
    dry_run: bool,
    out: Allocation,
}

impl Txn<'_> {
    async fn take_ip(&mut self, ip: &str, all: &[String]) -> Result<(), ApiError> {
        let pool = Pool::Ips(self.ranges.cidr);
        let path = Path::new("spec").child("clusterIPs");
        let fail = |why: String| {
            invalid_go(
                path.clone(),
                &go_strings(all),
                &format!("failed to allocate IP {ip}: {why}"),
            )
        };
        let Ok(addr) = ip.parse::<std::net::IpAddr>() else {
            return Err(invalid(
                self.name,
                &ErrorList(vec![fail(
                    "the provided network does not match the current range".into(),
                )]),
            ));
        };
        let cidr = self.ranges.cidr;
        if !cidr.contains(addr) {
            return Err(invalid(
                self.name,
                &ErrorList(vec![fail(
                    "the provided network does not match the current range".into(),
                )]),
            ));
        }
        if cidr.offset(addr).is_none() {
            return Err(invalid(
                self.name,
                &ErrorList(vec![fail(format!(
                    "provided IP is not in the valid range. The range of valid IPs is {cidr}"
                ))]),
            ));
        }
        match self.take(pool, &addr.to_string()).await {
            Ok(()) => Ok(()),
            Err(AllocError::Allocated) => Err(invalid(
                self.name,
                &ErrorList(vec![fail("provided IP is already allocated".into())]),
            )),
            Err(e) => Err(internal("serviceIP", e)),
        }
    }

    async fn next_ip(&mut self) -> Result<String, ApiError> {
        let pool = Pool::Ips(self.ranges.cidr);
        self.take_next(pool, "serviceIP").await
    }

    /// Takes `value` of `pool`, recorded to be reverted should the write fail.
    async fn take(&mut self, pool: Pool, value: &str) -> Result<(), AllocError> {
        let rev = take(self.cx.store, pool, value, self.owner, self.dry_run).await?;
        self.taken(pool.key(value), rev);
        Ok(())
    }

    /// Takes the next free value of `pool` (the `field` allocated names an error).
    async fn take_next(&mut self, pool: Pool, field: &str) -> Result<String, ApiError> {
        let (value, rev) = take_next(self.cx.store, pool, self.owner, self.dry_run)
            .await
            .map_err(|e| internal(field, e))?;
        self.taken(pool.key(&value), rev);
        Ok(value)
    }

    fn taken(&mut self, key: String, rev: Option<u64>) {
        if let Some(rev) = rev {
            self.out.taken.push((key, rev));
        }
    }

    /// `allocClusterIPs`: the service's family's IP, requested or the next free one.
    async fn cluster_ips(&mut self, svc: &mut Value) -> Result<(), ApiError> {
        if !needs_cluster_ip(svc) {
            return Ok(());
        }
        let ips = strings(&svc["spec"]["clusterIPs"]);
        if ips.first().is_some_and(|ip| ip == "None") {
            return Ok(());
        }
        let ip = match ips.first() {
            Some(ip) => {
                self.take_ip(ip, &ips).await?;
                ip.clone()
            }
            None => self.next_ip().await?,
        };
        let mut all = ips;
        if all.is_empty() {
            all.push(ip.clone());
        }
        svc["spec"]["clusterIPs"] = json!(all);
        svc["spec"]["clusterIP"] = json!(ip);
        Ok(())
    }

    /// A requested node port (`None`: the next free one); the port taken.
    async fn node_port(&mut self, requested: Option<i64>, path: Path) -> Result<i64, ApiError> {
        let range = self.ranges.ports;
        let pool = Pool::Ports(range);
        let Some(port) = requested else {
            let port = self.take_next(pool, "nodePort").await?;
            return Ok(port.parse().unwrap_or(0));
        };
        let fail = |why: String| {
            invalid(
                self.name,
                &ErrorList(vec![FieldError::invalid(
                    path.clone(),
                    BadValue::Int(port),
                    why,
                )]),
            )
        };
        if !range.contains(port) {
            return Err(fail(format!(
                "provided port is not in the valid range. The range of valid ports is {range}"
            )));
        }
        match self.take(pool, &port.to_string()).await {
            Ok(()) => Ok(port),
            Err(AllocError::Allocated) => Err(fail("provided port is already allocated".into())),
            Err(e) => Err(internal("nodePort", e)),
        }
    }

    /// `initNodePorts`/`updateNodePorts`: every port that needs one gets a node port;
    /// ports sharing a number share one; ports `held` by the old object stay.
    async fn node_ports(&mut self, svc: &mut Value, held: &HashSet<i64>) -> Result<(), ApiError> {
        if !needs_node_port(svc) {
            return Ok(());
        }
        let allocate = allocates_node_ports(svc);
        let mut ports = svc["spec"]["ports"].as_array().cloned().unwrap_or_default();
        let mut by_port: HashMap<i64, i64> = HashMap::new();
        let mut taken_now: HashSet<i64> = HashSet::new();
        for (i, p) in ports.iter_mut().enumerate() {
            let requested = p["nodePort"].as_i64().unwrap_or(0);
            if requested == 0 && !allocate {
                continue;
            }
            let number = p["port"].as_i64().unwrap_or(0);
            let path = Path::new("spec").child("ports").index(i).child("nodePort");
            let np = if requested != 0 {
                if !held.contains(&requested) && taken_now.insert(requested) {
                    self.node_port(Some(requested), path).await?;
                }
                requested
            } else if let Some(shared) = by_port.get(&number) {
                *shared
            } else {
                let np = self.node_port(None, path).await?;
                taken_now.insert(np);
                np
            };
            by_port.entry(number).or_insert(np);
            p["nodePort"] = json!(np);
        }
        svc["spec"]["ports"] = json!(ports);
        if needs_health_check(svc) {
            let hc = svc["spec"]["healthCheckNodePort"].as_i64().unwrap_or(0);
            if hc == 0 {
                let np = self
                    .node_port(None, Path::new("spec").child("healthCheckNodePort"))
                    .await?;
                svc["spec"]["healthCheckNodePort"] = json!(np);
            } else if !held.contains(&hc) && !taken_now.contains(&hc) {
                self.node_port(Some(hc), Path::new("spec").child("healthCheckNodePort"))
                    .await?;
            }
        }
        Ok(())
    }

    /// Marks what `old` holds and `new` does not to be freed once the write succeeds.
    async fn free_dropped(&mut self, new: &Value, old: &Value) {
        let keep_ips: HashSet<String> = cluster_ips(new).into_iter().collect();
        let keep_ports: HashSet<i64> = node_ports(new).into_iter().collect();
        let ip_pool = Pool::Ips(self.ranges.cidr);
        let port_pool = Pool::Ports(self.ranges.ports);
        let dropped = cluster_ips(old)
            .into_iter()
            .filter(|ip| !keep_ips.contains(ip))
            .map(|ip| (ip_pool, ip))
            .chain(
                node_ports(old)
                    .into_iter()
                    .filter(|p| !keep_ports.contains(p))
                    .map(|p| (port_pool, p.to_string())),
            );
        for (pool, value) in dropped.collect::<Vec<_>>() {
            if let Some(rev) = held_by(self.cx.store, pool, &value, self.owner).await {
                self.out.freed.push((pool.key(&value), rev));
            }
        }
    }
}

/// `beginCreate`/`beginUpdate` of a Service.
pub async fn allocate(
    cx: &Context<'_>,
    svc: &mut Value,
    old: Option<&Value>,
    dry_run: bool,
) -> Result<Allocation, ApiError> {
    let namespace = svc["metadata"]["namespace"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let name = svc["metadata"]["name"].as_str().unwrap_or("").to_string();
    if let Some(old) = old {
        drop_type_dependent(svc, old);
        patch_allocated(svc, old);
    }
    normalize(svc, old);
    let ranges = alloc::ranges(cx.store).await.map_err(ApiError::internal)?;
    init_families(svc, old, &ranges.cidr).map_err(|errs| invalid(&name, &errs))?;
    let mut txn = Txn {
        cx,
        owner: Owner {
            namespace: &namespace,
            name: &name,
        },
        name: &name,
        ranges,
        dry_run,
        out: Allocation::default(),
    };
    let result = async {
        // Cluster IPs: all new on create or from ExternalName; an existing one stays
        // (a changed one is refused by validation).
        let from_external = old.is_some_and(|o| !needs_cluster_ip(o));
        if old.is_none() || from_external {
            txn.cluster_ips(svc).await?;
        }
        let held: HashSet<i64> = old
            .map(node_ports)
            .unwrap_or_default()
            .into_iter()
            .collect();
        txn.node_ports(svc, &held).await
    }
    .await;
    if let Err(e) = result {
        let taken = std::mem::take(&mut txn.out);
        taken.finish(cx.store, false).await;
        return Err(e);
    }
    if let Some(old) = old {
        txn.free_dropped(svc, old).await;
    }
    Ok(txn.out)
}

/// `afterDelete`: the removed Service's records go.
pub async fn release(cx: &Context<'_>, svc: &Value) {
    let Ok(ranges) = alloc::ranges(cx.store).await else {
        return;
    };
    let owner = Owner {
        namespace: svc["metadata"]["namespace"].as_str().unwrap_or(""),
        name: svc["metadata"]["name"].as_str().unwrap_or(""),
    };
    let values = cluster_ips(svc)
        .into_iter()
        .map(|ip| (Pool::Ips(ranges.cidr), ip))
        .chain(
            node_ports(svc)
                .into_iter()
                .map(|p| (Pool::Ports(ranges.ports), p.to_string())),
        );
    for (pool, value) in values.collect::<Vec<_>>() {
        if let Some(rev) = held_by(cx.store, pool, &value, owner).await {
            let _ = cx.store.delete(&pool.key(&value), Some(rev)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::kinds::builtin::core::service::ip_range::Cidr;
    use crate::store::{MemoryStore, Store};

    async fn store() -> MemoryStore {
        let store = MemoryStore::new();
        let ranges = Ranges {
            cidr: Cidr::parse("10.0.0.0/24").unwrap(),
            ports: crate::api::kinds::builtin::core::service::ip_range::PortRange::parse(
                "30000-30100",
            )
            .unwrap(),
        };
        alloc::install(&store, &ranges).await.unwrap();
        store
    }

    fn svc(name: &str, spec: Value) -> Value {
        json!({"metadata": {"name": name, "namespace": "default"}, "spec": spec})
    }

    #[tokio::test]
    async fn creates_get_addresses_and_ports_and_deletes_free_them() {
        let store = store().await;
        let cx = Context::new(&store);
        let mut a = svc(
            "a",
            json!({"type": "NodePort", "ports": [
            {"port": 80, "protocol": "TCP"}, {"port": 80, "protocol": "UDP"}]}),
        );
        let taken = allocate(&cx, &mut a, None, false).await.unwrap();
        let ip = a["spec"]["clusterIP"].as_str().unwrap().to_string();
        assert!(ip.starts_with("10.0.0."), "{a}");
        assert_eq!(a["spec"]["clusterIPs"], json!([ip]));
        assert_eq!(a["spec"]["ipFamilies"], json!(["IPv4"]));
        assert_eq!(a["spec"]["ipFamilyPolicy"], "SingleStack");
        let np = a["spec"]["ports"][0]["nodePort"].as_i64().unwrap();
        assert!((30000..=30100).contains(&np));
        assert_eq!(
            a["spec"]["ports"][1]["nodePort"], np,
            "same port number, same node port"
        );
        assert_eq!(taken.taken.len(), 2);

        // Each refused create and its error.
        let refused = async |name: &str, spec: Value| {
            let mut service = svc(name, spec);
            allocate(&cx, &mut service, None, false)
                .await
                .unwrap_err()
                .message
        };
        let e = refused(
            "b",
            json!({"clusterIP": ip, "type": "NodePort",
            "ports": [{"port": 80, "protocol": "TCP", "nodePort": np}]}),
        )
        .await;
        assert_eq!(
            e,
            format!(
                "Service \"b\" is invalid: spec.clusterIPs: Invalid value: []string{{\"{ip}\"}}: failed to allocate IP {ip}: provided IP is already allocated"
            )
        );
        let e = refused(
            "c",
            json!({"type": "NodePort", "ports": [{"port": 80, "protocol": "TCP", "nodePort": np}]}),
        )
        .await;
        assert_eq!(
            e,
            format!(
                "Service \"c\" is invalid: spec.ports[0].nodePort: Invalid value: {np}: provided port is already allocated"
            )
        );
        let endings = [
            (
                "d",
                json!({"type": "NodePort", "ports": [{"port": 80, "protocol": "TCP", "nodePort": 8080}]}),
                "spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-30100",
            ),
            (
                "f",
                json!({"clusterIP": "10.1.0.1", "ports": [{"port": 80}]}),
                "failed to allocate IP 10.1.0.1: the provided network does not match the current range",
            ),
            (
                "g",
                json!({"clusterIP": "10.0.0.255", "ports": [{"port": 80}]}),
                "provided IP is not in the valid range. The range of valid IPs is 10.0.0.0/24",
            ),
        ];
        for (name, spec, ending) in endings {
            let e = refused(name, spec).await;
            assert!(e.ends_with(ending), "{e}");
        }

        // Failed allocations took nothing: the records left are a's two.
        let records = |p: &'static str| {
            let store = &store;
            async move { store.list(p, Default::default()).await.unwrap().items.len() }
        };
        assert_eq!(records("/registry/ipaddresses/").await, 1);
        assert_eq!(records("/registry/servicenodeports/").await, 1);

        // NodePort → ClusterIP frees the node port once the write succeeded.
        let mut to_cluster_ip = a.clone();
        to_cluster_ip["spec"]["type"] = json!("ClusterIP");
        for p in to_cluster_ip["spec"]["ports"].as_array_mut().unwrap() {
            p.as_object_mut().unwrap().remove("nodePort");
        }
        let txn = allocate(&cx, &mut to_cluster_ip, Some(&a), false)
            .await
            .unwrap();
        assert_eq!(txn.freed.len(), 1);
        txn.finish(&store, true).await;
        assert_eq!(records("/registry/servicenodeports/").await, 0);
        release(&cx, &to_cluster_ip).await;
        assert_eq!(records("/registry/ipaddresses/").await, 0);
    }

    #[tokio::test]
    async fn headless_and_external_name_services_take_nothing() {
        let store = store().await;
        let cx = Context::new(&store);
        let mut h = svc(
            "h",
            json!({"clusterIP": "None", "selector": {"app": "a"}, "ports": [{"port": 80}]}),
        );
        let taken = allocate(&cx, &mut h, None, false).await.unwrap();
        assert!(taken.taken.is_empty());
        assert_eq!(h["spec"]["clusterIPs"], json!(["None"]));
        assert_eq!(h["spec"]["ipFamilies"], json!(["IPv4"]));
        let mut e = svc(
            "e",
            json!({"type": "ExternalName", "externalName": "example.com"}),
        );
        let taken = allocate(&cx, &mut e, None, false).await.unwrap();
        assert!(taken.taken.is_empty());
        assert!(e["spec"].get("ipFamilies").is_none());
        // A dry run checks without taking.
        let mut dry = svc("d", json!({"ports": [{"port": 80}]}));
        let taken = allocate(&cx, &mut dry, None, true).await.unwrap();
        assert!(taken.taken.is_empty());
        assert!(
            dry["spec"]["clusterIP"]
                .as_str()
                .unwrap()
                .starts_with("10.0.0.")
        );
    }
}
