"""Model files and cards as a visitor might upload them: every dtype the format allows, every bound checked
before anything is allocated, every refusal a short CheckpointError that costs milliseconds. The files are
built here byte by byte (no torch)."""
import json
import math
import struct
import time
import tracemalloc

import numpy as np
import pytest

from rnnviz import charlm
from rnnviz.charlm import checkpoint
from rnnviz.charlm.checkpoint import (
    SHIPPED_COST_PER_CHAR,
    SHIPPED_PARAMS,
    UPLOAD_LIMITS,
    CheckpointError,
    cost_per_char,
    expected_shapes,
    param_count,
)
from rnnviz.nn.sampling import SamplingSettings
from tests.conftest import ROOT

SHIPPED = ROOT / "models" / "shakespeare.safetensors"
CODES = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "I8": "i1", "U8": "u1", "I32": "<i4", "BOOL": "?", "F8_E4M3": "u1",
         "F8_E5M2": "u1"}


def safetensors_bytes(arrays: dict, dtype: str = "F32", metadata: dict | None = None) -> bytes:
    """A safetensors file written by hand: 8-byte header length, JSON header, the tensors' bytes in order."""
    header, blobs, pos = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, a in arrays.items():
        a = np.asarray(a, dtype=np.float32)
        if dtype == "BF16":
            raw = (a.view(np.uint32) >> 16).astype("<u2").tobytes()  # truncation: exact for bf16-representable values
        else:
            raw = a.astype(CODES[dtype]).tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [pos, pos + len(raw)]}
        blobs.append(raw)
        pos += len(raw)
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def tiny_model(cell="lstm", V=8, E=3, H=4, L=2, seed=0, grid=64.0, **extra):
    """Random weights on a grid of k/64 (exact in float16, bfloat16, float32 and float64) and their card."""
    card = {"itos": list("abcdef\n ")[:V] if V <= 8 else [chr(0x4E00 + i) for i in range(V)], "cell": cell,
            "embed_size": E, "hidden_size": H, "num_layers": L, **extra}
    rng = np.random.default_rng(seed)
    arrays = {k: (np.round(rng.normal(0, 0.5, s) * grid) / grid).astype(np.float32)
              for k, s in expected_shapes(card).items()}
    return arrays, card


def upload(arrays, card, dtype="F32"):
    return charlm.check_upload(safetensors_bytes(arrays, dtype), json.dumps(card).encode())


# ---- dtypes ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["F16", "BF16", "F64"])
def test_every_float_dtype_gives_the_float32_models_probabilities(dtype):
    arrays, card = tiny_model()
    ref = upload(arrays, card).run("abcab\nfe")
    lm = upload(arrays, card, dtype)
    assert all(t.dtype == np.float32 for t in lm.tensors.values())
    np.testing.assert_array_equal(lm.tensors["embed.weight"], arrays["embed.weight"])  # the grid is exact in all four
    np.testing.assert_allclose(lm.run("abcab\nfe").probs, ref.probs, rtol=0, atol=1e-7)


def test_bfloat16_matches_torchs_reading_of_the_same_bits():
    torch = pytest.importorskip("torch")
    from safetensors.torch import load, save

    t = {"x": torch.randn(7, 5).to(torch.bfloat16)}
    raw = save(t)
    infos, start = checkpoint.read_header(raw)
    ours = checkpoint._read_tensor(raw, start, infos["x"])
    np.testing.assert_array_equal(ours, load(raw)["x"].float().numpy())


@pytest.mark.parametrize("dtype", ["I8", "U8", "I32", "BOOL", "F8_E4M3", "F8_E5M2"])
def test_integer_boolean_and_float8_files_are_refused(dtype):
    arrays, card = tiny_model()
    with pytest.raises(CheckpointError, match="only float16, bfloat16, float32 and float64"):
        upload(arrays, card, dtype)


def test_float64_beyond_float32s_range_is_refused():
    arrays, card = tiny_model()
    data = bytearray(safetensors_bytes(arrays, "F64"))
    n = struct.unpack("<Q", data[:8])[0]
    data[8 + n:16 + n] = struct.pack("<d", 1e300)  # the first value of the first tensor
    with pytest.raises(CheckpointError, match="infinite|range"):
        charlm.check_upload(bytes(data), json.dumps(card))


# ---- the header, read before anything else --------------------------------------------------------

@pytest.fixture
def no_tensor_reads(monkeypatch):
    """Fail the test if any tensor's bytes are read."""
    def boom(*a, **k):
        raise AssertionError("a tensor was read")
    monkeypatch.setattr(checkpoint, "_read_tensor", boom)


