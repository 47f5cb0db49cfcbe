"""The committed default model: it loads fast enough and its decisions make sense."""

from __future__ import annotations

import json

import numpy as np
import pytest

from helpers import nextword
from nextword.engine.engine import Engine


def test_prefix_inside_a_token_offers_the_common_words(default_engine: Engine):
    decider = default_engine.decider()
    assert {"this", "that"} <= {c.text for c in decider.decide("I think ", "th", 10)}
    # "the", one letter on, leaves its popup place to words that save keys; ghost
    # text still reads it (BoundaryDecider._popup).
    assert "the" in {c.text for c in decider.filter_cached("I think ", "th", 10, typed=True) or []}


def test_sentence_start_offers_capitalised_words(default_engine: Engine):
    words = [c.text for c in default_engine.decider().decide("It was late. ", "", 5)]
    assert words and all(w[0].isupper() for w in words[:3])


def test_a_capital_opening_a_sentence_or_line_completes_lower_case_words(
    default_engine: Engine,
):
    """The training text never opened a sentence with "Smallest" or a line with
    "Relies", so the tables hold only the lower-case words; a capital typed where one
    opens a sentence or a line completes them in capitals. Inside a sentence a capital
    reads as a name: nothing is capitalised there."""

    def words(context: str, prefix: str) -> list[str]:
        # The popup's words and those one letter on that it passes over ("Relies").
        decider = default_engine.decider()
        decider.decide(context, prefix, 5)
        return [c.text for c in decider.filter_cached(context, prefix, 5, typed=True) or []]

    assert "Smallest" in words("It was late. ", "Smalle")
    assert "Relies" in words("Hi all,\n", "Relie")
    assert "Smallest" not in words("I met ", "Smalle")
    assert "Relies" not in words("We met ", "Relie")


def test_a_language_is_completed_with_its_capital(default_engine: Engine):
    """The chats write "english" in lower case and the dictionary accepts it (a rare
    sense): the standard spelling is offered (data/casing.py)."""
    decider = default_engine.decider()
    assert [c.text for c in decider.decide("I speak ", "eng", 3)][:1] == ["English"]
    assert "french" not in [c.text for c in decider.decide("Do you speak ", "fre", 5)]


@pytest.mark.parametrize(
    ("context", "word"),
    [
        ("There are a number ", "of"),
        ("We left early in order ", "to"),
        ("They went out in spite ", "of"),
        ("She speaks French as well ", "as"),
        ("He was born in the United ", "States"),
    ],
)
def test_a_set_phrase_gets_its_next_word_first(default_engine: Engine, context: str, word: str):
    """Phrases whose next word any English model is near sure of (P > 0.6 here)."""
    words = [c.text for c in default_engine.decider().decide(context, "", 5)]
    assert words[:1] == [word], words


def test_code_identifiers_from_the_document(default_engine: Engine):
    context = "def parse_config(path):\n    return path\n\nresult = "
    words = [c.text for c in default_engine.decider().decide(context, "par", 3)]
    # Near-tied with the lexicon's "parser" (0.37 against 0.39) since the mixture fitted
    # for the model of 84.8M tokens weighs the document 0.15, not 0.2.
    assert "parse_config" in words[:2], words


def test_model_card_exists_and_names_the_data():
    card = (Engine.load.__globals__["DEFAULT_MODEL"] / "README.md").read_text()
    for needed in ("licence", "tokens seen", "Validation loss", "wiki", "Mixture weights"):
        assert needed in card


def test_predict_json_shape():
    out = json.loads(nextword("predict", "The cat sat on the", "--json", "--k", "3").stdout)
    assert set(out) == {"candidates", "ms"}
    assert 1 <= len(out["candidates"]) <= 3
    assert all(c["text"].startswith("the") for c in out["candidates"])


def test_predict_table_for_empty_and_whitespace_text():
    for text in ("", "   "):
        result = nextword("predict", text)
        assert result.returncode == 0 and "ms" in result.stdout


def test_doctor_names_backend_blas_and_model():
    info = json.loads(nextword("doctor", "--json").stdout)
    assert info["backend"].startswith(("cpu+", "gpu+"))
    assert info["blas"]["name"] in ("openblas", "reference", "accelerate", "custom")
    assert info["model"]["parameters"] > 1_000_000
    assert info["chinese_model"]["parameters"] > 1_000_000
    assert info["chinese_model"]["path"].endswith("zh")
    assert info["presage"]["available"] is True  # scripts/test installs it


def test_a_document_or_paragraph_never_opens_with_a_heading_or_a_url(default_engine):
    from nextword.engine.lexicon import is_shouted

    for context in ("", "   ", "Hi Anna,\n\n", "Thanks.\n \n"):
        words = [c.text for c in default_engine.decider().decide(context, "", 10)]
        assert words and not [w for w in words if is_shouted(w)], (context, words)
        assert not {"http", "https", "www"} & set(words), (context, words)
    # Unless the document itself writes it.
    context = "SPDX-License-Identifier: MIT\n\nSPDX notes\n\n"
    words = [c.text for c in default_engine.decider().decide(context, "", 10)]
    assert "SPDX" in words


