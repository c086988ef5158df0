"""rnnviz.serve and deploy/: the nginx config it renders, and a class served by 2 replicas behind Debian's nginx."""
import asyncio
import gzip
import http.client
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
import tomllib

from benchmarks.load import Session
from rnnviz.nginx import host_rule, nginx_config, render
from rnnviz.processes import free_ports, keep_log, rotate_nginx_logs
from rnnviz.serve import ROOT
from tests.browser import free_port
from ui.live import assets

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
    servers = re.findall(r"^\s*server (\S+) max_fails=\d+ fail_timeout=\d+s max_conns=\d+;", conf, re.M)
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
    assert re.search(r"^ENV .*MALLOC_ARENA_MAX=2", (ROOT / "Dockerfile").read_text(), re.M | re.S)


def test_the_spaces_header_in_the_readme_names_the_port_the_image_serves():
    """A Hugging Face Docker Space builds ./Dockerfile and sends visitors to app_port from its README's header."""
    import yaml

    header = re.search(r"```yaml\n(---\ntitle: rnnviz\n.*?---)\n```", (ROOT / "README.md").read_text(), re.S)
    meta = yaml.safe_load(header.group(1).strip("-\n"))
    docker = (ROOT / "Dockerfile").read_text()
    assert meta["sdk"] == "docker" and f"EXPOSE {meta['app_port']}" in docker
    assert re.search(rf'CMD \[.*"--server.port", "{meta["app_port"]}"', docker)
    assert re.search(r"useradd .*--uid 1000 ", docker)  # the user a Space runs


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


