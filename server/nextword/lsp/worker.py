"""The one inference thread: every engine call (load, decide) runs here, in order.

MLX is not safe to use from two threads at once, and the protocol loop must never
wait on a model forward, so the server hands the engine work to this thread and
awaits a future. Three lanes, each taken only while the ones above it are empty:

- quick jobs (filtering a cached decision, ~0.1 ms) run before any waiting model job,
  so a keystroke inside a word never queues behind another document's decision;
- model jobs keep at most one pending job per key (document): a newer one replaces
  the older, whose future is cancelled. Stale work is dropped, never queued;
- background jobs (work ahead of the user: a window slide, a phrase, a speculative
  decision) are keyed the same way, and run only when no request waits on the worker,
  and not while the protocol loop answers a request (`hold_background`).

The hold is for the two cores: a guess run while the loop filters the key's
completion competes with it for the interpreter and a core, and at 10 keys/s the
completion round trip went 1.81 -> 2.10 ms p50 with the work ahead on. Held until
the key's requests are answered, the work ahead still has ~100 ms before the next key.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)

# The longest a background job for one key waits for the loop to be quiet (typing
# flat out is never quiet): the work ahead is late then, not starved.
BACKGROUND_MAX_WAIT_S = 0.02

_Job = tuple[Callable[[], Any], Future[Any]]


class InferenceWorker:
    """A single daemon thread with a quick lane and a per-key model lane."""

    def __init__(self, name: str = "nextword-inference"):
        self._lock = threading.Condition()
        self._quick: deque[_Job] = deque()
        self._model: OrderedDict[Hashable, _Job] = OrderedDict()
        # Each with when its key began to wait (a replacement keeps the first's time).
        self._background: OrderedDict[Hashable, tuple[Callable[[], Any], Future[Any], float]]
        self._background = OrderedDict()
        self._quiet_at = 0.0  # background jobs wait until then (monotonic seconds)
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(
        self, fn: Callable[[], T], *, key: Hashable | None = None, background: bool = False
    ) -> Future[T]:
        """Run `fn` on the worker thread.

        Args:
            fn: the job; its return value or exception lands in the future.
            key: None for a quick job; otherwise a model job for this key, which
                replaces (and cancels) a job for the same key still waiting.
            background: a keyed job that runs only when no quick or model job waits.
        """
        future: Future[T] = Future()
        with self._lock:
            if self._stopped:
                future.cancel()
                return future
            if key is None:
                self._quick.append((fn, future))
            elif background:
                old_job = self._background.pop(key, None)
                since = time.monotonic()
                if old_job is not None:
                    old_job[1].cancel()
                    since = old_job[2]
                self._background[key] = (fn, future, since)
            else:
                old = self._model.pop(key, None)
                if old is not None:
                    old[1].cancel()
                self._model[key] = (fn, future)
            self._lock.notify()
        return future

    def hold_background(self, seconds: float) -> None:
        """Start no background job for `seconds` from now (the latest call sets it): the
        loop expects a request, or is about to write an answer."""
        with self._lock:
            self._quiet_at = time.monotonic() + seconds
            self._lock.notify()

    def drop(self, key: Hashable) -> bool:
        """Cancel the model or background job waiting for `key`, if any."""
        with self._lock:
            old = self._model.pop(key, None) or self._background.pop(key, None)
        return old is not None and old[1].cancel()

    def shutdown(self, timeout: float = 2.0) -> None:
        """Cancel waiting jobs and stop the thread after the running one."""
        with self._lock:
            self._stopped = True
            waiting = [
                *(f for _, f in self._quick),
                *(f for _, f in self._model.values()),
                *(job[1] for job in self._background.values()),
            ]
            self._quick.clear()
            self._model.clear()
            self._background.clear()
            self._lock.notify()
        for future in waiting:
            future.cancel()
        self._thread.join(timeout)

    def _next(self) -> _Job | None:
        with self._lock:
            while True:
                if self._stopped:
                    return None
                if self._quick:
                    return self._quick.popleft()
                if self._model:
                    return self._model.popitem(last=False)[1]
                if not self._background:
                    self._lock.wait()
                    continue
                key, (fn, future, since) = next(iter(self._background.items()))
                start = min(self._quiet_at, since + BACKGROUND_MAX_WAIT_S)
                wait = start - time.monotonic()
                if wait <= 0:
                    del self._background[key]
                    return fn, future
                self._lock.wait(wait)

    def _run(self) -> None:
        while (job := self._next()) is not None:
            fn, future = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except BaseException as err:  # the future carries it to the awaiting handler
                log.debug("inference job failed", exc_info=True)
                future.set_exception(err)
