/**
 * Constructing the language client: how the server is spawned, which documents it sees,
 * what it is told of the settings, and the hooks the status bar listens to.
 */
import * as vscode from "vscode";
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  TransportKind,
  RevealOutputChannelOn,
} from "vscode-languageclient/node";

import { SECTION, getServerSettings } from "./settings";

// The server's model-load progress (server/nextword/lsp/server.py, PROGRESS_TOKEN) and the
// message that ends it when the load fails.
const LOAD_PROGRESS_TOKEN = "nextword/load";
const LOAD_FAILED_MESSAGE = "model failed to load";

export interface ClientHooks {
  /** The model started loading, is ready, or failed. */
  onModel(state: "loading" | "ready" | "error"): void;
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
          hooks.onModel("ready"); // in case the load finished before progress was set up
        }
        return result;
      },
      provideInlineCompletionItems: (document, position, context, token, next) =>
        // vscode-languageclient 9.0.1 sends selectedCompletionInfo.range as VS Code's Range
        // (JSON [start, end]), which the server cannot parse; nextword does not use it.
        next(document, position, { ...context, selectedCompletionInfo: undefined }, token),
      handleWorkDoneProgress: (token, params, next) => {
        if (token === LOAD_PROGRESS_TOKEN) {
          if (params.kind !== "end") {
            hooks.onModel("loading");
          } else {
            hooks.onModel(params.message === LOAD_FAILED_MESSAGE ? "error" : "ready");
          }
        }
        next(token, params);
      },
    },
  };
  const client = new LanguageClient("nextword", "nextword", serverOptions, clientOptions);
  // textDocument/inlineCompletion (ghost text) is a proposed feature in vscode-languageclient 9.
  client.registerProposedFeatures();
  return client;
}
