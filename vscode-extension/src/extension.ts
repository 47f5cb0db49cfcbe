/**
 * The extension's entry point: wires the output channel, the status bar, the commands
 * and the settings to the server's lifecycle. The protocol is vscode-languageclient's.
 */
import * as vscode from "vscode";

import { onDidChangePythonEnvironment } from "./executable";
import { Lifecycle } from "./lifecycle";
import { FORGET_COMMAND, LEARNING_STATUS_COMMAND, STATS_REQUEST } from "./names";
import { SECTION, classifyChange, getClientSettings } from "./settings";
import { StatusBar } from "./status";

let lifecycle: Lifecycle | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("nextword", { log: true });
  const status = new StatusBar("nextword.showStats");
  const server = new Lifecycle(output, status);
  lifecycle = server;
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand("nextword.showStats", () => showStats(server, output)),
    vscode.commands.registerCommand("nextword.restart", () => server.restart()),
    vscode.commands.registerCommand("nextword.showLearningStatus", () =>
      showLearningStatus(server, output),
    ),
    vscode.commands.registerCommand("nextword.forgetLearned", () => forgetLearned(server, output)),
    vscode.commands.registerCommand("nextword.toggle", () =>
      vscode.workspace
        .getConfiguration(SECTION)
        .update("enable", !getClientSettings().enable, vscode.ConfigurationTarget.Global),
    ),
    vscode.workspace.onDidChangeConfiguration((event) => {
      switch (classifyChange(event)) {
        case "toggle":
          void (getClientSettings().enable ? server.start() : server.stop());
          break;
        case "restart":
          void server.restart();
          break;
        case "notify":
          void server.notifySettings();
          break;
        case "none":
          break;
      }
    }),
  );
  const pythonWatch = await onDidChangePythonEnvironment(() => {
    // Only a server found in the Python environment depends on it.
    if (getClientSettings().serverCommand.length === 0) {
      void server.restart();
    }
  });
  if (pythonWatch !== undefined) {
    context.subscriptions.push(pythonWatch);
  }
  await server.start();
}

export async function deactivate(): Promise<void> {
  await lifecycle?.stop();
  lifecycle = undefined;
}

/** Shows `nextword/stats`: a summary as a notification, the whole report in the output. */
async function showStats(server: Lifecycle, output: vscode.LogOutputChannel): Promise<void> {
  const report = await server.stats();
  if (report === undefined) {
    notRunning(output);
    return;
  }
  output.info(`${STATS_REQUEST}: ${JSON.stringify(report, null, 2)}`);
  const choice = await vscode.window.showInformationMessage(summarize(report), "Details");
  if (choice === "Details") {
    output.show(true);
  }
}

interface StoreStatus {
  path?: string;
  words?: number;
  bigrams?: number;
  bytes?: number;
  workspace?: string;
}

interface LearningStatus {
  learning?: boolean;
  scope?: string;
  active?: StoreStatus;
  stored?: StoreStatus[];
}

/** What learning has stored, from the server: counts, sizes, places (never the words). */
async function showLearningStatus(
  server: Lifecycle,
  output: vscode.LogOutputChannel,
): Promise<void> {
  const status = await server.executeCommand(LEARNING_STATUS_COMMAND);
  if (status === undefined) {
    notRunning(output);
    return;
  }
  output.info(`${LEARNING_STATUS_COMMAND}: ${JSON.stringify(status, null, 2)}`);
  const choice = await vscode.window.showInformationMessage(
    summarizeLearning(status as LearningStatus),
    "Details",
  );
  if (choice === "Details") {
    output.show(true);
  }
}

/** Deletes what was learned, after the user confirms: everything, or this workspace's. */
async function forgetLearned(server: Lifecycle, output: vscode.LogOutputChannel): Promise<void> {
  const everything = "Forget Everything";
  const workspace = "This Workspace Only";
  const options = vscode.workspace.workspaceFolders ? [everything, workspace] : [everything];
  const choice = await vscode.window.showWarningMessage(
    "Delete every word nextword learned from your typing? This cannot be undone.",
    { modal: true },
    ...options,
  );
  if (choice === undefined) {
    return;
  }
  const args = choice === workspace ? ["workspace"] : undefined;
  const status = await server.executeCommand(FORGET_COMMAND, args);
  if (status === undefined) {
    notRunning(output);
    return;
  }
  output.info(`${FORGET_COMMAND}: ${JSON.stringify(status, null, 2)}`);
  void vscode.window.showInformationMessage(
    `nextword: forgot ${choice === workspace ? "this workspace's words" : "everything learned"}. ` +
      summarizeLearning(status as LearningStatus),
  );
}

function notRunning(output: vscode.LogOutputChannel): void {
  output.show(true);
  void vscode.window.showWarningMessage("nextword is not running; its log is in the output.");
}

function summarizeLearning(status: LearningStatus): string {
  const head = status.learning
    ? `learning on (${status.scope ?? "user"} store)`
    : "learning off (setting nextword.learning)";
  const stores = status.stored ?? [];
  const words = stores.reduce((sum, s) => sum + (s.words ?? 0), 0);
  const bytes = stores.reduce((sum, s) => sum + (s.bytes ?? 0), 0);
  const active = status.active;
  const inUse =
    active === undefined ? "" : `; in use: ${active.words ?? 0} words, ${active.path ?? "?"}`;
  return (
    `nextword: ${head}; on disk: ${stores.length} store(s), ${words} words, ` +
    `${bytes} bytes${inUse}`
  );
}

interface StatsReport {
  overall?: {
    completions?: number;
    decisionsRun?: number;
    cacheHits?: number;
    latencyMs?: Record<string, number>;
  };
}

function summarize(report: unknown): string {
  const overall = (report as StatsReport).overall ?? {};
  const latency = overall.latencyMs ?? {};
  const ms = (q: string): string => (latency[q] ?? 0).toFixed(1);
  return (
    `nextword: ${overall.completions ?? 0} completions, ` +
    `latency p50 ${ms("p50")} ms, p95 ${ms("p95")} ms, p99 ${ms("p99")} ms; ` +
    `${overall.decisionsRun ?? 0} model decisions, ${overall.cacheHits ?? 0} cache hits`
  );
}
