"""End-to-end: the Neovim plugin (neovim/) in real Neovim 0.11, the real server, the bundled model.

Each test drives `nvim --embed --headless --clean` through pynvim. Keys go in with
`nvim.input`, as typed keys do, so the built-in LSP client, its autotrigger and the
popup run as they do for a user; the tests poll `complete_info()` and the buffer with
timeouts, never fixed sleeps. `scripts/install-neovim` puts nvim and pynvim in the venv.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any, TypeVar

import pytest

from helpers import ROOT, nextword, phrase_model
from nextword.lsp.settings import DEFAULT_LANGUAGES, Settings

pynvim = pytest.importorskip("pynvim", reason="run scripts/install-neovim")

BIN = Path(sys.executable).parent  # the venv's bin: nvim and nextword
NVIM = BIN / "nvim"
PLUGIN = ROOT / "neovim"
TIMEOUT = 30.0  # generous: a cold server start on a loaded 2-core machine takes seconds

pytestmark = pytest.mark.skipif(
    not NVIM.exists(), reason="no nvim in the venv: run scripts/install-neovim"
)

# Loaded into each nvim before setup(): record vim.notify calls (the plugin's and
# Neovim's own LSP messages) instead of printing them, and a readiness probe.
HARNESS = """
_G.notes = {}
vim.notify = function(msg, level)
  table.insert(_G.notes, { msg = msg, level = level or vim.log.levels.INFO })
end
-- Ready once the server answers a completion with words (the model has loaded).
function _G.nextword_ready()
  local client = require("nextword").client()
  if not (client and client.initialized and vim.lsp.buf_is_attached(0, client.id)) then
    return false
  end
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(0) },
    position = { line = 0, character = 0 },
  }
  local reply = client:request_sync("textDocument/completion", params, 2000, 0)
  return reply ~= nil and reply.result ~= nil and #reply.result.items > 0
end
"""

WARN, ERROR = 3, 4  # vim.log.levels
T = TypeVar("T")


def wait_for(
    probe: Callable[[], T],
    what: str,
    timeout: float = TIMEOUT,
    *,
    nvim: Any = None,
) -> T:
    """Poll `probe` until it returns something truthy; fail naming `what`, the last value
    and, given the `nvim` it waits on, what that editor showed (a flake is diagnosed
    from that)."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            message = f"timed out after {timeout:.0f} s waiting for {what}: {value!r}"
            if nvim is not None:
                message += f"; {editor_state(nvim)}"
            raise AssertionError(message)
        time.sleep(0.05)


def editor_state(nvim: Any) -> str:
    """The mode, the current line and the popup, for a failure's message."""
    mode, line = nvim.api.get_mode()["mode"], nvim.current.line
    return f"mode {mode!r}, line {line!r}, popup {popup(nvim)}"


def start_nvim(home: Path, options: str = "{}", *, before: str = "") -> Any:
    """A headless nvim with the plugin on the runtimepath and `setup(options)` called
    (after the Lua `before`: the user's own configuration)."""
    env = {
        "XDG_CONFIG_HOME": home / "config",
        "XDG_DATA_HOME": home / "data",
        "XDG_STATE_HOME": home / "state",  # the LSP log lands here
        "XDG_CACHE_HOME": home / "cache",
        "NVIM_LOG_FILE": home / "nvim.log",
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # `nextword` on PATH
    }
    argv = ["env", *(f"{k}={v}" for k, v in env.items()), str(NVIM), "--embed", "--headless"]
    argv += ["--clean", "--cmd", f"lua vim.opt.rtp:prepend({json.dumps(str(PLUGIN))})"]
    nvim = pynvim.attach("child", argv=argv)
    nvim.command("set noshowmode")
    nvim.exec_lua(HARNESS)
    if before:
        nvim.exec_lua(before)
    nvim.exec_lua(f"require('nextword').setup({options})")
    return nvim


def quit_nvim(nvim: Any) -> None:
    """Quit; Neovim stops its language servers on the way out."""
    with contextlib.suppress(OSError, EOFError):  # it is gone, as asked
        nvim.quit("qa!")
    nvim.close()


def notes(nvim: Any) -> list[dict[str, Any]]:
    return nvim.exec_lua("return _G.notes")


