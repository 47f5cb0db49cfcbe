// End-to-end test of the packaged extension in real VS Code: code-server (VS Code 1.139)
// driven by headless Chromium through playwright-core.
//
// It installs the .vsix, opens a text file, types a sentence, reads nextword's candidates
// from the suggest widget, accepts one, saves, checks the file on disk, then checks the
// inline ghost text, a phrase of several words as ghost text (Ctrl+Right takes its next
// word, Tab the rest), Chinese (Han continuations after "😀 今天天气很", the same as
// `nextword predict`'s, inserted at the cursor), a typo's correction (offered, and replacing
// the typed word when accepted), the status bar's stats, the learning status command, and
// the notice for a missing server. Prints one JSON object (the result) on its
// last line and exits 0 when every check passed.
//
//   node e2e/run.mjs --cache DIR --vsix FILE --artifacts DIR [--model DIR] [--screenshot FILE]
//
// `nextword` must be on PATH: the extension finds it there, as a user's would. `--model`
// is the `nextword.model` setting (the tests give a model whose phrases always show).
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    cache: { type: "string" },
    vsix: { type: "string" },
    artifacts: { type: "string" },
    model: { type: "string" },
    screenshot: { type: "string" },
  },
});
for (const name of ["cache", "vsix", "artifacts"]) {
  if (!args[name]) throw new Error(`--${name} is required`);
}
const installed = path.join(args.cache, "e2e");
const require = createRequire(path.join(installed, "package.json"));
const { chromium } = require("playwright-core");
const codeServer = path.join(installed, "node_modules/code-server/out/node/entry.js");

const SENTENCE = "Thank you for your";
// Where the phrase model offers a phrase of several words (tests/server/test_phrases_server.py).
const PHRASE_CONTEXT = "It was the best of times, it was the ";
// An emoji first: two UTF-16 code units, so a server counting characters or bytes would
// put the cursor (UTF-16 column 8) and the insertion elsewhere.
const CHINESE = "😀 今天天气很";
const HAN_ONLY = /^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{1,4}$/u;
// A misspelled last word, and the correction the server offers for it.
const TYPO = "Please send it to the adress";
const CORRECTION = "address";
const TIMEOUT_MS = 60_000;
const started = Date.now();
const timings = {};
const mark = (name) => (timings[name] = (Date.now() - started) / 1000);
const log = (message) => console.error(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

// code-server writes under HOME and XDG folders whatever its flags say: keep it in a temporary one.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nextword-vscode-"));
const home = path.join(tmp, "home");
const userData = path.join(tmp, "user-data");
const extensions = path.join(tmp, "extensions");
const workspace = path.join(tmp, "workspace");
for (const dir of [home, userData, extensions, workspace, args.artifacts]) {
  fs.mkdirSync(dir, { recursive: true });
}
const env = {
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, ".config"),
  XDG_DATA_HOME: path.join(home, ".local/share"),
  XDG_STATE_HOME: path.join(home, ".local/state"),
  XDG_CACHE_HOME: path.join(home, ".cache"),
};
// The extension host takes its environment from a login shell, as VS Code's does: the
// user's profile is where `nextword` gets on PATH.
const nextwordBin = (process.env.PATH ?? "")
  .split(path.delimiter)
  .find((dir) => dir && fs.existsSync(path.join(dir, "nextword")));
if (!nextwordBin) throw new Error("`nextword` is not on PATH");
fs.writeFileSync(path.join(home, ".profile"), `export PATH="${nextwordBin}:$PATH"\n`);
const commonFlags = [
  "--user-data-dir", userData,
  "--extensions-dir", extensions,
  "--disable-telemetry",
  "--disable-update-check",
  "--disable-workspace-trust",
];

