"""rnnviz.serve and deploy/: the nginx config it renders, and a class served by 2 replicas behind Debian's nginx."""
import asyncio
import gzip
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
import tomllib

from benchmarks.load import Session
from rnnviz.serve import ROOT, free_ports, nginx_config, render
from ui import chart

NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
UPLOAD_MIB = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]


def need_nginx() -> None:
    """Skip on a developer machine without nginx; in CI (CI=true) a missing nginx is a failure."""
    if NGINX is None:
        if os.environ.get("CI"):
            pytest.fail("the serving tests must run in CI, but nginx is missing (apt-get install -y nginx)")
        pytest.skip("nginx not installed")


def test_config_upgrades_the_websocket_closes_metrics_and_caps_uploads_like_streamlit(tmp_path):
    conf = nginx_config(["127.0.0.1:8601", "127.0.0.1:8602"], "127.0.0.1:8600", tmp_path)
    stream = re.search(r"location /_stcore/stream \{(.*?)\}", conf, re.S).group(1)
    assert "proxy_set_header Upgrade $http_upgrade;" in stream
    assert "proxy_set_header Connection $connection_upgrade;" in stream
    assert "proxy_http_version 1.1;" in conf and "proxy_read_timeout 1d;" in stream
    assert re.search(r"location \^~ /_stcore/metrics \{\s*return 404;\s*\}", conf)
    assert f"client_max_body_size {UPLOAD_MIB}m;" in conf
    assert "hash $rnnviz_visitor consistent;" in conf
    servers = re.findall(r"^\s*server (\S+) max_fails=\d+ fail_timeout=\d+s;", conf, re.M)
    assert servers == ["127.0.0.1:8601", "127.0.0.1:8602"]
    assert "listen 127.0.0.1:8600;" in conf
    assert "${" not in conf and str(tmp_path / "nginx.pid") in conf


def test_compose_gives_nginx_the_same_upload_cap_and_every_placeholder():
    compose = (ROOT / "deploy" / "compose.yaml").read_text()
    assert re.search(rf'MAX_BODY: "{UPLOAD_MIB}m"', compose)
    names = set(re.findall(r"\$\{([A-Z_]+)\}", (ROOT / "deploy" / "nginx.conf.template").read_text()))
    for name in names:
        assert re.search(rf"^\s+{name}: ", compose, re.M), f"compose.yaml does not set {name}"
        assert f"$${{{name}}}" in compose, f"compose.yaml's envsubst list lacks {name}"
    assert re.search(r"^ENV .*MALLOC_ARENA_MAX=2", (ROOT / "deploy" / "Dockerfile").read_text(), re.M | re.S)


def test_render_refuses_a_missing_or_unknown_placeholder():
    with pytest.raises(KeyError):
        render("listen ${LISTEN}; ${SERVERS}", LISTEN="8600")
    with pytest.raises(KeyError):
        render("listen ${LISTEN};", LISTEN="8600", SERVERS="")
    assert render("listen ${LISTEN}; set $x $host;", LISTEN="8600") == "listen 8600; set $x $host;"


