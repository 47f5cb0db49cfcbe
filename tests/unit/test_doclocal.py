"""Document-local counts and the confidence of the document caches."""

from nextword.engine.components import repeat_rate
from nextword.engine.doclocal import DocumentWords
from nextword.engine.weights import Mixture


def test_counts_follow_typing_forward_and_recount_after_other_edits():
    doc = DocumentWords({"the": 0, "cat": 1})
    doc.update("the cat and the ")
    assert doc.known.tolist() == [2, 1] and doc.unknown == {"and": 1}
    assert doc.total == 4 and doc.singletons == 2  # "cat", "and"
    doc.update("the cat and the dog ")
    assert doc.unknown == {"and": 1, "dog": 1} and doc.total == 5
    doc.update("a different text ")  # not an extension: counted afresh
    assert doc.total == 3 and doc.known.sum() == 0


def test_stray_quotes_are_not_counted():
    doc = DocumentWords({})
    doc.update("say ' hello ' ")
    assert doc.unknown == {"say": 1, "hello": 1} and doc.total == 2


def test_followers_of_the_last_word():
    doc = DocumentWords({})
    doc.update("Dagny Taggart met Dagny Taggart and Dagny ")
    assert doc.last_word == "Dagny" and doc.following() == {"Taggart": 2}


def test_a_fork_counts_a_guess_and_leaves_the_counts_it_came_from():
    doc = DocumentWords({"the": 0})
    doc.update("Dagny Taggart met the ")
    guess = doc.fork()
    guess.update("Dagny Taggart met the Dagny Taggart ")
    assert guess.total == 6 and guess.known.tolist() == [1]
    assert guess.bigrams["the"] == {"Dagny": 1} and guess.following() == {"met": 1}
    assert doc.total == 4 and "the" not in doc.bigrams  # the original is untouched
    doc.update("Dagny Taggart met the Dagny Reardon ")  # the user wrote something else
    assert doc.bigrams["Dagny"] == {"Taggart": 1, "Reardon": 1}
    assert guess.bigrams["Dagny"] == {"Taggart": 2}  # each copied the counter it changed


def test_repeat_rate_trusts_caches_whose_words_repeat():
    assert repeat_rate(1, 1) == 0.5  # a young cache: one word, seen once
    assert repeat_rate(3, 0) == 1.0  # "Dagny" was always followed by "Taggart"
    assert repeat_rate(20, 16) < 0.3  # "the" was followed by a new word most times


def test_document_caches_weigh_more_as_the_document_grows() -> None:
    fitted, fixed = Mixture(doc_evidence_words=20), Mixture(doc_evidence_words=0)
    assert fitted.evidence(0) == 0.0
    assert fitted.evidence(20) == 0.5
    assert fitted.evidence(5) < fitted.evidence(50) < fitted.evidence(500) < 1.0
    assert fixed.evidence(3) == 1.0  # 0: the fixed weights of the first models