def popup(nvim: Any) -> dict[str, Any]:
    return nvim.call("complete_info", ["pum_visible", "items", "selected"])


def popup_words(nvim: Any, prefix: str = "") -> list[str] | None:
    """The popup's words once it shows and all of them extend `prefix`; else None."""
    info = popup(nvim)
    words = [item["word"] for item in info["items"]]
    if info["pum_visible"] and words and all(w.startswith(prefix) for w in words):
        return words
    return None


def wait_for_popup(nvim: Any, prefix: str, what: str) -> list[str]:
    """The popup's words once they all extend `prefix`."""
    return wait_for(lambda: popup_words(nvim, prefix), what, nvim=nvim)


def checkhealth(nvim: Any) -> str:
    nvim.command("checkhealth nextword")
    text = "\n".join(nvim.current.buffer[:])
    nvim.command("bwipeout")
    return text


@pytest.fixture(scope="module")
def editor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """nvim with the plugin, the real server (found on PATH) and k = 3, on a text buffer."""
    home = tmp_path_factory.mktemp("nvim")
    nvim = start_nvim(home, "{ settings = { k = 3 } }")
    # Probe readiness on a buffer of its own: the server throttles model decisions per
    # document, and a probe's decision must not hold back the first one typed below.
    nvim.command(f"edit {home / 'probe.txt'}")
    wait_for(lambda: nvim.exec_lua("return _G.nextword_ready()"), "the server and its model")
    nvim.command(f"edit {home / 'notes.txt'}")
    wait_for(
        lambda: nvim.exec_lua("return #vim.lsp.get_clients({ bufnr = 0, name = 'nextword' })"),
        "notes.txt to attach",
    )
    yield nvim
    quit_nvim(nvim)


