"""The personal store: the words a user writes, kept on their machine, only with consent.

A `PersonalStore` counts words and word pairs (bigrams) the user wrote: words typed in
their documents, candidates they accepted, and text they hand to `nextword learn`.
The decider mixes it in as two components, "user" and "userbigram" (decisions.py), the
way it mixes the document's own words, with weights fitted on data (training/personal_fit.py).

Nothing here runs unless the user turned learning on (the `learning` setting, or
`nextword learn`); the store lives under the user's data directory only:

    <data>/learning/user.json                       the user's store
    <data>/learning/workspaces/<sha256(root)>.json  one per workspace, when asked

It is bounded: over MAX_WORDS words or MAX_BIGRAMS pairs, the least recently used go;
and once it has counted MAX_TOTAL words every count is halved, so old habits fade and
words seen once long ago age out. It is written atomically (a temporary file, fsync,
rename, fsync of the directory): a crash mid-write leaves the old file or the new one.
Where the stores live, and the file operations they need: learnfiles.py.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from nextword.engine.learnfiles import (
    atomic_write,
    file_size,
    stamp,
    store_paths,
    user_path,
    workspace_path,
    workspace_uri,
)
from nextword.engine.words import WORD_RE, is_candidate, is_cjk, starts_sentence

log = logging.getLogger(__name__)

FORMAT = "nextword-learning"
VERSION = 1
MAX_WORDS = 20_000
MAX_BIGRAMS = 50_000
# Pruning drops the least recently used down to this share of a bound: one sort per
# few thousand new entries, not one per word.
PRUNE_TO = 0.9
# Once this many words are counted, every count is halved (and 1s vanish): the store
# follows how the user writes now, not how they wrote a year ago.
MAX_TOTAL = 1_000_000
# Longer runs are hashes, tokens, base64: not words anyone completes, and not worth keeping.
MAX_WORD_CHARS = 32
ACCEPTED = 2  # an accepted candidate counts double: the user chose it from a list
# A word outside the lexicon is offered once seen this often: typos are one-offs,
# names and identifiers recur (an accepted word reaches it at once).
MIN_UNKNOWN = 2
# The last word of a context is looked for in this many characters at its end.
_TAIL = 200
# Words learned since the last save, kept to merge into a file another process wrote.
MAX_PENDING = 100_000


def open_store(workspace: str | None = None) -> PersonalStore:
    """The user's store, or that of `workspace` (a folder or its URI), as it is on disk."""
    if workspace:
        uri = workspace_uri(workspace)
        return PersonalStore.load(workspace_path(uri), workspace=uri)
    return PersonalStore.load(user_path())


def learnable(word: str) -> bool:
    """A word worth keeping: one that could be offered, of bounded length, not CJK
    (Chinese text is served by its own model, which counts characters, not words)."""
    return len(word) <= MAX_WORD_CHARS and is_candidate(word) and not any(map(is_cjk, word))


def words_of(text: str) -> Iterator[tuple[str | None, str]]:
    """(previous word or None, word) for each learnable word of `text`.

    The previous word is None across a sentence end or a skipped word: a pair that
    spans "end. Start" says nothing about what follows "end".
    """
    prev: str | None = None
    prev_end = 0
    for match in WORD_RE.finditer(text):
        word = match.group()
        if not learnable(word):
            prev = None
            continue
        if prev is not None and starts_sentence(text[prev_end - 1 : match.start()]):
            prev = None
        yield prev, word
        prev, prev_end = word, match.end()


def last_word(context: str) -> str | None:
    """The last word of a context, when the next word continues its sentence."""
    tail = context[-_TAIL:]
    if starts_sentence(tail):
        return None
    words = WORD_RE.findall(tail)
    return words[-1] if words and learnable(words[-1]) else None


class _View:
    """The store's word counts laid over one lexicon: a dense vector for its words
    (cheap to mix, as the document's own counts are), a dict for the rest."""

    def __init__(self, index: dict[str, int], words: dict[str, list[int]]):
        self.index = index
        self.known = np.zeros(len(index), dtype=np.float32)
        self.unknown: dict[str, int] = {}
        for word, (count, _) in words.items():
            self.set(word, count)

    def set(self, word: str, count: int) -> None:
        i = self.index.get(word)
        if i is not None:
            self.known[i] = count
        elif count >= MIN_UNKNOWN:
            self.unknown[word] = count
        else:
            self.unknown.pop(word, None)