def test_with_server_names_nginx_answers_only_those_hosts(tmp_path):
    """--server-name: a request for another Host (a stranger's domain pointed here, a DNS-rebinding page) is closed
    unanswered; the named host and its port reach the app. Real nginx in front of a one-line HTTP server."""
    need_nginx()
    with pytest.raises(ValueError):
        host_rule(["evil.example/x"])
    app_port, port = free_port(), free_port()
    upstream = subprocess.Popen([sys.executable, "-m", "http.server", str(app_port), "--bind", "127.0.0.1",
                                 "--directory", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    (tmp_path / "index.html").write_text("app")
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_config([f"127.0.0.1:{app_port}"], f"127.0.0.1:{port}", tmp_path,
                                 server_names=["rnnviz.example.org", "Class.Example.org"]))
    nginx = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(tmp_path), "-g", "daemon off;"])
    try:
        def get(host: str) -> int | None:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            try:
                c.request("GET", "/", headers={"Host": host})
                return c.getresponse().status
            except (http.client.RemoteDisconnected, ConnectionResetError):
                return None  # 444: nginx closed the connection without a word
            except ConnectionRefusedError:
                return -1  # nginx not listening yet
            finally:
                c.close()
        deadline = time.monotonic() + 20
        while get(f"rnnviz.example.org:{port}") != 200:
            assert time.monotonic() < deadline, "nginx or the upstream did not come up"
            time.sleep(0.2)
        assert get("class.example.org") == 200
        assert get("evil.example") is None and get(f"127.0.0.1:{port}") is None
        assert get("rnnviz.example.org.evil.example") is None  # the whole name, not a prefix
    finally:
        for p in (nginx, upstream):
            p.terminate()
            p.wait(10)
    assert "# any Host" in nginx_config(["127.0.0.1:1"], "127.0.0.1:2", tmp_path)  # the default: any Host


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
            f"{url}/app/static/{assets.PLOTLY_JS}", headers={"Accept-Encoding": "gzip"}), timeout=30)
        assert js.headers["Content-Encoding"] == "gzip" and "immutable" in js.headers["Cache-Control"]
        assert gzip.decompress(js.read()) == assets.SOURCE.read_bytes()
        time.sleep(0.3)  # nginx logs the request once it is done
        sent = re.findall(rf'"GET /app/static/{re.escape(assets.PLOTLY_JS)} [^"]*" 200 (\d+) .*upstream_bytes=(\d+)',
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


def test_config_limits_each_visitor_and_frames_nothing_foreign(tmp_path):
    conf = nginx_config(["127.0.0.1:8601"], "127.0.0.1:8600", tmp_path)
    uploads = re.search(r"location \^~ /_stcore/upload_file/ \{(.*?)\}", conf, re.S).group(1)
    assert f"client_max_body_size {UPLOAD_MIB}m;" in uploads and re.search(r"limit_req zone=visitor_upload", uploads)
    assert re.search(r"limit_conn visitor_uploads \d;", uploads)
    stream = re.search(r"location /_stcore/stream \{(.*?)\}", conf, re.S).group(1)
    assert re.search(r"limit_conn visitor_sessions \d+;", stream)
    assert re.search(r"^\s*client_max_body_size 1m;", conf, re.M)  # nothing else has a body
    assert "limit_req_zone $rnnviz_visitor" in conf and "limit_conn_zone $rnnviz_visitor" in conf
    assert conf.count("add_header X-Frame-Options SAMEORIGIN always;") == 2  # the server's, and static files'
    assert conf.count("frame-ancestors 'self'") == 2
    assert conf.count("location ~ /\\. {") == 2  # no dotfiles, in /app/static/ too (a ^~ prefix skips regexes)


def test_replica_logs_are_capped_and_rotated(tmp_path):
    read, write = os.pipe()
    log = tmp_path / "replica-1.log"
    copier = keep_log(os.fdopen(read, "rb"), log, max_bytes=100_000)
    with os.fdopen(write, "wb") as out:
        for i in range(20_000):  # 1.2 MB of warnings
            out.write(b"Client tried to shut down runtime when not in development mode %06d\n" % i)
    copier.join(10)
    assert log.stat().st_size <= 100_000 and log.with_name("replica-1.log.1").stat().st_size <= 100_000
    assert log.read_text().splitlines()[-1].endswith("019999")  # the latest lines are kept
    assert len(list(tmp_path.iterdir())) == 2


def test_nginx_logs_are_moved_aside_past_their_cap_and_reopened(tmp_path):
    (tmp_path / "access.log").write_bytes(b"x" * 2000)
    (tmp_path / "error.log").write_bytes(b"y" * 10)
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        rotate_nginx_logs(tmp_path, sleeper.pid, max_bytes=1000)
        assert sleeper.wait(5) == -signal.SIGUSR1  # it ends a plain sleep; nginx reopens its logs on it
    finally:
        sleeper.kill()
    assert (tmp_path / "access.log.1").stat().st_size == 2000 and not (tmp_path / "access.log").exists()
    assert (tmp_path / "error.log").stat().st_size == 10


def test_compose_caps_logs_and_replaces_a_hung_replica():
    import yaml

    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    for name, service in compose["services"].items():
        assert service["logging"]["driver"] == "json-file" and service["logging"]["options"]["max-size"], name
    app = compose["services"]["app"]
    assert app["init"] is True and "deploy/healthcheck.py" in app["healthcheck"]["test"]


def test_the_compose_healthcheck_kills_the_app_after_three_failures(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "deploy"))
    import healthcheck

    monkeypatch.setattr(healthcheck, "URL", "http://127.0.0.1:9/_stcore/health")  # nothing answers
    monkeypatch.setattr(healthcheck, "COUNT", tmp_path / "count")
    app = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "streamlit"])
    monkeypatch.setattr(healthcheck, "app_pids", lambda: [app.pid])
    try:
        assert [healthcheck.main() for _ in range(2)] == [1, 1] and app.poll() is None
        assert healthcheck.main() == 1
        assert app.wait(5) == -signal.SIGKILL
    finally:
        app.kill()
    monkeypatch.undo()
    probe = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "streamlit"])
    try:  # the app is found by "streamlit" in its command line (once the child has exec'd: until then its
        # /proc cmdline is still pytest's), and this process is not
        deadline = time.monotonic() + 10
        while probe.pid not in healthcheck.app_pids() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert probe.pid in healthcheck.app_pids() and os.getpid() not in healthcheck.app_pids()
    finally:
        probe.kill()


