"""The hello page's words, link parsers and per-server cache: the vocabulary and status as shown, the sliders'
notches in links, the softmax and temperature notes, throttled progress, models trained once per server."""
import numpy as np
import pytest

from rnnviz.lessons.hello import train


def test_visible_characters_and_the_vocabulary_display():
    from rnnviz.lessons.hello import vocabulary
    from ui.lessons.hello import visible, vocab_display

    assert vocab_display(vocabulary("hello")) == ("{h, e, l, o}", None)
    text, note = vocab_display(vocabulary("the cat\n"))
    assert text == "7" and note.startswith("The vocabulary: 7 characters, {t, h, e, ␣, c, a, ↵}.")  # too many to list
    assert "␣ is the space" in note and "↵ a line break" in note  # in the metric: their number, the set in the note
    assert vocab_display(vocabulary("abcd")) == ("{a, b, c, d}", None)  # four fit the metric at 1280 px
    many = vocab_display([chr(65 + k) for k in range(30)])
    assert visible("\t") == "⇥" and many == ("30", "The vocabulary: 30 characters.")  # too many to list at all


def test_url_parsers_refuse_values_off_the_sliders_notches():
    from ui.lessons.hello import CONTROLS

    parse = CONTROLS["temp"].parser()
    assert parse("0.5") == 0.5 and parse("5") == 5.0
    for bad in ("4.9", "0.15", "nan", "abc", "10"):
        with pytest.raises(ValueError):
            parse(bad)
    steps = CONTROLS["steps"].parser()
    assert steps("300") == 300
    for bad in ("15", "1010", "-10", "3.0"):
        with pytest.raises(ValueError):
            steps(bad)


def test_status_says_what_the_model_was_trained_on():
    from ui.lessons.hello import TrainSetup, status

    assert status(TrainSetup("hello", 3, 300, 0), None).startswith("**Untrained**: random weights (seed 0")
    r = train("hello", 3, 300, seed=0)
    s = status(TrainSetup("hello", 3, 300, 0), r, label="“hello”")
    assert s.startswith("**Trained** on “hello” (5 characters, 4 distinct): 300 steps") and "from random weights" in s
    assert "nats per character (the average −ln p" in s and "ln 2 ≈ 0.69 nats is one bit" in s  # the unit explained


def test_softmax_note_only_for_the_notes_scores():
    from rnnviz.lessons.presets import NOTES_SOFTMAX_PRINTED, SOFTMAX_SCORES
    from rnnviz.nn.sampling import softmax
    from ui.lessons.hello import softmax_note

    p = softmax(np.array(SOFTMAX_SCORES))
    note = softmax_note(SOFTMAX_SCORES, p, SOFTMAX_SCORES, NOTES_SOFTMAX_PRINTED)
    assert "(0.03, 0.13, 0.00, 0.84)" in note and "(0.038, 0.125, 0.001, 0.837)" in note
    assert softmax_note((1.0, 2.0), softmax(np.array([1.0, 2.0])), SOFTMAX_SCORES, NOTES_SOFTMAX_PRINTED) is None


def test_throttled_progress_passes_nothing_on_for_a_short_run():
    from ui.lessons.hello import throttled

    seen = []
    train("hello", 3, 300, seed=0, callback=throttled(lambda k, loss: seen.append(k), seconds=60))
    assert seen == []
    train("hello", 3, 30, seed=0, callback=throttled(lambda k, loss: seen.append(k), seconds=0))
    assert seen == [10, 20, 30]


def test_temperature_sentence_prints_the_same_probabilities_once():
    from rnnviz.lessons.presets import SOFTMAX_SCORES
    from rnnviz.nn.sampling import sampling_distribution, softmax
    from ui.lessons.hello import temperature_sentence

    p1, p2 = softmax(np.array(SOFTMAX_SCORES)), sampling_distribution(np.array(SOFTMAX_SCORES), 0.5)
    at_one = temperature_sentence(p1, p1, 1.0)
    assert at_one.count("(0.0377, 0.125, 6.90 × 10⁻⁴, 0.837)") == 1 and "At 1:" not in at_one
    # 3 significant figures and a power of ten: three decimals wrote the smallest as 0.001 and, at 0.5, as 0.000
    assert temperature_sentence(p1, p2, 0.5).endswith("At 0.5: **(0.00198, 0.0218, 6.65 × 10⁻⁷, 0.976)**.")
    # as many pieces at 1 as elsewhere: a drag of Temperature from 1 writes each over the page's (ui/live/words.js)
    from rnnviz.live.words import pieces
    from ui.lessons.hello import TEMPERATURES

    shapes = {len(pieces(temperature_sentence(p1, sampling_distribution(np.array(SOFTMAX_SCORES), t), t)))
              for t in TEMPERATURES}
    assert shapes == {5}


def test_train_shared_trains_once_per_setting_and_shares_read_only_weights(monkeypatch):
    from ui.lessons import hello

    monkeypatch.setattr(hello, "TRAINED", hello.SharedCache(2 ** 20))
    runs = []
    real = hello.train
    monkeypatch.setattr(hello, "train", lambda *a, **k: runs.append(a) or real(*a, **k))
    first = hello.train_shared(hello.TrainSetup("hello", 3, 50, 2))
    again = hello.train_shared(hello.TrainSetup("hello", 3, 50, 2))  # Train pressed again, or a second visitor's link
    assert again is first and len(runs) == 1
    assert np.array_equal(first.weights.W_hh, real("hello", 3, 50, seed=2).weights.W_hh)  # what train() gives
    with pytest.raises(ValueError):
        first.weights.W_hh[0, 0] = 1.0  # nobody's page can change another visitor's model
    hello.train_shared(hello.TrainSetup("hello", 3, 50, 3))
    assert len(runs) == 2  # another seed is another model