const result = { ok: false, checks: {}, timings };
let server;
let browser;
let page;
try {
  const install = spawnSync(
    process.execPath,
    [codeServer, ...commonFlags, "--install-extension", path.resolve(args.vsix)],
    { env, encoding: "utf8", timeout: TIMEOUT_MS },
  );
  if (install.status !== 0) {
    throw new Error(`--install-extension failed:\n${install.stdout}\n${install.stderr}`);
  }
  mark("installed");

  const settingsFile = path.join(userData, "User/settings.json");
  const settings = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "workbench.editor.empty.hint": "hidden",
    "chat.disableAIFeatures": true,
    "extensions.ignoreRecommendations": true,
    "telemetry.telemetryLevel": "off",
    "git.enabled": false,
    "editor.inlineSuggest.enabled": true,
    ...(args.model ? { "nextword.model": path.resolve(args.model) } : {}),
  };
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  fs.writeFileSync(settingsFile, JSON.stringify(settings));
  const note = path.join(workspace, "note.txt");
  fs.writeFileSync(note, "");
  const chineseFile = path.join(workspace, "chinese.txt");
  fs.writeFileSync(chineseFile, "");
  const typoFile = path.join(workspace, "typo.txt");
  fs.writeFileSync(typoFile, "");
  const phraseFile = path.join(workspace, "phrase.txt");
  fs.writeFileSync(phraseFile, "");

  const port = await freePort();
  const config = path.join(tmp, "config.yaml");
  fs.writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  server = spawn(process.execPath, [codeServer, "--config", config, ...commonFlags, workspace], {
    env,
    detached: true, // its own process group: the extension host and nextword go with it
    stdio: ["ignore", "pipe", "pipe"],
  });
  const serverLog = fs.createWriteStream(path.join(args.artifacts, "code-server.log"));
  server.stdout.pipe(serverLog);
  server.stderr.pipe(serverLog);
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, "code-server");
  mark("code-server up");

  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-dev-shm-usage",
    ],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 720 } });
  page.setDefaultTimeout(TIMEOUT_MS);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator(".monaco-workbench").waitFor();
  mark("workbench");

  // Open note.txt with Quick Open, as a user would.
  await page.locator(".explorer-folders-view").waitFor();
  const editor = page.locator(".editor-instance .monaco-editor").first();
  await quickOpen("note.txt");
  await editor.locator(".view-lines").click();
  mark("file open");

  // The status bar says "ready" once the model has loaded.
  const status = page.locator(".statusbar-item", { hasText: "nextword" }).first();
  await waitFor(async () => (await status.locator(".codicon-check").count()) > 0, "nextword ready");
  mark("nextword ready");
  result.checks.ready = true;

  // A space asks for the next word: nextword's candidates open the suggest widget.
  await page.keyboard.type(`${SENTENCE} `, { delay: 40 });
  const rows = page.locator(".editor-widget.suggest-widget.visible .monaco-list-row");
  await rows.first().waitFor();
  const candidates = await suggestRows(rows);
  log(`suggest widget: ${JSON.stringify(candidates)}`);
  result.candidates = candidates;
  result.checks.suggestWidget = candidates.length > 0 && candidates.every((c) => c.label);
  mark("suggestions");
  await page.screenshot({ path: path.join(args.artifacts, "suggest.png") });
  if (args.screenshot) {
    await page.screenshot({ path: args.screenshot });
  }

  // Accept the first candidate, save, and read the file back from disk.
  const accepted = candidates[0].label;
  await page.keyboard.press("Enter");
  await page.keyboard.press("Control+S");
  const expected = `${SENTENCE} ${accepted}`;
  await waitFor(() => fs.readFileSync(note, "utf8") === expected, `note.txt == ${expected}`);
  result.accepted = accepted;
  result.checks.savedAccepted = true;
  mark("accepted and saved");

  // Ghost text: with the popup closed, ask for an inline suggestion after a space.
  await page.keyboard.type(" ");
  const ghost = editor.locator('[class*="ghost-text"]').first();
  // Either comes first: the popup (close it, then ask for the ghost text), or the ghost
  // text itself, which VS Code asks for as you type and shows with the popup hidden.
  await rows.first().or(ghost).first().waitFor(); // both may show: either will do
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await rows.first().isVisible()) await page.keyboard.press("Escape");
    if (await ghost.isVisible()) break;
    await page.keyboard.press("Alt+Backslash"); // editor.action.inlineSuggest.trigger
    const shown = await ghost.waitFor({ timeout: 10_000 }).then(() => true, () => false);
    if (shown) break;
  }
  await ghost.waitFor();
  // The editor draws the ghost text's spaces as no-break spaces (a phrase has some).
  result.ghostText = ((await ghost.textContent()) ?? "").replace(/\u00a0/g, " ").trim();
  log(`ghost text: ${JSON.stringify(result.ghostText)}`);
  await page.screenshot({ path: path.join(args.artifacts, "ghost-text.png") });
  await page.keyboard.press("Tab");
  await page.keyboard.press("Control+S");
  await waitFor(
    () => fs.readFileSync(note, "utf8") === `${expected} ${result.ghostText}`,
    "the ghost text accepted and saved",
  );
  result.checks.ghostText = result.ghostText.length > 0;
  mark("ghost text");

  // A phrase: after a space the ghost text shows several words. Ctrl+Right (VS Code's
  // "accept next word") takes one of them, Tab takes the rest.
  await quickOpen("phrase.txt");
  await page.keyboard.type(PHRASE_CONTEXT, { delay: 40 });
  result.phrase = {};
  // The editor draws the ghost text's spaces as no-break spaces.
  const ghostText = async () =>
    ((await ghost.textContent({ timeout: 1000 })) ?? "").replace(/\u00a0/g, " ").trim();
  const suggestShown = async () =>
    (await page.locator(".editor-widget.suggest-widget.visible").count()) > 0;
  // VS Code asks for ghost text as you type (and hides the popup while it shows); when
  // it shows no phrase, or the popup is open over it, ask again by hand.
  let askedPhrase = Date.now();
  await waitFor(async () => {
    result.phrase.shown = await ghostText().catch(() => "");
    if (result.phrase.shown.split(/\s+/).length >= 2 && !(await suggestShown())) return true;
    if (Date.now() - askedPhrase > 2000) {
      await page.keyboard.press("Escape");
      await page.keyboard.press("Alt+Backslash"); // editor.action.inlineSuggest.trigger
      askedPhrase = Date.now();
    }
    return false;
  }, "a phrase of several words as ghost text", 15_000);
  log(`phrase ghost text: ${JSON.stringify(result.phrase.shown)}`);
  await page.screenshot({ path: path.join(args.artifacts, "phrase.png") });
  const readPhraseFile = () => fs.readFileSync(phraseFile, "utf8");
  await page.keyboard.press("Control+ArrowRight");
  await page.keyboard.press("Control+S");
  // Until the save lands: the file is empty on disk before it.
  await waitFor(() => {
    const text = readPhraseFile();
    return text.startsWith(PHRASE_CONTEXT) && text.length > PHRASE_CONTEXT.length;
  }, "one word of the phrase accepted");
  result.phrase.afterWord = readPhraseFile();
  await ghost.waitFor();
  result.phrase.rest = await ghostText();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Control+S");
  // A save truncates the file before it writes: an empty read is the save under way.
  const restSaved = (text) =>
    text !== result.phrase.afterWord && text.startsWith(result.phrase.afterWord.trimEnd());
  await waitFor(() => restSaved(readPhraseFile()), "the rest of the phrase accepted");
  result.phrase.fileText = readPhraseFile();
  const [firstWord] = result.phrase.shown.split(/\s+/);
  result.checks.phraseWord = result.phrase.afterWord.trimEnd() === PHRASE_CONTEXT + firstWord;
  result.checks.phraseAll = result.phrase.fileText === PHRASE_CONTEXT + result.phrase.shown;
  log(`phrase: ${JSON.stringify(result.phrase)}`);
  mark("phrase");

  // Chinese, in a file of its own (the context is the whole text before the cursor, as
  // predict's): the Han characters typed open the suggest widget with Han continuations,
  // the same as `nextword predict`'s at the same k (the extension's default, 5).
  const predicted = spawnSync("nextword", ["predict", "--json", CHINESE], { encoding: "utf8" });
  if (predicted.status !== 0) throw new Error(`nextword predict failed:\n${predicted.stderr}`);
  const expectedZh = JSON.parse(predicted.stdout).candidates.map((c) => c.text);
  result.chinese = { expected: expectedZh };
  await quickOpen("chinese.txt");
  await page.keyboard.type(CHINESE, { delay: 40 }); // Han characters go in as text input
  const labels = () =>
    rows.evaluateAll((elements) =>
      elements.map((e) => e.querySelector(".label-name")?.textContent ?? ""),
    );
  // Until the answer for the whole text shows: one for a shorter text may show first.
  // When no popup shows for 2 s (the answer to the last key came back empty: that
  // request was overtaken by a newer one), ask with Ctrl+Space, as a user would.
  let shown = [];
  let asked = Date.now();
  result.chinese.askedByHand = 0;
  await waitFor(async () => {
    shown = await labels();
    if (shown.length === 0 && Date.now() - asked > 2000) {
      await page.keyboard.press("Control+Space");
      asked = Date.now();
      result.chinese.askedByHand += 1;
    }
    return JSON.stringify(shown) === JSON.stringify(expectedZh);
  }, "the suggest widget to offer predict's candidates", 15_000).catch((error) => {
    result.chinese.candidates = shown;
    throw error;
  });
  result.chinese.candidates = shown;
  log(`Chinese suggest widget: ${JSON.stringify(shown)}`);
  await page.screenshot({ path: path.join(args.artifacts, "chinese.png") });
  const acceptedZh = shown[0];
  await page.keyboard.press("Enter");
  await page.keyboard.press("Control+S");
  await waitFor(
    () => fs.readFileSync(chineseFile, "utf8") === CHINESE + acceptedZh,
    `chinese.txt == ${CHINESE + acceptedZh}`,
  ).catch((error) => {
    result.chinese.fileText = fs.readFileSync(chineseFile, "utf8");
    throw error;
  });
  Object.assign(result.chinese, { accepted: acceptedZh, fileText: CHINESE + acceptedZh });
  result.checks.chinese = shown.every((label) => HAN_ONLY.test(label));
  mark("chinese");

  // A typo: the correction's filterText is the word typed, so VS Code's fuzzy match keeps
  // it in the suggest widget; accepting it replaces the typed word (its textEdit).
  await quickOpen("typo.txt");
  await page.keyboard.type(TYPO, { delay: 40 });
  result.typo = { candidates: [] };
  const isCorrection = (c) => c.label === CORRECTION && c.detail.endsWith("(correction)");
  asked = Date.now();
  await waitFor(async () => {
    result.typo.candidates = await suggestRows(rows);
    if (result.typo.candidates.length === 0 && Date.now() - asked > 2000) {
      await page.keyboard.press("Control+Space"); // the last key's answer was overtaken
      asked = Date.now();
    }
    return result.typo.candidates.some(isCorrection);
  }, `the suggest widget to offer the correction ${CORRECTION}`, 15_000);
  log(`typo suggest widget: ${JSON.stringify(result.typo.candidates)}`);
  await page.screenshot({ path: path.join(args.artifacts, "correction.png") });
  const index = result.typo.candidates.findIndex(isCorrection);
  for (let i = 0; i < index; i++) await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Control+S");
  const corrected = TYPO.replace(/\S+$/, CORRECTION);
  await waitFor(() => fs.readFileSync(typoFile, "utf8") === corrected, `typo.txt == ${corrected}`)
    .catch((error) => {
      result.typo.fileText = fs.readFileSync(typoFile, "utf8");
      throw error;
    });
  result.typo.fileText = corrected;
  result.checks.correction = true;
  mark("correction");

  // A click on the status bar item shows nextword/stats.
  result.statusText = (await status.textContent())?.trim();
  await status.click();
  const toast = page.locator(".notification-toast", { hasText: "completions" }).first();
  await toast.waitFor();
  result.statsMessage = (await toast.locator(".notification-list-item-message").textContent())?.trim();
  result.checks.stats = /[1-9]\d* completions/.test(result.statsMessage ?? "");
  mark("stats");
  await page.screenshot({ path: path.join(args.artifacts, "stats.png") });

  // "nextword: Learning Status" from the command palette: the server's learning status
  // (learning is off by default, so it says so), never any word.
  await page.keyboard.press("Escape");
  await page.keyboard.press("F1");
  await page.locator(".quick-input-widget input").waitFor();
  await page.keyboard.type("nextword: Learning Status");
  await page
    .locator(".quick-input-list .monaco-list-row", { hasText: "Learning Status" })
    .first()
    .waitFor();
  await page.keyboard.press("Enter");
  const learningToast = page.locator(".notification-toast", { hasText: "learning off" }).first();
  await learningToast.waitFor();
  result.learningMessage = (
    await learningToast.locator(".notification-list-item-message").textContent()
  )?.trim();
  result.checks.learningStatus = /learning off.*on disk: 0 store/.test(result.learningMessage ?? "");
  mark("learning status");

  // A server command that does not exist (in the workspace's settings, which VS Code
  // watches): the server restarts and the user is told why.
  await page.keyboard.press("Escape");
  fs.mkdirSync(path.join(workspace, ".vscode"));
  fs.writeFileSync(
    path.join(workspace, ".vscode/settings.json"),
    JSON.stringify({ "nextword.server.command": ["/nonexistent/nextword", "serve"] }),
  );
  const missing = page.locator(".notification-toast", { hasText: "nextword cannot start" }).first();
  await missing.waitFor();
  await waitFor(async () => (await status.locator(".codicon-error").count()) > 0, "status error");
  result.checks.missingServer = true;
  mark("missing server");
  await page.screenshot({ path: path.join(args.artifacts, "missing-server.png") });

  result.fileText = fs.readFileSync(note, "utf8");
  result.ok = Object.values(result.checks).every(Boolean);
} catch (error) {
  result.error = String(error?.stack ?? error);
  if (page) {
    await page.screenshot({ path: path.join(args.artifacts, "failure.png") }).catch(() => {});
  }
} finally {
  await browser?.close().catch(() => {});
  if (server?.pid) {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {}
  }
  copyLogs(path.join(userData, "logs"), path.join(args.artifacts, "logs"));
  fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
}
mark("done");
console.log(JSON.stringify(result));
process.exit(result.ok ? 0 : 1);

