/**
 * The extension's entry point: wires the output channel, the status bar, the commands
 * and the settings to the server's lifecycle. The protocol is vscode-languageclient's.
 */
import * as vscode from "vscode";

import { onDidChangePythonEnvironment } from "./executable";
import { Lifecycle } from "./lifecycle";
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
    output.show(true);
    void vscode.window.showWarningMessage("nextword is not running; its log is in the output.");
    return;
  }
  output.info(`nextword/stats: ${JSON.stringify(report, null, 2)}`);
  const choice = await vscode.window.showInformationMessage(summarize(report), "Details");
  if (choice === "Details") {
    output.show(true);
  }
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
