/**
 * Finding the server's command: the `nextword.server.command` setting, else `nextword`
 * from the active Python environment (through the ms-python extension's API, when it is
 * installed), else `nextword` on PATH.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";

const PYTHON_EXTENSION = "ms-python.python";
const EXECUTABLE = process.platform === "win32" ? "nextword.exe" : "nextword";

/** The part of the ms-python extension's API used here. */
interface PythonApi {
  environments: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(
      environment: { path: string } | string,
    ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
}

export type ServerCommand =
  | { found: true; command: string[]; source: string }
  | { found: false; reason: string };

/** The command that starts `nextword serve`, or why there is none. */
export async function findServerCommand(configured: string[]): Promise<ServerCommand> {
  const [program, ...args] = configured;
  if (program !== undefined) {
    const resolved = resolveProgram(program);
    return resolved
      ? { found: true, command: [resolved, ...args], source: "nextword.server.command" }
      : { found: false, reason: `\`${program}\` (from nextword.server.command) does not exist` };
  }
  const python = await pythonEnvironmentBin();
  if (python !== undefined) {
    const candidate = path.join(python, EXECUTABLE);
    if (isExecutable(candidate)) {
      return { found: true, command: [candidate, "serve"], source: "the active Python environment" };
    }
  }
  const onPath = searchPath(EXECUTABLE);
  if (onPath !== undefined) {
    return { found: true, command: [onPath, "serve"], source: "PATH" };
  }
  const where =
    python !== undefined ? "in the active Python environment or on PATH" : "on PATH";
  return { found: false, reason: `\`nextword\` was not found ${where}` };
}

/** Calls `listener` when the user picks another Python environment (if ms-python is there). */
export async function onDidChangePythonEnvironment(
  listener: () => void,
): Promise<vscode.Disposable | undefined> {
  const api = await pythonApi();
  return api?.environments.onDidChangeActiveEnvironmentPath(listener);
}

async function pythonApi(): Promise<PythonApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION);
  if (extension === undefined) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    // Older ms-python releases lack the environments API.
    return typeof api.environments === "object" ? api : undefined;
  } catch {
    return undefined;
  }
}

/** The folder of the active environment's interpreter, where pip puts `nextword`. */
async function pythonEnvironmentBin(): Promise<string | undefined> {
  const api = await pythonApi();
  if (api === undefined) {
    return undefined;
  }
  const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
  const active = api.environments.getActiveEnvironmentPath(resource);
  const environment = await api.environments.resolveEnvironment(active);
  const interpreter = environment?.executable.uri?.fsPath;
  return interpreter === undefined ? undefined : path.dirname(interpreter);
}

/** A path (a relative one is from the first workspace folder), or a name looked up on PATH. */
function resolveProgram(program: string): string | undefined {
  if (!program.includes("/") && !program.includes("\\")) {
    return searchPath(program);
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const file = folder === undefined ? program : path.resolve(folder, program);
  return isExecutable(file) ? file : undefined;
}

function searchPath(name: string): string | undefined {
  const folders = (process.env["PATH"] ?? "").split(path.delimiter).filter(Boolean);
  const suffixes =
    process.platform === "win32" && !path.extname(name)
      ? (process.env["PATHEXT"] ?? ".EXE;.CMD;.BAT").split(";")
      : [""];
  for (const folder of folders) {
    for (const suffix of suffixes) {
      const candidate = path.join(folder, name + suffix);
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