async def hang_one_replica(url: str, log: Path, replicas: dict[int, int], lines: list[str]) -> dict:
    """The limits a visitor meets, then a bystander rerunning every 0.5 s while the other replica is stopped."""
    out = {}
    first = Session(url, "scalar")
    await first.open()
    tabs, refused = [first], 0
    for _ in range(7):  # one visitor opens 8 sessions (tabs)
        s = Session(url, "scalar")
        s.cookies["rnnviz_visitor"] = first.cookies["rnnviz_visitor"]
        try:
            await s.open()
            tabs.append(s)
        except Exception:
            refused += 1
    out["sessions"] = (len(tabs), refused)
    out["uploads"] = [await asyncio.to_thread(upload, first) for _ in range(12)]
    for s in tabs:
        await s.ws.close()

    b = Session(url, "scalar")
    await b.open()
    b.http("/_stcore/host-config")  # a request with its cookie: the access log names its replica
    time.sleep(0.3)
    mine = int(next(iter(upstreams(log, b.cookies["rnnviz_visitor"]))).rsplit(":", 1)[1])
    other = next(p for p in replicas if p != mine)
    os.kill(replicas[other], signal.SIGSTOP)
    t0, k, errors, replaced = time.monotonic(), 0, 0, None
    while time.monotonic() - t0 < 40 and (replaced is None or time.monotonic() - t0 < replaced + 3):
        try:
            await b.rerun(b.move("scalar.w_h", 0.55 + 0.05 * (k % 10)))
        except Exception:
            errors += 1
        k += 1
        if replaced is None and any(f"http://127.0.0.1:{other} " in line and "pid" in line
                                    and f"pid {replicas[other]} " not in line for line in lines):
            replaced = time.monotonic() - t0
        await asyncio.sleep(0.5)
    await b.ws.close()
    out.update(replaced=replaced, reruns=k, errors=errors + b.exceptions, hung=replicas[other], query=b.query)
    return out


@pytest.mark.slow
def test_per_visitor_limits_and_a_hung_replica_replaced_while_a_bystander_sees_no_error(tmp_path):
    need_nginx()
    port = free_ports("127.0.0.1", 8700, 1)[0]
    proc = subprocess.Popen([sys.executable, "-m", "rnnviz.serve", "--replicas", "2", "--port", str(port),
                             "--workdir", str(tmp_path), "--unhealthy-after", "10"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    threading.Thread(target=lambda: [lines.append(line) for line in proc.stdout], daemon=True).start()
    hung = None
    try:
        deadline = time.monotonic() + 180
        while not any("rnnviz on" in line for line in lines):
            assert time.monotonic() < deadline and proc.poll() is None, "".join(lines)
            time.sleep(0.2)
        replicas = {int(p): int(pid) for pid, p in re.findall(r"^replica \d: pid (\d+) http://127\.0\.0\.1:(\d+)",
                                                              "".join(lines), re.M)}
        url = f"http://127.0.0.1:{port}"
        page = urllib.request.urlopen(url + "/scalar", timeout=30)
        assert page.headers["X-Frame-Options"] == "SAMEORIGIN"
        assert "frame-ancestors 'self'" in page.headers["Content-Security-Policy"]
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(url + "/app/static/.gitignore", timeout=30)
        assert e.value.code == 404 and (ROOT / "static" / ".gitignore").exists()

        out = asyncio.run(hang_one_replica(url, tmp_path / "access.log", replicas, lines))
        hung = out["hung"]
        assert out["sessions"] == (4, 4)  # a visitor's 5th to 8th tabs are refused
        assert out["uploads"].count(204) >= 6 and 429 in out["uploads"]  # a burst of uploads, then refused
        assert out["replaced"] is not None and out["replaced"] < 30, "".join(lines)
        assert out["errors"] == 0 and out["reruns"] > 10 and "wh=" in out["query"]
        assert not alive(hung)  # the stopped replica was killed, not left behind
    finally:
        if hung and alive(hung):
            os.kill(hung, signal.SIGCONT)
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    assert proc.returncode == 0


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