class PersonalStore:
    """Word and bigram counts with last-use stamps, one JSON file on disk.

    Thread-safe: the server learns on its protocol thread, decides on its inference
    thread and saves on a timer thread; `lock` guards the counts.
    """

    def __init__(self, path: Path, *, workspace: str | None = None):
        self.path = path
        self.workspace = workspace  # the root URI of a workspace store, for `status`
        self.lock = threading.RLock()
        self._save_lock = threading.Lock()  # one writer at a time (timer, shutdown, forget)
        self._reset()
        self.dirty = False
        # The file as we last read or wrote it (mtime, size); None: not on disk. A file
        # that vanished since was deleted by `nextword forget` (another process) and is
        # not written back; one that changed was written by another process (`nextword
        # learn`, a second editor): what we learned since is added to it, not over it.
        self._stamp: tuple[int, int] | None = None
        self._pending: list[tuple[str | None, str, int]] | None = []

    @classmethod
    def learned_from(cls, texts: list[str]) -> PersonalStore:
        """A store, never saved, that learned `texts` (the fits and the learning eval)."""
        store = cls(Path("unsaved.json"))
        for text in texts:
            store.learn_text(text)
        return store

    def _reset(self) -> None:
        self.clock = 0  # words learned so far: the stamp of "last used"
        self.words: dict[str, list[int]] = {}  # word -> [count, last used]
        self.bigrams: dict[str, dict[str, list[int]]] = {}  # prev -> word -> [count, last]
        self.n_bigrams = 0
        self.total = 0  # sum of word counts
        self.singletons = 0  # words counted exactly once
        self._views: list[_View] = []

    # -- learning ---------------------------------------------------------------------

    def learn_text(self, text: str, weight: int = 1) -> int:
        """Count the words of `text` and their pairs; the number of words counted."""
        n = 0
        with self.lock:
            for prev, word in words_of(text):
                self._learn(prev, word, weight)
                n += 1
            self._bound()
        return n

    def learn_word(self, context: str, word: str, *, accepted: bool = False) -> bool:
        """Count one word written after `context` (the text before it); False if skipped.

        An accepted candidate counts ACCEPTED times: the user picked it from a list.
        """
        if not learnable(word):
            return False
        with self.lock:
            self._learn(last_word(context), word, ACCEPTED if accepted else 1)
            self._bound()
        return True

    def _learn(self, prev: str | None, word: str, weight: int) -> None:
        if self._pending is not None:
            self._pending.append((prev, word, weight))
            if len(self._pending) > MAX_PENDING:
                self._pending = None  # a bulk learn: its save replaces the file
        self.clock += 1
        self._count_word(word, weight)
        if prev is not None:
            followers = self.bigrams.setdefault(prev, {})
            entry = followers.get(word)
            if entry is None:
                followers[word] = [weight, self.clock]
                self.n_bigrams += 1
            else:
                entry[0] += weight
                entry[1] = self.clock
        self.dirty = True

    def _count_word(self, word: str, weight: int) -> None:
        entry = self.words.get(word)
        old = 0 if entry is None else entry[0]
        new = old + weight
        self.words[word] = [new, self.clock]
        self.total += weight
        self.singletons += (new == 1) - (old == 1)
        for view in self._views:
            view.set(word, new)

    def _bound(self) -> None:
        """Keep the store within its bounds (see the module's docstring)."""
        if self.total > MAX_TOTAL:
            self._halve()
        if len(self.words) > MAX_WORDS:
            ranked = sorted(self.words.items(), key=lambda item: item[1][1])
            for word, _ in ranked[: len(self.words) - int(MAX_WORDS * PRUNE_TO)]:
                self._drop_word(word)
        if self.n_bigrams > MAX_BIGRAMS:
            pairs = sorted(
                (entry[1], prev, word)
                for prev, followers in self.bigrams.items()
                for word, entry in followers.items()
            )
            for _, prev, word in pairs[: self.n_bigrams - int(MAX_BIGRAMS * PRUNE_TO)]:
                self._drop_bigram(prev, word)

    def _halve(self) -> None:
        for word, entry in list(self.words.items()):
            self._drop_word(word)
            if entry[0] // 2:
                self._count_word(word, entry[0] // 2)
                self.words[word][1] = entry[1]
        for prev, followers in list(self.bigrams.items()):
            for word, entry in list(followers.items()):
                entry[0] //= 2
                if not entry[0]:
                    self._drop_bigram(prev, word)

    def _drop_word(self, word: str) -> None:
        count, _ = self.words.pop(word)
        self.total -= count
        self.singletons -= count == 1
        for view in self._views:
            view.set(word, 0)

    def _drop_bigram(self, prev: str, word: str) -> None:
        followers = self.bigrams[prev]
        del followers[word]
        self.n_bigrams -= 1
        if not followers:
            del self.bigrams[prev]

    # -- what the decider reads -----------------------------------------------------------

    def unigram(self, index: dict[str, int]) -> tuple[np.ndarray, dict[str, int], int, int]:
        """(counts of the lexicon's words, counts of other offered words, total, singletons).

        Copies, made under the lock: the caller mixes them while others learn.
        """
        with self.lock:
            view = next((v for v in self._views if v.index is index), None)
            if view is None:
                view = _View(index, self.words)
                # Two lexicons at most are served at once (a model reload replaces one).
                self._views = [*self._views[-1:], view]
            return view.known.copy(), dict(view.unknown), self.total, self.singletons

    def following(self, word: str) -> dict[str, int]:
        """How often each word followed `word` (a copy)."""
        with self.lock:
            return {w: entry[0] for w, entry in self.bigrams.get(word, {}).items()}

    # -- disk ------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path, *, workspace: str | None = None) -> PersonalStore:
        """The store at `path`; empty when there is none.

        Never raises for a bad file: a corrupt or foreign one is moved aside to
        `<name>.corrupt` (the user's data, kept for them to inspect) and the store
        starts empty, with a warning in the log.
        """
        store = cls(path, workspace=workspace)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return store
        except OSError as err:
            log.warning("cannot read the learning store %s (%s); starting empty", path, err)
            return store
        try:
            store._restore(json.loads(raw))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as err:
            aside = path.with_name(path.name + ".corrupt")
            log.warning(
                "the learning store %s is unreadable (%s); moved to %s, starting empty",
                path,
                type(err).__name__,
                aside.name,
            )
            with contextlib.suppress(OSError):
                os.replace(path, aside)
            store._reset()
            return store
        store._stamp = stamp(path)
        return store

    def _restore(self, data: Any) -> None:
        if data.get("format") != FORMAT or data.get("version") != VERSION:
            raise ValueError("not a nextword learning store of this version")
        self._reset()
        self.clock = int(data["clock"])
        self.workspace = data.get("workspace", self.workspace)
        for word, (count, last) in data["words"].items():
            if learnable(word) and int(count) > 0:
                self.words[word] = [int(count), int(last)]
                self.total += int(count)
                self.singletons += int(count) == 1
        for prev, followers in data["bigrams"].items():
            kept = {w: [int(c), int(t)] for w, (c, t) in followers.items() if int(c) > 0}
            if kept:
                self.bigrams[prev] = kept
                self.n_bigrams += len(kept)
        self._bound()

    def snapshot(self) -> dict[str, Any]:
        """The store as JSON data (copied under the lock; serialised outside it)."""
        with self.lock:
            data: dict[str, Any] = {
                "format": FORMAT,
                "version": VERSION,
                "clock": self.clock,
                "words": {w: list(e) for w, e in self.words.items()},
                "bigrams": {p: {w: list(e) for w, e in f.items()} for p, f in self.bigrams.items()},
            }
            if self.workspace is not None:
                data["workspace"] = self.workspace
            self.dirty = False
            self._pending = []
            return data

    def save(self) -> bool:
        """Write the store atomically if it changed since the last save; True if written."""
        with self._save_lock:
            if not self.dirty:
                return False
            on_disk = stamp(self.path)
            if self._stamp is not None and on_disk is None:
                log.info("the learning store %s was deleted; forgetting", self.path)
                self._adopt(PersonalStore(self.path))
                return False
            if on_disk is not None and on_disk != self._stamp and self._pending is not None:
                self._merge_from_disk()
            atomic_write(self.path, json.dumps(self.snapshot(), ensure_ascii=False).encode())
            self._stamp = stamp(self.path)
            return True

    def _merge_from_disk(self) -> None:
        """Take the file another process wrote, plus what we learned since our last save."""
        other = PersonalStore.load(self.path, workspace=self.workspace)
        with self.lock:
            for prev, word, weight in self._pending or []:
                other._learn(prev, word, weight)
            other._bound()
            self._adopt(other)
            self.dirty = True

    def _adopt(self, other: PersonalStore) -> None:
        """Hold `other`'s counts (views rebuilt for the same lexicons); nothing unsaved."""
        with self.lock:
            indexes = [v.index for v in self._views]
            self.clock, self.words, self.bigrams = other.clock, other.words, other.bigrams
            self.n_bigrams, self.total, self.singletons = (
                other.n_bigrams,
                other.total,
                other.singletons,
            )
            self._views = [_View(index, self.words) for index in indexes]
            self.dirty, self._pending = False, []

    def forget(self) -> None:
        """Delete the file and everything in memory."""
        with self._save_lock:
            self._adopt(PersonalStore(self.path))
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            self._stamp = None

    def status(self) -> dict[str, Any]:
        """Counts, size and place; never a word."""
        with self.lock:
            out: dict[str, Any] = {
                "path": str(self.path),
                "words": len(self.words),
                "bigrams": self.n_bigrams,
                "wordsLearned": self.total,
                "bytes": file_size(self.path),
                "unsaved": self.dirty,
            }
        if self.workspace is not None:
            out["workspace"] = self.workspace
        return out


def stored() -> list[dict[str, Any]]:
    """Every store on disk (the user's, then each workspace's): counts, size, place."""
    return [PersonalStore.load(p).status() for p in store_paths()]