def test_a_header_naming_290000_empty_tensors_is_refused_in_milliseconds(no_tensor_reads, monkeypatch):
    from benchmarks.uploads import empty_tensors

    arrays, card = tiny_model()
    data = empty_tensors(290_000)
    parsed = []
    monkeypatch.setattr(checkpoint, "parse_json", lambda *a, **k: parsed.append(a[1]) or json.loads(a[0]))
    t = time.perf_counter()
    with pytest.raises(CheckpointError, match="header is .* bytes; the limit is 100,000") as e:
        charlm.check_upload(data, json.dumps(card))
    assert time.perf_counter() - t < 0.5
    assert parsed == ["card"]  # the header's 16 MB of JSON were never parsed: its length alone refused it
    assert len(str(e.value)) <= 300


def test_too_many_tensors_within_the_header_bound_are_counted_and_refused(no_tensor_reads):
    arrays, card = tiny_model()
    many = {f"x{i}": np.zeros(0, np.float32) for i in range(200)}
    with pytest.raises(CheckpointError, match="names 211 tensors; the limit is 64"):
        charlm.check_upload(safetensors_bytes({**arrays, **many}), json.dumps(card))


@pytest.mark.parametrize("mutate,msg", [
    (lambda h, d: (struct.pack("<Q", 2**63) + d[8:]), "header is missing or cut short"),
    (lambda h, d: d[:8] + b"[" + d[9:], "header is missing or cut short"),
    (lambda h, d: d + b"\x00" * 4, "bytes after its last tensor"),
    (lambda h, d: d[:-4], "cut short"),
])
def test_malformed_containers(mutate, msg, no_tensor_reads):
    arrays, card = tiny_model()
    data = safetensors_bytes(arrays)
    with pytest.raises(CheckpointError, match=msg):
        charlm.check_upload(mutate(None, data), json.dumps(card))


def _rewrite_header(data: bytes, edit) -> bytes:
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    edit(header)
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data[8 + n:]


