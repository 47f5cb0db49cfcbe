"""End to end: the real server learns the user's words only with `learning` on.

Each session spawns `nextword serve` with the bundled model and its own data
directory ($NEXTWORD_DATA_DIR), types into it one key per didChange as an editor
does, and checks what is offered, what the server's commands answer and what is (or
is not) written on disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from helpers import (
    SERVER,
    ClientDoc,
    apply,
    complete,
    labels,
    open_doc,
    plain,
    ready,
    send,
    start,
    type_at,
)
from nextword.engine import learnfiles, personal

WORD = "zorblatt"  # no lexicon holds it: only learning (or the document) can offer it
WRITING = f"We keep a {WORD} at home. Our {WORD} eats bread. Her {WORD} sleeps. "
ROOT = "file:///tmp/nextword-test/project"


@contextlib.asynccontextmanager
async def session(
    data_dir: Path, options: dict[str, Any], root: str | None = ROOT
) -> AsyncIterator[LanguageClient]:
    """A server with its own data directory, initialized and ready; shut down after."""
    env = {**os.environ, learnfiles.DATA_DIR_ENV: str(data_dir)}
    client = await ClientServerConfig(server_command=SERVER, server_env=env).start()
    try:
        await start(client, {"throttleMs": 0, **options}, root_uri=root)
        await ready(client)
        yield client
        await asyncio.wait_for(client.shutdown_session(), 30)
    finally:
        await client.stop()


async def type_keys(client: LanguageClient, doc: ClientDoc, text: str) -> None:
    """One didChange per key, a completion after each, as an editor types."""
    for ch in text:
        type_at(client, doc, len(doc.text), ch)
        await complete(client, doc)


async def labels_after(client: LanguageClient, uri: str, text: str) -> list[str]:
    doc = open_doc(client, uri)
    await type_keys(client, doc, text)
    return await labels(client, doc)


async def settled(client: LanguageClient, learning_on: bool) -> dict[str, Any]:
    """The learning status once a settings change has been applied (its handler is async)."""
    for _ in range(300):
        status = await command(client, "nextword.learningStatus")
        if status["learning"] is learning_on:
            return status
        await asyncio.sleep(0.05)
    raise AssertionError(f"learning never turned {'on' if learning_on else 'off'}")


async def command(client: LanguageClient, name: str, *args: Any) -> dict[str, Any]:
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(args) or None)
    )
    return plain(result)


def files(data_dir: Path) -> list[Path]:
    return sorted(p for p in data_dir.rglob("*") if p.is_file()) if data_dir.exists() else []


async def test_learned_words_are_offered_in_new_documents_and_kept(tmp_path: Path) -> None:
    data = tmp_path / "data"
    async with session(data, {"learning": True}) as client:
        doc = open_doc(client, "file:///tmp/nextword-test/notes.txt")
        await type_keys(client, doc, WRITING)
        # A new document: no document cache, only the store knows the word.
        other = open_doc(client, "file:///tmp/nextword-test/other.txt")
        await type_keys(client, other, "Yesterday I fed the zo")
        result = await complete(client, other)
        assert WORD in [item.label for item in result.items]
        # Accept it, as an editor applies the item, then a space finishes it: an
        # accepted candidate counts double.
        item = next(i for i in result.items if i.label == WORD)
        edit = item.text_edit
        assert isinstance(edit, types.TextEdit)
        accepted = apply(other, item)
        send(client, other, other.edit(other.offset(edit.range.start), len(other.text), WORD))
        assert other.text == accepted
        await type_keys(client, other, " ")

        status = await command(client, "nextword.learningStatus")
        assert status["learning"] is True and status["scope"] == "user"
        assert status["active"]["words"] >= 10 and status["active"]["bigrams"] > 0
        assert WORD not in json.dumps(status)  # counts, never words

    store = personal.PersonalStore.load(data / "learning" / "user.json")
    # Typed 3 times, the 2nd and 3rd while the document offered it (a word finished
    # while offered counts as accepted, double), then accepted once: 1 + 2 + 2 + 2.
    assert store.words[WORD][0] == 7
    assert store.following("the") == {WORD: 2}

    # A new server (a new editor session) offers it from the start.
    async with session(data, {"learning": True}) as client:
        assert WORD in await labels_after(client, "file:///tmp/nextword-test/c.txt", "My zo")
        status = await command(client, "nextword.learningStatus")
        assert status["stored"][0]["words"] > 0 and status["active"]["words"] > 0
        after = await command(client, "nextword.forget")
        assert after["active"]["words"] == 0 and after["stored"] == []
        assert files(data) == []
        assert WORD not in await labels_after(client, "file:///tmp/nextword-test/d.txt", "A zo")
    # Learning is still on: only what was typed after the forget is kept.
    assert set(personal.PersonalStore.load(data / "learning" / "user.json").words) == {"A"}


async def test_with_learning_off_nothing_is_learned_or_written(tmp_path: Path) -> None:
    data = tmp_path / "data"
    async with session(data, {}) as client:
        doc = open_doc(client, "file:///tmp/nextword-test/notes.txt")
        await type_keys(client, doc, WRITING + "The zo")
        # The document's own words are offered in it ...
        assert WORD in await labels(client, doc)
        # ... and nowhere else.
        assert WORD not in await labels_after(client, "file:///tmp/nextword-test/b.txt", "My zo")
        status = await command(client, "nextword.learningStatus")
        assert status == {"learning": False, "scope": "user", "stored": []}
    assert not data.exists()


async def test_workspace_scope_and_forgetting_one_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv(learnfiles.DATA_DIR_ENV, str(data))
    user_store = personal.PersonalStore(learnfiles.user_path())
    user_store.learn_text("the user's own words")
    user_store.save()
    options = {"learning": True, "learningScope": "workspace"}
    async with session(data, options) as client:
        doc = open_doc(client, "file:///tmp/nextword-test/project/a.md")
        await type_keys(client, doc, WRITING)
        status = await command(client, "nextword.learningStatus")
        assert status["active"]["workspace"] == ROOT
        assert status["active"]["path"] == str(learnfiles.workspace_path(ROOT))
        # Switched off at run time: saved, then nothing more is learned.
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"nextword": {"learning": False}})
        )
        status = await settled(client, False)
        assert "active" not in status
        stored = {s.get("workspace", "user"): s for s in status["stored"]}
        assert stored[ROOT]["words"] > 0 and "user" in stored
        await type_keys(client, doc, "Another fresh sentence here. ")
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"nextword": {"learning": True}})
        )
        status = await settled(client, True)
        assert status["active"]["words"] == stored[ROOT]["words"]  # nothing learned while off
        after = await command(client, "nextword.forget", "workspace")
        assert [s.get("workspace", "user") for s in after["stored"]] == ["user"]
        assert after["active"]["words"] == 0
    assert files(data) == [learnfiles.user_path()]
