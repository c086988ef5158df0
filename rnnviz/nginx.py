"""The nginx config `python -m rnnviz.serve` runs: deploy/nginx.conf.template (the one docker compose fills too) with
its ${NAME} placeholders filled: the replicas and their capacity, the listen address, which Host headers reach the
app, TLS where the launcher terminates it (certificate, HTTP redirected to the public HTTPS address), and the visitor
cookies' secret and issuer (rnnviz/visitors.py).
"""
from __future__ import annotations

import re
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

import tomllib

from rnnviz import resources, visitors

SERVER_PARAMS = "max_fails=3 fail_timeout=10s"  # passive health checks: 3 failures take a replica out for 10 s
# A replica's capacity: the connections (sessions, and the requests in flight) nginx sends it at most. When it holds
# them, the next new visitor goes to another replica, and with all of them full nginx refuses (502): the replicas'
# load, not an address's count, is what refuses a student behind a campus NAT (issue 49). The upstream's `zone`
# makes it one count for all of nginx's workers. A session whose page has not run costs a replica ~0.1 MB, one that
# has run the one-unit page 1-7 MB (benchmarks/attack.py nat).
REPLICA_CONNECTIONS = 1000
PLACEHOLDER = re.compile(r"\$\{([A-Z_]+)\}")  # upper case only: nginx's own $variables are lower case
HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")


def upload_limit_mib(app_root: Path) -> int:
    """server.maxUploadSize (MiB) from the app's .streamlit/config.toml; Streamlit's default 200 without one."""
    path = app_root / ".streamlit" / "config.toml"
    config = tomllib.loads(path.read_text()) if path.exists() else {}
    return int(config.get("server", {}).get("maxUploadSize", 200))


def render(template: str, **values: str) -> str:
    """Fill the template's ${NAME} placeholders; refuse a missing or an unknown name."""
    names = set(PLACEHOLDER.findall(template))
    if names != set(values):
        raise KeyError(f"template needs {sorted(names)}, got {sorted(values)}")
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def host_rule(server_names: Sequence[str] = ()) -> str:
    """The nginx line that closes a request whose Host is none of server_names (444: no answer at all); with no
    names, a comment: any Host reaches the app. A name is a DNS name (letters, digits, dots, hyphens)."""
    if not server_names:
        return "# any Host (no --server-name given)"
    for name in server_names:
        if not HOST_NAME.fullmatch(name):
            raise ValueError(f"not a host name: {name!r}")
    names = "|".join(re.escape(n.lower()) for n in server_names)
    return f'if ($host !~ "^(?:{names})$") {{ return 444; }}'  # $host: lower case, without the port


def public_url(server_names: Sequence[str], port: int, tls: bool, given: str | None = None) -> str | None:
    """The address students are given (join links, QR codes), without a trailing slash: `given` (--public-url) if
    any, else the first server name on this port over https or http (the port left out where it is the scheme's
    own); None where no name was given (a local or LAN run: the address the browser used)."""
    if given:
        parts = urllib.parse.urlsplit(given)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
            raise ValueError(f"not an http(s) address without query: {given!r}")
        return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
    if not server_names:
        return None
    scheme = "https" if tls else "http"
    own = port == (443 if tls else 80)
    return f"{scheme}://{server_names[0].lower()}{'' if own else f':{port}'}"


def tls_lines(cert: Path, key: Path, redirect_to: str) -> str:
    """The server block's TLS: certificate and key, modern protocols, and plain HTTP sent to the TLS port answered
    with a redirect to the HTTPS address (497 is nginx's code for "plain HTTP on an ssl port")."""
    for f in (cert, key):
        if re.search(r"[\s;{}'\"$]", str(f)):
            raise ValueError(f"a certificate path nginx cannot quote: {str(f)!r}")
    return (f"ssl_certificate {cert};\n        ssl_certificate_key {key};\n"
            "        ssl_protocols TLSv1.2 TLSv1.3;\n        ssl_session_cache shared:rnnviz_tls:10m;\n"
            f"        ssl_session_timeout 1d;\n        error_page 497 =301 {redirect_to}$request_uri;")


def http_redirect_server(listen: str, redirect_to: str, server_names: Sequence[str]) -> str:
    """A plain-HTTP server on listen that sends every request for the named hosts to the HTTPS address."""
    return (f"server {{\n        listen {listen};\n        server_tokens off;\n        {host_rule(server_names)}\n"
            f"        return 301 {redirect_to}$request_uri;\n    }}")


def nginx_config(servers: list[str], listen: str, workdir: Path, app_root: Path | None = None,
                 template: Path | None = None, temp_dir: Path | None = None, server_names: Sequence[str] = (),
                 tls: tuple[Path, Path] | None = None, https_url: str | None = None,
                 http_listen: str | None = None, live: Sequence[str] = (), visitor_secret: str | None = None,
                 visitor_issuer: str | None = None) -> str:
    """The nginx config for these replica addresses, with pid and logs under workdir, temp files under temp_dir
    (default workdir); app_root is the served app's (default: this install's or clone's), and the template its
    deploy/nginx.conf.template unless given; only server_names reach the app when given. With tls (certificate,
    key) nginx listens with TLS on listen and redirects plain HTTP (on that port, and on http_listen) to https_url.
    `live`: the class rooms' phone services (rnnviz/rooms/live.py). Visitor cookies are checked with visitor_secret
    (default: a new one) and issued by visitor_issuer (host:port of rnnviz/visitors.py; default none: no visitor gets a
    cookie, and all of an address's sessions share one quota)."""
    upstream = "\n        ".join(["zone rnnviz 256k;"] + [
        f"server {address} {SERVER_PARAMS} max_conns={REPLICA_CONNECTIONS};" for address in servers])
    app_root = app_root or resources.app_root()
    template = template or app_root / "deploy" / "nginx.conf.template"
    if tls is None and http_listen:
        raise ValueError("an HTTP redirect needs TLS (--tls-cert, --tls-key)")
    target = (https_url or "https://$host:$server_port").rstrip("/")
    return render(template.read_text(), SERVERS=upstream, LISTEN=listen + (" ssl" if tls else ""),
                  MAX_BODY=f"{upload_limit_mib(app_root)}m", PID_FILE=str(workdir / "nginx.pid"),
                  TEMP_DIR=str(temp_dir or workdir), ERROR_LOG=str(workdir / "error.log"),
                  ACCESS_LOG=str(workdir / "access.log"), HOST_RULE=host_rule(server_names),
                  LIVE_SERVERS=live_servers(live),
                  TLS=tls_lines(*tls, target) if tls else "# plain HTTP (a terminator in front, if any, says https)",
                  HTTP_REDIRECT=http_redirect_server(http_listen, target, server_names) if http_listen
                  else "# no plain-HTTP port", VISITOR_SECRET=visitor_secret or visitors.new_secret(),
                  VISITOR_ISSUER=f"server {visitor_issuer};" if visitor_issuer else "server 127.0.0.1:9 down;")


def live_servers(addresses: Sequence[str]) -> str:
    """The phones' services (rnnviz/rooms/live.py) as nginx upstream lines; none (no Redis to share rooms through):
    a server marked down, so /room answers 502 and phones use the Class page's own ?room=CODE view."""
    return "\n        ".join(f"server {a} {SERVER_PARAMS};" for a in addresses) or "server 127.0.0.1:9 down;"
