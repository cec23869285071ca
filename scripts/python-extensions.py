"""The official Python client against crd-server's extension points.

Run by scripts/python-extensions.sh with the kubeconfig of a crd-server whose token and
authorization webhooks are scripts/python-webhooks.py (`webhooks`), behind which the
metrics-apiserver example serves metrics.example.com/v1 (`up`), or after it was stopped
(`down`). Exits non-zero on the first surprise.
"""

import sys

from kubernetes import client, config, dynamic
from kubernetes.client.rest import ApiException


def expect_status(status, call, wanted=""):
    try:
        call()
    except ApiException as e:
        if e.status != status or wanted not in e.body:
            sys.exit(f"expected {status} with {wanted!r}, got {e.status}: {e.body}")
        return
    sys.exit(f"expected {status}, the call succeeded")


def webhooks(admin):
    # alice: a user only the token webhook knows, allowed only by the authorization webhook.
    config = client.Configuration()
    config.host = admin.configuration.host
    config.ssl_ca_cert = admin.configuration.ssl_ca_cert
    config.api_key = {"authorization": "Bearer alice-token"}
    alice = client.CoreV1Api(client.ApiClient(config))
    alice.list_namespaced_config_map("default")
    expect_status(403, lambda: alice.list_namespaced_secret("default"),
                  'User \\"alice\\" cannot list resource \\"secrets\\" in API group \\"\\" in the namespace \\"default\\": secrets are not for alice')
    expect_status(403, lambda: alice.list_namespaced_pod("default"),
                  'User \\"alice\\" cannot list resource \\"pods\\"')
    config.api_key = {"authorization": "Bearer mallory-token"}
    stranger = client.CoreV1Api(client.ApiClient(config))
    expect_status(401, lambda: stranger.list_namespaced_config_map("default"), "Unauthorized")
    print("python client: the token webhook's user, allowed and denied by the authorization webhook, a 401 for an unknown token")


def up(api):
    # Legacy discovery lists the group; the dynamic client resolves the kind through it.
    groups = [g.name for g in client.ApisApi(api).get_api_versions().groups]
    if "metrics.example.com" not in groups:
        sys.exit(f"the group is not discovered: {groups}")
    dyn = dynamic.DynamicClient(api)
    resource = dyn.resources.get(api_version="metrics.example.com/v1", kind="NodeMetrics")
    if resource.namespaced or resource.name != "nodemetrics":
        sys.exit(f"unexpected resource: {resource.name} namespaced={resource.namespaced}")
    # One NodeMetrics per Node: node-a and the server's simulated node.
    names = [i.metadata.name for i in resource.get().items]
    if "node-a" not in names or len(names) != len(client.CoreV1Api(api).list_node().items):
        sys.exit(f"unexpected list: {names}")
    custom = client.CustomObjectsApi(api)
    one = custom.get_cluster_custom_object("metrics.example.com", "v1", "nodemetrics", "node-a")
    if one["usage"]["cpu"] != "1000m" or one["window"] != "30s":
        sys.exit(f"unexpected object: {one}")
    try:
        custom.get_cluster_custom_object("metrics.example.com", "v1", "nodemetrics", "node-z")
        sys.exit("a missing node's metrics were found")
    except ApiException as e:
        if e.status != 404:
            sys.exit(f"expected 404, got {e.status}: {e.body}")
    print("python client: discovery, dynamic list and get of the aggregated kind through crd-server")


def down(api):
    custom = client.CustomObjectsApi(api)
    try:
        custom.list_cluster_custom_object("metrics.example.com", "v1", "nodemetrics")
        sys.exit("the stopped extension server answered")
    except ApiException as e:
        body = e.body.strip()
        refused = body.startswith("dial tcp 127.0.0.1:") and "connection refused" in body
        if e.status != 503 or not (refused or body == "service unavailable"):
            sys.exit(f"expected 503, got {e.status}: {e.body}")
    print("python client: 503 once the extension server is gone")


def main(kubeconfig, phase):
    api = config.new_client_from_config(config_file=kubeconfig)
    {"webhooks": webhooks, "up": up, "down": down}[phase](api)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
