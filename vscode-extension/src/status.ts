/**
 * The status bar item: the server's state and the last completion's latency; a click
 * shows the server's stats.
 */
import * as vscode from "vscode";

export type ServerState = "off" | "starting" | "loading" | "ready" | "error";

const ICONS: Record<ServerState, string> = {
  off: "$(circle-slash)",
  starting: "$(loading~spin)",
  loading: "$(loading~spin)",
  ready: "$(check)",
  error: "$(error)",
};

const DESCRIPTIONS: Record<ServerState, string> = {
  off: "off (nextword: Toggle On/Off turns it on)",
  starting: "starting the server",
  loading: "loading the model",
  ready: "ready",
  error: "error (see the nextword output)",
};

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private state: ServerState = "off";
  private detail: string | undefined;
  private latencyMs: number | undefined;

  constructor(command: string) {
    this.item = vscode.window.createStatusBarItem("nextword.status", vscode.StatusBarAlignment.Right);
    this.item.name = "nextword";
    this.item.command = command;
    this.render();
    this.item.show();
  }

  get current(): ServerState {
    return this.state;
  }

  /** Sets the state; `detail` (an error's reason) shows in the tooltip. */
  set(state: ServerState, detail?: string): void {
    this.state = state;
    this.detail = detail;
    if (state !== "ready") {
      this.latencyMs = undefined;
    }
    this.render();
  }

  /** The round trip of the last completion request that got candidates. */
  latency(ms: number): void {
    this.latencyMs = ms;
    this.render();
  }

  dispose(): void {
    this.item.dispose();
  }

  private render(): void {
    const latency = this.latencyMs === undefined ? "" : ` ${Math.round(this.latencyMs)} ms`;
    this.item.text = `${ICONS[this.state]} nextword${latency}`;
    const lines = [`nextword: ${DESCRIPTIONS[this.state]}`];
    if (this.detail !== undefined) {
      lines.push(this.detail);
    }
    if (this.latencyMs !== undefined) {
      lines.push(`Last completion: ${this.latencyMs.toFixed(1)} ms (round trip)`);
    }
    lines.push("Click for the server's stats");
    this.item.tooltip = lines.join("\n");
    this.item.backgroundColor =
      this.state === "error" ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  }
}