@pytest.mark.parametrize("edit,msg", [
    (lambda h: h["head.bias"].update(
        data_offsets=[0, h["head.bias"]["data_offsets"][1] - h["head.bias"]["data_offsets"][0]]),
     "overlap or leave gaps"),
    (lambda h: h["head.bias"].update(shape=[10**12]), "do not fit"),
    (lambda h: h["head.bias"].update(shape=[-6]), "invalid shape"),
    (lambda h: h["head.bias"].update(data_offsets="x"), "invalid data offsets"),
    (lambda h: h.update(extra={"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}), "unexpected extra"),
    (lambda h: h.update(nest={"a": [[[[1]]]]}), "nests"),
])
def test_offsets_shapes_and_names_are_checked_from_the_header(edit, msg, no_tensor_reads):
    arrays, card = tiny_model()
    with pytest.raises(CheckpointError, match=msg):
        charlm.check_upload(_rewrite_header(safetensors_bytes(arrays), edit), json.dumps(card))


def test_shapes_are_compared_with_the_card_before_reading(no_tensor_reads):
    arrays, card = tiny_model()
    with pytest.raises(CheckpointError, match="shape"):
        charlm.check_upload(safetensors_bytes(arrays), json.dumps(dict(card, hidden_size=5)))


# ---- the card ----------------------------------------------------------------------------------

def _refused(card_text, match, arrays=None):
    arrays = arrays if arrays is not None else tiny_model()[0]
    t = time.perf_counter()
    with pytest.raises(CheckpointError, match=match) as e:
        charlm.check_upload(safetensors_bytes(arrays), card_text)
    assert time.perf_counter() - t < 1.0
    assert len(str(e.value)) <= 300
    return str(e.value)


def test_card_nested_100000_levels_is_refused_without_recursion(no_tensor_reads):
    _refused('{"itos": ' + "[" * 100_000 + "]" * 100_000 + "}", "nests 100,001 levels deep; the limit is 16")


def adversarial_strings(n: int) -> str:
    """`"` then `\\"` repeated, n characters: a string that never closes, whose every quote is escaped."""
    return '"' + '\\"' * ((n - 1) // 2)


@pytest.mark.parametrize("n", [32 * 2**10, 2**20])  # 32 KiB first: it took 3 s with the quadratic check
def test_an_unterminated_card_of_escaped_quotes_is_refused_in_linear_time(n, no_tensor_reads):
    arrays, card = tiny_model()
    text = adversarial_strings(n)
    t = time.process_time()
    with pytest.raises(CheckpointError, match="not valid JSON"):
        charlm.check_upload(safetensors_bytes(arrays), text)
    assert time.process_time() - t < 1.0
    assert checkpoint.json_depth('{"a": "x\\"]]]", "b": [1, {"c": "\\\\"}], "d": "{"}') == 3  # strings skipped


def test_a_100kb_header_of_escaped_quotes_is_refused_within_a_second(no_tensor_reads):
    _, card = tiny_model()
    header = ("{" + adversarial_strings(100_000 - 1)).encode()
    data = struct.pack("<Q", len(header)) + header
    t = time.process_time()
    with pytest.raises(CheckpointError, match="not valid JSON"):
        charlm.check_upload(data, json.dumps(card))
    assert time.process_time() - t < 1.0


def test_card_with_a_5000_digit_integer(no_tensor_reads):
    arrays, card = tiny_model()
    text = json.dumps(card)[:-1] + ', "steps": ' + "9" * 5000 + "}"
    _refused(text, "5000 digits")


@pytest.mark.parametrize("value", ["1e400", "1000", "-1", "NaN", "Infinity", '"low"', "true"])
def test_card_losses_must_be_sensible_numbers(value, no_tensor_reads):
    _, card = tiny_model()
    text = json.dumps(card)[:-1] + f', "val_loss": {value}' + "}"
    _refused(text, "val_loss must be a number from 0 to 100")


def test_lone_surrogates_are_refused():
    _, card = tiny_model()
    text = json.dumps(card).replace('"a"', '"\\ud800"')
    _refused(text, "lone surrogate")
    _refused(json.dumps(dict(card, note="x")).replace('"x"', '"\\udfff"'), "lone surrogate")
    # a surrogate pair is one character: accepted
    arrays, card = tiny_model()
    card["itos"][0] = "😀"
    assert charlm.check_upload(safetensors_bytes(arrays), json.dumps(card)).itos[0] == "😀"


def test_a_40000_character_vocabulary_is_refused_from_the_card_alone(no_tensor_reads):
    card = {"itos": [chr(0x10000 + i) for i in range(40_000)], "cell": "lstm", "embed_size": 8, "hidden_size": 8,
            "num_layers": 1}
    msg = _refused(json.dumps(card), "lists 40,000 characters; the limit is 4,096", arrays={})
    assert len(msg) < 300


def test_a_card_over_one_mib_is_refused(no_tensor_reads):
    _, card = tiny_model()
    _refused(json.dumps(dict(card, note="x" * 2**20)), "card is .* bytes; the limit is 1,048,576")


@pytest.mark.parametrize("change,msg", [
    ({"nonlinearity": "sigmoid", "cell": "rnn"}, "nonlinearity must be tanh or relu"),
    ({"nonlinearity": "relu"}, "applies to rnn cells only"),
    ({"cell": "transformer"}, "cell must be one of"),
    ({"hidden_size": 2200, "num_layers": 1}, "costs .* multiply-adds"),
    ({"num_layers": 9}, "num_layers must be a whole number from 1 to 8"),
    ({"hidden_size": 2.5}, "hidden_size must be a whole number"),
    ({"itos": ["ab"]}, "single characters"),
])
def test_card_fields(change, msg, no_tensor_reads):
    _, card = tiny_model()
    _refused(json.dumps(dict(card, **change)), msg)


def test_a_huge_card_value_is_cut_in_the_message():
    _, card = tiny_model()
    msg = _refused(json.dumps(dict(card, cell="x" * 100_000)), "cell must be one of")
    assert msg.endswith("…") and len(msg) == 300


# ---- what a model may cost ---------------------------------------------------------------------------

def test_cost_and_size_bounds_are_relative_to_the_shipped_model():
    assert SHIPPED_COST_PER_CHAR == 2048 * (64 + 512) + 2048 * 1024 + 65 * 512
    assert SHIPPED_PARAMS == 3_322_497  # as torch counts CharRNN(65, lstm, 64, 512, 2)
    assert UPLOAD_LIMITS.max_cost_per_char == 4 * SHIPPED_COST_PER_CHAR
    lm = charlm.load(SHIPPED)
    assert lm.cost_per_char == SHIPPED_COST_PER_CHAR and lm.param_count == SHIPPED_PARAMS
    # the 1-layer LSTM with H = 2,200: 5.9 times the shipped model's work per character
    assert cost_per_char("lstm", 65, 64, 2200, 1) > UPLOAD_LIMITS.max_cost_per_char
    # a 2 x 1024 GRU fits within 4 x, a 3 x 1024 GRU does not
    assert cost_per_char("gru", 65, 64, 1024, 2) <= UPLOAD_LIMITS.max_cost_per_char
    assert cost_per_char("gru", 65, 64, 1024, 3) > UPLOAD_LIMITS.max_cost_per_char
    assert param_count("rnn", 4096, 8, 16, 1) == 4096 * 8 + 16 * (8 + 16 + 2) + 4096 * 16 + 4096


def test_the_shipped_model_passes_the_upload_checks():
    lm = charlm.check_upload(SHIPPED.read_bytes(), SHIPPED.with_suffix(".json").read_bytes())
    assert lm.vocab_size == 65 and lm.generate("ROMEO:", 1, top_k=1) == "\n"


def test_upload_size_limit_matches_the_server_config():
    import tomllib
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]
    mb = cfg["maxUploadSize"]  # megabytes: 10^6 bytes in the browser, 2^20 on the server
    assert checkpoint.MAX_FILE_BYTES == 20 * 2**20
    assert mb * 10**6 >= checkpoint.MAX_FILE_BYTES and (mb - 1) * 10**6 < checkpoint.MAX_FILE_BYTES
    with pytest.raises(CheckpointError, match="20.0 MiB; the limit is 20 MiB|limit is 20 MiB"):
        charlm.check_upload(b"\x00" * (checkpoint.MAX_FILE_BYTES + 1), b"{}")


# ---- traces keep what is shown, in float32 ----------------------------------------------------------

def test_a_large_vocabulary_trace_allocates_no_per_step_distributions():
    arrays, card = tiny_model("rnn", V=4096, E=8, H=16, L=1)
    lm = upload(arrays, card)
    tracemalloc.start()
    tr = lm.draw(SamplingSettings("\u4e00", 2000, temperature=0.8, seed=0))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # before: two float64 vectors over the vocabulary per step, 2 x 2000 x 4096 x 8 = 131 MB; now the states
    # (2001 x 16 float32) and one step's distribution
    assert peak < 2_000_000, peak
    assert "probs" not in tr.__dict__ and "sampled_probs" not in tr.__dict__
    assert tr.p_char.dtype == np.float32 and tr.h.dtype == np.float32 and tr.p_char.shape == (2001,)
    # what one position shows is recomputed on demand, equal to what was sampled from
    p = tr.sampled_at(10)
    assert p.dtype == np.float32 and p.shape == (4096,) and abs(float(p.sum()) - 1) < 1e-5
    ids = [lm.stoi[c] for c in tr.text]
    assert tr.p_char[11] == pytest.approx(float(tr.probs_at(10)[ids[11]]), rel=1e-5)


def test_full_probability_arrays_are_float32_and_match_p_char():
    arrays, card = tiny_model()
    tr = upload(arrays, card).draw(SamplingSettings("ab", 30, temperature=1.3, top_k=3, seed=2))
    assert tr.probs.dtype == np.float32 and tr.probs.shape == (32, 8)
    ids = [card["itos"].index(c) for c in tr.text]
    np.testing.assert_allclose(tr.p_char[1:], tr.probs[np.arange(31), ids[1:]], rtol=1e-5)
    assert math.isnan(tr.p_char[0])
    for k, p in enumerate(tr.sampled_probs):
        assert np.count_nonzero(p) <= 3 and p[ids[2 + k]] > 0  # top-3, and the drawn character is among them


def test_no_mutation_of_a_file_or_card_raises_anything_but_checkpoint_error():
    """Random byte flips, truncations and card edits: each is either a valid model or a CheckpointError."""
    arrays, card = tiny_model("gru", L=1)
    data, text = safetensors_bytes(arrays, "BF16"), json.dumps(card)
    rng = np.random.default_rng(0)
    outcomes = {"ok": 0, "refused": 0}
    for i in range(400):
        d, c = bytearray(data), text
        kind = i % 4
        if kind == 0:  # flip bytes anywhere, header included
            for pos in rng.integers(0, len(d), rng.integers(1, 4)):
                d[pos] = int(rng.integers(0, 256))
        elif kind == 1:
            d = d[: int(rng.integers(0, len(d)))]
        elif kind == 2:  # card characters replaced
            chars = list(c)
            for pos in rng.integers(0, len(chars), rng.integers(1, 3)):
                chars[pos] = chr(int(rng.choice([0x22, 0x5B, 0x5D, 0x7B, 0x7D, 0x5C, 0x30, 0x2D, 0x65, 0xD800])))
            c = "".join(chars)
        else:  # header bytes replaced with digits, brackets and quotes
            n = struct.unpack("<Q", data[:8])[0]
            for pos in rng.integers(8, 8 + n, 2):
                d[pos] = ord(rng.choice(list('0123456789[]{}",:-e')))
        try:
            lm = charlm.check_upload(bytes(d), c)
            lm.generate("ab", 3, seed=0)
            outcomes["ok"] += 1
        except CheckpointError as e:
            assert len(str(e)) <= 300
            outcomes["refused"] += 1
    assert outcomes["refused"] > 200 and outcomes["ok"] > 10, outcomes
