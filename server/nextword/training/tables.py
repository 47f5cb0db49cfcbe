"""The word tables a model directory carries, built from the training text.

`build_tables` writes lexicon.txt and lexicon.npz: the words, their counts (weighed by
the training mix), each word's first tokens and its share of them (engine/lexicon.py
reads these), and the word trigram's tables (engine/ngram.py reads those).
`build_han_tables` writes a Chinese model's continuations instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from nextword.data.documents import count_words, read_documents
from nextword.engine.hantables import char_id
from nextword.engine.lexicon import (
    conditional,
    first_tokens,
    second_token_arrays,
    tokenizer_digest,
)
from nextword.engine.ngram import ORDERS, events, fold_starts
from nextword.engine.words import is_candidate, is_han, is_han_text

MAX_WORDS = 60_000
# N-grams seen once are pruned from the tables, their contexts' totals kept, so the
# discounted mass still flows to the lower order (engine/ngram.py): in the large
# technical and code genres, where they would cost the most memory for the least use.
# The everyday genres keep them, as Presage does: most word triples of a chat are seen
# once in 2M words, and each is still the best evidence there is for its context.
MIN_NGRAM_COUNT = 2
PRUNED_GENRES = frozenset({"technical", "code"})
# The everyday genres also count 4-grams ("for the late" -> response, where "the late"
# alone reads war from the speeches), each the least times seen here: in the emails all
# of them, as Presage keeps all its trigrams; in the chats, eight times the emails' text,
# those seen twice, for memory (those seen once cost 26 MB resident there, for a
# little more than the email's gain; docs/TRAINING.md).
FOURGRAM_MIN_COUNTS = {"chat": 2, "email": 1}
MIN_COUNT = 3
# Chinese continuations: words of the corpus's own segmentation, up to four characters.
MAX_HAN_WORD = 4
MIN_HAN_COUNT = 2


def mixed_counts(
    files: list[Path], shares: list[float] | None
) -> tuple[Counter[str], Counter[str]]:
    """(raw, mixed) word counts of the training files.

    Mixed counts weigh each file by its share of the training mix over its share of
    the words, so the word tables see the sources as the model did: with the kernel
    documentation a third of the words but 5% of the batches, P(word | first token)
    after " time" would otherwise favour "timeout" over "times". Rounded to integers,
    the least weighted file counting 1 per occurrence.
    """
    per_file = [count_words([f]) for f in files]
    raw: Counter[str] = Counter()
    for counts in per_file:
        raw.update(counts)
    if shares is None:
        return raw, raw
    mixed: Counter[str] = Counter()
    factors = mix_factors([sum(c.values()) for c in per_file], shares)
    for counts, factor in zip(per_file, factors, strict=True):
        mixed.update({word: max(1, round(c * factor)) for word, c in counts.items()})
    return raw, mixed


def mix_factors(sizes: list[int], shares: list[float] | None) -> list[float]:
    """What one occurrence counts in each file: its share of the mix over its share of
    the words, the least weighted file counting 1 (all 1 without shares)."""
    if shares is None:
        return [1.0] * len(sizes)
    sizes = [max(1, size) for size in sizes]
    total = sum(sizes)
    weights = [share / (size / total) for share, size in zip(shares, sizes, strict=True)]
    least = min(weights)
    return [w / least for w in weights]


def build_tables(
    train_files: list[Path],
    model_dir: Path,
    shares: list[float] | None = None,
    misspelled: set[str] | frozenset[str] = frozenset(),
    genres: list[str] | None = None,
) -> None:
    """Count the training text and write lexicon.txt and lexicon.npz into `model_dir`.

    Args:
        shares: each file's share of the training mix (see `mixed_counts`); None
            counts the files as they are.
        genres: each file's genre (data/corpus.py's Source.genre): the trigram is
            counted per genre (`build_genre_ngrams`, engine/genres.py); None counts one
            trigram over all the files.
        misspelled: known misspellings (data/misspellings.py), kept out of the word
            list: the emails write "recieve" now and then, and a completion must never
            offer it, nor a correction lose to it.
    """
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    raw_counts, all_counts = mixed_counts(train_files, shares)
    # A word enters the lexicon by how often it was written; it ranks by the mix.
    ranked = [
        w
        for w, _ in all_counts.most_common()
        if raw_counts[w] >= MIN_COUNT and is_candidate(w) and w not in misspelled
    ]
    kept = ranked[:MAX_WORDS]
    words = sorted(kept)
    counts = np.array([all_counts[w] for w in words], dtype=np.int64)
    # Z per first token counts every training word, so rare words keep their share.
    every = list(all_counts)
    every_counts = np.array([all_counts[w] for w in every], dtype=np.float64)
    v = tokenizer.get_vocab_size()
    arrays: dict[str, np.ndarray] = {"counts": counts}
    for lead, name in ((" ", "space"), ("", "bare")):
        first = first_tokens(tokenizer, words, lead)
        all_first = first_tokens(tokenizer, every, lead)
        arrays[f"first_{name}"] = first
        arrays[f"cond_{name}"] = conditional(counts, first, all_first, every_counts, v)
    arrays.update(second_token_arrays(tokenizer, words, counts))
    index = {w: i for i, w in enumerate(words)}
    if genres is None:
        arrays.update(build_ngrams(train_files, index))
    else:
        arrays.update(build_genre_ngrams(train_files, index, genres, shares))
    arrays["tokenizer_digest"] = np.array(tokenizer_digest(tokenizer))
    (model_dir / "lexicon.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    np.savez_compressed(model_dir / "lexicon.npz", **arrays)  # type: ignore[arg-type]
    print(f"lexicon: {len(words):,} words; n-gram tables: {describe_ngrams(arrays)}")


def build_han_tables(
    segmented_files: list[Path], model_dir: Path, shares: list[float] | None = None
) -> None:
    """The Chinese lexicon: continuations of 1-4 characters, from word-segmented text.

    The words are the corpus's own segmentation (People's Daily and the HSK sentences
    are segmented by hand), so a multi-character candidate is a real word, not a
    fixed-length chunk. Every Han character the tokenizer holds as one token is a
    candidate too, so any next character can be offered. With one token per character,
    the first token of a word is its first character, and P(word) = P(first character)
    x the word's share of the corpus words that start with that character.

    Counts are weighed by the training mix, as for English (`mixed_counts`): the HSK
    sentences are 2% of the words but a larger share of the batches. Beside them go the
    `after_*` arrays: how often each continuation followed each character
    (engine/hantables.py, `AfterChar`).
    """
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    per_file: list[tuple[Counter[str], Counter[tuple[str, str]]]] = []
    texts = [file.read_text(encoding="utf-8").splitlines() for file in segmented_files]
    for lines in texts:
        words_seen: Counter[str] = Counter()
        after: Counter[tuple[str, str]] = Counter()
        for line in lines:
            before = ""
            for w in line.split():
                if is_han_text(w):
                    words_seen[w] += 1
                    if before:
                        after[before, w] += 1
                before = w[-1]
        per_file.append((words_seen, after))
    factors = mix_factors([sum(w.values()) for w, _ in per_file], shares)
    every: Counter[str] = Counter()
    followed: Counter[tuple[str, str]] = Counter()
    followed_raw: Counter[tuple[str, str]] = Counter()
    for (words_seen, after), factor in zip(per_file, factors, strict=True):
        every.update({w: max(1, round(c * factor)) for w, c in words_seen.items()})
        followed.update({pair: max(1, round(c * factor)) for pair, c in after.items()})
        followed_raw.update(after)
    for token_id in tokenizer.get_vocab().values():
        char = tokenizer.decode([token_id])
        if len(char) == 1 and is_han(char):
            every[char] += 0  # present, with the count the corpus gives it (maybe 0)
    single = {c for c in every if len(c) == 1 and len(tokenizer.encode(c).ids) == 1}
    words = sorted(
        w
        for w, c in every.items()
        if w[0] in single and (len(w) == 1 or (len(w) <= MAX_HAN_WORD and c >= MIN_HAN_COUNT))
    )
    # A character seen only inside words still gets a little mass as a continuation.
    counts = np.array([max(every[w], 1) for w in words], dtype=np.int64)
    first = first_tokens(tokenizer, words, "")
    eligible = [w for w in every if w[0] in single]
    all_counts = np.array([max(every[w], 1) for w in eligible], dtype=np.float64)
    all_first = first_tokens(tokenizer, eligible, "")
    cond = conditional(counts, first, all_first, all_counts, tokenizer.get_vocab_size())
    arrays: dict[str, np.ndarray] = {
        "counts": counts,
        # No spaces in Chinese: the same first token with or without one before.
        "first_space": first,
        "first_bare": first,
        "cond_space": cond,
        "cond_bare": cond,
        "tokenizer_digest": np.array(tokenizer_digest(tokenizer)),
        **second_token_arrays(tokenizer, words, counts),
    }
    index = {w: i for i, w in enumerate(words)}
    # The character trigram, each file's text repeated as the mix weighs it.
    ids = []
    for lines, factor in zip(texts, factors, strict=True):
        ids += [han_char_ids(lines, index)] * max(1, round(factor))
    char_ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
    arrays.update(ngram_tables(char_ids, len(words)))
    arrays["char_counts"] = np.bincount(
        char_ids[char_ids < len(words)], minlength=len(words)
    ).astype(np.float64)
    # A pair enters by how often it was written, as a word does in English: one HSK
    # sentence (真好听) weighed up by the mix would otherwise decide every 真好.
    pairs = [
        (ord(before), index[w], c)
        for (before, w), c in followed.items()
        if followed_raw[before, w] >= MIN_HAN_COUNT and w in index and not before.isspace()
    ]
    arrays["after_char"] = np.array([p[0] for p in pairs], dtype=np.int32)
    arrays["after_word"] = np.array([p[1] for p in pairs], dtype=np.int32)
    arrays["after_count"] = np.array([p[2] for p in pairs], dtype=np.int32)
    (model_dir / "lexicon.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    np.savez_compressed(model_dir / "lexicon.npz", **arrays)  # type: ignore[arg-type]
    multi = sum(1 for w in words if len(w) > 1)
    print(
        f"lexicon: {len(words):,} continuations ({multi:,} of 2-{MAX_HAN_WORD} characters); "
        f"{len(pairs):,} character-continuation pairs; character {describe_ngrams(arrays)}"
    )


def ngram_ids(files: Iterable[Path], index: dict[str, int]) -> np.ndarray:
    unk, start = len(index), len(index) + 1
    out: list[int] = []
    for file in files:
        docs, _ = read_documents(file, None)
        for doc in docs:
            out.append(start)
            out.extend(start if e == "<s>" else index.get(e, unk) for e in events(doc))
    return np.asarray(out, dtype=np.int64)


def _csr(
    ctx: np.ndarray,
    nxt: np.ndarray,
    cnt: np.ndarray,
    totals: np.ndarray,
    types: np.ndarray,
    min_count: int,
):
    """Context keys with their continuations seen `min_count` times or more, as
    compressed sparse rows. `totals` and `types` are per n-gram (each its context's),
    so a context's are read at its first kept n-gram."""
    keep = cnt >= min_count
    kctx, knext, kcnt = ctx[keep], nxt[keep], cnt[keep]
    keys, starts = np.unique(kctx, return_index=True)
    ptr = np.append(starts, len(kctx)).astype(np.int64)
    return (
        keys,
        ptr,
        knext.astype(np.int32),
        kcnt.astype(np.int32),
        totals[keep][starts],
        types[keep][starts],
    )


def build_ngrams(files: list[Path], index: dict[str, int]) -> dict[str, np.ndarray]:
    """Bigram and trigram tables over the lexicon ids (unknown = W, <s> = W + 1), and
    how their histories read a sentence's first word (`start_folds`)."""
    ids = ngram_ids(files, index)
    fold = start_folds([ids], list(index))
    start = len(index) + 1
    tables = ngram_tables(ids, len(index), context=fold_starts(ids, fold, start, start))
    return {**tables, "start_fold": fold}


def start_folds(streams: list[np.ndarray], words: list[str]) -> np.ndarray:
    """For each id (unknown and <s> included), the id a history reads it as when it
    opens a sentence (engine/ngram.py, `fold_starts`): a capitalised word ("Happy",
    "The") goes to its lower-case form where that form is the more frequent inside
    sentences; names, written with their capital there too, stay."""
    size = len(words)
    start = size + 1
    inside = np.zeros(size + 2, dtype=np.int64)
    for ids in streams:
        opens = np.concatenate(([True], ids[:-1] == start))
        inside += np.bincount(ids[~opens], minlength=size + 2)
    index = {w: i for i, w in enumerate(words)}
    fold = np.arange(size + 2, dtype=np.int32)
    for i, word in enumerate(words):
        if not word[0].isupper() or word[1:] != word[1:].lower():
            continue
        lower = index.get(word.lower())
        if lower is not None and inside[lower] > inside[i]:
            fold[i] = lower
    return fold


def build_genre_ngrams(
    files: list[Path], index: dict[str, int], genres: list[str], shares: list[float] | None
) -> dict[str, np.ndarray]:
    """One trigram per genre (arrays `g<i>_*`, with the genre's unigram counts), the
    genres' names and their shares of the training mix (engine/genres.py reads these)."""
    names = sorted(set(genres))
    shares = shares or [1.0] * len(files)
    out: dict[str, np.ndarray] = {
        "genre_names": np.array(names),
        "genre_prior": np.array(
            [sum(s for s, g in zip(shares, genres, strict=True) if g == name) for name in names]
        ),
    }
    streams = [
        ngram_ids([f for f, g in zip(files, genres, strict=True) if g == name], index)
        for name in names
    ]
    # One fold for all genres, so a history means the same word in each.
    out["start_fold"] = fold = start_folds(streams, list(index))
    start = len(index) + 1
    for i, (name, ids) in enumerate(zip(names, streams, strict=True)):
        min_count = MIN_NGRAM_COUNT if name in PRUNED_GENRES else 1
        context = fold_starts(ids, fold, start, start)
        tables = ngram_tables(
            ids,
            len(index),
            min_count=min_count,
            context=context,
            fourgram_min_count=FOURGRAM_MIN_COUNTS.get(name),
            # Kneser-Ney's lower orders: on the dev splits the genres' n-gram alone
            # scores -6.58 mean log-probability per word against -6.67, and the mix
            # gains KSR on chat, email, speeches and Wikipedia (docs/TRAINING.md).
            continuation=True,
        )
        tables["unigram"] = np.bincount(ids[ids < len(index)], minlength=len(index))
        out.update({f"g{i}_{key}": value for key, value in tables.items()})
    return out


def han_char_ids(lines: Iterable[str], index: dict[str, int]) -> np.ndarray:
    """The segmented lines' characters as the character trigram counts them
    (engine/hantables.py, `char_id`), each line opening with the start symbol."""
    start = len(index) + 1
    out: list[int] = []
    for line in lines:
        out.append(start)
        out.extend(char_id(c, index) for c in line.replace(" ", ""))
    return np.asarray(out, dtype=np.int64)


def ngram_tables(
    ids: np.ndarray,
    size: int,
    *,
    min_count: int = MIN_NGRAM_COUNT,
    context: np.ndarray | None = None,
    fourgram_min_count: int | None = None,
    continuation: bool = False,
) -> dict[str, np.ndarray]:
    """Bigram and trigram tables over an id sequence (ids < `size` are predictable),
    and 4-gram tables of those seen `fourgram_min_count` times or more where it is
    given; `context`: the same sequence as histories read it (`fold_starts`), default
    `ids`. With `continuation`, every order below the highest counts each n-gram once
    per word seen before it (`continuation_counts`)."""
    base = size + 2
    history = ids if context is None else context
    orders = [(o, n) for o, n in ORDERS if o < 4 or fourgram_min_count is not None]
    grams = [_grams(ids, history, order, base) for order, _ in orders]
    out: dict[str, np.ndarray] = {}
    if continuation:
        # The unigram too: how many distinct words each word follows.
        followed = grams[0][1]
        out["uni_continuation"] = np.bincount(followed[followed < size], minlength=size)
        for i, (order, _) in enumerate(orders[:-1]):
            grams[i] = continuation_counts(*grams[i + 1][:2], order, base)
    for (order, name), (g_ctx, g_next, counts) in zip(orders, grams, strict=True):
        _, ctx_start = np.unique(g_ctx, return_index=True)
        totals = np.add.reduceat(counts, ctx_start)
        types = np.diff(np.append(ctx_start, len(g_ctx)))
        # Predicting "unknown" or "<s>" is of no use to the decider.
        wanted = g_next < size
        keys, ptr, nx, cn, tot, ty = _csr(
            g_ctx[wanted], g_next[wanted], counts[wanted],
            np.repeat(totals, types)[wanted], np.repeat(types, types)[wanted],
            fourgram_min_count if order == 4 and fourgram_min_count else min_count,
        )  # fmt: skip
        out.update(
            {
                f"{name}_keys": keys,
                f"{name}_ptr": ptr,
                f"{name}_next": nx,
                f"{name}_count": cn,
                f"{name}_total": tot.astype(np.float32),
                f"{name}_types": ty.astype(np.float32),
            }
        )
    return out


def _grams(
    ids: np.ndarray, history: np.ndarray, order: int, base: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct n-grams of `order`: their contexts' keys, next ids and counts, sorted
    by context, then next id."""
    ctx = history[: len(ids) - order + 1].copy()
    for k in range(1, order - 1):
        ctx = ctx * base + history[k : len(ids) - order + 1 + k]
    nxt = ids[order - 1 :]
    # A 4-gram's context times base overflows 64 bits: count over the contexts'
    # ranks, then read the keys back.
    contexts, rank = np.unique(ctx, return_inverse=True)
    grams, counts = np.unique(rank * base + nxt, return_counts=True)
    return contexts[grams // base], grams % base, counts


def continuation_counts(
    ctx: np.ndarray, nxt: np.ndarray, order: int, base: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The n-grams of `order` as Kneser-Ney counts them for a lower order: each once per
    distinct word before it, from the distinct n-grams one order up (`ctx`, `nxt`).

    The lower order is read only where the higher one has no evidence, and there the
    question is how many contexts a word follows, not how often: "Francisco" follows
    "San" thousands of times and nothing else, so after a history the trigram has not
    seen it should be rare (Kneser and Ney 1995; Chen and Goodman 1998).
    """
    lower = ctx % base ** (order - 1)  # the context without its oldest word
    keys, counts = np.unique(lower * base + nxt, return_counts=True)
    return keys // base, keys % base, counts


def describe_ngrams(arrays: dict[str, np.ndarray]) -> str:
    if "genre_names" in arrays:
        return "; ".join(
            f"{name}: "
            + ", ".join(
                f"{len(arrays[f'g{i}_{table}_next']):,} {label}"
                for table, label in (("bi", "bigrams"), ("tri", "trigrams"), ("quad", "4-grams"))
                if f"g{i}_{table}_next" in arrays
            )
            for i, name in enumerate(arrays["genre_names"])
        )
    return (
        f"{len(arrays['bi_next']):,} bigrams over {len(arrays['bi_keys']):,} contexts, "
        f"{len(arrays['tri_next']):,} trigrams over {len(arrays['tri_keys']):,} contexts"
    )
