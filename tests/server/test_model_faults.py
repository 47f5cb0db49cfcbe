"""A broken model never takes the server down (issue 6): end to end, real server, real model.

Each fault is a copy of the bundled model with one file broken, as in test_loader.py.
The server must say what is wrong and how to fix it in one `window/showMessage`, then
serve completions from the bundled model; when the bundled model itself is broken it
says so and answers every request with no completions. It stays up either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from helpers import SERVER, ClientDoc, labels, open_doc, start, stats, type_at
from nextword.engine.loader import DEFAULT_MODEL
from nextword.engine.words import is_word

URI = "file:///tmp/nextword-test/faults.txt"
TEXT = "The history of the "
WAIT_S = 60.0  # generous: the machine may be busy; a ready server answers in ~1-2 s


# ------------------------------------------------------------------ broken models


def copy_model(tmp_path: Path, name: str = "m") -> Path:
    return Path(shutil.copytree(DEFAULT_MODEL, tmp_path / name))


def edit_config(model: Path, **changes: Any) -> None:
    config = json.loads((model / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**config, **changes}))


def missing(tmp_path: Path) -> Path:
    return tmp_path / "no-such-model"


def truncated_weights(tmp_path: Path) -> Path:
    model = copy_model(tmp_path)
    weights = model / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    return model


def garbage_weights(tmp_path: Path) -> Path:
    model = copy_model(tmp_path)
    weights = model / "model.safetensors"
    weights.write_bytes(b"\xde\xad\xbe\xef not a safetensors file " * 4096)
    return model


def wrong_shape_config(tmp_path: Path) -> Path:
    model = copy_model(tmp_path)
    edit_config(model, hidden_size=64)
    return model


def foreign_tokenizer(tmp_path: Path) -> Path:
    """A tokenizer of another vocabulary, larger than the model's embedding table."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    model = copy_model(tmp_path)
    size = json.loads((model / "config.json").read_text())["vocab_size"] + 500
    vocab = {"[UNK]": 0, **{f"word{i}": i for i in range(1, size)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(model / "tokenizer.json"))
    return model


def unsupported_architecture(tmp_path: Path) -> Path:
    model = copy_model(tmp_path)
    edit_config(model, model_type="nosuchmodel")
    return model


def malformed_quantization(tmp_path: Path) -> Path:
    """A fault the loader does not foresee: a KeyError, not a ModelError, from the load."""
    model = copy_model(tmp_path)
    edit_config(model, quantization={"group_size": 64})
    return model


# (build the broken directory, fragment naming the problem, fragment naming the loader's fix)
FAULTS: dict[str, tuple[Callable[[Path], Path], str, str]] = {
    "missing-directory": (missing, "does not exist", "check the path"),
    "truncated-safetensors": (truncated_weights, "model.safetensors is truncated", "re-download"),
    "garbage-safetensors": (garbage_weights, "model.safetensors is truncated", "re-download"),
    "wrong-shape-config": (wrong_shape_config, "do not match config.json", "restore"),
    "mismatched-tokenizer": (foreign_tokenizer, "belongs to another model", "tokenizer.json"),
    "unsupported-architecture": (unsupported_architecture, "model_type 'nosuchmodel'", "upgrade"),
    "unforeseen-error": (malformed_quantization, "model failed: KeyError", "Fix or remove"),
}


# ------------------------------------------------------------------------- client


@contextlib.asynccontextmanager
async def serving(
    *args: str, options: dict[str, Any] | None = None, env: dict[str, str] | None = None
) -> AsyncIterator[LanguageClient]:
    """A real `nextword serve` over stdio, initialized as VS Code does."""
    config = ClientServerConfig(
        server_command=[*SERVER, *args], server_env={**os.environ, **env} if env else None
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    try:
        await start(client, {"throttleMs": 0, **(options or {})})
        yield client
    finally:
        # A test that failed before its own shutdown must not leave the server running.
        server = client._server
        if server is not None and server.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.shutdown_session(), 10)
        await client.stop()


async def shut_down(client: LanguageClient) -> None:
    """The server answers shutdown and exits cleanly: it was alive to the end."""
    await asyncio.wait_for(client.shutdown_session(), 20)
    assert client._server is not None and client._server.returncode == 0


async def wait_until(check: Callable[[], Any], what: str) -> None:
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while not await check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def errors(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages if m.type == types.MessageType.Error]


async def wait_for_errors(client: LanguageClient, count: int = 1) -> list[str]:
    async def arrived() -> bool:
        return len(errors(client)) >= count

    await wait_until(arrived, f"{count} error message(s)")
    return errors(client)


async def type_and_complete(client: LanguageClient) -> tuple[ClientDoc, list[str]]:
    """Type English into a fresh document, as keystrokes, until completions come;
    the document and the words."""
    doc = open_doc(client, URI)
    for ch in TEXT:
        type_at(client, doc, len(doc.text), ch)
    found: list[str] = []

    async def offered() -> bool:
        found[:] = await labels(client, doc)
        return bool(found)

    await wait_until(offered, "completions from the bundled model")
    return doc, found


def check_fallback_served(client: LanguageClient, words: list[str]) -> None:
    assert len(words) >= 3 and all(is_word(w) for w in words), words
    logs = " ".join(m.message for m in client.log_messages)
    assert "serving completions from the bundled model" in logs


# -------------------------------------------------------------------------- tests


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_broken_model_falls_back_to_the_bundled_one(fault: str, tmp_path: Path) -> None:
    build, problem, fix = FAULTS[fault]
    model = build(tmp_path)
    async with serving(options={"model": str(model)}) as client:
        doc, found = await type_and_complete(client)
        check_fallback_served(client, found)
        # One message, naming the problem, the loader's fix and the setting to change.
        [message] = errors(client)
        assert message.startswith("nextword: ")
        assert problem in message and fix in message, message
        assert "`nextword.model` setting" in message and "bundled model" in message
        assert "\n" not in message
        # Still alive: a second request, another completion, then a clean shutdown.
        assert (await stats(client))["overall"]["completions"] >= 1
        assert await labels(client, doc)
        await shut_down(client)


async def test_broken_model_argument_names_the_argument(tmp_path: Path) -> None:
    model = truncated_weights(tmp_path)
    async with serving("--model", str(model)) as client:
        doc, found = await type_and_complete(client)
        check_fallback_served(client, found)
        [message] = errors(client)
        assert "model.safetensors is truncated" in message and "`--model`" in message
        # Work-done progress began for the load and ended once the fallback was ready.
        reports = [r for values in client.progress_reports.values() for r in values]
        if reports:
            assert isinstance(reports[-1], types.WorkDoneProgressEnd)
            assert (await stats(client))["state"] == "ready"
        await shut_down(client)


async def test_broken_model_in_a_settings_change(tmp_path: Path) -> None:
    broken = unsupported_architecture(tmp_path)
    good = copy_model(tmp_path, "good")
    async with serving() as client:
        doc, _ = await type_and_complete(client)
        assert not errors(client)

        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"nextword": {"model": str(broken)}})
        )
        [message] = await wait_for_errors(client)
        assert "nosuchmodel" in message and "`nextword.model` setting" in message

        async def served() -> bool:
            return bool(await labels(client, doc))

        await wait_until(served, "completions after the fallback")
        check_fallback_served(client, await labels(client, doc))

        # Naming a good model loads it, with no new message.
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"nextword": {"model": str(good)}})
        )

        async def loaded_good() -> bool:
            logs = [m.message for m in client.log_messages]
            return any(f"model {good} ready" in m for m in logs)

        await wait_until(loaded_good, "the good model")
        await wait_until(served, "completions from the good model")
        assert len(errors(client)) == 1
        await shut_down(client)


@pytest.mark.parametrize("chosen", [False, True], ids=["default", "chosen-and-default"])
async def test_broken_bundled_model_serves_nothing_and_stays_up(
    chosen: bool, tmp_path: Path
) -> None:
    """NEXTWORD_DEFAULT_MODEL stands in for a damaged install of the bundled model."""
    default = truncated_weights(tmp_path)
    options = {"model": str(missing(tmp_path))} if chosen else {}
    env = {"NEXTWORD_DEFAULT_MODEL": str(default)}
    async with serving(options=options, env=env) as client:
        messages = await wait_for_errors(client, 2 if chosen else 1)
        if chosen:
            assert "does not exist" in messages[0] and "bundled model" in messages[0]
        assert str(default) in messages[-1] and "truncated" in messages[-1]
        assert "No completions until this is fixed" in messages[-1]
        doc = open_doc(client, URI, TEXT)
        for _ in range(3):
            assert await labels(client, doc) == []
        # Answered, and nothing served: no completion counted, no decision run.
        overall = (await stats(client))["overall"]
        assert overall["completions"] == 0 and overall["decisionsRun"] == 0
        await asyncio.sleep(0.2)
        assert len(errors(client)) == (2 if chosen else 1)
        await shut_down(client)