@pytest.fixture(autouse=True)
def back_to_normal_mode(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each test on the shared editor, Normal mode: a test that failed while typing
    leaves Insert mode, and the next test's `i` would go into the buffer as text."""
    yield
    if "editor" in request.fixturenames:
        nvim = request.getfixturevalue("editor")
        # As typed keys (nvim_feedkeys with "x" reports Normal mode but leaves the Insert
        # mode under way to take the next keys).
        nvim.input("<C-\\><C-n>")
        wait_for(lambda: nvim.api.get_mode()["mode"] == "n", "Normal mode")


def test_typing_pops_up_nextword_candidates_and_ctrl_y_accepts(editor: Any) -> None:
    assert editor.eval("&filetype") == "text"
    editor.input("iThe history of ")
    # The space is the server's trigger character: the popup opens with next words.
    wait_for_popup(editor, "", "the popup after a space")
    editor.input("th")
    # The list is incomplete, so each keystroke asks again for the new prefix.
    words = wait_for_popup(editor, "th", "the popup for the prefix `th`")
    predicted = json.loads(nextword("predict", "The history of th", "--k", "3", "--json").stdout)
    expected = [c["text"] for c in predicted["candidates"] if c["text"] != "th"]
    assert words == expected  # k = 3 from setup() reached the server
    items = popup(editor)["items"]
    assert {item["kind"] for item in items} == {"Text"}
    assert all(item["menu"].endswith("%") for item in items)  # the probability, as detail

    editor.input("<C-n><C-y>")  # noselect: select the first word, then accept it
    line = wait_for(
        lambda: editor.current.line if editor.current.line != "The history of th" else None,
        "the accepted word in the buffer",
    )
    assert line == "The history of " + words[0]
    assert editor.api.get_mode()["mode"] == "i"
    assert not popup(editor)["pum_visible"]
    editor.input("<Esc>")
    # Neither the plugin nor the server had anything to complain about (e.g. a setting).
    assert [n for n in notes(editor) if n["level"] >= WARN] == []


def test_code_pops_up_at_a_word_start(editor: Any, tmp_path: Path) -> None:
    # In code a space asks nothing (Enter must end the line); the first letter does.
    editor.command(f"edit {tmp_path / 'history.py'}")
    wait_for(
        lambda: editor.exec_lua("return #vim.lsp.get_clients({ bufnr = 0, name = 'nextword' })"),
        "history.py to attach",
    )
    editor.input("i# The history of t")
    words = wait_for_popup(editor, "t", "the popup at `t`")
    assert len(words) <= 3
    editor.input("<C-e><Esc>")
    editor.command("bwipeout!")


def test_stats_command_shows_the_servers_figures(editor: Any) -> None:
    editor.command("NextwordStats")
    message = wait_for(
        lambda: next((n["msg"] for n in notes(editor) if "all documents" in n["msg"]), None),
        ":NextwordStats output",
    )
    completions = int(re.search(r"all documents: (\d+) completions", message).group(1))
    assert completions >= 2
    assert "this buffer:" in message and "latency p50" in message


def test_learning_status_and_forget_commands(editor: Any) -> None:
    from nextword.engine.personal import PersonalStore

    # A store on disk where the server looks (platformdirs: $XDG_DATA_HOME/nextword).
    data = Path(editor.exec_lua("return vim.env.XDG_DATA_HOME")) / "nextword"
    store = PersonalStore(data / "learning" / "user.json")
    store.learn_text("my private zorblatt words")
    store.save()

    def note(text: str, what: str) -> str:
        def found() -> str | None:
            return next((n["msg"] for n in notes(editor) if text in n["msg"]), None)

        return wait_for(found, what)

    editor.command("NextwordLearningStatus")
    status = note("learning off", ":NextwordLearningStatus output")
    assert "on disk (user): 4 words, 3 word pairs" in status and str(store.path) in status
    assert "zorblatt" not in status  # counts, never words
    editor.command("NextwordForget")
    forgot = note("forgot everything", ":NextwordForget output")
    assert "nothing stored" in forgot
    assert not store.path.exists()


def test_toggle_and_restart(editor: Any) -> None:
    def attached() -> list[int]:
        return editor.exec_lua(
            "return vim.tbl_map(function(c) return c.id end,"
            " vim.lsp.get_clients({ bufnr = 0, name = 'nextword' }))"
        )

    first = attached()
    assert len(first) == 1
    editor.command("NextwordToggle")
    wait_for(
        lambda: editor.exec_lua("return #vim.lsp.get_clients({ name = 'nextword' }) == 0"),
        "the server to stop",
    )
    editor.command("NextwordToggle")
    wait_for(lambda: editor.exec_lua("return _G.nextword_ready()"), "the server back on")
    second = attached()
    editor.command("NextwordRestart")
    wait_for(lambda: editor.exec_lua("return _G.nextword_ready()"), "the restarted server")
    third = attached()
    assert len({first[0], second[0], third[0]}) == 3  # a fresh client each time
    messages = [n["msg"] for n in notes(editor)]
    assert "nextword: off" in messages and "nextword: restarted" in messages
    assert [n for n in notes(editor) if n["level"] >= WARN] == []


def test_checkhealth_passes(tmp_path: Path) -> None:
    # No buffer is open, so the health check starts a server of its own.
    nvim = start_nvim(tmp_path)
    try:
        report = checkhealth(nvim)
    finally:
        quit_nvim(nvim)
    assert "ERROR" not in report, report
    for expected in ("OK executable: ", "OK the language server starts", "BLAS: ", "OK model "):
        assert expected in report, report


def test_missing_server_is_reported_once(tmp_path: Path) -> None:
    nvim = start_nvim(tmp_path, '{ cmd = { "nextword-not-installed", "serve", "--stdio" } }')
    try:
        for name in ("a.txt", "b.md", "c.txt"):
            nvim.command(f"edit {tmp_path / name}")
            nvim.input("iSome words to type <Esc>")
        nvim.command("NextwordRestart")  # tries once more, says so once more
        report = checkhealth(nvim)
        got = notes(nvim)
    finally:
        quit_nvim(nvim)
    errors = [n["msg"] for n in got if n["level"] >= ERROR]
    assert len(errors) == 2, got
    assert "`nextword-not-installed` is not an executable" in errors[0]
    assert ":NextwordRestart" in errors[0] and ":checkhealth nextword" in errors[0]
    assert "ERROR `nextword-not-installed` is not an executable on PATH" in report


def test_crashing_server_is_reported_once(tmp_path: Path) -> None:
    # A log file in a folder that does not exist: `nextword serve` exits at once.
    log = tmp_path / "missing" / "server.log"
    nvim = start_nvim(tmp_path, f'{{ cmd = {{ "nextword", "serve", "--log-file", "{log}" }} }}')
    try:
        nvim.command(f"edit {tmp_path / 'a.txt'}")
        nvim.input("iSome words ")
        wait_for(lambda: nvim.exec_lua("return require('nextword').failure()"), "the failure")
        for name in ("b.txt", "c.md"):  # no respawn, no further messages
            nvim.command(f"edit {tmp_path / name}")
            nvim.input("iMore words to type <Esc>")
        clients = nvim.exec_lua("return #vim.lsp.get_clients()")
        got = notes(nvim)
        report = checkhealth(nvim)
    finally:
        quit_nvim(nvim)
    assert clients == 0
    ours = [n["msg"] for n in got if n["msg"].startswith("nextword: ")]
    assert len(ours) == 1, got
    assert "exited with code 1" in ours[0] and ":NextwordRestart" in ours[0]
    # Besides ours, at most Neovim's own "quit with exit code" and an initialize error.
    assert len(got) <= 3, got
    assert "ERROR the language server exited during start (code 1): " in report, report
    assert "cannot open the log file" in report, report  # the server's own words, from stderr


def test_defaults_use_the_servers_setting_names(editor: Any) -> None:
    # One name per idea: every server setting is in the documented defaults table, by
    # the same name and with the server's default value, and nothing else is sent.
    source = (PLUGIN / "lua" / "nextword" / "config.lua").read_text()
    block = source.split("settings = { --", 1)[1].split("\n  },", 1)[0]
    documented = set(re.findall(r"^\s+(\w+) = .*--", block, re.MULTILINE))
    server = {f.name for f in fields(Settings)}
    assert documented | {"inline"} == server
    defaults = Settings()
    lua = editor.exec_lua("return require('nextword.config').defaults.settings")
    for name, value in lua.items():
        assert value == getattr(defaults, name), name
    sent = editor.exec_lua("return require('nextword.config').server_settings()")
    assert set(sent) <= server
    assert set(sent["languages"]) <= set(DEFAULT_LANGUAGES)


HAN_ONLY = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]{1,4}")
# An emoji and a space first, so the cursor's columns differ in every encoding:
# UTF-16 2 + 1 + 5 = 8, UTF-8 4 + 1 + 15 = 20 (and 7 characters).
CHINESE = "😀 今天天气很"