// The suggest widget's rows: each item's label and detail (nextword's: its probability).
function suggestRows(rows) {
  return rows.evaluateAll((elements) =>
    elements.map((e) => ({
      label: e.querySelector(".label-name")?.textContent ?? "",
      detail: e.querySelector(".details-label")?.textContent ?? "",
    })),
  );
}

// Open a workspace file with Quick Open, as a user would; it has the keyboard focus.
async function quickOpen(name) {
  await page.keyboard.press("Control+P");
  await page.locator(".quick-input-widget input").waitFor();
  await page.keyboard.type(name);
  // Enter opens the focused row: wait until the list has filtered down to it (a CI run
  // pressed Enter while another file was still focused, and typo.txt never opened).
  await page
    .locator(".quick-input-list .monaco-list-row.focused", { hasText: name })
    .first()
    .waitFor();
  await page.keyboard.press("Enter");
  await page.locator(".quick-input-widget").waitFor({ state: "hidden" });
  await page.locator(".tab.active", { hasText: name }).waitFor();
  // The tab shows before its editor takes the keyboard; keys typed in between are lost
  // (a fresh clone's run once lost the "It" of the phrase's sentence).
  await page.locator(".editor-group-container.active .monaco-editor.focused").waitFor();
}

async function waitFor(check, what, timeoutMs = TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// The window's logs, the extension's output channel among them, for a failed run's reader.
function copyLogs(from, to) {
  try {
    fs.cpSync(from, to, { recursive: true });
  } catch {}
}
