"""End-to-end tests: spawn `nextword serve` over stdio with the bundled model and type into it.

Each test starts a real server (model load and warm-up included) and drives it the
way an editor does: one didChange per keystroke, then a completion request.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from helpers import (
    SERVER,
    ClientDoc,
    apply,
    complete,
    inline,
    open_doc,
    plain,
    ready,
    send,
    start,
    stats,
    type_at,
    utf16_len,
)
from nextword.engine.words import is_word, split_prefix

URI = "file:///tmp/nextword-test/a.txt"
URI_B = "file:///tmp/nextword-test/b.txt"


# ------------------------------------------------------------------------- requests


async def checksum(client: LanguageClient, doc: ClientDoc) -> str:
    result = await client.protocol.send_request_async("nextword/documentChecksum", {"uri": doc.uri})
    return plain(result)["sha256"]


def check_items(doc: ClientDoc, offset: int, result: types.CompletionList) -> None:
    """Every item is a whole word that replaces the typed prefix: one that starts with
    it, or a correction (test_corrections_server.py) or the prefix's word with its
    capitals ("was": Washington), which filter by the prefix."""
    _, prefix = split_prefix(doc.text[:offset])
    assert result.is_incomplete
    for item in result.items:
        assert is_word(item.label), item.label
        assert item.label != prefix
        assert item.kind == types.CompletionItemKind.Text
        assert item.detail and item.detail.endswith(("%", "% (correction)"))
        if item.detail.endswith("% (correction)") or not item.label.startswith(prefix):
            assert item.filter_text == prefix and prefix
            assert item.label.lower().startswith(prefix) or item.detail.endswith("(correction)")
        else:
            assert item.filter_text == item.label
        accepted = apply(doc, item)
        assert accepted == doc.text[: offset - len(prefix)] + item.label + doc.text[offset:]
    ranks = [item.sort_text for item in result.items]
    assert ranks == sorted(ranks)


# --------------------------------------------------------------------------- fixtures


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    await start(lsp_client, {"throttleMs": 0})
    await ready(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def raw_client(lsp_client: LanguageClient):
    """A client that starts the session itself (initialization options, shutdown)."""
    yield
    # A test that failed before its own shutdown must not leave the server running:
    # pytest-lsp would wait for it to exit.
    with contextlib.suppress(Exception):
        await asyncio.wait_for(lsp_client.shutdown_session(), 10)


# ---------------------------------------------------------------------------- typing


async def test_typing_a_sentence_offers_whole_words_with_the_typed_prefix(
    client: LanguageClient,
) -> None:
    doc = open_doc(client, URI)
    sentence = "The train was late again, so I stood on the platform and waited."
    offered = 0
    for ch in sentence:
        type_at(client, doc, len(doc.text), ch)
        result = await complete(client, doc)
        check_items(doc, len(doc.text), result)
        offered += bool(result.items)
    assert offered > len(sentence) // 2
    assert await checksum(client, doc) == hashlib.sha256(doc.text.encode()).hexdigest()

    # A word after an opening quote is completed as a word; the quote stays.
    type_at(client, doc, len(doc.text), " He said 'Hel")
    result = await complete(client, doc)
    check_items(doc, len(doc.text), result)
    assert "Hello" in [item.label for item in result.items]
    assert apply(doc, result.items[0]).endswith(" He said '" + result.items[0].label)

    # Accept a word at a word start, the way an editor applies the textEdit.
    type_at(client, doc, len(doc.text), " The")
    result = await complete(client, doc)
    item = result.items[0]
    accepted = apply(doc, item)
    assert accepted.endswith(" " + item.label) and item.label.startswith("The")
    edit = item.text_edit
    assert isinstance(edit, types.TextEdit)
    change = doc.edit(doc.offset(edit.range.start), doc.offset(edit.range.end), edit.new_text)
    send(client, doc, change)
    assert doc.text == accepted
    assert await checksum(client, doc) == hashlib.sha256(doc.text.encode()).hexdigest()


async def test_typing_inside_a_word_makes_no_model_call(client: LanguageClient) -> None:
    doc = open_doc(client, URI, "I walked home along the ")
    first = await complete(client, doc)
    word = first.items[0].label
    assert len(word) >= 3
    before = (await stats(client))["overall"]
    # Up to two letters from its end: one letter from it, the word saves no key and
    # gives its popup place to words that do.
    for ch in word[:-2]:
        type_at(client, doc, len(doc.text), ch)
        result = await complete(client, doc)
        assert word in [i.label for i in result.items]
    after = (await stats(client))["overall"]
    assert after["decisionsRun"] == before["decisionsRun"]
    assert after["cacheHits"] - before["cacheHits"] == len(word) - 2


async def test_deletion_and_paste_are_typing_events(client: LanguageClient) -> None:
    doc = open_doc(client, URI, "The cat sat on the mat")
    # Backspace over the last word, then paste a phrase ending in a space.
    send(client, doc, doc.edit(len(doc.text) - 3, len(doc.text), ""))
    check_items(doc, len(doc.text), await complete(client, doc))
    type_at(client, doc, len(doc.text), "floor and looked at the ")
    result = await complete(client, doc)
    check_items(doc, len(doc.text), result)
    assert result.items
    assert await checksum(client, doc) == hashlib.sha256(doc.text.encode()).hexdigest()


async def test_edit_after_the_cursor_keeps_the_decision(client: LanguageClient) -> None:
    doc = open_doc(client, URI, "The cat sat on the \n\nA second paragraph.")
    cursor = len("The cat sat on the ")
    first = await complete(client, doc, cursor)
    assert first.items
    before = (await stats(client))["overall"]
    # An edit elsewhere (after the cursor) changes nothing before it: no new decision.
    end = len(doc.text)
    send(client, doc, doc.edit(end - 1, end, "!"))
    again = await complete(client, doc, cursor)
    after = (await stats(client))["overall"]
    assert [i.label for i in again.items] == [i.label for i in first.items]
    assert after["decisionsRun"] == before["decisionsRun"]


# -------------------------------------------------------------- throttle, cancellation


async def test_rapid_typing_is_throttled_never_stale(raw_client: LanguageClient) -> None:
    client = raw_client
    await start(client, {"throttleMs": 400})
    await ready(client)
    doc = open_doc(client, URI)
    # The first boundary decides at once; the next ones inside 400 ms are held, and a
    # request at a held boundary waits for it rather than getting older words.
    for word in ["One ", "two ", "three ", "four "]:
        for ch in word:
            type_at(client, doc, len(doc.text), ch)
            result = await complete(client, doc)
            check_items(doc, len(doc.text), result)
    figures = (await stats(client))["overall"]
    assert figures["throttleWaits"] > 0
    # After the interval the held decision for the newest boundary has run.
    await asyncio.sleep(0.6)
    result = await complete(client, doc)
    check_items(doc, len(doc.text), result)
    assert result.items
    await client.shutdown_session()


async def test_cancel_request_is_honoured(client: LanguageClient) -> None:
    doc = open_doc(client, URI, "It was the best of times, it was the ")
    pos = doc.end()
    params = types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=doc.uri), position=pos
    )
    future = asyncio.ensure_future(
        client.protocol.send_request_async(
            types.TEXT_DOCUMENT_COMPLETION, params, msg_id="cancel-me"
        )
    )
    await asyncio.sleep(0.002)  # let the client write the request first
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="cancel-me"))
    try:
        result = await future
    except Exception as err:  # the server answered RequestCancelled
        assert "cancel" in str(err).lower()
    else:
        check_items(doc, len(doc.text), result)
    # The server is still serving.
    assert (await complete(client, doc)).items


async def test_request_superseded_by_typing_is_answered_empty(client: LanguageClient) -> None:
    superseded = 0
    for n in range(3):
        doc = open_doc(client, f"file:///tmp/nextword-test/s{n}.txt", "We walked to the river and ")
        old = ClientDoc(doc.uri, doc.text)
        params = types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), position=doc.end()
        )
        # The request needs a boundary decision; the next keystroke overtakes it.
        future = asyncio.ensure_future(
            client.protocol.send_request_async(types.TEXT_DOCUMENT_COMPLETION, params)
        )
        await asyncio.sleep(0.002)  # let the client write the request first
        type_at(client, doc, len(doc.text), "w")
        result = await future
        assert isinstance(result, types.CompletionList)
        if result.items:
            check_items(old, len(old.text), result)  # answered before the keystroke came
        else:
            superseded += 1
        check_items(doc, len(doc.text), await complete(client, doc))
    assert superseded >= 1
    assert (await stats(client))["overall"]["superseded"] >= 1


# ----------------------------------------------------------------- documents, positions


async def test_two_documents_are_isolated(client: LanguageClient) -> None:
    a = open_doc(client, URI, "The zorblax met another zorblax. Every zorblax ")
    b = open_doc(client, URI_B, "The weather today is ")
    type_at(client, a, len(a.text), "is a zor")
    type_at(client, b, len(b.text), "a zor")
    labels_a = [i.label for i in (await complete(client, a)).items]
    labels_b = [i.label for i in (await complete(client, b)).items]
    assert "zorblax" in labels_a
    assert "zorblax" not in labels_b
    for doc in (a, b):
        assert await checksum(client, doc) == hashlib.sha256(doc.text.encode()).hexdigest()
    report = await stats(client)
    assert {URI, URI_B} <= {d["uri"] for d in report["documents"]}


async def test_crlf_emoji_and_cjk_positions(client: LanguageClient) -> None:
    text = (
        "First line\r\nEmoji 😀🎉 and 漢字 here\r\n\u2028not a break\x0c\r\nThe 😀 cat sat on the "
    )
    doc = open_doc(client, URI, text)
    result = await complete(client, doc)
    assert result.items
    check_items(doc, len(doc.text), result)
    type_at(client, doc, len(doc.text), "ma")
    result = await complete(client, doc)
    check_items(doc, len(doc.text), result)
    assert result.items
    for item in result.items:
        assert item.text_edit.range.start == types.Position(3, utf16_len("The 😀 cat sat on the "))
    # An edit after the emoji, in the middle of a line, lands where the client put it.
    middle = doc.text.index(" and")
    type_at(client, doc, middle, " 🙂x")
    send(client, doc, doc.edit(middle, middle + 2, "语"))
    assert await checksum(client, doc) == hashlib.sha256(doc.text.encode()).hexdigest()
    check_items(doc, len(doc.text), await complete(client, doc))


async def test_empty_last_line(client: LanguageClient) -> None:
    doc = open_doc(client, URI, "The first line is done.\n")
    result = await complete(client, doc)
    check_items(doc, len(doc.text), result)
    assert doc.end() == types.Position(1, 0)
    type_at(client, doc, len(doc.text), "T")
    result = await complete(client, doc)
    check_items(doc, len(doc.text), result)
    assert result.items
    for item in result.items:
        assert item.text_edit.range == types.Range(types.Position(1, 0), types.Position(1, 1))
    assert await checksum(client, doc) == hashlib.sha256(doc.text.encode()).hexdigest()


# ---------------------------------------------------------- configuration, inline, life


async def test_configuration_change_at_run_time(client: LanguageClient) -> None:
    doc = open_doc(client, URI, "She opened the door and ")
    assert len((await complete(client, doc)).items) == 5
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"nextword": {"k": 2}})
    )
    assert len((await complete(client, doc)).items) == 2
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"nextword": {"k": "many"}})
    )
    assert len((await complete(client, doc)).items) == 5
    assert any("`k`" in m.message for m in client.messages)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"nextword": {"languages": ["markdown"]}})
    )
    assert not (await complete(client, doc)).items


async def test_inline_completion(client: LanguageClient) -> None:
    doc = open_doc(client, URI, "I went to the shop to buy some ")
    result = await inline(client, doc)
    assert len(result.items) == 1
    word = result.items[0].insert_text
    assert isinstance(word, str) and is_word(word)
    type_at(client, doc, len(doc.text), word[0])
    result = await inline(client, doc)
    item = result.items[0]
    assert isinstance(item.insert_text, str) and item.insert_text.startswith(word[0])
    end = doc.end()
    assert item.range == types.Range(types.Position(end.line, end.character - 1), end)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"nextword": {"inline": False}})
    )
    assert not (await inline(client, doc)).items


async def test_a_word_typed_in_full_gets_no_far_less_likely_completion(
    client: LanguageClient,
) -> None:
    """After "Are you free this" the typed word is nearly all the words it starts: no
    ghost text, and no popup of code names at a fraction of a thousandth of it (this_cpu,
    thisline); after "I'll call you" the popup offers what saves keys (you're), not
    "your", one letter on, and the likelier "you" leaves no ghost text."""
    doc = open_doc(client, URI, "Are you free this")
    assert not (await inline(client, doc)).items
    for item in (await complete(client, doc)).items:
        assert item.detail is not None and float(item.detail.rstrip("%")) >= 0.1, item
    doc = open_doc(client, URI_B, "I'll call you")
    labels = [item.label for item in (await complete(client, doc)).items]
    assert "you're" in labels and "your" not in labels
    assert not (await inline(client, doc)).items


async def test_stats_request_and_command(client: LanguageClient) -> None:
    doc = open_doc(client, URI, "The sun rose over the ")
    await complete(client, doc)
    report = await stats(client)
    overall = report["overall"]
    assert overall["decisionsRun"] >= 1 and overall["completions"] >= 1
    assert set(overall["latencyMs"]) == {"p50", "p95", "p99"}
    # The loaded engine is out of the cyclic collector's way (server.py, `_loaded`).
    assert report["gcFrozen"] > 10_000
    command = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="nextword.stats")
    )
    assert plain(command)["overall"]


async def test_progress_while_loading_and_shutdown_exit(raw_client: LanguageClient) -> None:
    client = raw_client
    await start(client)
    await ready(client)
    reports = [r for values in client.progress_reports.values() for r in values]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    await client.shutdown_session()
    assert client._server is not None and client._server.returncode == 0


async def test_bad_model_is_reported_and_server_stays_up(raw_client: LanguageClient) -> None:
    client = raw_client
    await start(client, {"model": "/nonexistent/model", "throttleMs": -3})
    doc = open_doc(client, URI, "Nothing to see ")
    for _ in range(300):
        if any(m.type == types.MessageType.Error for m in client.messages):
            break
        await asyncio.sleep(0.05)
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert errors and "does not exist" in errors[0]
    assert any("`throttleMs`" in m.message for m in client.messages)
    # Served by the bundled fallback once it has loaded (each fault: test_model_faults.py):
    # words here, and the ready probe's and this one's completions counted.
    await ready(client)
    assert (await complete(client, doc)).items
    assert (await stats(client))["overall"]["completions"] >= 2
    await client.shutdown_session()
