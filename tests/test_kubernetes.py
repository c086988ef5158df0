"""deploy/kubernetes/: every manifest valid against Kubernetes' own schemas, strictly (no unknown field), offline
(kubernetes-validate bundles the schemas), and wired together: probes on the health endpoint, the Service and the
autoscaler finding the Deployment, cookie affinity and websocket timeouts at the Ingress, Redis persisted."""
import os
import re
from pathlib import Path

import pytest
import yaml

from rnnviz.nginx import upload_limit_mib
from rnnviz.serve import ROOT

HERE = ROOT / "deploy" / "kubernetes"
VERSIONS = ("1.30.0", "1.37.0")  # the oldest Kubernetes still in common support when written, and the newest bundled


def manifests() -> dict[tuple[str, str], dict]:
    """(kind, name) -> the resource, from every YAML file in deploy/kubernetes/."""
    out = {}
    for f in sorted(HERE.glob("*.yaml")):
        for doc in yaml.safe_load_all(f.read_text()):
            if doc:
                out[doc["kind"], doc["metadata"]["name"]] = doc
    return out


def test_every_manifest_validates_strictly_offline():
    try:
        import kubernetes_validate
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("kubernetes-validate must run in CI (requirements-dev.txt)")
        pytest.skip("kubernetes-validate not installed (pip install -r requirements-dev.txt)")
    found = manifests()
    assert {k for k, _ in found} == {"Deployment", "Service", "PodDisruptionBudget", "Ingress", "StatefulSet",
                                     "HorizontalPodAutoscaler"}
    for version in VERSIONS:
        for (kind, name), doc in found.items():
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except kubernetes_validate.ValidationError as e:
                pytest.fail(f"{kind}/{name} against Kubernetes {version}: {e.message} at {list(e.path)}")
    bad = yaml.safe_load(yaml.safe_dump(found["Deployment", "rnnviz"]).replace("readinessProbe", "readinesProbe"))
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, VERSIONS[-1], strict=True)


def test_the_pieces_find_each_other_and_follow_the_app():
    found = manifests()
    app, svc = found["Deployment", "rnnviz"], found["Service", "rnnviz"]
    pod = app["spec"]["template"]
    assert app["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    assert svc["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    c, = pod["spec"]["containers"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert c[probe]["httpGet"]["path"] == "/_stcore/health", probe
    assert re.fullmatch(r"\S+:\d+\.\d+\.\d+(@sha256:[0-9a-f]{64})?", c["image"])  # no floating tag
    assert c["resources"]["requests"]["cpu"] and c["resources"]["requests"]["memory"] and c["resources"]["limits"]
    env = {e["name"]: e["value"] for e in c["env"]}
    redis, redis_svc = found["StatefulSet", "rnnviz-redis"], found["Service", "rnnviz-redis"]
    assert env["RNNVIZ_REDIS_URL"] == f"redis://{redis_svc['metadata']['name']}:6379/0"
    host = found["Ingress", "rnnviz"]["spec"]["rules"][0]["host"]
    assert env["RNNVIZ_PUBLIC_URL"] == f"https://{host}" and c["command"][c["command"].index("--server.allowedHosts")
                                                                         + 1] == host
    hpa = found["HorizontalPodAutoscaler", "rnnviz"]["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "rnnviz"}
    assert hpa["behavior"]["scaleDown"]["stabilizationWindowSeconds"] >= 600  # a pod's sessions leave with it
    ingress = found["Ingress", "rnnviz"]["metadata"]["annotations"]
    assert ingress["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    assert int(ingress["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600  # websockets of a lesson
    assert ingress["nginx.ingress.kubernetes.io/proxy-body-size"] == f"{upload_limit_mib(ROOT)}m"
    r, = redis["spec"]["template"]["spec"]["containers"]
    assert r["args"][r["args"].index("--appendonly") + 1] == "yes" and redis["spec"]["volumeClaimTemplates"]
    assert re.fullmatch(r"redis:\d+\.\d+\.\d+-alpine", r["image"])
    assert Path(HERE / "README.md").is_file()