# The completion the server answers at the cursor, asked through the client as the popup does.
COMPLETION_AT_CURSOR = """
local client = require("nextword").client()
local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
local reply = client:request_sync("textDocument/completion", params, 5000, 0)
return { encoding = client.offset_encoding, position = params.position,
         result = reply and reply.result, err = reply and reply.err }
"""

# Offer the server UTF-16 only, as VS Code does (Neovim 0.11 offers UTF-8 first).
UTF16_ONLY = """
local make = vim.lsp.protocol.make_client_capabilities
vim.lsp.protocol.make_client_capabilities = function()
  local capabilities = make()
  capabilities.general.positionEncodings = { "utf-16" }
  return capabilities
end
"""


def attach(nvim: Any, path: Path) -> None:
    nvim.command(f"edit {path}")
    wait_for(
        lambda: nvim.exec_lua("return #vim.lsp.get_clients({ bufnr = 0, name = 'nextword' })"),
        f"{path.name} to attach",
    )


def type_chinese_and_accept(
    nvim: Any, k: int, encoding: str, column: int, *, dismiss: bool = False
) -> list[str]:
    """Type CHINESE in the current (empty) buffer, check the popup and the LSP answer
    against `predict` and the cursor's `column` in `encoding`, accept the first; the words.

    With `dismiss`, the popup that the space opens is closed first: the Han characters
    typed next open it again (the plugin's InsertCharPre), with no popup to keep asking.
    """
    predicted = json.loads(nextword("predict", CHINESE, "--k", str(k), "--json").stdout)
    expected = [c["text"] for c in predicted["candidates"]]
    assert len(expected) == k and all(HAN_ONLY.fullmatch(w) for w in expected), expected

    # No space before the next Han character: each one typed asks (the plugin's
    # InsertCharPre), and the popup, once open, asks again at each keystroke.
    emoji, chinese = CHINESE.split(" ")
    nvim.input(f"i{emoji} ")
    if dismiss:
        wait_for_popup(nvim, "", "the popup after a space")
        nvim.input("<C-e>")
        wait_for(lambda: not popup(nvim)["pum_visible"], "the popup to close")
    nvim.input(chinese)

    def shown() -> list[str] | None:
        words = popup_words(nvim)
        return words if nvim.current.line == CHINESE and words == expected else None

    words = wait_for(shown, f"the popup after {CHINESE!r} to offer {expected}", nvim=nvim)
    assert all(HAN_ONLY.fullmatch(w) for w in words), words

    # The same completion through the client, at the cursor in the negotiated encoding:
    # every item inserts there (a Han character is never a prefix to replace).
    answer = nvim.exec_lua(COMPLETION_AT_CURSOR)
    assert answer["encoding"] == encoding
    cursor = {"line": 0, "character": column}
    assert answer["position"] == cursor, answer
    assert answer.get("err") is None and answer.get("result"), answer
    items = answer["result"]["items"]
    assert [item["textEdit"]["newText"] for item in items] == expected, items
    for item in items:
        assert item["textEdit"]["range"] == {"start": cursor, "end": cursor}, item
    assert popup(nvim)["pum_visible"]  # the request left the popup as it was

    nvim.input("<C-n><C-y>")  # select the first, accept it
    line = wait_for(
        lambda: nvim.current.line if nvim.current.line != CHINESE else None,
        "the accepted continuation in the buffer",
    )
    assert line == CHINESE + words[0]  # nothing lost, nothing doubled
    assert nvim.api.get_mode()["mode"] == "i"
    assert nvim.current.window.cursor == (1, len(line.encode()))  # after it (a byte column)
    nvim.input("<Esc>")
    assert nvim.current.buffer[:] == [line]
    assert [n for n in notes(nvim) if n["level"] >= WARN] == []
    return words


