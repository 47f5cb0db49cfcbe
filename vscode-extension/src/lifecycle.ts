/**
 * Starting, stopping and restarting the server, one operation at a time, and what the
 * user is told when it cannot start.
 */
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  type LanguageClient,
  State,
} from "vscode-languageclient/node";

import { createClient } from "./client";
import { findServerCommand } from "./executable";
import { STATS_REQUEST } from "./names";
import { getClientSettings, getServerSettings } from "./settings";
import type { StatusBar } from "./status";

const EXECUTE_COMMAND_REQUEST = "workspace/executeCommand";
const STOP_TIMEOUT_MS = 2000;
const INSTALL_HINT =
  "Install nextword into a Python environment (`python3 -m pip install .` in a nextword " +
  "checkout, see its README) and select that environment, put `nextword` on PATH, or set " +
  "`nextword.server.command`.";

export class Lifecycle {
  private client: LanguageClient | undefined;
  // Start, stop and restart are chained: a restart never races a start.
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly status: StatusBar,
  ) {}

  start(): Promise<void> {
    return this.serialize(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.serialize(() => this.doStop());
  }

  restart(): Promise<void> {
    return this.serialize(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  /** Tells a running server the settings changed (`workspace/didChangeConfiguration`). */
  notifySettings(): Promise<void> {
    return this.serialize(async () => {
      await this.client?.sendNotification(DidChangeConfigurationNotification.type, {
        settings: getServerSettings(),
      });
    });
  }

  /** The server's `nextword/stats` report, or undefined when it is not running. */
  async stats(): Promise<unknown> {
    const client = this.client;
    if (client?.state !== State.Running) {
      return undefined;
    }
    // pygls rejects a request without params, though JSON-RPC allows it.
    return client.sendRequest<unknown>(STATS_REQUEST, {});
  }

  /** The result of one of the server's commands, or undefined when it is not running. */
  async executeCommand(command: string, args?: unknown[]): Promise<unknown> {
    const client = this.client;
    if (client?.state !== State.Running) {
      return undefined;
    }
    return client.sendRequest<unknown>(EXECUTE_COMMAND_REQUEST, { command, arguments: args });
  }

  private serialize(operation: () => Promise<void>): Promise<void> {
    const next = this.queue.then(operation);
    this.queue = next.catch((error: unknown) => {
      this.output.error(`nextword: ${String(error)}`);
    });
    return next;
  }

  private async doStart(): Promise<void> {
    const settings = getClientSettings();
    if (this.client !== undefined || !settings.enable) {
      return;
    }
    this.status.set("starting");
    const found = await findServerCommand(settings.serverCommand);
    if (!found.found) {
      this.fail(`nextword cannot start: ${found.reason}.`, INSTALL_HINT);
      return;
    }
    this.output.info(`starting ${found.command.join(" ")} (from ${found.source})`);
    const client = createClient(found.command, settings.languages, this.output, {
      onModel: (state) => {
        if (this.client === client) {
          this.status.set(state === "failed" ? "error" : state);
        }
      },
      onLatency: (ms) => {
        if (this.client === client) {
          this.status.latency(ms);
        }
      },
    });
    client.onDidChangeState((event) => {
      if (this.client !== client) {
        return; // stopped on purpose, or replaced
      }
      if (event.newState === State.Stopped) {
        this.status.set("error", "The server stopped.");
      } else if (event.newState === State.Starting) {
        this.status.set("starting");
      } else if (this.status.current === "starting") {
        this.status.set("loading");
      }
    });
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      this.client = undefined;
      await client.dispose().catch(() => undefined);
      this.fail(`nextword: the server \`${found.command.join(" ")}\` failed to start: ${String(error)}`);
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.status.set("off");
    if (client === undefined) {
      return;
    }
    try {
      await client.stop(STOP_TIMEOUT_MS);
    } catch (error) {
      this.output.warn(`stopping the server: ${String(error)}`);
    }
  }

  private fail(message: string, hint?: string): void {
    this.status.set("error", message);
    const text = hint === undefined ? message : `${message} ${hint}`;
    this.output.error(text);
    void vscode.window
      .showErrorMessage(text, "Open Settings", "Show Output")
      .then((choice) => {
        if (choice === "Open Settings") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "nextword.server");
        } else if (choice === "Show Output") {
          this.output.show();
        }
      });
  }
}
