"""The offensive-word filter and the standard spelling over stdio: the real server and
the bundled model. `blockOffensiveWords` (on by default) keeps a listed word out of the
popup until the document writes it; off, the word is offered as any other. Typing an
informal spelling in prose offers the standard one as a correction."""

from __future__ import annotations

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from helpers import SERVER, complete, open_doc, ready, start, type_at
from nextword.engine.engine import Engine

# Typed prefixes that words of the list start, after the words chat writes before them.
CONTEXTS = [("holy ", "sh"), ("what the ", "f"), ("that is ", "bulls"), ("you ", "bit")]


@pytest.fixture(scope="module")
def listed(default_engine: Engine) -> tuple[str, str, str]:
    """(context, prefix, word): a word of the list the bundled model offers there."""
    blocklist = default_engine.tables.blocklist
    assert blocklist is not None
    for context, prefix in CONTEXTS:
        found = default_engine.decider(block_offensive=False).decide(context, prefix, 50)
        words = sorted(c.text for c in found if blocklist.blocks(c.text))
        if words:
            return context, prefix, words[0]
    raise AssertionError("the model offers no listed word after CONTEXTS")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    await start(lsp_client, {"throttleMs": 0, "k": 50})
    await ready(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def unfiltered(lsp_client: LanguageClient):
    await start(lsp_client, {"throttleMs": 0, "k": 50, "blockOffensiveWords": False})
    await ready(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def labels(client: LanguageClient, name: str, before: str, typed: str) -> list[str]:
    doc = open_doc(client, f"file:///tmp/nextword-test/{name}", before, "plaintext")
    for ch in typed:
        type_at(client, doc, len(doc.text), ch)
        result = await complete(client, doc)
    return [item.label for item in result.items]


async def test_a_listed_word_waits_until_the_document_writes_it(
    client: LanguageClient, listed: tuple[str, str, str]
) -> None:
    context, prefix, word = listed
    assert word not in await labels(client, "a.txt", context, prefix)
    written = f"I said {word} once. {context}"
    assert word in await labels(client, "b.txt", written, prefix)


async def test_the_setting_off_offers_it(
    unfiltered: LanguageClient, listed: tuple[str, str, str]
) -> None:
    context, prefix, word = listed
    assert word in await labels(unfiltered, "a.txt", context, prefix)


async def test_an_informal_spelling_is_offered_standard(client: LanguageClient) -> None:
    found = await labels(client, "chat.txt", "Yesterday after work ", "dont")
    assert "don't" in found, found