def test_rendered_config_passes_nginx_t(tmp_path):
    need_nginx()
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_config(["127.0.0.1:8601"], "127.0.0.1:8600", tmp_path))
    out = subprocess.run([NGINX, "-t", "-c", str(conf), "-p", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def alive(pid: int) -> bool:
    """True while pid exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def descendants(pid: int) -> set[int]:
    """Every process below pid (children, grandchildren, ...), from /proc."""
    parent = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            pass
    found, todo = set(), [pid]
    while todo:
        top = todo.pop()
        kids = [c for c, p in parent.items() if p == top]
        found.update(kids)
        todo += kids
    return found


def read_until(proc: subprocess.Popen, marker: str, timeout: float) -> str:
    """The launcher's stdout up to the line holding marker; fail if it exits or takes longer than timeout."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    text, deadline = "", time.monotonic() + timeout
    while marker not in text:
        try:
            text += lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            pytest.fail(f"no {marker!r} from rnnviz.serve within {timeout} s; got {text!r}")
    return text


def upload(s: Session, name: str = "card.json", content: bytes = b"{}") -> int:
    """PUT a file into s's Streamlit session through the balancer, as the file uploader does; the status."""
    s.http("/_stcore/health")  # the XSRF cookie, as the browser gets it
    xsrf, boundary = s.cookies["_streamlit_xsrf"], "rnnviz-test"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
    return s.http(f"/_stcore/upload_file/{s.session_id}/{uuid.uuid4()}", body, "PUT",
                  {"X-Xsrftoken": xsrf, "Content-Type": f"multipart/form-data; boundary={boundary}"})


async def visitors(url: str, values: list[float]) -> list[tuple[Session, int]]:
    """Visitors on the one-unit page at once, each setting its own w_h, then uploading a file; (session, status)."""
    sessions = [Session(url, "scalar") for _ in values]
    await asyncio.gather(*(s.open() for s in sessions))
    await asyncio.gather(*(s.rerun(s.move("scalar.w_h", v)) for s, v in zip(sessions, values)))
    statuses = [await asyncio.to_thread(upload, s) for s in sessions]
    await asyncio.gather(*(s.ws.close() for s in sessions))
    return list(zip(sessions, statuses))


def upstreams(log: Path, visitor: str, path: str = "") -> set[str]:
    """The replicas nginx sent this visitor's requests (under path) to, from the access log."""
    return {m.group(1) for line in log.read_text().splitlines() if f"visitor={visitor}" in line and f" {path}" in line
            for m in [re.search(r"upstream=(\S+)", line)] if m and m.group(1) != "-"}


@pytest.mark.slow
def test_two_replicas_behind_nginx_serve_separate_visitors_and_stop_without_orphans(tmp_path):
    need_nginx()
    port = free_ports("127.0.0.1", 8600, 1)[0]
    proc = subprocess.Popen([sys.executable, "-m", "rnnviz.serve", "--replicas", "2", "--port", str(port),
                             "--workdir", str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        banner = read_until(proc, "rnnviz on", timeout=120)
        started = {int(p) for p in re.findall(r"pid (\d+)", banner)} | descendants(proc.pid)
        assert len(re.findall(r"^replica \d: pid", banner, re.M)) == 2 and len(started) >= 4  # + nginx + a worker
        for pid in re.findall(r"^replica \d: pid (\d+)", banner, re.M):  # few malloc pools: memory handed back
            assert b"MALLOC_ARENA_MAX=2" in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        url, log = f"http://127.0.0.1:{port}", tmp_path / "access.log"

        (a, up_a), (b, up_b) = asyncio.run(visitors(url, [0.6, 0.9]))
        assert "wh=0.6" in a.query and "wh=0.9" in b.query  # each visitor keeps its own page state
        assert a.exceptions == b.exceptions == 0
        assert up_a == up_b == 204  # an upload reaches the replica that holds the visitor's session
        js = urllib.request.urlopen(urllib.request.Request(  # plotly.js for the charts, compressed, kept for good
            f"{url}/app/static/{chart.PLOTLY_JS}", headers={"Accept-Encoding": "gzip"}), timeout=30)
        assert js.headers["Content-Encoding"] == "gzip" and "immutable" in js.headers["Cache-Control"]
        assert gzip.decompress(js.read()) == chart.SOURCE.read_bytes()
        time.sleep(0.3)  # nginx logs the request once it is done
        sent = re.findall(rf'"GET /app/static/{re.escape(chart.PLOTLY_JS)} [^"]*" 200 (\d+) .*upstream_bytes=(\d+)',
                          log.read_text())
        assert sent and int(sent[-1][0]) < 2_000_000 < int(sent[-1][1])  # compressed by nginx, not by the replica
        seen: set[str] = set()
        ids = [a.cookies["rnnviz_visitor"], b.cookies["rnnviz_visitor"]]
        for _ in range(10):  # a new visitor lands on either replica: keep arriving until both have had one
            time.sleep(0.3)  # nginx logs a websocket when it closes
            seen = set().union(*(upstreams(log, v, "/_stcore/stream") for v in ids))
            if len(seen) == 2:
                break
            (s, up), = asyncio.run(visitors(url, [1.1]))
            assert up == 204 and "wh=1.1" in s.query
            ids.append(s.cookies["rnnviz_visitor"])
        assert len(seen) == 2, f"{len(ids)} visitors' websockets all went to {seen}"
        for v in ids:  # and all of a visitor's requests went to one replica
            assert len(upstreams(log, v)) == 1, v
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    assert proc.returncode == 0
    assert [p for p in started if alive(p)] == []


async def upload_files(url: str, files: list[Path]) -> list[int]:
    """One visitor on the sampling page uploads these files, one after another; each upload's status."""
    s = Session(url, "sample")
    await s.open()
    try:
        return [await asyncio.to_thread(upload, s, f.name, f.read_bytes()) for f in files]
    finally:
        await s.ws.close()


@pytest.mark.slow
def test_the_shipped_model_uploads_through_the_launcher_with_its_defaults():
    """Run as root (as in a container or CI), nginx's workers are `nobody`: a request body over 16 KB goes to a temp
    file they must be able to write, which they cannot inside the launcher's own 0700 work directory."""
    need_nginx()
    port = free_ports("127.0.0.1", 8700, 1)[0]
    proc = subprocess.Popen([sys.executable, "-m", "rnnviz.serve", "--replicas", "1", "--port", str(port)],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        banner = read_until(proc, "rnnviz on", timeout=120)
        conf = Path(re.search(r"config (\S+)", banner).group(1))
        temp = Path(re.search(r"client_body_temp_path (\S+)/body;", conf.read_text()).group(1))
        model = ROOT / "models" / "shakespeare.safetensors"
        assert model.stat().st_size > 1_000_000
        statuses = asyncio.run(upload_files(f"http://127.0.0.1:{port}", [model, model.with_suffix(".json")]))
        assert statuses == [204, 204], (conf.parent / "error.log").read_text()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    assert proc.returncode == 0
    assert not conf.parent.exists() and not temp.exists()  # the work and temp directories are removed
