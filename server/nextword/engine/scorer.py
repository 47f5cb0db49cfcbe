"""Next-token log-probabilities from an mlx-lm causal LM, reusing the KV cache.

The scorer remembers the tokens its cache holds. Asked about a new sequence, it keeps
the longest common prefix, trims the rest from the cache, and runs only the new
tokens: typing one word at the end costs a one- or two-token forward.

`request` starts that forward and returns at once: MLX evaluates it on its own
thread, so the decider counts the word tables meanwhile and reads the result after
(`Pending.result`). On two cores the tables' 1-2 ms hide behind the model's 4-5 ms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nextword.engine.architectures import make_cache


class Pending:
    """Log-probabilities being computed (an mx.array) or computed before (a numpy
    array): `result` waits for them, once."""

    def __init__(self, logprobs: Any):
        ready = isinstance(logprobs, np.ndarray)
        self._array: Any = None if ready else logprobs
        self._result: np.ndarray | None = logprobs if ready else None

    def result(self) -> np.ndarray:
        if self._result is None:
            self._result, self._array = np.array(self._array), None
        return self._result


class Scorer:
    """One document's view of a shared model: its own KV cache over its own tokens."""

    def __init__(self, model: Any):
        self._model = model
        self._cache: list[Any] = make_cache(model)
        self._tokens: list[int] = []
        self._last: Pending | None = None
        self.forwards = 0  # model calls, for stats and tests
        self.tokens_run = 0

    @property
    def tokens(self) -> list[int]:
        return list(self._tokens)

    def reset(self) -> None:
        self._cache = make_cache(self._model)
        self._tokens = []
        self._last = None

    def branches(self, tokens: Sequence[int], nexts: Sequence[int]) -> np.ndarray | None:
        """(len(nexts), V) log-probabilities of the token after `tokens` + [t], for each
        t in `nexts`: one batched forward over copies of the cache, which stays at
        `tokens`. None where the model's cache is not mlx-lm's plain `KVCache`.
        """
        if not nexts:
            return np.zeros((0, 0), dtype=np.float32)
        rows = self.fork(tokens, len(nexts))
        return None if rows is None else rows.step(nexts)

    def fork(self, tokens: Sequence[int], m: int, room: int = 1) -> Rows | None:
        """`m` sequences that go on from `tokens` each its own way, `room` tokens at
        most, run as one batch (`Rows`). The scorer's own cache stays at `tokens`.
        None where the model's cache is not mlx-lm's plain `KVCache`."""
        from mlx_lm.models.cache import KVCache

        self.logprobs(tokens)  # the cache at `tokens`: free when it is there already
        copies = []
        for layer in self._cache:
            if type(layer) is not KVCache:
                return None
            keys, values = layer.keys_and_values()
            copy = KVCache()
            copy.keys, copy.values = (_copies(a, m, room) for a in (keys, values))
            copy.offset = layer.offset
            copies.append(copy)
        return Rows(self, copies)

    def logprobs(self, tokens: Sequence[int]) -> np.ndarray:
        """Log-probabilities (V,) of the token after `tokens` (which must be non-empty)."""
        return self.request(tokens).result()

    def request(self, tokens: Sequence[int]) -> Pending:
        """`logprobs`, started: the forward runs while the caller goes on. The cache
        is the request's from now on; read the result before the next request."""
        import mlx.core as mx
        from mlx_lm.models.cache import can_trim_prompt_cache, trim_prompt_cache

        if not tokens:
            raise ValueError("logprobs needs at least one token")
        tokens = list(tokens)
        common = common_prefix(self._tokens, tokens)
        if common == len(tokens) == len(self._tokens) and self._last is not None:
            return self._last
        # The last token must be run again to get its output, even if cached.
        common = min(common, len(tokens) - 1)
        stale = len(self._tokens) - common
        if stale and can_trim_prompt_cache(self._cache):
            trim_prompt_cache(self._cache, stale)
        elif stale:
            self._cache = make_cache(self._model)
            common = 0
        new = tokens[common:]
        batch = mx.array(np.asarray(new, dtype=np.int32))[None]  # (1, L)
        logits = self._model(batch, cache=self._cache)[0, -1]
        logits = logits.astype(mx.float32)
        logprobs = logits - mx.logsumexp(logits)
        mx.async_eval(logprobs)
        self._last = Pending(logprobs)
        self._tokens = tokens
        self.forwards += 1
        self.tokens_run += len(new)
        return self._last


class Rows:
    """Sequences that share a scorer's tokens and go on each its own way, one token
    each per `step`, as one batch: a one-token forward costs about as much for a few
    rows as for one (the weights are read once), where row by row it costs each."""

    def __init__(self, scorer: Scorer, cache: list[Any]):
        self._scorer = scorer
        self._cache = cache

    def step(self, nexts: Sequence[int]) -> np.ndarray:
        """(rows, V) log-probabilities of the token after each row's next token."""
        import mlx.core as mx

        batch = mx.array(np.asarray(nexts, dtype=np.int32))[:, None]  # (m, 1)
        logits = self._scorer._model(batch, cache=self._cache)[:, -1].astype(mx.float32)
        out = np.array(logits - mx.logsumexp(logits, axis=-1, keepdims=True))
        self._scorer.forwards += 1
        self._scorer.tokens_run += len(nexts)
        return out


def _copies(a: Any, m: int, room: int) -> Any:
    """`m` copies of one sequence's cached keys or values (1, heads, L, dim), with room
    for `room` more positions, so the rows' forwards do not grow the buffer."""
    import mlx.core as mx

    space = mx.zeros((m, a.shape[1], room, a.shape[3]), dtype=a.dtype)
    return mx.concatenate([mx.repeat(a, m, axis=0), space], axis=2)


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens two sequences share."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i
