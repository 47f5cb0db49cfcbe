/**
 * Constructing the language client: how the server is spawned, which documents it sees,
 * what it is told of the settings, and the hooks the status bar listens to.
 */
import * as vscode from "vscode";
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
  TransportKind,
  RevealOutputChannelOn,
} from "vscode-languageclient/node";

import { type ModelState, STATE_CAPABILITY, STATE_NOTIFICATION, type StateParams } from "./names";
import { SECTION, getServerSettings } from "./settings";

/** Asks the server for its model-state notifications (names.ts). */
const modelStateFeature: StaticFeature = {
  fillClientCapabilities(capabilities) {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, [STATE_CAPABILITY]: true };
  },
  initialize: () => undefined,
  getState: () => ({ kind: "static" }),
  clear: () => undefined,
};

export interface ClientHooks {
  /** The server says its model is loading, ready, or failed to load. */
  onModel(state: ModelState): void;
  /** A completion request that returned candidates took `ms`, round trip. */
  onLatency(ms: number): void;
}

export function createClient(
  command: string[],
  languages: string[],
  output: vscode.LogOutputChannel,
  hooks: ClientHooks,
): LanguageClient {
  const [program = "nextword", ...args] = command;
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const serverOptions: ServerOptions = {
    command: program,
    args,
    transport: TransportKind.stdio,
    options: cwd === undefined ? {} : { cwd },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: languages.flatMap((language) => [
      { scheme: "file", language },
      { scheme: "untitled", language },
    ]),
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    // A function: read again at every (re)start, automatic restarts included.
    initializationOptions: () => getServerSettings(),
    middleware: {
      workspace: {
        // The server pulls the `nextword` section; give it its own settings only.
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) {
            return result;
          }
          return params.items.map((item, i) =>
            item.section === SECTION ? getServerSettings() : (result[i] as unknown),
          );
        },
      },
      provideCompletionItem: async (document, position, context, token, next) => {
        const started = performance.now();
        const result = await next(document, position, context, token);
        const items = Array.isArray(result) ? result : result?.items;
        if (items !== undefined && items.length > 0) {
          hooks.onLatency(performance.now() - started);
        }
        return result;
      },
      provideInlineCompletionItems: (document, position, context, token, next) =>
        // vscode-languageclient 9.0.1 sends selectedCompletionInfo.range as VS Code's Range
        // (JSON [start, end]), which the server cannot parse; nextword does not use it.
        next(document, position, { ...context, selectedCompletionInfo: undefined }, token),
    },
  };
  const client = new LanguageClient("nextword", "nextword", serverOptions, clientOptions);
  // textDocument/inlineCompletion (ghost text) is a proposed feature in vscode-languageclient 9.
  client.registerProposedFeatures();
  client.registerFeature(modelStateFeature);
  client.onNotification(STATE_NOTIFICATION, (params: StateParams) => {
    hooks.onModel(params.state);
  });
  return client;
}
