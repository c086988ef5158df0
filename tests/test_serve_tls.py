"""HTTPS by the launcher: `python -m rnnviz.serve --server-name NAME --tls-cert FILE --tls-key FILE --public-url URL`
with a self-signed certificate, seen by Chromium: a lesson and the Class page over https://, their websocket, the
Secure visitor cookie, a wrong Host refused, plain HTTP redirected, and the join link and QR code under the public
URL. The nginx config's TLS lines are checked without a server too."""
import http.client
import io
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rnnviz.nginx import nginx_config, public_url, render
from rnnviz.processes import free_ports
from rnnviz.serve import ROOT
from tests.browser import chromium, wait_idle
from tests.test_serve import NGINX, need_nginx, read_until
from ui.rooms import qr_png


def self_signed(tmp: Path, names: list[str]) -> tuple[Path, Path]:
    """A self-signed certificate for names (openssl), and its key."""
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    san = ",".join(f"DNS:{n}" for n in names)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", f"/CN={names[0]}", "-addext", f"subjectAltName={san}"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def test_tls_config_redirects_plain_http_to_the_public_address_and_passes_nginx_t(tmp_path):
    cert, key = self_signed(tmp_path, ["class.example.org"])
    url = public_url(["class.example.org"], 443, tls=True)
    assert url == "https://class.example.org" and public_url([], 8600, tls=True) is None
    assert public_url(["a.example"], 8650, tls=False) == "http://a.example:8650"
    assert public_url(["a.example"], 443, True, "https://b.example/course/") == "https://b.example/course"
    with pytest.raises(ValueError):
        public_url(["a.example"], 443, True, "javascript:alert(1)")
    conf = nginx_config(["127.0.0.1:8651"], "0.0.0.0:443", tmp_path, ROOT, server_names=["class.example.org"],
                        tls=(cert, key), https_url=url, http_listen="0.0.0.0:80")
    assert "listen 0.0.0.0:443 ssl;" in conf and f"ssl_certificate {cert};" in conf
    assert "error_page 497 =301 https://class.example.org$request_uri;" in conf  # plain HTTP on the TLS port
    redirect = re.search(r"server \{\s*listen 0\.0\.0\.0:80;(.*?)\n    \}", conf, re.S).group(1)
    assert "return 301 https://class.example.org$request_uri;" in redirect and "return 444" in redirect
    stream = re.search(r"location /_stcore/stream \{(.*?)\}", conf, re.S).group(1)
    assert "proxy_set_header Host $http_host;" in stream  # else the replica's allowedHosts refuses the websocket
    assert "proxy_set_header X-Forwarded-Proto $rnnviz_forwarded_proto;" in stream
    assert conf.count("add_header Strict-Transport-Security $rnnviz_hsts always;") == 2
    plain = nginx_config(["127.0.0.1:8651"], "127.0.0.1:8650", tmp_path, ROOT)
    assert " ssl;" not in plain and "ssl_certificate" not in plain and "return 301" not in plain
    if NGINX:
        (tmp_path / "nginx.conf").write_text(conf.replace("0.0.0.0:443", "127.0.0.1:8650")
                                             .replace("0.0.0.0:80", "127.0.0.1:8651"))
        out = subprocess.run([NGINX, "-t", "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr


def same_picture(a: bytes, b: bytes) -> float:
    """The share of pixels two black-and-white pictures agree on, b scaled to a's size."""
    from PIL import Image

    pa = Image.open(io.BytesIO(a)).convert("L")
    pb = Image.open(io.BytesIO(b)).convert("L").resize(pa.size, Image.NEAREST)
    return float(np.mean((np.asarray(pa) < 128) == (np.asarray(pb) < 128)))


def status(port: int, host: str, path: str = "/") -> tuple[int | None, str | None]:
    """(status, Location) of a plain-HTTP GET with this Host; (None, None) where nginx closed it unanswered."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", path, headers={"Host": host})
        r = c.getresponse()
        return r.status, r.getheader("Location")
    except (http.client.RemoteDisconnected, ConnectionResetError):
        return None, None
    finally:
        c.close()


@pytest.mark.slow
def test_https_launcher_in_chromium_with_a_self_signed_certificate(tmp_path):
    need_nginx()
    cert, key = self_signed(tmp_path, ["localhost", "class.localhost"])
    port, http_port = free_ports("127.0.0.1", 8650, 2)
    public = f"https://class.localhost:{port}"  # Chromium resolves *.localhost to loopback itself
    proc = subprocess.Popen([sys.executable, "-m", "rnnviz.serve", "--replicas", "1", "--port", str(port),
                             "--server-name", "localhost", "--server-name", "class.localhost", "--tls-cert", str(cert),
                             "--tls-key", str(key), "--public-url", public, "--http-port", str(http_port),
                             "--workdir", str(tmp_path / "work")], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        banner = read_until(proc, "rnnviz on", timeout=150)  # the health check passes its own Host rule
        assert f"rnnviz on {public}/ " in banner
        assert status(http_port, "localhost", "/scalar?x=1") == (301, f"{public}/scalar?x=1")
        with chromium() as browser:
            ctx = browser.new_context(ignore_https_errors=True, viewport={"width": 1024, "height": 768})
            page = ctx.new_page()
            frames: list[str] = []
            page.on("websocket", lambda ws: ws.on("framereceived", lambda _: frames.append(ws.url)))
            page.goto(f"http://localhost:{port}/scalar")  # plain HTTP on the TLS port: to the public address
            assert page.url == f"{public}/scalar"
            page.goto(f"https://localhost:{port}/scalar")
            wait_idle(page)  # the script ran: its output came over the websocket, through TLS
            assert f"wss://localhost:{port}/_stcore/stream" in frames
            assert "One unit by hand" in page.locator('[data-testid="stMain"]').inner_text()
            cookies = [c for c in ctx.cookies() if c["name"] == "rnnviz_visitor"]  # class.localhost's and localhost's
            assert {c["domain"] for c in cookies} == {"localhost", "class.localhost"}
            assert all(c["secure"] and c["httpOnly"] for c in cookies)
            response = page.request.get(f"https://localhost:{port}/_stcore/health")
            assert response.headers["strict-transport-security"].startswith("max-age=")

            page.goto(f"https://localhost:{port}/class_room")
            wait_idle(page)
            page.get_by_role("button", name="Open a room").click()
            heading = page.locator("h1", has_text="Room")
            heading.wait_for()
            code = re.search(r"Room ([A-Z0-9]{6})", heading.inner_text()).group(1)
            join = f"{public}/room/{code}"  # the phones' page, under the public address
            assert join in page.get_by_text("Join at").first.inner_text()
            src = page.locator('[data-testid="stImage"] img').first.get_attribute("src")
            png = page.request.get(f"https://localhost:{port}{src}" if src.startswith("/") else src).body()
            # the QR code is the public join link's (Streamlit sends it as a JPEG: compared module by module)
            assert same_picture(png, qr_png(join)) > 0.99
            assert same_picture(png, qr_png(f"https://localhost:{port}/room/{code}")) < 0.9

            with pytest.raises(Exception, match="ERR_EMPTY_RESPONSE|ERR_CONNECTION_CLOSED"):
                page.goto(f"https://127.0.0.1:{port}/scalar")  # not a server name: closed unanswered
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    assert proc.returncode == 0


def test_the_compose_tls_override_fills_the_template_into_a_config_nginx_accepts(tmp_path):
    """deploy/compose.tls.yaml's nginx settings, merged over compose.yaml's and interpolated as compose does
    (${SERVER_NAME}, $$ for $), fill every placeholder and pass `nginx -t` with a certificate in place."""
    import yaml

    base = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())["services"]
    tls = yaml.safe_load((ROOT / "deploy" / "compose.tls.yaml").read_text())["services"]
    env = {**base["nginx"]["environment"], **tls["nginx"]["environment"]}
    cert, key = self_signed(tmp_path, ["class.example.org"])

    def compose(value: str) -> str:
        value = re.sub(r"\$\{SERVER_NAME(:\?[^}]*)?\}", "class.example.org", value).replace("$$", "$")
        value = re.sub(r"\$\{RNNVIZ_VISITOR_SECRET(:\?[^}]*)?\}", "0123abcd", value)
        return value.replace("/etc/rnnviz/tls/fullchain.pem", str(cert)).replace("/etc/rnnviz/tls/privkey.pem",
                                                                                  str(key))

    env = {k: compose(v) for k, v in env.items()}
    assert env["LISTEN"] == "8443 ssl" and "return 301 https://class.example.org$request_uri;" in env["HTTP_REDIRECT"]
    command = [compose(a) for a in tls["app"]["command"]]
    assert command[command.index("--server.allowedHosts") + 1] == "class.example.org"  # Streamlit's own check
    assert tls["app"]["environment"]["RNNVIZ_PUBLIC_URL"].startswith("https://${SERVER_NAME")
    env.update(SERVERS="server 127.0.0.1:8651;", LIVE_SERVERS="server 127.0.0.1:8654;",
               PID_FILE=str(tmp_path / "nginx.pid"), TEMP_DIR=str(tmp_path),
               LISTEN="127.0.0.1:8650 ssl", ERROR_LOG=str(tmp_path / "error.log"),
               VISITOR_ISSUER="server 127.0.0.1:8653;")  # no compose DNS here
    env["HTTP_REDIRECT"] = env["HTTP_REDIRECT"].replace("listen 8080;", "listen 127.0.0.1:8652;")
    conf = tmp_path / "nginx.conf"
    conf.write_text(render((ROOT / "deploy" / "nginx.conf.template").read_text(), **env))
    need_nginx()
    out = subprocess.run([NGINX, "-t", "-c", str(conf), "-p", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
