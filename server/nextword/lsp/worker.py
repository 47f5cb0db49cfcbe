"""The one inference thread: every engine call (load, decide) runs here, in order.

MLX is not safe to use from two threads at once, and the protocol loop must never
wait on a model forward, so the server hands the engine work to this thread and
awaits a future. Three lanes, each taken only while the ones above it are empty:

- quick jobs (filtering a cached decision, ~0.1 ms) run before any waiting model job,
  so a keystroke inside a word never queues behind another document's decision;
- model jobs keep at most one pending job per key (document): a newer one replaces
  the older, whose future is cancelled. Stale work is dropped, never queued;
- background jobs (work ahead of the user: a window slide, a phrase, a speculative
  decision) are keyed the same way, and run only when no request waits on the worker.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)


class InferenceWorker:
    """A single daemon thread with a quick lane and a per-key model lane."""

    def __init__(self, name: str = "nextword-inference"):
        self._lock = threading.Condition()
        self._quick: deque[tuple[Callable[[], Any], Future[Any]]] = deque()
        self._model: OrderedDict[Hashable, tuple[Callable[[], Any], Future[Any]]] = OrderedDict()
        self._background: OrderedDict[Hashable, tuple[Callable[[], Any], Future[Any]]] = (
            OrderedDict()
        )
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
            else:
                lane = self._background if background else self._model
                old = lane.pop(key, None)
                if old is not None:
                    old[1].cancel()
                lane[key] = (fn, future)
            self._lock.notify()
        return future

    def drop(self, key: Hashable) -> bool:
        """Cancel the model or background job waiting for `key`, if any."""
        with self._lock:
            old = self._model.pop(key, None) or self._background.pop(key, None)
        return old is not None and old[1].cancel()

    def shutdown(self, timeout: float = 2.0) -> None:
        """Cancel waiting jobs and stop the thread after the running one."""
        with self._lock:
            self._stopped = True
            waiting = [*self._quick, *self._model.values(), *self._background.values()]
            self._quick.clear()
            self._model.clear()
            self._background.clear()
            self._lock.notify()
        for _, future in waiting:
            future.cancel()
        self._thread.join(timeout)

    def _next(self) -> tuple[Callable[[], Any], Future[Any]] | None:
        with self._lock:
            while not (self._stopped or self._quick or self._model or self._background):
                self._lock.wait()
            if self._stopped:
                return None
            if self._quick:
                return self._quick.popleft()
            if self._model:
                return self._model.popitem(last=False)[1]
            return self._background.popitem(last=False)[1]

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
