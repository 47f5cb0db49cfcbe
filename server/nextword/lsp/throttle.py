"""A per-key throttle with a trailing call: at most one call per interval per key.

A call that comes inside the interval is held and runs when the interval ends; a
newer call for the same key replaces the held one (the replaced one is skipped).
So a burst of word boundaries costs one model decision now and one for the newest
boundary at the end of the interval, never one per boundary.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol


class _Handle(Protocol):
    def cancel(self) -> Any: ...


CallLater = Callable[[float, Callable[[], None]], _Handle]


class Throttle:
    """Run `fn` for a key at most once every `interval_s` seconds, the newest call last.

    Args:
        interval_s: the least time between two calls for one key (0 = no throttle).
        clock: monotonic seconds (injected by tests).
        call_later: schedules a callback after a delay; defaults to the running
            asyncio loop's `call_later`.
        on_skip: called with the key each time a held call is replaced or cancelled.
    """

    def __init__(
        self,
        interval_s: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        call_later: CallLater | None = None,
        on_skip: Callable[[Any], None] | None = None,
    ):
        self.interval_s = interval_s
        self._clock = clock
        self._call_later = call_later
        self._on_skip = on_skip
        self._last: dict[Any, float] = {}
        self._held: dict[Any, tuple[Callable[[], None], _Handle]] = {}

    def wait(self, key: Any) -> float:
        """Seconds until a call for `key` may run (0: it may run now)."""
        last = self._last.get(key)
        if last is None:
            return 0.0
        return max(0.0, last + self.interval_s - self._clock())

    def call(self, key: Any, fn: Callable[[], None]) -> bool:
        """Run `fn` now if the interval allows, else hold it for the interval's end.

        Returns:
            True if `fn` ran now, False if it is held.
        """
        delay = self.wait(key)
        if delay <= 0 and key not in self._held:
            self._fire(key, fn)
            return True
        self.cancel(key)
        schedule = self._call_later or asyncio.get_running_loop().call_later
        handle = schedule(delay, lambda: self._release(key))
        self._held[key] = (fn, handle)
        return False

    def held(self, key: Any) -> bool:
        return key in self._held

    def cancel(self, key: Any) -> bool:
        """Drop the call held for `key`, if any (it counts as skipped)."""
        held = self._held.pop(key, None)
        if held is None:
            return False
        held[1].cancel()
        if self._on_skip is not None:
            self._on_skip(key)
        return True

    def forget(self, key: Any) -> None:
        """Drop all state for `key` (its document closed)."""
        self.cancel(key)
        self._last.pop(key, None)

    def _release(self, key: Any) -> None:
        held = self._held.pop(key, None)
        if held is not None:
            self._fire(key, held[0])

    def _fire(self, key: Any, fn: Callable[[], None]) -> None:
        self._last[key] = self._clock()
        fn()
