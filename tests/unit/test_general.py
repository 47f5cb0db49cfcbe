"""The general-English trigram: Sphinx's binary trie read (training/general.py), its
tables over the lexicon, and the backoff distribution engine/general.py computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nextword.engine.general import TRIGRAM_BACKOFF, GeneralTrigram
from nextword.errors import CommandError
from nextword.training.general import BINS, HEADER, TO_LOG10, general_tables, read_trie

WORDS = ["<s>", "a", "b", "c"]
UNIGRAMS = {"<s>": (-99.0, -0.3), "a": (-0.5, -0.2), "b": (-0.6, -0.1), "c": (-0.7, 0.0)}
# (v, w): log10 P(w | v), log10 backoff of "v w" as a history
BIGRAMS = {("a", "b"): (-0.1, -0.05), ("a", "c"): (-0.8, 0.0), ("b", "c"): (-0.2, 0.0)}
BIGRAMS[("<s>", "a")] = (-0.3, 0.0)
TRIGRAMS = {("<s>", "a", "b"): -0.01}


def _pack(fields: list[tuple[int, int]], size: int) -> bytes:
    """(bit offset, value) fields, least significant bit first, into `size` bytes."""
    bits = 0
    for offset, value in fields:
        bits |= value << offset
    return bits.to_bytes(size, "little")


def sphinx_trie() -> bytes:
    """A model in Sphinx's binary trie format, laid out as pocketsphinx's lm_trie.c does:
    backwards, from each word to the words before it."""
    ids = {w: i for i, w in enumerate(WORDS)}

    def raw(log10: float) -> np.float32:
        return np.float32(log10 / TO_LOG10)  # in Sphinx's log base

    # Every value its own bin.
    probs = sorted({p for p, _ in BIGRAMS.values()})
    backoffs = sorted({b for _, b in BIGRAMS.values()})
    tri_probs = sorted(TRIGRAMS.values())
    bins = np.zeros(3 * BINS, np.float32)
    for table, found in enumerate([probs, backoffs, tri_probs]):
        bins[table * BINS : table * BINS + len(found)] = [raw(v) for v in found]
    bigrams = sorted(BIGRAMS, key=lambda vw: (ids[vw[1]], ids[vw[0]]))  # by w, then v
    trigrams = sorted(TRIGRAMS, key=lambda uvw: (bigrams.index(uvw[1:]), ids[uvw[0]]))
    n1, n2, n3 = len(WORDS), len(bigrams), len(trigrams)
    uni = np.zeros(n1 + 1, dtype=[("prob", "<f4"), ("bo", "<f4"), ("next", "<u4")])
    for w, (p, bo) in UNIGRAMS.items():
        # A word's children (the words before it) start after those of the words before it.
        uni[ids[w]] = (raw(p), raw(bo), sum(1 for _, x in bigrams if ids[x] < ids[w]))
    uni[n1]["next"] = n2
    word_bits, next_bits = n1.bit_length(), n3.bit_length()
    bi_bits, tri_bits = word_bits + 32 + next_bits, word_bits + 16
    bi_size = ((1 + n2) * bi_bits + 7) // 8 + 8
    tri_size = ((1 + n3) * tri_bits + 7) // 8 + 8
    fields, first_child = [], 0
    for i, (v, w) in enumerate(bigrams):
        at = i * bi_bits
        p, bo = BIGRAMS[(v, w)]
        code = probs.index(p) << 16 | backoffs.index(bo)
        fields += [(at, ids[v]), (at + word_bits, code), (at + word_bits + 32, first_child)]
        first_child += sum(1 for t in trigrams if t[1:] == (v, w))
    fields.append((n2 * bi_bits + word_bits + 32, first_child))  # the last entry's end
    for t, uvw in enumerate(trigrams):
        at = bi_size * 8 + t * tri_bits
        fields += [(at, ids[uvw[0]]), (at + word_bits, tri_probs.index(TRIGRAMS[uvw]))]
    text = b"".join(w.encode() + b"\0" for w in WORDS)
    return b"".join(
        [
            HEADER,
            bytes([3]),
            np.array([n1, n2, n3], "<u4").tobytes(),
            np.array([1], "<i4").tobytes(),  # the quantisation's old type field
            bins.tobytes(),
            uni.tobytes(),
            _pack(fields, bi_size + tri_size),
            np.array([len(text)], "<u4").tobytes(),
            text,
        ]
    )


def test_the_trie_reads_back_every_ngram(tmp_path: Path) -> None:
    path = tmp_path / "en-us.lm.bin"
    path.write_bytes(sphinx_trie())
    trie = read_trie(path)
    assert trie.words == WORDS
    np.testing.assert_allclose(trie.uni_logp, [UNIGRAMS[w][0] for w in WORDS], rtol=1e-5)
    read = {
        (WORDS[v], WORDS[w]): (p, bo)
        for (v, w), p, bo in zip(trie.bi, trie.bi_logp, trie.bi_bo, strict=True)
    }
    assert read.keys() == BIGRAMS.keys()
    for key, (p, bo) in BIGRAMS.items():
        assert read[key] == pytest.approx((p, bo), abs=1e-5)
    assert [tuple(WORDS[i] for i in t) for t in trie.tri] == list(TRIGRAMS)
    assert trie.tri_logp[0] == pytest.approx(TRIGRAMS[("<s>", "a", "b")], abs=1e-5)


def test_a_file_of_another_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "en-us.lm.bin"
    path.write_bytes(b"\\data\\\nngram 1=3\n")
    with pytest.raises(CommandError, match="not a Sphinx binary trigram"):
        read_trie(path)


def test_the_distribution_backs_off_as_arpa_does_but_damped(tmp_path: Path) -> None:
    path = tmp_path / "en-us.lm.bin"
    path.write_bytes(sphinx_trie())
    # The lexicon holds "a" in two cases: they share its probability by their counts.
    lexicon = ["A", "a", "b", "c"]
    words, arrays = general_tables(read_trie(path), {w.lower() for w in lexicon})
    general = GeneralTrigram(words, arrays, lexicon, np.array([1.0, 3.0, 1.0, 1.0]))
    # After "a" at the document start: the trigram "<s> a b", the bigram "a c", and
    # "a" itself backed off to its unigram (backoff of "a" times P(a)); the words the
    # listed pair "<s> a" backs off for are damped (its own backoff is 1 here).
    p_a, p_b, p_c = 10 ** (-0.2 - 0.5), 10**-0.01, 10**-0.8
    damped = TRIGRAM_BACKOFF
    want = np.array([damped * p_a / 4, damped * 3 * p_a / 4, p_b, damped * p_c])
    np.testing.assert_allclose(general.distribution("a"), want / want.sum(), rtol=2e-3)
    # After "b a" there is no trigram: the bigrams of "a" (and the backoff of "b a",
    # not listed, changes nothing once normalised).
    p_b = 10**-0.1
    want = np.array([p_a / 4, 3 * p_a / 4, p_b, p_c])
    np.testing.assert_allclose(general.distribution("b a"), want / want.sum(), rtol=2e-3)
    # A history it does not know backs off to the unigrams; capitals read lower case.
    uni = np.array([10**-0.5 / 4, 3 * 10**-0.5 / 4, 10**-0.6, 10**-0.7])
    np.testing.assert_allclose(general.distribution("zzz"), uni / uni.sum(), rtol=2e-3)
    np.testing.assert_allclose(general.distribution("B A"), general.distribution("b a"))


def test_inside_a_sentence_a_capital_that_opens_one_is_its_lower_case_word(
    tmp_path: Path,
) -> None:
    """ "A" (the n-gram's fold reads it as "a" inside a sentence) shares "a"'s
    probability by the counts at a sentence start only; inside one, "a" has it all."""
    path = tmp_path / "en-us.lm.bin"
    path.write_bytes(sphinx_trie())
    lexicon = ["A", "a", "b", "c"]
    words, arrays = general_tables(read_trie(path), {w.lower() for w in lexicon})
    counts = np.array([3.0, 1.0, 1.0, 1.0])
    plain = GeneralTrigram(words, arrays, lexicon, counts)
    fold = np.array([1, 1, 2, 3, 4, 5])  # lexicon ids, then unknown and <s>
    folded = GeneralTrigram(words, arrays, lexicon, counts, (np.array([0]), fold))
    start, inside = folded.distribution(""), folded.distribution("b ")
    np.testing.assert_allclose(start, plain.distribution(""))
    assert start[0] == pytest.approx(3 * start[1])
    assert inside[0] == 0.0 and inside[1] == pytest.approx(plain.distribution("b ")[:2].sum())
