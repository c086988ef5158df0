"""Results computed once per server and shared by every visitor: bounded in bytes, least recently used out
first, one computation per key at a time (a class opening the same link computes it once), and pinned entries
that no visitor can evict. An entry's size is measured (`deep_sizeof`: everything it holds), never only guessed."""
from __future__ import annotations

import logging
import sys
import threading
import time
import types
from collections import OrderedDict
from typing import Callable, Iterable

import numpy as np

_SHARED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, type(None), bool)


def deep_sizeof(value: object, max_objects: int = 200_000) -> int:
    """Bytes `value` holds: sys.getsizeof of it and of everything it references (container items, dict keys and values,
    instance attributes and slots), each object once; an array by its buffer (a view by the array it views). Classes,
    modules and functions are shared code, not counted. The walk stops after max_objects objects (what it has counted
    so far is returned)."""
    seen: set[int] = set()
    todo, total = [value], 0
    while todo and len(seen) < max_objects:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, _SHARED):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)  # an array that owns its data counts it (numpy's __sizeof__)
        if isinstance(obj, np.ndarray):
            if obj.base is not None:
                todo.append(obj.base)
            if obj.dtype == object:
                todo.extend(obj.ravel().tolist())
        elif isinstance(obj, dict):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            todo.extend(obj)
        elif not isinstance(obj, (str, bytes, bytearray, int, float, complex, memoryview)):
            if hasattr(obj, "__dict__"):
                todo.append(vars(obj))
            for cls in type(obj).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    if hasattr(obj, slot):
                        todo.append(getattr(obj, slot))
    return total


class SharedCache:
    """Results every visitor shares (the shipped model's): at most `max_bytes`, least recently used out first;
    one computation per key at a time, so a class opening the same link computes it once. `pinned` entries stay.
    An entry counts the larger of `size(value)`, a caller's estimate, and `deep_sizeof(value)`, what it holds: an
    estimate of array bytes alone counted a tiny Train result as 72 bytes where it held 1,809."""

    def __init__(self, max_bytes: int):
        self.max_bytes, self._items, self._lock = max_bytes, OrderedDict(), threading.Lock()
        self._busy: dict = {}
        self._ahead = threading.Lock()  # held while fill_ahead computes

    def __contains__(self, key) -> bool:
        """Whether `key`'s result is at hand now (a page can say so before asking for it)."""
        with self._lock:
            return key in self._items

    def get(self, key, compute: Callable[[], object], size: Callable[[object], int] = lambda v: 0,
            pinned: bool = False):
        while True:
            with self._lock:
                if key in self._items:
                    self._items.move_to_end(key)
                    return self._items[key][0]
                gate = self._busy.get(key)
                if gate is None:
                    gate = self._claim(key)
                    break
            with gate:  # someone else is computing it: wait, then look again (they may have been interrupted)
                pass
        return self._fill(key, gate, compute, size, pinned)

    def _claim(self, key) -> threading.Lock:
        """Mark `key` as being computed (the caller holds self._lock); others wait on the returned, held gate."""
        gate = self._busy[key] = threading.Lock()
        gate.acquire()
        return gate

    def _fill(self, key, gate: threading.Lock, compute: Callable[[], object], size: Callable[[object], int],
              pinned: bool):
        """Compute a claimed key, keep it, and open its gate whatever happens."""
        try:
            value = compute()
            with self._lock:
                self._items[key] = (value, 0 if pinned else max(size(value), deep_sizeof(value)))
                while sum(b for _, b in self._items.values()) > self.max_bytes:
                    old = next((k for k, (_, b) in self._items.items() if b), None)
                    if old is None or old == key:
                        break
                    del self._items[old]
            return value
        finally:
            with self._lock:
                del self._busy[key]
            gate.release()

    def get_arrays(self, key, compute: Callable[[], object], arrays: Callable[[object], Iterable],
                   size: Callable[[object], int] = lambda v: 0):
        """get() for a result holding NumPy arrays, `arrays(result)`: they are made read-only (every visitor shares
        them; none may change another's), and the result's size is what it holds (at least their bytes plus
        `size(result)`)."""
        def frozen():
            value = compute()
            for a in arrays(value):
                a.setflags(write=False)
            return value
        return self.get(key, frozen, lambda v: sum(a.nbytes for a in arrays(v)) + size(v))

    def fill_ahead(self, key, compute: Callable[[], object], size: Callable[[object], int] = lambda v: 0,
                   delay: float = 0.0) -> bool:
        """Compute `key` in a background thread, so that a later get() finds it, or waits for it instead of computing
        it twice (the key is claimed before this returns). One at a time per cache: False, and nothing started, when
        the key is cached or being computed or another fill is running. `delay`: seconds the thread sleeps first (a
        Python thread computing shares the interpreter with the caller, whose work goes first)."""
        if not self._ahead.acquire(blocking=False):
            return False
        with self._lock:
            gate = None if key in self._items or key in self._busy else self._claim(key)
        if gate is None:
            self._ahead.release()
            return False

        def run():
            try:
                time.sleep(delay)
                self._fill(key, gate, compute, size, False)
            except Exception:  # nobody is waiting for it: a visitor who asks computes it then, and sees any error
                logging.getLogger(__name__).exception("computing %r ahead failed", key)
            finally:
                self._ahead.release()

        try:
            threading.Thread(target=run, name="rnnviz-ahead", daemon=True).start()
        except RuntimeError:  # no thread to be had: give the key and the slot back
            with self._lock:
                del self._busy[key]
            gate.release()
            self._ahead.release()
            return False
        return True
