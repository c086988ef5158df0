"""Serve a class: N `streamlit run app.py` replicas on loopback behind Debian's nginx, at one URL.

    python -m rnnviz.serve --replicas 2 --port 8600
    rnnviz-serve --host 0.0.0.0 --port 443 --server-name class.example.org --tls-cert FULLCHAIN --tls-key KEY

The nginx config is rnnviz/nginx.py's rendering of deploy/nginx.conf.template (the file docker compose fills too).
Ctrl-C or SIGTERM stops nginx and every replica; each runs in its own process group, so none is left.
"""
from __future__ import annotations

import argparse
import contextlib
import grp
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rnnviz import resources, visitors
from rnnviz.nginx import host_rule, nginx_config, public_url
from rnnviz.processes import (
    UNHEALTHY_AFTER,
    Watchdog,
    free_ports,
    keep_log,
    rotate_nginx_logs,
    stop,
    wait_healthy,
)

ROOT = resources.app_root()  # app.py, .streamlit/, deploy/: a clone's top, or the installed app (rnnviz/app/)
def start_live(app_root: Path, port: int, log: Path) -> subprocess.Popen:
    """The class rooms' phone service (rnnviz/rooms/live.py) on 127.0.0.1:port, sharing the replicas' Redis: phones
    hold a push stream each, not a Streamlit session. Only nginx reaches it, so it paces joins by nginx's address."""
    proc = subprocess.Popen([sys.executable, "-m", "rnnviz.rooms.live", "--host", "127.0.0.1", "--port", str(port),
                             "--behind-proxy"], cwd=app_root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    keep_log(proc.stdout, log)
    return proc


def worker_user() -> tuple[str, str] | None:
    """(user, group) nginx's workers run as when the launcher is root: `nobody`, never root (they face the
    network); None otherwise (then nginx cannot switch users, and its workers run as the launcher)."""
    if os.geteuid() != 0:
        return None
    pw = pwd.getpwnam("nobody")
    return pw.pw_name, grp.getgrgid(pw.pw_gid).gr_name


def worker_temp_dir(workdir: Path, user: tuple[str, str] | None) -> Path:
    """Where nginx's workers write request bodies over 16 KB (an uploaded model) and buffered responses. Run as
    root, the launcher's work directory is root's and 0700, which a `nobody` worker cannot enter: the temp files
    then get a directory of their own (mkdtemp, 0700) owned by the worker user, removed when serving stops."""
    if user is None:
        return workdir
    temp = Path(tempfile.mkdtemp(prefix="rnnviz-nginx-temp-"))
    os.chown(temp, pwd.getpwnam(user[0]).pw_uid, grp.getgrnam(user[1]).gr_gid)
    return temp


def start_replica(app_root: Path, port: int, log: Path, server_names: Sequence[str] = (),
                  url: str | None = None) -> subprocess.Popen:
    """`python -m streamlit run app.py` on 127.0.0.1:port in its own process group, output to log (size-capped);
    with server_names, Streamlit too accepts only those hosts (server.allowedHosts: its websocket refuses any
    other Host); with url, the app gives that public address in its links (RNNVIZ_PUBLIC_URL, ui/rooms.py)."""
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none", *(a for n in server_names for a in ("--server.allowedHosts", n))]
    env = {**served_env(), **({"RNNVIZ_PUBLIC_URL": url} if url else {})}
    proc = subprocess.Popen(cmd, cwd=app_root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, env=env)
    keep_log(proc.stdout, log)
    return proc


def served_env() -> dict[str, str]:
    """This environment, with the allocator settings a served app runs under (deploy/ sets the same).
    glibc gives each thread that allocates its own memory pool, and Streamlit runs every session on its own
    thread: a process's memory then grows with each new visitor and is never handed back. Two pools kept
    the upload soak flat (benchmarks/load.py --soak 100 --uploads 5: 415 -> 560 MB without, 392-412 MB with)."""
    return {**os.environ, "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX", "2"), **large_blocks_env()}


