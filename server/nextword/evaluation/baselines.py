"""Baseline predictors the evaluator sets beside the model (docs/EVAL.md, "Baselines").

- `UnigramBaseline`: word frequency from the training text, filtered by the typed prefix.
- `PresageBaseline`: the Presage engine (libpresage through ctypes) with a trigram database
  built from the same training text by `text2ngram`, learning switched off.

Both answer `predict(context, prefix, k)` (the typist's `Predict`) with up to `k` whole
words, best first, each starting with `prefix` exactly (case included).

For Chinese (the evaluator's character-continuation typist, EVAL.md) the same two at the
character level: `UnigramCharBaseline` (the most frequent Han characters) and
`PresageCharBaseline` (Presage's smoothed trigram over characters). Called with an empty
prefix, they return single Han characters, best first.
"""

from __future__ import annotations

import bisect
import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO
from xml.sax.saxutils import escape

import numpy as np

from nextword.data.documents import count_words
from nextword.engine.words import is_han, starts_sentence

PRESAGE_LIB = "libpresage.so.1"
PRESAGE_MISSING = "presage is not installed: apt-get install presage libpresage-data"


def keep_valid(candidates: list[str], prefix: str, k: int) -> list[str]:
    """The first `k` distinct candidates that start with `prefix` and decoded cleanly."""
    out: list[str] = []
    for word in candidates:
        if word and "\ufffd" not in word and word.startswith(prefix) and word not in out:
            out.append(word)
            if len(out) == k:
                break
    return out


# --------------------------------------------------------------------------- unigram


class UnigramBaseline:
    """The most frequent training words that start with the prefix; the context is ignored.

    Words are kept sorted, so the words with a given prefix are one contiguous slice found by
    bisection; within it the top `k` are the `k` smallest global ranks (rank 0 = most frequent,
    ties broken alphabetically so results are deterministic).
    """

    name = "unigram"

    def __init__(self, train_files: list[Path]) -> None:
        self._index(count_words(train_files))

    @classmethod
    def from_counts(cls, counts: dict[str, int]) -> UnigramBaseline:
        """A baseline over given word counts instead of training files."""
        self = cls.__new__(cls)
        self._index(counts)
        return self

    def _index(self, counts: dict[str, int]) -> None:
        by_rank = sorted((w for w in counts if w), key=lambda w: (-counts[w], w))
        self._by_rank = by_rank
        self._words = sorted(by_rank)
        rank_of = {w: r for r, w in enumerate(by_rank)}
        self._ranks = np.fromiter((rank_of[w] for w in self._words), np.int64, len(self._words))

    def __len__(self) -> int:
        return len(self._words)

    def predict(self, context: str, prefix: str, k: int) -> list[str]:
        if k <= 0:
            return []
        if not prefix:
            return self._by_rank[:k]
        lo, hi = self._prefix_range(prefix)
        ranks = self._ranks[lo:hi]
        if len(ranks) > k:
            ranks = ranks[np.argpartition(ranks, k - 1)[:k]]
        return [self._by_rank[r] for r in np.sort(ranks)]

    def _prefix_range(self, prefix: str) -> tuple[int, int]:
        """Slice of the sorted words that start with `prefix`."""
        lo = bisect.bisect_left(self._words, prefix)
        last = ord(prefix[-1])
        if last == 0x10FFFF:  # no successor code point: scan instead
            hi = lo
            while hi < len(self._words) and self._words[hi].startswith(prefix):
                hi += 1
            return lo, hi
        # Every word starting with `prefix` sorts before prefix with its last char bumped.
        return lo, bisect.bisect_left(self._words, prefix[:-1] + chr(last + 1), lo)


class UnigramCharBaseline:
    """The `k` most frequent Han characters of the training text; context and prefix ignored.

    For Chinese the prefix-filtered unigram of EVAL.md reduces to this: the typist never
    types a prefix, it asks for the next character at every Han position.
    """

    name = "unigram-char"

    def __init__(self, train_files: list[Path]) -> None:
        counts: Counter[str] = Counter()
        for path in train_files:
            text = path.read_text(encoding="utf-8", errors="replace")
            counts.update(c for c in text if is_han(c))
        self._by_rank = sorted(counts, key=lambda c: (-counts[c], c))

    def predict(self, context: str, prefix: str, k: int) -> list[str]:
        return [] if prefix or k <= 0 else self._by_rank[:k]


# --------------------------------------------------------------------------- presage

# const char* (*)(void*): returned as a raw address so ctypes does not free or copy the buffer.
_STREAM_CB = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)

