"""Every request gets an answer: malformed, unknown, param-less and post-shutdown ones.

Each test drives a real `nextword serve` over stdio with the benchmark's client
(nextword.evaluation.lspclient), which can send what a well-behaved client library
would refuse to.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from lsprotocol import types
from lsprotocol.types import ErrorCodes

from helpers import EDITOR_CAPABILITIES
from nextword.commands.bench import DEFAULT_TEXT, burst, many_documents, soak
from nextword.evaluation.lspclient import LspClient
from nextword.lsp.decisions import MAX_LIVE_DECIDERS

URI = "file:///protocol/a.txt"
INVALID_REQUEST = ErrorCodes.InvalidRequest
METHOD_NOT_FOUND = ErrorCodes.MethodNotFound
INVALID_PARAMS = ErrorCodes.InvalidParams


@pytest.fixture(scope="module")
def server() -> Iterator[LspClient]:
    with LspClient.spawn() as client:
        client.initialize(capabilities=EDITOR_CAPABILITIES)
        client.open_document(URI, "a😀b\n")
        yield client
        if client.alive:
            client.shutdown()


def error_of(server: LspClient, msg_id: int) -> dict:
    answer = server.response(msg_id)
    assert answer.error is not None, answer
    return answer.error


def test_bad_params_get_invalid_params_naming_the_field(server: LspClient) -> None:
    params = {"textDocument": {"uri": URI}, "position": {"line": -1, "character": 0}}
    error = error_of(server, server.send_request("textDocument/completion", params))
    assert error["code"] == INVALID_PARAMS
    assert "params.position" in error["message"]


@pytest.mark.parametrize(
    "params",
    [None, {}, {"textDocument": {"uri": 5}, "position": {"line": "x"}}, [1, 2]],
    ids=["null", "empty", "wrong-types", "array"],
)
def test_completion_with_unusable_params_is_answered(server: LspClient, params: object) -> None:
    assert error_of(server, server.send_request("textDocument/completion", params))["code"] == (
        INVALID_PARAMS
    )


def test_a_request_without_params_is_answered(server: LspClient) -> None:
    answer = server.response(server.send_request("nextword/stats", omit_params=True))
    assert "overall" in answer.result
    error = error_of(server, server.send_request("textDocument/completion", omit_params=True))
    assert error["code"] == INVALID_PARAMS


def test_unknown_method_is_method_not_found(server: LspClient) -> None:
    error = error_of(server, server.send_request("nextword/noSuchThing", {"x": 1}))
    assert error["code"] == METHOD_NOT_FOUND


def test_an_id_that_is_no_id_is_answered_with_null(server: LspClient) -> None:
    before = server.null_id_errors
    server.send({"jsonrpc": "2.0", "id": [1], "method": "nextword/stats"})
    server.request("nextword/stats")  # answered in order: the null-id answer came first
    assert server.null_id_errors == before + 1


def test_garbage_is_skipped_and_the_server_keeps_serving(server: LspClient) -> None:
    server.send_raw(b'{"jsonrpc": "2.0", "id": 99999, "method": ')  # cut short
    server.send_raw(b"\xff\xfe\x00garbage")
    server.send_raw(b"42")
    server.send({"jsonrpc": "1.0", "id": 99998, "method": "nextword/stats"})
    assert "overall" in server.request("nextword/stats")


def test_positions_past_the_end_and_inside_a_pair_are_clamped(server: LspClient) -> None:
    # Words come once the model is loaded; the fixture's server may still be loading it.
    assert server.until_words(URI, types.Position(1, 0), time.perf_counter() + 60)
    # Never a range outside the document or through the middle of 😀: inside the pair is
    # its start (after "a"), past a line's end its end, past the last line the document's.
    for (line, character), end in [((0, 2), (0, 1)), ((0, 99), (0, 4)), ((99, 0), (1, 0))]:
        params = {"textDocument": {"uri": URI}, "position": {"line": line, "character": character}}
        items = server.request("textDocument/completion", params)["items"]
        assert items, (line, character)
        ends = {(r["line"], r["character"]) for r in (i["textEdit"]["range"]["end"] for i in items)}
        assert ends == {end}, (line, character)


def test_an_unopened_document_is_neither_edited_nor_invented(server: LspClient) -> None:
    ghost = "file:///protocol/ghost.txt"
    change = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}}
    server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": ghost, "version": 1}, "contentChanges": [{**change, "text": "x"}]},
    )
    error = error_of(server, server.send_request("nextword/documentChecksum", {"uri": ghost}))
    assert error["code"] == INVALID_PARAMS and "not open" in error["message"]
    params = {"textDocument": {"uri": ghost}, "position": {"line": 0, "character": 0}}
    assert server.request("textDocument/completion", params)["items"] == []


def test_requests_after_shutdown_are_invalid_and_exit_is_clean() -> None:
    with LspClient.spawn() as client:
        client.initialize(capabilities=EDITOR_CAPABILITIES)
        assert client.request("shutdown") is None
        assert error_of(client, client.send_request("nextword/stats"))["code"] == INVALID_REQUEST
        client.notify("exit", None)
        assert client.proc.wait(timeout=30) == 0


def test_a_burst_of_requests_is_all_answered_and_the_newest_gets_words() -> None:
    figures = burst(DEFAULT_TEXT.read_text(encoding="utf-8"), 1000, {}, None)
    assert figures["answered"] == 1000 and figures["errors"] == 0
    assert figures["superseded"] > 0  # stale requests were dropped, not computed
    assert figures["newest_items"]
    assert figures["exit_code"] == 0


def test_a_short_soak_keeps_every_document_in_step() -> None:
    figures = soak(DEFAULT_TEXT.read_text(encoding="utf-8"), 2000, 20, {}, None)
    assert figures["documents_drifted"] == []
    assert figures["empty_answers"] < figures["edits"]
    assert figures["exit_code"] == 0


def test_many_open_documents_keep_engine_state_for_the_recent_ones_only() -> None:
    docs = MAX_LIVE_DECIDERS + 6
    figures = many_documents(DEFAULT_TEXT.read_text(encoding="utf-8"), docs, 0, {}, None)
    assert figures["live_deciders"] == MAX_LIVE_DECIDERS
    assert figures["deciders_released"] >= docs - MAX_LIVE_DECIDERS
    assert figures["exit_code"] == 0
    # The first document gave its state back while the others were typed into; typed
    # into again, it gets a new decider and words.
    assert figures["active_answers_with_words_after"] > 100
