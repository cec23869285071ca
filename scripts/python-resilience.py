"""The official Python client against crd-server's expiring history and injected faults.

Run by scripts/python-resilience.sh, which starts crd-server with the fault rules this
script expects (see docs/testing-faults.md). Exits non-zero on the first surprise.
"""

import json
import sys

from kubernetes import client, watch
from kubernetes.client.rest import ApiException


def expect_api_exception(status, call):
    try:
        call()
    except ApiException as e:
        if e.status != status:
            sys.exit(f"expected {status}, got {e.status}: {e.body}")
        return e
    sys.exit(f"expected an ApiException {status}, the call succeeded")


def main(url):
    config = client.Configuration()
    config.host = url
    v1 = client.CoreV1Api(client.ApiClient(config))

    # A watch from resourceVersion 1 (older than the server's window): the client
    # retries once on the 410 ERROR event, then raises it, as against kube-apiserver.
    def watch_from_1():
        for _ in watch.Watch().stream(
            v1.list_namespaced_config_map, "default", resource_version="1", timeout_seconds=5
        ):
            pass

    e = expect_api_exception(410, watch_from_1)
    if "Expired: too old resource version: 1 (" not in str(e.reason):
        sys.exit(f"unexpected 410 reason: {e.reason}")

    # --fault verb=create,resource=configmaps,code=500,count=1: the first create fails
    # with kube-apiserver's InternalError, the caller's retry succeeds.
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py"}, "data": {"k": "v"}}
    e = expect_api_exception(500, lambda: v1.create_namespaced_config_map("default", body))
    if json.loads(e.body)["reason"] != "InternalError":
        sys.exit(f"unexpected 500 body: {e.body}")
    v1.create_namespaced_config_map("default", body)

    # --fault verb=list,resource=configmaps,code=429,count=1: TooManyRequests with
    # Retry-After: 1, which urllib3 under the client honours by itself (the wrapper
    # script checks the server's log that the 429 was answered).
    names = [cm.metadata.name for cm in v1.list_namespaced_config_map("default").items]
    if "py" not in names:
        sys.exit(f"the created ConfigMap is missing: {names}")
    print("python client: 410 watch, 500 create and 429 list (retried) handled as against kube-apiserver")


if __name__ == "__main__":
    main(sys.argv[1])
