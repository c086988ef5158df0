"""Data-parallel training: torchrun with two CPU processes (gloo) reaches the same loss as one process."""
import json
import subprocess
import sys

import pytest
import torch
from safetensors.torch import load_file

from tests.conftest import ROOT, long_only

CORPUS = "to be or not to be, that is the question. " * 30


def train(tmp_path, out, nproc=None):
    args = ["-m", "rnnviz.train", "--corpus", str(tmp_path / "c.txt"), "--out", str(tmp_path / out), "--hidden", "16",
            "--embed", "8", "--layers", "1", "--batch", "4", "--seq-len", "16", "--steps", "30", "--eval-every", "30",
            "--dropout", "0", "--quiet", "--float32", "--threads", "1", "--device", "cpu", "--val-fraction", "0.2"]
    cmd = [sys.executable] + (["-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={nproc}"] + args
                              if nproc else args)
    out_ = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert out_.returncode == 0, out_.stderr[-3000:]
    return json.loads((tmp_path / f"{out}.json").read_text()), load_file(str(tmp_path / f"{out}.safetensors"))


@pytest.mark.slow
@long_only("three torch training processes, 25-30 s (and after a change to rnnviz/charlm/train.py)")
def test_two_processes_match_one(tmp_path):
    (tmp_path / "c.txt").write_text(CORPUS)
    card1, w1 = train(tmp_path, "one")
    card2, w2 = train(tmp_path, "two", nproc=2)
    assert "2 processes (DDP)" in card2["device"]
    assert card2["val_loss"] == card1["val_loss"] != 0
    assert abs(card2["train_loss"] - card1["train_loss"]) < 1e-4
    assert all(torch.allclose(w1[k], w2[k], atol=1e-5) for k in w1)
