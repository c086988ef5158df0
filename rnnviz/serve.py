"""Serve a class: N `streamlit run app.py` replicas on loopback behind Debian's nginx, at one URL.

    python -m rnnviz.serve --replicas 2 --port 8600

The nginx config is deploy/nginx.conf.template, the same file docker compose uses, rendered into a temporary
directory. Ctrl-C or SIGTERM stops nginx and every replica; each runs in its own process group, so none is left.
"""
from __future__ import annotations

import contextlib
import grp
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]  # the repository: app.py, .streamlit/, deploy/
SERVER_PARAMS = "max_fails=3 fail_timeout=10s"  # passive health checks: 3 failures take a replica out for 10 s
PLACEHOLDER = re.compile(r"\$\{([A-Z_]+)\}")  # upper case only: nginx's own $variables are lower case


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


def nginx_config(servers: list[str], listen: str, workdir: Path, app_root: Path = ROOT,
                 template: Path | None = None, temp_dir: Path | None = None) -> str:
    """The nginx config for these replica addresses, with pid and logs under workdir, temp files under temp_dir
    (default workdir); the template is app_root's deploy/nginx.conf.template unless given."""
    upstream = "\n        ".join(f"server {address} {SERVER_PARAMS};" for address in servers)
    template = template or app_root / "deploy" / "nginx.conf.template"
    return render(template.read_text(), SERVERS=upstream, LISTEN=listen, MAX_BODY=f"{upload_limit_mib(app_root)}m",
                  PID_FILE=str(workdir / "nginx.pid"), TEMP_DIR=str(temp_dir or workdir),
                  ERROR_LOG=str(workdir / "error.log"), ACCESS_LOG=str(workdir / "access.log"))


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


def free_ports(host: str, start: int, n: int) -> list[int]:
    """The first n ports from start upward that nothing on host listens on."""
    ports = []
    for port in range(start, 65536):
        with socket.socket() as s:
            if s.connect_ex((host, port)) != 0:
                ports.append(port)
        if len(ports) == n:
            return ports
    raise RuntimeError(f"fewer than {n} free ports above {start}")


def start_replica(app_root: Path, port: int, log: Path) -> subprocess.Popen:
    """`python -m streamlit run app.py` on 127.0.0.1:port in its own process group, output to log."""
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    # glibc gives each thread that allocates its own memory pool, and Streamlit runs every session on its own
    # thread: a process's memory then grows with each new visitor and is never handed back. Two pools kept
    # the upload soak flat (benchmarks/load.py --soak 100 --uploads 5: 415 -> 560 MB without, 392-412 MB with).
    env = {**os.environ, "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX", "2")}
    with open(log, "ab") as out:
        return subprocess.Popen(cmd, cwd=app_root, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env)


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 90) -> None:
    """Wait until url/_stcore/health answers ok; fail early if proc exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited ({proc.returncode}) before {url} was healthy")
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} not healthy within {timeout:.0f} s")


def stop(procs: list[subprocess.Popen], grace: float = 10) -> None:
    """SIGTERM each process group, then SIGKILL what is still there after grace seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, sig)
        deadline = time.monotonic() + grace
        for p in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(max(0.0, deadline - time.monotonic()))
        if all(p.poll() is not None for p in procs):
            return


def serve(replicas: int, port: int, host: str, app_root: Path, workdir: Path) -> int:
    """Start the replicas and nginx, print the URL, restart a replica that dies; return when nginx exits."""
    nginx = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
    if nginx is None:
        sys.exit("nginx not found: install Debian's nginx (apt-get install -y nginx)")
    if free_ports("127.0.0.1" if host == "0.0.0.0" else host, port, 1) != [port]:
        raise RuntimeError(f"port {port} is already in use")  # else the health check below could ask its owner
    ports = free_ports("127.0.0.1", port + 1, replicas)
    logs = [workdir / f"replica-{i}.log" for i in range(1, replicas + 1)]
    procs: list[subprocess.Popen] = []  # the replicas, then nginx
    user = worker_user()
    temp = worker_temp_dir(workdir, user)
    try:
        procs += [start_replica(app_root, p, log) for p, log in zip(ports, logs)]
        for i, (proc, p, log) in enumerate(zip(procs, ports, logs), 1):
            wait_healthy(f"http://127.0.0.1:{p}", proc)
            print(f"replica {i}: pid {proc.pid} http://127.0.0.1:{p} log {log}", flush=True)
        conf = workdir / "nginx.conf"
        conf.write_text(nginx_config([f"127.0.0.1:{p}" for p in ports], f"{host}:{port}", workdir, app_root,
                                     temp_dir=temp))
        directives = "daemon off;" + (f" user {user[0]} {user[1]};" if user else "")
        procs.append(subprocess.Popen([nginx, "-c", str(conf), "-p", str(workdir), "-g", directives],
                                      start_new_session=True))
        wait_healthy(f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{port}", procs[-1])
        print(f"nginx: pid {procs[-1].pid} config {conf} access log {workdir / 'access.log'}", flush=True)
        print(f"rnnviz on http://{host}:{port}/ ({replicas} replicas); Ctrl-C stops everything", flush=True)
        while procs[-1].poll() is None:
            time.sleep(1)
            for i, (proc, p, log) in enumerate(zip(procs, ports, logs)):
                if proc.poll() is not None:  # nginx routes around it meanwhile (max_fails)
                    print(f"replica {i + 1} exited ({proc.returncode}); restarting it", file=sys.stderr, flush=True)
                    procs[i] = start_replica(app_root, p, log)
        print(f"nginx exited ({procs[-1].returncode}); see {workdir / 'error.log'}", file=sys.stderr)
        return 1
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)  # a second Ctrl-C must not cut the cleanup short
        stop(procs)
        if temp != workdir:
            shutil.rmtree(temp, ignore_errors=True)


def main() -> None:
    """Command line: python -m rnnviz.serve --replicas N --port P [--host H] [--app-root DIR] [--workdir DIR]."""
    from rnnviz import cli

    ap = cli.parser("serve", __doc__.splitlines()[0])
    ap.add_argument("--replicas", type=int, default=os.cpu_count() or 1, help="one per core (default: cores here)")
    ap.add_argument("--port", type=int, default=8600, help="nginx listens here; replicas take free ports above it")
    ap.add_argument("--host", default="127.0.0.1", help="nginx listen address (0.0.0.0: every interface)")
    ap.add_argument("--app-root", type=Path, default=ROOT, help="directory holding app.py and .streamlit/")
    ap.add_argument("--workdir", type=Path, help="nginx config, logs and temp files (default: a temp dir, removed)")
    args = ap.parse_args()
    if not (args.app_root / "app.py").is_file():  # installed from a wheel: the app is not in the package
        print(f"error: rnnviz-serve serves the app of a clone of the repository, and {args.app_root} holds no app.py; "
              "run it from a clone (python -m rnnviz.serve) or pass --app-root CLONE", file=sys.stderr)
        sys.exit(2)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # unwind through serve()'s finally, like Ctrl-C
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with SIGINT ignored (`cmd &`)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="rnnviz-serve-"))
    workdir.mkdir(parents=True, exist_ok=True)
    code = 0
    try:
        code = serve(args.replicas, args.port, args.host, args.app_root.resolve(), workdir.resolve())
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