def large_blocks_env() -> dict[str, str]:
    """Uploads are read into blocks of up to 21 MiB. glibc serves a block that large from mmap, hands it back to the
    system when it is freed, and then raises its mmap threshold (up to 32 MiB) so that the next such block comes
    from the heap, where freed memory stays with the process: after an upload flood a replica kept 880 MB with no
    session left. A fixed threshold keeps every block over 1 MiB in mmap, returned when freed."""
    return {"MALLOC_MMAP_THRESHOLD_": os.environ.get("MALLOC_MMAP_THRESHOLD_", str(2**20))}


def start_rooms_store(workdir: Path) -> subprocess.Popen | None:
    """A redis-server for the class rooms (rnnviz/rooms/store.py) on a free loopback port, in memory only, with
    its log in workdir; sets RNNVIZ_REDIS_URL for the replicas started after it, so a room is one room whichever
    replica a phone lands on. None (and no redis) when RNNVIZ_REDIS_URL is already set or redis-server is missing."""
    exe = shutil.which("redis-server") or shutil.which("redis-server", path="/usr/sbin:/usr/bin")
    if os.environ.get("RNNVIZ_REDIS_URL") or exe is None:
        if exe is None:
            print("redis-server not found: each replica keeps its own class rooms", file=sys.stderr, flush=True)
        return None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # appendonly, each write synced before it is answered: a redis-server killed mid-round and started again keeps
    # every open room and every vote a phone was told is in
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes",
                             "--appendfsync", "always",
                             "--dir", str(workdir), "--logfile", str(workdir / "redis.log"), "--maxmemory", "256mb",
                             "--maxmemory-policy", "noeviction"], start_new_session=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and proc.poll() is None:
        with socket.socket() as s, contextlib.suppress(OSError):
            s.settimeout(0.5)
            s.connect(("127.0.0.1", port))
            s.sendall(b"PING\r\n")
            if s.recv(16).startswith(b"+PONG"):
                os.environ["RNNVIZ_REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
                print(f"redis: pid {proc.pid} {os.environ['RNNVIZ_REDIS_URL']} (class rooms)", flush=True)
                return proc
        time.sleep(0.1)
    stop([proc])
    raise RuntimeError(f"redis-server did not answer on port {port}; see {workdir / 'redis.log'}")


@dataclass(frozen=True)
class Site:
    """How the class reaches the server.

    Attributes:
        names: the public host names; only these reach the app (nginx and Streamlit). Empty: any Host.
        tls: (certificate, key) files for nginx to terminate TLS with; None: plain HTTP.
        url: the address students are given (join links, QR codes); None: the address each browser used.
        http_port: a plain-HTTP port redirected to the HTTPS address; None: none.
    """
    names: tuple[str, ...] = ()
    tls: tuple[Path, Path] | None = None
    url: str | None = None
    http_port: int | None = None


def serve(replicas: int, port: int, host: str, app_root: Path, workdir: Path,
          unhealthy_after: float = UNHEALTHY_AFTER, site: Site = Site()) -> int:
    """Start the replicas and nginx, print the URL, replace a replica that dies or hangs; return when nginx exits."""
    nginx = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
    if nginx is None:
        sys.exit("nginx not found: install Debian's nginx (apt-get install -y nginx)")
    local = "127.0.0.1" if host == "0.0.0.0" else host
    for p in filter(None, (port, site.http_port)):
        if free_ports(local, p, 1) != [p]:
            raise RuntimeError(f"port {p} is already in use")  # else the health check below could ask its owner
    ports = [p for p in free_ports("127.0.0.1", port + 1, replicas + 1) if p != site.http_port][:replicas]
    logs = [workdir / f"replica-{i}.log" for i in range(1, replicas + 1)]
    procs: list[subprocess.Popen] = []  # the replicas, then nginx
    rooms: list[subprocess.Popen] = []  # redis for the class rooms, stopped after the replicas
    user = worker_user()
    temp = worker_temp_dir(workdir, user)

    def replica(i: int) -> subprocess.Popen:
        return start_replica(app_root, ports[i], logs[i], site.names, site.url)

    try:
        rooms += [p for p in [start_rooms_store(workdir)] if p is not None]
        shared = os.environ.get("RNNVIZ_REDIS_URL")  # ours, or one given
        live = free_ports("127.0.0.1", max(ports) + 1, replicas) if shared else []  # phones' services (with Redis)
        if live:
            os.environ["RNNVIZ_LIVE"] = "proxied"  # the replicas' join links: this site's /room/CODE
            rooms += [start_live(app_root, p, workdir / f"live-{i}.log") for i, p in enumerate(live, 1)]
        procs += [replica(i) for i in range(replicas)]
        for i, (p, proc) in enumerate(zip(live, rooms[-len(live):] if live else []), 1):
            wait_healthy(f"http://127.0.0.1:{p}/_rnnviz", proc)
            print(f"phones {i}: pid {proc.pid} http://127.0.0.1:{p}/room", flush=True)
        for i, (proc, p, log) in enumerate(zip(procs, ports, logs), 1):
            wait_healthy(f"http://127.0.0.1:{p}", proc, host=site.names[0] if site.names else None)
            print(f"replica {i}: pid {proc.pid} http://127.0.0.1:{p} log {log}", flush=True)
        secret = visitors.new_secret()
        issuer = visitors.serve(visitors.Issuer(secret), "127.0.0.1", 0)  # visitor cookies, a thread, any free port
        conf = workdir / "nginx.conf"
        conf.write_text(nginx_config([f"127.0.0.1:{p}" for p in ports], f"{host}:{port}", workdir, app_root,
                                     temp_dir=temp, server_names=site.names, tls=site.tls, https_url=site.url,
                                     http_listen=f"{host}:{site.http_port}" if site.http_port else None,
                                     live=[f"127.0.0.1:{p}" for p in live], visitor_secret=secret,
                                     visitor_issuer="%s:%d" % issuer.server_address))
        directives = "daemon off;" + (f" user {user[0]} {user[1]};" if user else "")
        procs.append(subprocess.Popen([nginx, "-c", str(conf), "-p", str(workdir), "-g", directives],
                                      start_new_session=True))
        # asked as a visitor would: under a public name (any other is closed unanswered), over https with TLS
        wait_healthy(f"{'https' if site.tls else 'http'}://{local}:{port}", procs[-1],
                     host=f"{site.names[0]}:{port}" if site.names else None)
        print(f"nginx: pid {procs[-1].pid} config {conf} access log {workdir / 'access.log'}", flush=True)
        address = site.url or f"{'https' if site.tls else 'http'}://{host}:{port}"
        print(f"rnnviz on {address}/ ({replicas} replicas); Ctrl-C stops everything", flush=True)
        watchdog = Watchdog(ports, unhealthy_after, host=site.names[0] if site.names else None)
        while procs[-1].poll() is None:
            time.sleep(1)
            for i, why in watchdog.check(procs[:-1]):  # nginx routes around it meanwhile (max_fails)
                print(f"replica {i + 1} {why}; replacing it", file=sys.stderr, flush=True)
                stop([procs[i]], grace=2)
                procs[i] = replica(i)
                watchdog.replaced(i)
                print(f"replica {i + 1}: pid {procs[i].pid} http://127.0.0.1:{ports[i]} log {logs[i]}", flush=True)
            rotate_nginx_logs(workdir, procs[-1].pid)
        print(f"nginx exited ({procs[-1].returncode}); see {workdir / 'error.log'}", file=sys.stderr)
        return 1
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)  # a second Ctrl-C must not cut the cleanup short
        stop(procs)
        stop(rooms[::-1])  # the phones' services, then redis
        if temp != workdir:
            shutil.rmtree(temp, ignore_errors=True)


