"""The per-server cache counts what an entry really holds: a shared result's size is its whole object graph."""
import sys

import numpy as np

from rnnviz.lessons.cache import SharedCache, deep_sizeof


def test_deep_sizeof_counts_arrays_views_containers_and_attributes_once():
    a = np.zeros(1000)  # 8,000 bytes of data
    assert deep_sizeof(a) >= 8000
    assert deep_sizeof([a, a, a[:10]]) < 8000 + 1000  # the same buffer once, a view by its base

    class Result:
        def __init__(self):
            self.losses = [float(i) for i in range(100)]
            self.names = {"h": "hidden", "y": "output"}

    r = Result()
    assert deep_sizeof(r) >= sys.getsizeof(r.losses) + 100 * sys.getsizeof(1.0) + sys.getsizeof(r.names)


def test_a_result_of_small_arrays_and_python_objects_is_counted_by_what_it_holds():
    from rnnviz.lessons import hello

    cache = SharedCache(10**9)
    result = hello.train("hello", 4, 3, seed=0)
    cache.get_arrays("k", lambda: result, lambda r: [a for a in vars(r.weights).values() if isinstance(a, np.ndarray)],
                     lambda r: 8 * len(r.losses))
    counted = cache._items["k"][1]
    arrays = sum(a.nbytes for a in vars(result.weights).values() if isinstance(a, np.ndarray))
    assert counted >= deep_sizeof(result) > 3 * (arrays + 8 * len(result.losses))  # not just array bytes


def test_a_budget_holds_its_bytes_for_entries_whose_size_the_caller_underestimates():
    cache = SharedCache(max_bytes=50_000)
    for k in range(200):  # each entry holds ~5 kB of Python objects; the caller says 8 bytes
        cache.get(k, lambda: [str(i) * 3 for i in range(100)], lambda v: 8)
    held = sum(deep_sizeof(v) for v, _ in cache._items.values())
    assert held <= 50_000 and len(cache._items) < 20