def test_chinese_pops_up_han_continuations_in_utf8(editor: Any, tmp_path: Path) -> None:
    # A buffer of its own: the context is the whole text before the cursor, as `predict`'s.
    # Neovim 0.11 offers UTF-8 first, and the server takes it: byte columns.
    attach(editor, tmp_path / "chinese.txt")
    type_chinese_and_accept(editor, k=3, encoding="utf-8", column=20)
    editor.command("bwipeout!")


def test_chinese_pops_up_han_continuations_in_utf16(tmp_path: Path) -> None:
    # A client that speaks UTF-16 only (VS Code's encoding): UTF-16 columns, default k;
    # and the popup opens at a Han character, not only at the space before.
    nvim = start_nvim(tmp_path)
    try:
        nvim.exec_lua(UTF16_ONLY)
        nvim.command(f"edit {tmp_path / 'probe.txt'}")  # the probe's decision on its own buffer
        wait_for(lambda: nvim.exec_lua("return _G.nextword_ready()"), "the server and its model")
        attach(nvim, tmp_path / "chinese.txt")
        type_chinese_and_accept(nvim, k=Settings().k, encoding="utf-16", column=8, dismiss=True)
    finally:
        quit_nvim(nvim)


TYPO, FIXED = "Please send it to the adress", "Please send it to the address"


def test_a_typo_is_offered_corrected_and_accepting_replaces_it(editor: Any, tmp_path: Path) -> None:
    # The correction's filterText is the typed word, so Neovim's prefix match keeps it;
    # accepting it puts its textEdit's word in place of the typo.
    attach(editor, tmp_path / "typo.txt")
    editor.input("i" + TYPO)

    def offered() -> list[dict[str, Any]] | None:
        info = popup(editor)
        shown = info["pum_visible"] and any(i["word"] == "address" for i in info["items"])
        return info["items"] if shown and editor.current.line == TYPO else None

    items = wait_for(offered, "the correction `address` in the popup", nvim=editor)
    index = [item["word"] for item in items].index("address")
    assert items[index]["abbr"] == "address" and items[index]["kind"] == "Text"
    assert items[index]["menu"].endswith("% (correction)"), items[index]
    editor.input("<C-n>" * (index + 1) + "<C-y>")  # select it, accept it
    line = wait_for(
        lambda: editor.current.line if editor.current.line != TYPO else None,
        "the accepted correction in the buffer",
    )
    assert line == FIXED
    # Still typing: Insert mode, or its completion submode ("ic") where the popup has
    # already come back for the word accepted (its cursor is still in it: addresses).
    assert editor.api.get_mode()["mode"] in ("i", "ic")
    editor.input("<Esc>")
    assert editor.current.buffer[:] == [FIXED]
    assert [n for n in notes(editor) if n["level"] >= WARN] == []
    editor.command("bwipeout!")


