/**
 * The server's own request, command and notification names, and the model's states,
 * spelled as in server/nextword/lsp/names.py (tests/unit/test_names.py checks them).
 */

export const STATS_REQUEST = "nextword/stats";

// workspace/executeCommand commands. The extension's own commands have other ids:
// vscode-languageclient registers the server's ids as VS Code commands itself.
export const LEARNING_STATUS_COMMAND = "nextword.learningStatus";
export const FORGET_COMMAND = "nextword.forget";

/** Sent once the client is initialized and at each change, to a client that opts in. */
export const STATE_NOTIFICATION = "nextword/state";
/** The opt-in: `true` under this key in the client's `experimental` capabilities. */
export const STATE_CAPABILITY = "nextwordState";

/** The model's state, as the server says it. */
export type ModelState = "loading" | "ready" | "failed";

export interface StateParams {
  state: ModelState;
}
