/**
 * Reading the `nextword.*` settings.
 *
 * The server's settings keep the names of server/nextword/lsp/settings.py and go to the
 * server as they are (it validates them and reports bad values); the client's own
 * settings (`enable`, `server.command`) never reach it.
 */
import * as vscode from "vscode";

export const SECTION = "nextword";

/** The server's settings, spelled as in server/nextword/lsp/settings.py. */
export const SERVER_SETTINGS = [
  "model",
  "chineseModel",
  "k",
  "temperature",
  "windowTokens",
  "throttleMs",
  "inline",
  "phraseWords",
  "speculate",
  "corrections",
  "blockOffensiveWords",
  "languages",
  "logLevel",
  "learning",
  "learningScope",
] as const;

export type ServerSettings = Record<(typeof SERVER_SETTINGS)[number], unknown>;

export interface ClientSettings {
  /** Whether the server runs at all. */
  enable: boolean;
  /** The server's executable and arguments; empty means "find `nextword`". */
  serverCommand: string[];
  /** The languageIds whose documents go to the server. */
  languages: string[];
}

/** The server's settings as the user has them (defaults from package.json). */
export function getServerSettings(): ServerSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const settings: Partial<ServerSettings> = {};
  for (const name of SERVER_SETTINGS) {
    settings[name] = config.get<unknown>(name);
  }
  return settings as ServerSettings;
}

export function getClientSettings(): ClientSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    enable: config.get<boolean>("enable", true),
    serverCommand: stringList(config.get<unknown>("server.command")),
    languages: stringList(config.get<unknown>("languages")),
  };
}

/** How a settings change is applied: a restart, a start or stop, or a notification. */
export type SettingsChange = "toggle" | "restart" | "notify" | "none";

export function classifyChange(event: vscode.ConfigurationChangeEvent): SettingsChange {
  if (event.affectsConfiguration(`${SECTION}.enable`)) {
    return "toggle";
  }
  // The command starts the process; the languages fix the client's document selector.
  if (
    event.affectsConfiguration(`${SECTION}.server`) ||
    event.affectsConfiguration(`${SECTION}.languages`)
  ) {
    return "restart";
  }
  return event.affectsConfiguration(SECTION) ? "notify" : "none";
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
