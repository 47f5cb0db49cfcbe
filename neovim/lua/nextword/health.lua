--- `:checkhealth nextword`: the executable, a server start, the model and the BLAS.
local config = require("nextword.config")

local M = {}

local health = vim.health
local START_TIMEOUT_MS = 20000 -- a cold start on a slow, loaded machine takes a few seconds
local DOCTOR_TIMEOUT_MS = 60000

--- `nextword doctor --json` run with the executable and arguments that precede `serve` in `cmd`.
---@param cmd string[]
---@return string[]?
local function doctor_cmd(cmd)
  for i, arg in ipairs(cmd) do
    if arg == "serve" then
      local doctor = vim.list_extend(vim.list_slice(cmd, 1, i - 1), { "doctor", "--json" })
      if config.options.settings.model then
        vim.list_extend(doctor, { "--model", config.options.settings.model })
      end
      return doctor
    end
  end
end

---@param cmd string[]
local function check_doctor(cmd)
  local doctor = doctor_cmd(cmd)
  if not doctor then
    return health.warn("`cmd` has no `serve` argument: cannot derive `nextword doctor` from it")
  end
  local ok, result = pcall(function()
    return vim.system(doctor, { text = true }):wait(DOCTOR_TIMEOUT_MS)
  end)
  if not ok then
    return health.error(("`%s` failed to run: %s"):format(table.concat(doctor, " "), result))
  end
  local decoded, info = pcall(vim.json.decode, result.stdout or "")
  if not decoded or type(info) ~= "table" then
    return health.error(
      ("`%s` exited with code %d"):format(table.concat(doctor, " "), result.code),
      { vim.trim(result.stderr or "") }
    )
  end
  health.ok(("%s, MLX %s on %s (%s)"):format(info.platform, info.mlx, info.device, info.backend))
  local blas = info.blas or {}
  if blas.name == "reference" then
    health.warn(("BLAS: the slow reference BLAS (%s)"):format(blas.note), {
      "Install OpenBLAS (Debian/Ubuntu: `sudo apt-get install libopenblas0-pthread`)",
      "or point NEXTWORD_BLAS at an optimized libblas.so",
    })
  else
    health.ok(("BLAS: %s %s (%s), %s GFLOP/s"):format(blas.name, blas.path or "", blas.note, info.matmul_gflops))
  end
  local model = info.model or {}
  if model.error then
    health.error("model: " .. model.error, { "Set `settings.model` to an mlx-lm model directory, or unset it" })
  else
    health.ok(
      ("model %s: %s, %.2fM parameters, %d words, load + warm-up %.2f s"):format(
        model.path,
        model.model_type,
        (model.parameters or 0) / 1e6,
        model.lexicon_words or 0,
        model.load_and_warmup_s or 0
      )
    )
  end
end

--- Start a throwaway client with the configured command and wait for `initialize`.
---@param cmd string[]
local function check_start(cmd)
  local running = require("nextword").client()
  if running and running.initialized then
    return health.ok(("the language server is running (client %d)"):format(running.id))
  end
  local started = vim.uv.hrtime()
  local id = vim.lsp.start({
    name = "nextword-health",
    cmd = cmd,
    init_options = config.server_settings(),
  }, { attach = false, silent = true, reuse_client = function()
    return false
  end })
  if not id then
    return health.error(("`%s` could not be spawned"):format(table.concat(cmd, " ")))
  end
  vim.wait(START_TIMEOUT_MS, function()
    local client = vim.lsp.get_client_by_id(id)
    return not client or client.initialized
  end, 50)
  local client = vim.lsp.get_client_by_id(id)
  if client and client.initialized then
    health.ok(("the language server starts: initialized in %.1f s"):format((vim.uv.hrtime() - started) / 1e9))
    client:stop()
  elseif client then
    health.error(("the language server did not initialize within %d s"):format(START_TIMEOUT_MS / 1000))
    client:stop(true)
  else
    -- Run it once more outside the LSP client to show why: its stderr, stdin closed.
    local run = vim.system(cmd, { text = true, stdin = "" }):wait(START_TIMEOUT_MS)
    local stderr = vim.split(vim.trim(run.stderr or ""), "\n")
    health.error(
      ("the language server exited during start (code %d): %s"):format(run.code, stderr[#stderr]),
      { "The LSP log has its output: " .. vim.lsp.get_log_path() }
    )
  end
end

--- The ghost text and its keys: which the plugin mapped, which it left to their owner.
---@param options nextword.Options
local function check_ghost(options)
  if not options.inline then
    return health.info("ghost text: off (`inline = false`)")
  end
  local keys = {}
  for _, name in ipairs({ "accept", "accept_word" }) do
    if options.keys[name] then
      table.insert(keys, ("%s %s"):format(name, options.keys[name]))
    end
  end
  health.ok("ghost text: on; keys: " .. (#keys > 0 and table.concat(keys, ", ") or "none"))
  local skipped = {}
  for bufnr, record in pairs(require("nextword.ghost").keys) do
    for _, lhs in ipairs(record.skipped) do
      skipped[lhs] = skipped[lhs] or vim.fn.bufname(bufnr)
    end
  end
  for lhs, name in pairs(skipped) do
    health.warn(("%s is already mapped in Insert mode (in %s): nextword left it alone"):format(lhs, name), {
      "Set another key in setup({ keys = { ... } }), or false for none",
    })
  end
end

function M.check()
  health.start("nextword")
  if vim.fn.has("nvim-0.11") == 1 then
    local v = vim.version()
    health.ok(("Neovim %d.%d.%d"):format(v.major, v.minor, v.patch))
  else
    return health.error("Neovim 0.11 or newer is needed (vim.lsp.completion)")
  end
  if not config.configured then
    health.warn("require('nextword').setup() has not been called; checking the default options")
  end
  local options = config.options
  local executable = vim.fn.exepath(options.cmd[1])
  if executable == "" then
    return health.error(("`%s` is not an executable on PATH"):format(options.cmd[1]), {
      "Install nextword (`pip install .` in its repository) into a folder on PATH,",
      "or set `cmd` in setup() to the full path of the `nextword` executable",
    })
  end
  health.ok(("executable: %s"):format(executable))
  local failure = require("nextword").failure()
  if failure then
    health.error(failure, { "Fix the cause, then run :NextwordRestart" })
  end
  check_start(options.cmd)
  check_doctor(options.cmd)
  check_ghost(options)
  health.info("filetypes: " .. table.concat(options.filetypes, ", "))
end

return M
