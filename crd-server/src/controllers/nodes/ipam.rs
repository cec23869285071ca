//! The node IPAM controller (`nodeipam`, kube-controller-manager's range allocator):
//! each node without a `podCIDR` gets the lowest free per-node range of
//! `--cluster-cidr` (`spec.podCIDR` and `spec.podCIDRs`); when none is left it gets
//! the `CIDRNotAvailable` event instead.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};

use super::cidr::Cidr;
use crate::api::kinds::Subresource;
use crate::api::object::str_at;
use crate::controllers::cache::{Event, Informer};
use crate::controllers::client::Mutation;
use crate::controllers::queue::Queue;
use crate::controllers::workload::{Api, MAX_RETRY, Next, work};

/// Runs the allocator until aborted (one worker: two nodes never get one range).
pub async fn ipam(api: Api) {
    let Ok(nodes) = api.informer("", "nodes") else {
        return;
    };
    let Ok(cluster) = Cidr::parse(&api.workloads.cluster_cidr) else {
        // Refused at start (`--cluster-cidr`): nothing to allocate from.
        return;
    };
    let queue = Arc::new(Queue::new(MAX_RETRY));
    let q = queue.clone();
    nodes.subscribe(Arc::new(move |e: &Event| {
        if e.new
            .as_deref()
            .is_some_and(|n| str_at(n, "/spec/podCIDR").is_empty())
        {
            q.add(e.key.clone());
        }
    }));
    nodes.synced().await;
    let c = Arc::new((api, nodes, cluster));
    work(queue, 1, move |name: String| {
        let c = c.clone();
        async move { allocate(&c.0, &c.1, &c.2, &name).await }
    })
    .await;
}

/// The lowest range of `cluster` none of `nodes` has.
pub fn free_range(cluster: &Cidr, nodes: &[Arc<Value>]) -> Option<Cidr> {
    let mask = cluster.node_mask().max(cluster.prefix());
    let taken: HashSet<u128> = nodes
        .iter()
        .filter_map(|n| Cidr::parse(str_at(n, "/spec/podCIDR")).ok())
        .filter_map(|c| cluster.index_of(mask, &c))
        .collect();
    let count = cluster.subnets(mask)?.min(1 << 20);
    (0..count)
        .find(|i| !taken.contains(i))
        .and_then(|i| cluster.subnet(mask, i))
}

async fn allocate(api: &Api, nodes: &Informer, cluster: &Cidr, name: &str) -> Result<Next, String> {
    let Some(node) = nodes.get("", name) else {
        return Ok(Next::Done);
    };
    if !str_at(&node, "/spec/podCIDR").is_empty() {
        return Ok(Next::Done);
    }
    let Some(range) = free_range(cluster, &nodes.list(None)) else {
        let msg = format!("Node {name} status is now: CIDRNotAvailable");
        api.event(&node, "Normal", "CIDRNotAvailable", &msg, "cidrAllocator")
            .await;
        return Ok(Next::Done);
    };
    let range = range.to_string();
    let mutate = |current: &Value| {
        if !str_at(current, "/spec/podCIDR").is_empty() {
            return Mutation::Keep;
        }
        let mut next = current.clone();
        if !next.get("spec").is_some_and(Value::is_object) {
            next["spec"] = json!({});
        }
        next["spec"]["podCIDR"] = json!(range);
        next["spec"]["podCIDRs"] = json!([range]);
        Mutation::Write(next)
    };
    api.update(nodes, "", name, Subresource::Main, mutate)
        .await
        .map_err(|e| e.message)?;
    Ok(Next::Done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_lowest_free_range() {
        let cluster = Cidr::parse("10.244.0.0/16").unwrap();
        let node = |cidr: &str| Arc::new(json!({"spec": {"podCIDR": cidr}}));
        let nodes = [node("10.244.0.0/24"), node("10.244.2.0/24"), node("")];
        assert_eq!(
            free_range(&cluster, &nodes).unwrap().to_string(),
            "10.244.1.0/24"
        );
        let tiny = Cidr::parse("10.0.0.0/24").unwrap();
        assert_eq!(free_range(&tiny, &[]).unwrap().to_string(), "10.0.0.0/24");
        assert_eq!(free_range(&tiny, &[node("10.0.0.0/24")]), None);
    }
}
