"""Corrections over stdio: the real server and the bundled model, typing a misspelled word.

A correction is an ordinary completion item whose word does not start with what was
typed: its textEdit replaces the typed prefix, its filterText is the prefix (so a
client filtering by the typed word keeps it), and its detail says "(correction)".
The `corrections` setting offers them in prose languages by default, in code too with
"always", never with "off"; ghost text never offers one.
"""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from helpers import SERVER, ClientDoc, apply, complete, inline, open_doc, ready, start, type_at

CONTEXT, TYPO, FIXED = "Please send it to the ", "adress", "address"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    await start(lsp_client, {"throttleMs": 0})
    await ready(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def typed(client: LanguageClient, name: str, text: str, language: str) -> ClientDoc:
    """A document holding `text`, its last word typed a key at a time, as an editor sends it."""
    context, word = text.rsplit(" ", 1)
    doc = open_doc(client, f"file:///tmp/nextword-test/{name}", context + " ", language)
    for ch in word:
        type_at(client, doc, len(doc.text), ch)
        await complete(client, doc)  # the popup asks at each key
    return doc


def corrections(result: types.CompletionList) -> list[types.CompletionItem]:
    """The items marked as corrections, in the server's order."""
    return [item for item in result.items if item.detail and item.detail.endswith("(correction)")]


def configure(client: LanguageClient, **settings: object) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"nextword": settings})
    )


async def test_a_misspelled_word_is_offered_corrected_replacing_the_prefix(
    client: LanguageClient,
) -> None:
    doc = await typed(client, "note.txt", CONTEXT + TYPO, "plaintext")
    result = await complete(client, doc)
    assert result.is_incomplete
    fixes = corrections(result)
    assert [item.label for item in fixes][:1] == [FIXED], result.items
    item = fixes[0]
    assert item.kind == types.CompletionItemKind.Text
    assert item.filter_text == TYPO  # the client's fuzzy or prefix match keeps it
    end = doc.end()
    start = types.Position(end.line, end.character - len(TYPO))
    assert item.text_edit == types.TextEdit(range=types.Range(start, end), new_text=FIXED)
    assert apply(doc, item) == CONTEXT + FIXED
    assert item.detail is not None and item.detail[0].isdigit()  # its probability first
    # The server's order holds: every item's sortText follows the one before.
    ranks = [i.sort_text for i in result.items]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    # The items that are no correction extend the prefix, as always.
    for other in result.items:
        if other not in fixes:
            assert other.label.startswith(TYPO) and other.filter_text == other.label


async def test_ghost_text_never_offers_a_correction(client: LanguageClient) -> None:
    # "onw": the best word is a correction ("own"), yet words start with "onw" too.
    doc = await typed(client, "thanks.txt", "Thank you for your onw", "plaintext")
    result = await complete(client, doc)
    fixes = corrections(result)
    assert fixes and fixes[0] is result.items[0], result.items
    extending = [item.label for item in result.items if item not in fixes]
    ghost = (await inline(client, doc)).items
    # The best word that extends the prefix, or none: ghost text only appends.
    assert [g.insert_text for g in ghost] == extending[:1]
    doc = await typed(client, "note.txt", CONTEXT + TYPO, "plaintext")
    assert corrections(await complete(client, doc))
    ghost = (await inline(client, doc)).items
    assert all(isinstance(g.insert_text, str) and g.insert_text.startswith(TYPO) for g in ghost)


async def test_a_lower_case_prefix_is_offered_the_word_with_its_capitals(
    client: LanguageClient,
) -> None:
    # The chats write "saturday"; the popup offers Saturday, replacing "sat", and does
    # not call it a correction. Ghost text, which only appends, offers no lesser word.
    doc = await typed(client, "plans.txt", "Are you free on sat", "plaintext")
    result = await complete(client, doc)
    item = result.items[0]
    assert item.label == "Saturday", result.items
    assert "saturday" not in [i.label for i in result.items]
    assert item.filter_text == "sat" and apply(doc, item) == "Are you free on Saturday"
    assert item.detail is not None and not item.detail.endswith("(correction)")
    assert not (await inline(client, doc)).items
    # Typed with its capital, it is an ordinary completion, in ghost text too.
    doc = await typed(client, "plans-capital.txt", "Are you free on Sat", "plaintext")
    assert [g.insert_text for g in (await inline(client, doc)).items] == ["Saturday"]


async def test_the_setting_off_offers_none(client: LanguageClient) -> None:
    configure(client, corrections="off")
    doc = await typed(client, "note.txt", CONTEXT + TYPO, "plaintext")
    result = await complete(client, doc)
    assert corrections(result) == []
    assert all(item.label.startswith(TYPO) for item in result.items)
    configure(client, corrections="prose")
    assert [item.label for item in corrections(await complete(client, doc))][:1] == [FIXED]


async def test_code_gets_none_by_default_and_some_with_always(client: LanguageClient) -> None:
    # An identifier is not a typo: in code the word typed is left alone ...
    doc = await typed(client, "send.py", "# " + CONTEXT + TYPO, "python")
    result = await complete(client, doc)
    assert corrections(result) == []
    assert all(item.label.startswith(TYPO) for item in result.items)
    # ... unless asked for.
    configure(client, corrections="always")
    assert [item.label for item in corrections(await complete(client, doc))][:1] == [FIXED]


async def test_a_bad_value_is_reported_and_prose_used(client: LanguageClient) -> None:
    configure(client, corrections=True)
    doc = await typed(client, "note.txt", CONTEXT + TYPO, "plaintext")
    assert [item.label for item in corrections(await complete(client, doc))][:1] == [FIXED]
    assert any("`corrections`" in m.message for m in client.messages)
