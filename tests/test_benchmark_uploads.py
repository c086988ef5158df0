"""The upload phase of `benchmarks/load.py --soak`: its files are what it says, and a visitor's round of uploads gets
the expected answers in a real browser with the server's memory bounded."""
import time

import pytest

from benchmarks.uploads import pairs, upload_phase
from rnnviz import charlm
from tests.browser import Server, need_browser
from tests.conftest import long_only

REASONS = {"vocab-40000": "itos lists 40,000 characters", "tensors-1500": "names 1,500 tensors",
           "tensors-290000": "header is 19,318,890 bytes", "truncated": "cut short"}


def test_the_benchmark_uploads_are_accepted_or_refused_for_their_own_reason():
    for pair in pairs():
        t0 = time.perf_counter()
        if pair.accepted:
            assert charlm.check_upload(pair.weights, pair.card).vocab_size == 65
            continue
        with pytest.raises(charlm.CheckpointError, match=REASONS[pair.name]):
            charlm.check_upload(pair.weights, pair.card)
        assert time.perf_counter() - t0 < 1.0  # refused from the card or the header, before any tensor is read


@pytest.mark.slow
@long_only("90 s of a browser and a server (the upload refusals are tested above and in tests/test_robustness.py, "
           "a real upload through nginx in tests/test_serve.py)")
def test_one_round_of_uploads_in_a_browser():
    need_browser()
    from benchmarks.load import cpu_s, rss_mb

    srv = Server()
    lines = []
    try:
        res = upload_phase(srv.url, 1, lambda: rss_mb(srv.proc.pid), lambda: cpu_s([srv.proc.pid]), lines.append)
    finally:
        srv.close()
    assert res["wrong"] == [], lines  # the shipped model is used, every crafted pair refused with a message
    assert [ln.split()[0] for ln in lines if ln.startswith("phase=")] == ["phase=before", "phase=during", "phase=after"]
    assert res["during"] - res["before"] < 600, lines  # MB: one visitor's uploads cost at most a few hundred