def site_from(ap: argparse.ArgumentParser, args: argparse.Namespace) -> Site:
    """The Site the flags describe, or the parser's error (exit 2) for names, files or an address that cannot be."""
    try:
        host_rule(args.server_name)
    except ValueError as e:
        ap.error(f"argument --server-name: {e}")
    if (args.tls_cert is None) != (args.tls_key is None):
        ap.error("--tls-cert and --tls-key go together")
    tls = (args.tls_cert.resolve(), args.tls_key.resolve()) if args.tls_cert else None
    if tls:
        if not args.server_name:
            ap.error("--tls-cert needs --server-name: the name the certificate is for")
        for flag, f in zip(("--tls-cert", "--tls-key"), tls):
            if not os.access(f, os.R_OK) or not f.is_file():
                ap.error(f"argument {flag}: cannot read {f}")
    if args.http_port and not tls:
        ap.error("--http-port redirects to HTTPS: it needs --tls-cert and --tls-key")
    try:
        url = public_url(args.server_name, args.port, tls is not None, args.public_url)
    except ValueError as e:
        ap.error(f"argument --public-url: {e}")
    return Site(tuple(args.server_name), tls, url, args.http_port)


def main() -> None:
    """Command line: python -m rnnviz.serve --replicas N --port P [--host H] [--server-name NAME --tls-cert FILE
    --tls-key FILE [--public-url URL] [--http-port P]] [--app-root DIR] [--workdir DIR]."""
    from rnnviz import cli

    ap = cli.parser("serve", __doc__.splitlines()[0])
    ap.add_argument("--replicas", type=cli.positive_int, default=os.cpu_count() or 1,
                    help="one per core (default: the cores here)")
    ap.add_argument("--port", type=cli.positive_int, default=8600,
                    help="nginx listens here (HTTPS with --tls-cert); replicas take free ports above it")
    ap.add_argument("--host", default="127.0.0.1", help="nginx listen address (0.0.0.0: every interface)")
    ap.add_argument("--app-root", type=Path, default=ROOT,
                    help="directory holding app.py and .streamlit/ (default: the installed app, or the clone's)")
    ap.add_argument("--workdir", type=Path, help="nginx config, logs and temp files (default: a temp dir, removed)")
    ap.add_argument("--unhealthy-after", type=float, default=UNHEALTHY_AFTER,
                    help="replace a replica whose health check has failed for this many seconds")
    ap.add_argument("--server-name", action="append", default=[], metavar="NAME",
                    help="a public host name the app answers to (repeatable); any other Host header is closed "
                         "unanswered, by nginx and by Streamlit (default: any Host, for a local or LAN run)")
    ap.add_argument("--tls-cert", type=Path, metavar="FILE",
                    help="serve HTTPS on --port with this certificate, PEM, full chain (default: plain HTTP)")
    ap.add_argument("--tls-key", type=Path, metavar="FILE", help="the certificate's private key, PEM (default: none)")
    ap.add_argument("--public-url", metavar="URL",
                    help="the address students are given in join links and QR codes (default: the first "
                         "--server-name on --port, or the address the browser used where no name is given)")
    ap.add_argument("--http-port", type=cli.positive_int, metavar="PORT",
                    help="also listen for plain HTTP here and redirect it to HTTPS, e.g. 80 (default: none)")
    args = ap.parse_args()
    site = site_from(ap, args)
    if not (args.app_root / "app.py").is_file():
        print(f"error: {args.app_root} holds no app.py; pass --app-root with the directory of the app "
              "(a clone's top)", file=sys.stderr)
        sys.exit(2)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # unwind through serve()'s finally, like Ctrl-C
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with SIGINT ignored (`cmd &`)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="rnnviz-serve-"))
    workdir.mkdir(parents=True, exist_ok=True)
    code = 0
    try:
        code = serve(args.replicas, args.port, args.host, args.app_root.resolve(), workdir.resolve(),
                     args.unhealthy_after, site)
    except KeyboardInterrupt:
        pass
    except RuntimeError as e:  # a replica or nginx that did not come up: its log says why
        print(f"rnnviz.serve: {e}; logs in {workdir}", file=sys.stderr)
        code = 1
    finally:
        if args.workdir is None and code == 0:  # keep the logs of a failed start
            shutil.rmtree(workdir, ignore_errors=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
