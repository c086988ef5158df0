"""The hello model's hand-written BPTT against torch.autograd, and training it."""
import numpy as np
import pytest
import torch

from rnnviz.lessons.hello import _chunks, _init, check_text, loss_and_grads, read, sample, train


@pytest.mark.parametrize("text,H", [("hello", 3), ("the quick brown fox jumps over the lazy dog " * 3, 7)])
def test_bptt_gradients_match_autograd(text, H):
    vocab = list(dict.fromkeys(text))
    V = len(vocab)
    p = _init(V, H, seed=1)
    x, y = _chunks([vocab.index(c) for c in text])
    loss, g = loss_and_grads(p, x, y)
    rnn, head = torch.nn.RNN(V, H, batch_first=True).double(), torch.nn.Linear(H, V).double()
    with torch.no_grad():
        for mod, names in ((rnn, [("weight_ih_l0", "W_ih"), ("weight_hh_l0", "W_hh"), ("bias_ih_l0", "b_ih"),
                                  ("bias_hh_l0", "b_hh")]), (head, [("weight", "W_y"), ("bias", "b_y")])):
            for tn, k in names:
                getattr(mod, tn).copy_(torch.from_numpy(p[k]))
    out, _ = rnn(torch.nn.functional.one_hot(torch.from_numpy(x), V).double())
    tl = torch.nn.functional.cross_entropy(head(out).reshape(-1, V), torch.from_numpy(y).reshape(-1), ignore_index=-1)
    tl.backward()
    assert loss == pytest.approx(tl.item(), abs=1e-12)
    for tn, k in [("weight_ih_l0", "W_ih"), ("weight_hh_l0", "W_hh"), ("bias_ih_l0", "b_ih"), ("bias_hh_l0", "b_hh")]:
        np.testing.assert_allclose(g[k], getattr(rnn, tn).grad.numpy(), atol=1e-10)
    np.testing.assert_allclose(g["W_y"], head.weight.grad.numpy(), atol=1e-10)
    np.testing.assert_allclose(g["b_y"], head.bias.grad.numpy(), atol=1e-10)


def test_hello_is_learned_and_both_ls_are_told_apart():
    r = train("hello", 3, 300, seed=0)
    steps = read("hello", r.weights)
    assert steps.loss < 0.01 and r.losses[0] > 1.0
    assert [r.weights.vocab[i] for i in steps.probs.argmax(axis=1)] == list("ello")
    assert sample(r.weights, "h", 4, temperature=0.1, seed=0) == "ello"


def test_bad_texts():
    for bad in ("", "a", "x" * 2001, "ab\x07"):
        with pytest.raises(ValueError):
            check_text(bad)


def count_training_work(monkeypatch):
    """Replace loss_and_grads by a counter of the work each training step would do (vocabulary x text length x H,
    as budgeted), returning zero gradients: the test counts work, it does not time it."""
    from rnnviz.lessons import hello

    done = {"steps": 0, "work": 0}

    def counted(p, x, y):
        H, V = p["W_hh"].shape[0], p["W_y"].shape[0]
        done["steps"] += 1
        done["work"] += hello.step_work(V, int((y >= 0).sum()) + 1, H)
        return 1.0, {k: np.zeros_like(v) for k, v in p.items()}

    monkeypatch.setattr(hello, "loss_and_grads", counted)
    return done


def test_training_work_is_bounded_by_the_budget(monkeypatch):
    from rnnviz.lessons import hello

    done = count_training_work(monkeypatch)
    text = "".join(chr(0x4E00 + k) for k in range(2000))  # 2,000 distinct characters: the heaviest text there is
    r = train(text, 32, 1000, seed=0)
    assert done["work"] <= hello.WORK_BUDGET and done["steps"] == len(r.losses) == 3 and r.asked == 1000
    assert hello.budget_message(text, 32, 1000).startswith("Training is capped at 3 of the 1,000 steps asked")
    done.update(steps=0, work=0)
    train("hello", 3, 300, seed=0)  # the lesson's own setup is far inside the budget
    assert done["steps"] == 300 and hello.budget_message("hello", 3, 300) is None
    for text, H, steps in [("ab" * 1000, 32, 1000), (open_excerpt()[:2000], 32, 1000), ("x" * 2000, 1, 1000)]:
        done.update(steps=0, work=0)
        r = train(text, H, steps, seed=0)
        assert done["work"] <= hello.WORK_BUDGET and done["steps"] == hello.steps_within_budget(text, H, steps) < steps


def open_excerpt() -> str:
    from tests.conftest import ROOT

    path = ROOT / "models" / "shakespeare_excerpt.txt"
    return path.read_text() if path.exists() else "the quick brown fox jumps over the lazy dog. " * 50


