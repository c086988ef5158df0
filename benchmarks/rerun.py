"""Median server rerun time per page after a widget move.

    python benchmarks/rerun.py [--repeat 15]

Each page is opened (warm-up), then one widget is nudged back and forth `repeat` times through Streamlit's AppTest.
Two figures per page: `script ms`, the time app.py takes to run the page on the server (recorded by app.py itself,
ui.loaders.RUN_TIMES), and `AppTest ms`, the wall time of the whole AppTest.run() round trip, harness included.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from ui.loaders import RUN_TIMES  # noqa: E402

# page, widget kind, key, two values to alternate, extra settings applied first (heavy variant)
CASES = [
    ("scalar", "slider", "scalar.w_h", (0.5, 0.55), {}),
    ("vector", "slider", "vector.radius", (0.9, 0.95), {}),
    ("vector", "slider", "vector.radius", (0.9, 0.95), {"slider:vector.H": 64}),
    ("gates", "slider", "gates.bf", (1.0, 1.1), {}),
    ("states?view=padding", "text_input", "states.lengths", ("5, 3, 2", "5, 3, 1"), {}),
    ("gradients", "slider", "grad.scale", (0.9, 0.95), {}),
    ("gradients", "slider", "grad.scale", (0.9, 0.95), {"slider:grad.H": 64, "slider:grad.T": 200}),
    ("hello", "select_slider", "hello.temp", (1.0, 1.5), {}),
    ("sample", "slider", "sample.char", (11, 12), {}),  # the Position slider counts from 1
]


def time_case(page, kind, key, values, extra, repeat):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    page, _, query = page.partition("?")  # a view named in the link, e.g. states?view=padding
    for k, _, v in (kv.partition("=") for kv in query.split("&") if kv):
        at.query_params[k] = v
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    for spec, v in extra.items():
        k, name = spec.split(":")
        getattr(at, k)(key=name).set_value(v)
    at.run()
    at.run()  # AppTest starts each run in Streamlit's old multipage mode; see pages.common.require_app
    times, script = [], []
    for r in range(repeat):
        getattr(at, kind)(key=key).set_value(values[r % 2])
        RUN_TIMES.clear()
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        script.append(RUN_TIMES[-1][1])
        assert not at.exception, at.exception
    return statistics.median(script), max(script), statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--only", nargs="*", default=None, help="pages to time (default: all)")
    args = ap.parse_args()
    print(f"{'page':<10} {'setting':<30} {'script ms (median)':>19} {'max':>7} {'AppTest ms':>11}")
    for page, kind, key, values, extra in CASES:
        if args.only and page.split("?")[0] not in args.only:
            continue
        med, mx, at_med = time_case(page, kind, key, values, extra, args.repeat)
        setting = ", ".join(f"{k.split(':')[1]}={v}" for k, v in extra.items()) or "defaults"
        print(f"{page:<10} {setting:<30} {med * 1000:>19.1f} {mx * 1000:>7.1f} {at_med * 1000:>11.1f}", flush=True)


if __name__ == "__main__":
    main()