# The ghost text drawn at the cursor: the text of the plugin's extmark there, if any.
GHOST = """
local ns = vim.api.nvim_get_namespaces()["nextword_ghost"]
if not ns then return nil end
local marks = vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })
local mark = marks[1]
if not mark then return nil end
local cursor = vim.api.nvim_win_get_cursor(0)
if mark[2] ~= cursor[1] - 1 or mark[3] ~= cursor[2] then return nil end
return mark[4].virt_text[1][1]
"""
CONTEXT = "It was the best of times, it was the "


def ghost_text(nvim: Any) -> str | None:
    return nvim.exec_lua(GHOST)


def keymap(nvim: Any, lhs: str) -> dict[str, Any]:
    return nvim.call("maparg", lhs, "i", False, True)


def test_ghost_text_shows_a_phrase_tab_takes_it_and_ctrl_right_a_word(tmp_path: Path) -> None:
    # A model whose phrase threshold lets nearly any phrase through (helpers.phrase_model).
    model = phrase_model(tmp_path)
    nvim = start_nvim(tmp_path, f"{{ settings = {{ model = {json.dumps(str(model))} }} }}")
    try:
        nvim.command(f"edit {tmp_path / 'probe.txt'}")
        wait_for(lambda: nvim.exec_lua("return _G.nextword_ready()"), "the server and its model")
        attach(nvim, tmp_path / "ghost.txt")
        assert keymap(nvim, "<Tab>")["desc"].startswith("nextword: ")
        assert keymap(nvim, "<C-Right>")["desc"].startswith("nextword: ")
        # No ghost text yet: <Tab> does what it did (Neovim's default: a tab).
        nvim.input("i<Tab>")
        wait_for(lambda: nvim.current.line == "\t", "a tab from <Tab> without ghost text")
        nvim.input(CONTEXT)
        typed = "\t" + CONTEXT
        phrase = wait_for(
            lambda: (text := ghost_text(nvim)) and " " in text and text,
            "a phrase of several words as virtual text at the cursor",
        )
        words = phrase.split(" ")
        assert len(words) >= 2 and all(w for w in words), phrase

        nvim.input("<C-Right>")  # one word, and the space after it
        wait_for(lambda: nvim.current.line != typed, "the word accepted")
        assert nvim.current.line == typed + words[0] + " "
        assert nvim.api.get_mode()["mode"] == "i"
        rest = wait_for(lambda: ghost_text(nvim), "the rest of the phrase still shown")
        assert rest.split(" ")[0] == words[1], (phrase, rest)
        time.sleep(0.5)  # the server's answer for the new text has come
        rest = ghost_text(nvim)
        assert rest, "the ghost text went away"

        before = nvim.current.line
        nvim.input("<Tab>")  # all of it
        wait_for(lambda: nvim.current.line != before, "the ghost text accepted")
        assert nvim.current.line == before + rest
        assert nvim.current.window.cursor == (1, len(nvim.current.line.encode()))
        nvim.input("<Esc>")
        wait_for(lambda: ghost_text(nvim) is None, "no ghost text outside Insert mode")
        assert [n for n in notes(nvim) if n["level"] >= WARN] == []
    finally:
        quit_nvim(nvim)


def test_a_key_the_user_mapped_is_never_taken(tmp_path: Path) -> None:
    mine = 'vim.keymap.set("i", "<Tab>", "<C-t>", { desc = "my indent" })'
    nvim = start_nvim(tmp_path, before=mine)
    try:
        attach(nvim, tmp_path / "mapped.txt")
        assert keymap(nvim, "<Tab>")["desc"] == "my indent"
        assert keymap(nvim, "<C-Right>")["desc"].startswith("nextword: ")
        keys = nvim.exec_lua("return require('nextword.ghost').keys[vim.fn.bufnr()]")
        assert keys == {"mapped": ["<C-Right>"], "skipped": ["<Tab>"]}
        report = checkhealth(nvim)
        assert "<Tab>" in report and "already mapped" in report, report
    finally:
        quit_nvim(nvim)