# A trigram model needs only the last two words; presage reads the past text on every call,
# so long documents are cut to their tail (the cut word, if any, is far from the cursor).
PAST_CHARS = 256

# Suggestions asked for at start; `predict` resets it whenever `k` changes.
DEFAULT_SUGGESTIONS = 3

_CONFIG = """<?xml version="1.0" encoding="UTF-8" standalone="no" ?>
<Presage>
  <PredictorRegistry>
    <LOGGER>ERROR</LOGGER>
    <PREDICTORS>DefaultSmoothedNgramPredictor</PREDICTORS>
  </PredictorRegistry>
  <ContextTracker>
    <LOGGER>ERROR</LOGGER>
    <SLIDING_WINDOW_SIZE>80</SLIDING_WINDOW_SIZE>
    <LOWERCASE_MODE>yes</LOWERCASE_MODE>
    <ONLINE_LEARNING>no</ONLINE_LEARNING>
  </ContextTracker>
  <Selector>
    <LOGGER>ERROR</LOGGER>
    <SUGGESTIONS>{k}</SUGGESTIONS>
    <REPEAT_SUGGESTIONS>yes</REPEAT_SUGGESTIONS>
    <GREEDY_SUGGESTION_THRESHOLD>0</GREEDY_SUGGESTION_THRESHOLD>
  </Selector>
  <PredictorActivator>
    <LOGGER>ERROR</LOGGER>
    <PREDICT_TIME>1000</PREDICT_TIME>
    <MAX_PARTIAL_PREDICTION_SIZE>60</MAX_PARTIAL_PREDICTION_SIZE>
    <COMBINATION_POLICY>Meritocracy</COMBINATION_POLICY>
  </PredictorActivator>
  <ProfileManager>
    <LOGGER>ERROR</LOGGER>
    <AUTOPERSIST>false</AUTOPERSIST>
  </ProfileManager>
  <Predictors>
    <DefaultSmoothedNgramPredictor>
      <PREDICTOR>SmoothedNgramPredictor</PREDICTOR>
      <LOGGER>ERROR</LOGGER>
      <DBFILENAME>{db}</DBFILENAME>
      <DELTAS>0.01 0.1 0.89</DELTAS>
      <LEARN>false</LEARN>
      <DatabaseConnector>
        <LOGGER>ERROR</LOGGER>
      </DatabaseConnector>
    </DefaultSmoothedNgramPredictor>
  </Predictors>
</Presage>
"""


def _load_presage() -> ctypes.CDLL:
    """libpresage with the C API's argument and result types declared."""
    lib = ctypes.CDLL(PRESAGE_LIB)
    handle = ctypes.c_void_p
    lib.presage_new_with_config.argtypes = [
        _STREAM_CB, ctypes.c_void_p, _STREAM_CB, ctypes.c_void_p,
        ctypes.c_char_p, ctypes.POINTER(handle),
    ]  # fmt: skip
    lib.presage_new_with_config.restype = ctypes.c_int
    lib.presage_config_set.argtypes = [handle, ctypes.c_char_p, ctypes.c_char_p]
    lib.presage_config_set.restype = ctypes.c_int
    lib.presage_predict.argtypes = [handle, ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p))]
    lib.presage_predict.restype = ctypes.c_int
    lib.presage_free_string_array.argtypes = [ctypes.POINTER(ctypes.c_char_p)]
    lib.presage_free_string_array.restype = None
    lib.presage_free.argtypes = [handle]
    lib.presage_free.restype = None
    return lib


def training_digest(train_files: list[Path]) -> str:
    """First 16 hex digits of the sha256 of the concatenated training text."""
    h = hashlib.sha256()
    for chunk in _concatenated(train_files):
        h.update(chunk)
    return h.hexdigest()[:16]


def _concatenated(train_files: list[Path]) -> Iterator[bytes]:
    """The training files' bytes in order, a newline between files so words never merge."""
    for i, path in enumerate(train_files):
        if i:
            yield b"\n"
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                yield chunk