def test_a_short_document_does_not_offer_its_own_words_back(default_engine):
    """Four words in, the document caches have little weight: the model's words lead."""
    prompt = "The history of the "
    words = [c.text for c in default_engine.decider().decide(prompt, "", 5)]
    repeated = [w for w in words if w.lower() in prompt.lower().split()]
    assert len(repeated) <= 1, words


@pytest.mark.parametrize(
    ("context", "prefix", "name"),
    [
        ("We use Zorblatt for builds. ", "Zor", "Zorblatt"),
        ("Hi Siobhan,\n\nI spoke with Marguerite about the account. ", "Marg", "Marguerite"),
    ],
)
def test_a_name_written_once_is_offered_the_next_time(
    default_engine, context: str, prefix: str, name: str
):
    """A document that has repeated no word yet still offers a name it wrote once
    (wordtables.DOC_YOUNG): at "Marg" Margaret and Margin led, and Marguerite was not
    in the popup at all."""
    words = [c.text for c in default_engine.decider().decide(context, prefix, 5)]
    assert words[0] == name, words


def test_everyday_phrases_get_everyday_words(default_engine):
    words = [c.text for c in default_engine.decider().decide("Thank you for your ", "", 5)]
    assert {"help", "time", "email", "message", "reply", "support", "consideration"} & set(words)
    assert "kernel" not in words, words


def test_a_lower_case_i_is_not_read_as_the_start_of_i_e(default_engine):
    """The tables counted "i.e." as "i" then "e": "e" led after a lower-case "i"."""
    words = [c.text for c in default_engine.decider().decide("Are you free tonight? i ", "", 5)]
    assert "e" not in words and "think" in words, words


def test_an_informal_history_reads_as_its_standard_spelling(default_engine):
    """The model and the tables were trained on text in standard spelling: "i dont"
    typed reads as "I don't" in prose (decisions: know, think, have; read as typed:
    know, have, are), and as typed in code, where `i` is a name."""
    prose, code = default_engine.decider(), default_engine.decider(standard_spelling=False)
    assert prose._tokens("yeah i dont ") == prose._tokens("yeah I don't ")
    assert code._tokens("yeah i dont ") != code._tokens("yeah I don't ")
    tables = default_engine.tables
    for component in (tables.ngram_component, tables.general_component):
        standard = component("yeah I don't ")
        informal = component("yeah i dont ", standardise=True)
        raw = component("yeah i dont ")
        assert standard is not None and informal is not None and raw is not None
        assert (informal.dense == standard.dense).all()
        assert not (raw.dense == standard.dense).all()
    words = [c.text for c in default_engine.decider().decide("yeah i dont ", "", 3)]
    assert "think" in words, words


def test_one_chat_does_not_lead_a_context_it_alone_wrote(default_engine):
    """The chats' trigram has "yesterday my" once, followed by conductor: with the
    chats' strength (genres.SPARSE_STRENGTH) that one chat no longer leads."""
    context = "Sorry I missed the meeting yesterday, my "
    words = [c.text for c in default_engine.decider().decide(context, "", 3)]
    assert "conductor" not in words, words


def test_a_sentence_start_is_not_a_number_after_two_spaces(default_engine):
    """Emails put two spaces after a full stop; the model's P(" ") is not a number's."""
    words = [c.text for c in default_engine.decider().decide("It was late. ", "", 3)]
    assert all(w[0].isupper() for w in words), words


def test_the_general_english_trigram_is_mixed_in(default_engine: Engine):
    """CMU Sphinx's trigram (engine/general.py) ships with the model and has a fitted
    weight: after "Sorry for the late" it knows the reply the training text lacks."""
    general = default_engine.tables.general
    assert general is not None and default_engine.mixture.weight("general") > 0
    lexicon = default_engine.lexicon.words
    dense = general.distribution("Sorry for the late ")
    top = [lexicon[i] for i in dense.argsort()[::-1][:5]]
    assert {"reply", "response"} & set(top), top
    found = default_engine.decider().components("Sorry for the late ")
    assert "general" in [part.name for part in found.parts]


def test_a_name_the_general_trigram_completes_is_damped_after_lower_case(default_engine):
    """Blind to case, CMU's trigram reads "the new" as "the New" of "New York": York
    led the popup. The project's own tables keep case and name the words to damp."""
    tables, index = default_engine.tables, default_engine.lexicon.index
    names = np.array(sorted(index[w] for w in ("States", "York", "I", "Monday", "John")))

    def ends(context: str) -> set[str]:
        return {default_engine.lexicon.words[i] for i in tables.name_ends(context, names)}

    assert ends("the united ") == {"States"} and ends("about the new ") == {"York"}
    assert ends("I think ") == ends("see you on ") == ends("the New ") == set()
    context = "what do you think about the new "
    offered = [c.text for c in default_engine.decider().decide(context, "", 5)]
    assert "York" not in offered, offered


@pytest.mark.parametrize(("context", "word"), [("Get well ", "soon"), ("Happy ", "birthday")])
def test_set_phrases_only_the_general_trigram_knows_reach_the_popup(
    default_engine: Engine, context: str, word: str
):
    """The training text lacks them; Sphinx's trigram lists them after the pair, and with
    its backoff to other words damped (general.TRIGRAM_BACKOFF) they reach the popup. At
    Katz's full backoff: "Get well" -> I, on, a, with, in; "Happy" -> to, harvesting."""
    words = [c.text for c in default_engine.decider().decide(context, "", 5)]
    assert word in words, words
