#!/usr/bin/env python3
"""Writes the benchmark objects (run from this directory; output is committed).

prometheus.json: a ~50 KB Prometheus object built by walking the real CRD's schema:
every property down to a depth limit, lists with two items, values that satisfy
enums, patterns, formats and bounds, the way a large hand-written resource looks.
crontab.json: a ~1 KB CronTab with the metadata a real object carries.
`gen.py --crontab-lines PATH` writes 100,000 CronTabs as JSON lines instead.
"""
import json, random, re, sys

import yaml

random.seed(7)
CORPUS = "../../../../shared/corpus/crds"

def schema_of(path):
    crd = yaml.safe_load(open(f"{CORPUS}/{path}"))
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]

WORDS = ["alpha", "beta", "gamma", "delta", "prod", "web", "metrics", "team-a"]

def string_for(s, name):
    if "enum" in s:
        return s["enum"][0]
    fmt = s.get("format")
    if fmt == "date-time":
        return "2024-05-01T10:00:00Z"
    if fmt == "duration":
        return "30s"
    pat = s.get("pattern")
    cands = ["30s", "1", "100Mi", "web-0", "a", "example.com", "10.0.0.1", "http://example.com", "1h", "/metrics", "v1"]
    if pat:
        for c in cands:
            try:
                if re.search(pat, c):
                    return c
            except re.error:
                pass
        return None
    v = f"{random.choice(WORDS)}-{name.lower()[:12]}"
    if "maxLength" in s:
        v = v[: s["maxLength"]]
    if len(v) < s.get("minLength", 0):
        v = v + "x" * (s["minLength"] - len(v))
    return v

def gen(s, name, depth, budget):
    if s.get("x-kubernetes-int-or-string"):
        return "1"
    t = s.get("type")
    if t == "object":
        out = {}
        props = s.get("properties")
        if props:
            if depth > budget:
                return {k: gen(props[k], k, depth + 1, budget) for k in s.get("required", []) if k in props}
            for k, sub in props.items():
                v = gen(sub, k, depth + 1, budget)
                if v is not None:
                    out[k] = v
            return out
        if "additionalProperties" in s and isinstance(s["additionalProperties"], dict):
            sub = s["additionalProperties"]
            v1 = gen(sub, name, depth + 1, budget)
            return {} if v1 is None else {"app.kubernetes.io/name": v1, "team": v1}
        return {}
    if t == "array":
        it = s.get("items", {})
        n = 2 if depth <= budget else 1
        items = [gen(it, name, depth + 1, budget) for _ in range(n)]
        items = [i for i in items if i is not None]
        lt = s.get("x-kubernetes-list-type")
        if lt == "set" and len(items) > 1 and items[0] == items[1]:
            items = items[:1]
        if lt == "map" and len(items) > 1:
            items = items[:1]
        if len(items) > 1 and isinstance(items[0], dict):
            # distinct names, as real lists have
            for i, it2 in enumerate(items):
                if "name" in it2 and isinstance(it2["name"], str):
                    it2["name"] = f"{it2['name']}-{i}"
        return items
    if t == "string":
        return string_for(s, name)
    if t == "integer":
        lo = s.get("minimum", 0)
        return int(max(lo, 1)) if s.get("maximum", 10**9) >= 1 else int(lo)
    if t == "number":
        return 0.5 if s.get("minimum", 0) <= 0.5 <= s.get("maximum", 1e9) else s.get("minimum", 1)
    if t == "boolean":
        return False
    if s.get("x-kubernetes-preserve-unknown-fields"):
        return {"key": "value"}
    return None

def prometheus():
    s = schema_of("prometheus-operator/prometheuses.monitoring.coreos.com.yaml")
    spec = s["properties"]["spec"]
    obj = None
    for budget in range(2, 12):
        candidate = {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "Prometheus",
            "metadata": {"name": "k8s", "namespace": "monitoring",
                          "labels": {"app.kubernetes.io/name": "prometheus", "app.kubernetes.io/part-of": "kube-prometheus"}},
            "spec": gen(spec, "spec", 1, budget),
        }
        size = len(json.dumps(candidate))
        if size > 60_000:
            break
        obj = candidate
    return obj

def crontab():
    return {
        "apiVersion": "stable.example.com/v1",
        "kind": "CronTab",
        "metadata": {
            "name": "my-new-cron-object",
            "namespace": "default",
            "labels": {"app.kubernetes.io/name": "cron", "app.kubernetes.io/instance": "nightly",
                        "app.kubernetes.io/managed-by": "helm", "team": "platform"},
            "annotations": {"meta.helm.sh/release-name": "nightly", "meta.helm.sh/release-namespace": "default",
                             "description": "Runs the nightly report job for the platform team; owned by the platform on-call rotation."},
            "uid": "6f1c8e2a-3b4d-4c5e-8f9a-0b1c2d3e4f50",
            "resourceVersion": "123456",
            "generation": 3,
            "creationTimestamp": "2024-05-01T10:00:00Z",
            "finalizers": ["stable.example.com/cleanup"],
        },
        "spec": {"cronSpec": "*/5 * * * *", "image": "registry.example.com/platform/report:1.4.2", "replicas": 3},
        "status": {"replicas": 3, "labelSelector": "app.kubernetes.io/name=cron,app.kubernetes.io/instance=nightly"},
    }

if len(sys.argv) == 3 and sys.argv[1] == "--crontab-lines":
    # JSON lines for the whole-process figure: 100,000 CronTabs, one in 12 invalid
    # twice over (replicas 0 and 11 are out of range).
    base = crontab()
    with open(sys.argv[2], "w") as f:
        for i in range(100_000):
            base["metadata"]["name"] = f"cron-{i}"
            base["spec"]["replicas"] = i % 12
            f.write(json.dumps(base, separators=(",", ":")) + "\n")
    sys.exit(0)

p = prometheus()
json.dump(p, open("prometheus.json", "w"), indent=1, sort_keys=True)
json.dump(crontab(), open("crontab.json", "w"), indent=1, sort_keys=True)
print("prometheus.json", len(json.dumps(p)), "bytes compact;", "crontab.json", len(json.dumps(crontab())))