def build_ngram_db(train_files: list[Path], cache_dir: Path, *, chars: bool = False) -> Path:
    """The trigram sqlite database for the training text, built with text2ngram once per text.

    With `chars`, the tokens are the text's characters (see `char_tokens`) and the database
    gets its own cache name. It is built under a temporary name and renamed into place, so
    an interrupted build is never mistaken for a finished one.
    """
    kind = "presage-chars" if chars else "presage"
    db = cache_dir / f"{kind}-{training_digest(train_files)}.db"
    if db.exists():
        return db
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix="presage-build-") as tmp:
        train_txt, tmp_db = Path(tmp) / "train.txt", Path(tmp) / "own.db"
        with open(train_txt, "wb") as f:
            if chars:
                _write_char_tokens(train_files, f)
            else:
                for chunk in _concatenated(train_files):
                    # A NUL byte ends text2ngram's SQL string early and aborts the whole build.
                    f.write(chunk.replace(b"\0", b" "))
        size_mb = train_txt.stat().st_size / 1e6
        print(
            f"building Presage's {'character' if chars else 'word'} trigram database from "
            f"{size_mb:.0f} MB of training text "
            f"(once; cached in {cache_dir}; 3-4 minutes for the English model)",
            file=sys.stderr,
            flush=True,
        )
        for n in (1, 2, 3):
            start = time.perf_counter()
            cmd = ["text2ngram", "-n", str(n), "-l", "-f", "sqlite", "-o", str(tmp_db)]
            done = subprocess.run([*cmd, str(train_txt)], capture_output=True)
            if done.returncode != 0:
                why = done.stderr.decode(errors="replace").strip()
                raise RuntimeError(f"text2ngram -n {n} failed: {why}")
            print(
                f"  {n}-grams done ({n}/3, {time.perf_counter() - start:.0f} s, "
                f"{tmp_db.stat().st_size / 1e6:.0f} MB so far)",
                file=sys.stderr,
                flush=True,
            )
        os.replace(tmp_db, db)
    return db


def char_tokens(text: str) -> str:
    """The text as Presage tokens, one per non-space character, each "u" + its hex code point.

    Presage's tokenizer works on bytes and splits words at the bytes 0xA0, 0xAB, 0xBB and
    0xC2 (it means the UTF-8 of NBSP, "«" and "»"), and those bytes occur inside the UTF-8
    of about one Han character in ten (今 is E4 BB 8A): given raw Chinese, text2ngram stores
    fragments like b"\\xe4", and the characters with such a byte can never be predicted.
    ASCII letters and digits pass through it untouched, so each character is spelled that way
    instead and decoded back by `from_char_token`; the n-gram model is the same. Line breaks
    are kept (Presage treats them as blanks, so n-grams run across lines, as the evaluator's
    context does); other whitespace and U+FFFD (undecodable bytes) are dropped.
    """
    lines = text.split("\n")
    return "\n".join(
        " ".join(f"u{ord(c):x}" for c in line if not c.isspace() and c != "\ufffd")
        for line in lines
    )


def from_char_token(token: str) -> str:
    """The character a `char_tokens` token stands for ("" for anything else)."""
    if len(token) < 2 or token[0] != "u":
        return ""
    try:
        code = int(token[1:], 16)
    except ValueError:
        return ""
    return chr(code) if code <= 0x10FFFF else ""


def _write_char_tokens(train_files: list[Path], out: BinaryIO) -> None:
    for path in train_files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                out.write(char_tokens(line.rstrip("\n")).encode() + b"\n")


def recase(word: str, context: str, prefix: str) -> str:
    """Give a lowercased presage candidate the case the user is typing in.

    The database is lowercased (`text2ngram -l`), so presage offers "the" where the text has
    "The". The typed prefix is kept as typed ("Th" + "the" -> "The"), an all-caps prefix of two
    or more letters upper-cases the whole word, and with no prefix at the start of the document
    or of a sentence (after ".", "!", "?", see `words.starts_sentence`) the first letter is
    capitalized. Words presage stored with capitals (text2ngram -l lowercases ASCII only)
    keep them.
    """
    if prefix:
        lowered = prefix.lower()
        if len(lowered) != len(prefix) or not word.startswith(lowered):
            return word
        if len(prefix) > 1 and prefix.isupper():
            return word.upper()
        return prefix + word[len(prefix) :]
    return word[:1].upper() + word[1:] if starts_sentence(context) else word