def test_visible_characters_and_the_vocabulary_display():
    from rnnviz.lessons.hello import visible, vocab_display, vocabulary

    assert vocab_display(vocabulary("hello")) == ("{h, e, l, o}", None)
    text, note = vocab_display(vocabulary("the cat\n"))
    assert text == "{t, h, e, ␣, c, a, ↵}" and "␣ is the space" in note and "↵ a line break" in note
    assert visible("\t") == "⇥" and vocab_display([chr(65 + k) for k in range(30)])[0] == "30 characters"


def test_url_parsers_refuse_values_off_the_sliders_notches():
    from rnnviz.lessons.hello import TEMPERATURES, multiple_of, notch

    parse = notch(TEMPERATURES)
    assert parse("0.5") == 0.5 and parse("5") == 5.0
    for bad in ("4.9", "0.15", "nan", "abc", "10"):
        with pytest.raises(ValueError):
            parse(bad)
    steps = multiple_of(10, 0, 1000)
    assert steps("300") == 300
    for bad in ("15", "1010", "-10", "3.0"):
        with pytest.raises(ValueError):
            steps(bad)


def test_status_says_what_the_model_was_trained_on():
    from rnnviz.lessons.hello import status

    assert status("hello", 3, 0, None).startswith("**Untrained**: random weights (seed 0")
    r = train("hello", 3, 300, seed=0)
    s = status("hello", 3, 0, r, label="“hello”")
    assert s.startswith("**Trained** on “hello” (5 characters, 4 distinct): 300 steps") and "from random weights" in s
    assert "nats per character (the average −ln p" in s and "ln 2 ≈ 0.69 nats is one bit" in s  # the unit explained


def test_softmax_note_only_for_the_notes_scores():
    from rnnviz.lessons.hello import softmax_note
    from rnnviz.lessons.presets import NOTES_SOFTMAX_PRINTED, SOFTMAX_SCORES
    from rnnviz.nn.sampling import softmax

    p = softmax(np.array(SOFTMAX_SCORES))
    note = softmax_note(SOFTMAX_SCORES, p, SOFTMAX_SCORES, NOTES_SOFTMAX_PRINTED)
    assert "(0.03, 0.13, 0.00, 0.84)" in note and "(0.038, 0.125, 0.001, 0.837)" in note
    assert softmax_note((1.0, 2.0), softmax(np.array([1.0, 2.0])), SOFTMAX_SCORES, NOTES_SOFTMAX_PRINTED) is None


def test_throttled_progress_passes_nothing_on_for_a_short_run():
    from rnnviz.lessons.hello import throttled

    seen = []
    train("hello", 3, 300, seed=0, callback=throttled(lambda k, loss: seen.append(k), seconds=60))
    assert seen == []
    train("hello", 3, 30, seed=0, callback=throttled(lambda k, loss: seen.append(k), seconds=0))
    assert seen == [10, 20, 30]


def test_temperature_sentence_prints_the_same_probabilities_once():
    from rnnviz.lessons.hello import temperature_sentence
    from rnnviz.lessons.presets import SOFTMAX_SCORES
    from rnnviz.nn.sampling import softmax

    p1, p2 = softmax(np.array(SOFTMAX_SCORES)), softmax(np.array(SOFTMAX_SCORES), 0.5)
    at_one = temperature_sentence(p1, p1, 1.0)
    assert at_one.count("(0.038, 0.125, 0.001, 0.837)") == 1 and "At 1:" not in at_one
    assert temperature_sentence(p1, p2, 0.5).endswith("At 0.5: **(0.002, 0.022, 0.000, 0.976)**.")


def test_train_shared_trains_once_per_setting_and_shares_read_only_weights(monkeypatch):
    from rnnviz.lessons import hello

    monkeypatch.setattr(hello, "TRAINED", hello.SharedCache(2 ** 20))
    runs = []
    real = hello.train
    monkeypatch.setattr(hello, "train", lambda *a, **k: runs.append(a) or real(*a, **k))
    first = hello.train_shared("hello", 3, 50, 2)
    again = hello.train_shared("hello", 3, 50, 2)  # Train pressed again, or a second visitor's link
    assert again is first and len(runs) == 1
    assert np.array_equal(first.weights.W_hh, real("hello", 3, 50, seed=2).weights.W_hh)  # what train() gives
    with pytest.raises(ValueError):
        first.weights.W_hh[0, 0] = 1.0  # nobody's page can change another visitor's model
    hello.train_shared("hello", 3, 50, 3)
    assert len(runs) == 2  # another seed is another model