class PresageBaseline:
    """Presage's smoothed trigram predictor over a database of the training text.

    Learning is off (no online learning, no recency predictor, nothing persisted), so figures
    are reproducible. Presage lowercases text, so candidates are re-cased to the typed prefix
    and to sentence starts (see `recase`). Not thread-safe: one presage instance per thread.
    """

    name = "presage"

    def __init__(self, train_files: list[Path], *, cache_dir: Path) -> None:
        if not PresageBaseline.available():
            raise RuntimeError(PRESAGE_MISSING)
        self._lib = _load_presage()
        self.db_path = self._build_db(train_files, cache_dir)
        self._config_path = cache_dir / f"{self.db_path.stem}.xml"
        self._k = DEFAULT_SUGGESTIONS
        config = _CONFIG.format(k=self._k, db=escape(str(self.db_path)))
        self._config_path.write_text(config, encoding="utf-8")
        # Presage reads these buffers through the callbacks: they must outlive every call.
        self._past = ctypes.create_string_buffer(b"")
        self._future = ctypes.create_string_buffer(b"")
        self._past_cb = _STREAM_CB(lambda _arg: ctypes.addressof(self._past))
        self._future_cb = _STREAM_CB(lambda _arg: ctypes.addressof(self._future))
        self._handle = ctypes.c_void_p()
        rc = self._lib.presage_new_with_config(
            self._past_cb, None, self._future_cb, None,
            str(self._config_path).encode(), ctypes.byref(self._handle),
        )  # fmt: skip
        if rc != 0 or not self._handle:
            raise RuntimeError(f"presage failed to start (error {rc}) with {self._config_path}")

    def _build_db(self, train_files: list[Path], cache_dir: Path) -> Path:
        return build_ngram_db(train_files, cache_dir)

    @staticmethod
    def available() -> bool:
        """True when libpresage loads and text2ngram is on PATH."""
        if shutil.which("text2ngram") is None:
            return False
        try:
            ctypes.CDLL(PRESAGE_LIB)
        except OSError:
            return False
        return True

    def predict(self, context: str, prefix: str, k: int) -> list[str]:
        if k <= 0:
            return []
        self._set_suggestions(k)
        self._past = ctypes.create_string_buffer((context[-PAST_CHARS:] + prefix).encode())
        words = [recase(w, context, prefix) for w in self._raw_predict()]
        return keep_valid(words, prefix, k)

    def _set_suggestions(self, k: int) -> None:
        if k == self._k:
            return
        rc = self._lib.presage_config_set(self._handle, b"Presage.Selector.SUGGESTIONS", b"%d" % k)
        if rc != 0:
            raise RuntimeError(f"presage rejected SUGGESTIONS={k} (error {rc})")
        self._k = k

    def _raw_predict(self) -> list[str]:
        """Presage's candidates for the current past text, decoded, best first."""
        if not self._handle:
            raise RuntimeError("PresageBaseline is closed")
        result = ctypes.POINTER(ctypes.c_char_p)()
        rc = self._lib.presage_predict(self._handle, ctypes.byref(result))
        if rc != 0:
            raise RuntimeError(f"presage_predict failed (error {rc})")
        words: list[str] = []
        try:
            i = 0
            while result[i] is not None:
                words.append(result[i].decode("utf-8", errors="replace"))
                i += 1
        finally:
            self._lib.presage_free_string_array(result)
        return words

    def close(self) -> None:
        """Free the presage instance; further `predict` calls raise."""
        if self._handle:
            self._lib.presage_free(self._handle)
            self._handle = ctypes.c_void_p()

    def __enter__(self) -> PresageBaseline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # Guarded: __init__ may have failed before the handle existed.
        if getattr(self, "_handle", None):
            self.close()


# Characters of context passed to Presage at the character level: the trigram needs two.
CHAR_PAST_CHARS = 16
# Presage's top candidates include punctuation, which is dropped: ask for this many more.
CHAR_EXTRA_SUGGESTIONS = 10


class PresageCharBaseline(PresageBaseline):
    """Presage's smoothed trigram predictor over characters, for Chinese text.

    Every non-space character of the training text is one token (spelled as in
    `char_tokens`, since Presage would split raw UTF-8); the context's tail is passed the same
    way with a trailing space, so Presage predicts the next token. Only Han characters are
    returned, best first; the prefix must be empty (the Chinese typist never types one).
    """

    name = "presage-char"

    def _build_db(self, train_files: list[Path], cache_dir: Path) -> Path:
        return build_ngram_db(train_files, cache_dir, chars=True)

    def predict(self, context: str, prefix: str, k: int) -> list[str]:
        if k <= 0 or prefix:
            return []
        self._set_suggestions(k + CHAR_EXTRA_SUGGESTIONS)
        past = char_tokens(context[-CHAR_PAST_CHARS:])
        self._past = ctypes.create_string_buffer((past + " " if past else "").encode())
        chars = [from_char_token(t) for t in self._raw_predict()]
        return keep_valid([c for c in chars if is_han(c)], "", k)
