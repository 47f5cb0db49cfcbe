--- nextword for Neovim: next-word completions from a local model, through the built-in LSP client.
---
--- The server is started with `vim.lsp.start()` from the plugin's own FileType autocmd,
--- not `vim.lsp.config()` + `vim.lsp.enable()`: nextword serves any folder, so one client
--- serves every buffer whatever its root, and a server that cannot start is reported once
--- and not respawned for each buffer opened (`vim.lsp.enable` retries, and warns, at every
--- FileType) until `:NextwordRestart`.
local config = require("nextword.config")
local ghost = require("nextword.ghost")

local M = {}

local NAME = "nextword"
local STATS_REQUEST = "nextword/stats"
local LEARNING_STATUS_COMMAND = "nextword.learningStatus"
local FORGET_COMMAND = "nextword.forget"

---@class nextword.State
---@field enabled boolean Whether buffers attach (`:NextwordToggle`)
---@field client_id? integer The running client
---@field failure? string Why the server is not running; no respawn until restart or toggle
local state = { enabled = false }

local group = vim.api.nvim_create_augroup("nextword", { clear = true })

---@param message string
---@param level? integer
local function notify(message, level)
  vim.notify("nextword: " .. message, level or vim.log.levels.INFO)
end

--- Stop trying: say why once, and how to go on.
---@param reason string
local function fail(reason)
  state.failure = reason
  notify(
    reason .. ". Completions are off until :NextwordRestart; :checkhealth nextword tells more",
    vim.log.levels.ERROR
  )
end

--- The running nextword client, if any.
---@return vim.lsp.Client?
function M.client()
  return state.client_id and vim.lsp.get_client_by_id(state.client_id) or nil
end

--- Why the server is not running after a failed start, if it failed.
---@return string?
function M.failure()
  return state.failure
end

---@param bufnr integer
local function trigger_group(bufnr)
  return "nextword_trigger_" .. bufnr
end

--- True for a Han character: Chinese has no spaces, every character starts a continuation.
---@param char string
local function is_han(char)
  local code = vim.fn.char2nr(char)
  return (code >= 0x3400 and code <= 0x9FFF) or (code >= 0xF900 and code <= 0xFAFF)
    or (code >= 0x20000 and code <= 0x2FA1F)
end

--- Ask at the first keyword character of a word when no popup shows. The server opens
--- the popup at a space only in prose; in code (and after a popup was dismissed or came
--- back empty) the first letter of a word is the cue, as in other editors. In Chinese,
--- every character is one.
---@param bufnr integer
local function trigger_at_word_start(bufnr)
  vim.api.nvim_create_autocmd("InsertCharPre", {
    group = vim.api.nvim_create_augroup(trigger_group(bufnr), { clear = true }),
    buffer = bufnr,
    callback = function()
      local han = is_han(vim.v.char)
      if vim.fn.pumvisible() == 1 or (not han and vim.fn.match(vim.v.char, [[\k]]) ~= 0) then
        return
      end
      local before = vim.api.nvim_get_current_line():sub(1, vim.fn.col(".") - 1)
      if not han and vim.fn.match(before, [[\k$]]) >= 0 then
        return -- inside a word: the popup was dismissed; wait for the next word
      end
      vim.schedule(function() -- once the character is in the buffer
        local current = vim.api.nvim_get_current_buf() == bufnr
        if current and vim.fn.mode() == "i" and vim.fn.pumvisible() == 0 then
          vim.lsp.completion.get()
        end
      end)
    end,
  })
end

---@param client vim.lsp.Client
---@param bufnr integer
local function on_attach(client, bufnr)
  local options = config.options
  -- Built-in popup: asks at the server's trigger character (space) and, while the popup
  -- shows, at every keystroke (the server's lists are incomplete). No completion plugin needed.
  vim.lsp.completion.enable(true, client.id, bufnr, { autotrigger = options.autotrigger })
  if options.autotrigger then
    trigger_at_word_start(bufnr)
  end
  if options.completeopt then
    vim.bo[bufnr].completeopt = options.completeopt
  end
  -- Ghost text (a phrase, or the rest of the top word): Neovim 0.11 has no inline
  -- completion client, so the plugin draws the server's answer itself (ghost.lua).
  if options.inline then
    ghost.enable(client, bufnr, options.keys)
  end
end

---@param code integer
---@param signal integer
---@param client_id integer
local function on_exit(code, signal, client_id)
  if client_id ~= state.client_id then
    return -- stopped on purpose by restart or toggle
  end
  state.client_id = nil
  if code ~= 0 or (signal ~= 0 and signal ~= 15) then
    vim.schedule(function()
      local cmd = table.concat(config.options.cmd, " ")
      fail(("the language server `%s` exited with code %d"):format(cmd, code))
    end)
  end
end

---@return vim.lsp.ClientConfig
local function client_config()
  local settings = config.server_settings()
  return {
    name = NAME,
    cmd = config.options.cmd,
    init_options = settings, -- initializationOptions
    settings = { nextword = settings }, -- answers workspace/configuration, section "nextword"
    get_language_id = function(_, filetype)
      return config.language_id(filetype)
    end,
    on_attach = on_attach,
    on_exit = on_exit,
  }
end

--- Attach a buffer, starting the server on first use.
---@param bufnr integer
local function attach(bufnr)
  if not state.enabled or state.failure or vim.bo[bufnr].buftype ~= "" then
    return
  end
  if not vim.list_contains(config.options.filetypes, vim.bo[bufnr].filetype) then
    return
  end
  if not M.client() then
    local executable = config.options.cmd[1]
    if vim.fn.executable(executable) == 0 then
      local reason = "cannot start the language server: `%s` is not an executable on PATH"
      return fail(reason:format(executable))
    end
  end
  local id = vim.lsp.start(client_config(), {
    bufnr = bufnr,
    silent = true, -- a failure is reported once, below
    reuse_client = function(client)
      return client.id == state.client_id
    end,
  })
  if id then
    state.client_id = id
  elseif not M.client() then
    fail(("cannot start the language server `%s`"):format(table.concat(config.options.cmd, " ")))
  end
end

local function attach_all()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      attach(bufnr)
    end
  end
end

local function stop()
  local client = M.client()
  state.client_id = nil -- its exit is expected now
  if client then
    client:stop()
  end
end

--- Turn completions on (attach open buffers) or off (stop the server).
---@param enable boolean
function M.enable(enable)
  state.enabled = enable
  state.failure = nil
  if enable then
    attach_all()
  else
    stop()
  end
end

--- `:NextwordToggle`
function M.toggle()
  M.enable(not state.enabled)
  notify(state.enabled and "on" or "off")
end

--- `:NextwordRestart`: a fresh server (after an update, a crash or a failed start).
function M.restart()
  stop()
  M.enable(true)
  if not state.failure then
    notify("restarted")
  end
end

--- The server's counters and latency percentiles (the `nextword/stats` request) as lines.
---@param report table
---@param uri string
---@return string[]
function M.format_stats(report, uri)
  ---@param label string
  ---@param c table
  local function line(label, c)
    local ms = c.latencyMs or {}
    return ("%s: %d completions, latency p50 %.1f / p95 %.1f / p99 %.1f ms; decisions %d run, %d skipped;"
      .. " %d cache hits, %d throttled, %d superseded; %d of %d boundaries decided ahead, %d phrases shown"):format(
      label,
      c.completions or 0,
      ms.p50 or 0,
      ms.p95 or 0,
      ms.p99 or 0,
      c.decisionsRun or 0,
      c.decisionsSkipped or 0,
      c.cacheHits or 0,
      c.throttleWaits or 0,
      c.superseded or 0,
      c.decidedAhead or 0,
      c.boundaries or 0,
      c.phrasesShown or 0
    )
  end
  local lines = { line("all documents", report.overall or {}) }
  for _, doc in ipairs(report.documents or {}) do
    if doc.uri == uri then
      table.insert(lines, line("this buffer", doc))
    end
  end
  return lines
end

--- `:NextwordStats`: ask the server and show its figures.
function M.stats()
  local client = M.client()
  if not client then
    return notify(state.failure or "the language server is not running", vim.log.levels.WARN)
  end
  local uri = vim.uri_from_bufnr(0)
  client:request(STATS_REQUEST, vim.empty_dict(), function(err, result)
    if err then
      return notify("stats failed: " .. err.message, vim.log.levels.WARN)
    end
    notify(table.concat(M.format_stats(result or {}, uri), "\n"))
  end)
end

--- Run one of the server's commands (`workspace/executeCommand`); `done` gets its result.
---@param command string
---@param arguments? any[]
---@param done fun(result: table)
local function execute(command, arguments, done)
  local client = M.client()
  if not client then
    return notify(state.failure or "the language server is not running", vim.log.levels.WARN)
  end
  local params = { command = command, arguments = arguments }
  client:request("workspace/executeCommand", params, function(err, result)
    if err then
      return notify(command .. " failed: " .. err.message, vim.log.levels.WARN)
    end
    done(result or {})
  end)
end

--- What the server's learning status says, as lines: counts, sizes and places, never words.
---@param status table
---@return string[]
function M.format_learning(status)
  local lines = {
    status.learning and ("learning on (%s store)"):format(status.scope)
      or "learning off (the `learning` setting)",
  }
  ---@param label string
  ---@param s table
  local function line(label, s)
    return ("%s: %d words, %d word pairs, %d bytes, %s"):format(
      label,
      s.words or 0,
      s.bigrams or 0,
      s.bytes or 0,
      s.path or "?"
    )
  end
  if status.active then
    table.insert(lines, line("in use", status.active))
  end
  for _, stored in ipairs(status.stored or {}) do
    table.insert(lines, line("on disk (" .. (stored.workspace or "user") .. ")", stored))
  end
  if not status.active and #(status.stored or {}) == 0 then
    table.insert(lines, "nothing stored")
  end
  return lines
end

--- `:NextwordLearningStatus`: what learning has stored.
function M.learning_status()
  execute(LEARNING_STATUS_COMMAND, nil, function(result)
    notify(table.concat(M.format_learning(result), "\n"))
  end)
end

--- `:NextwordForget [workspace]`: delete everything learned, or this workspace's store.
---@param what? string
function M.forget(what)
  local arguments = (what and what ~= "") and { what } or nil
  execute(FORGET_COMMAND, arguments, function(result)
    local lines = M.format_learning(result)
    local done = what == "workspace" and "forgot this workspace's words"
      or "forgot everything learned"
    table.insert(lines, 1, done)
    notify(table.concat(lines, "\n"))
  end)
end

local function create_commands()
  local commands = {
    NextwordStats = { M.stats, "Show nextword's completion counters and latency" },
    NextwordRestart = { M.restart, "Restart the nextword language server" },
    NextwordToggle = { M.toggle, "Turn nextword completions on or off" },
    NextwordLearningStatus = {
      M.learning_status,
      "Show what nextword learned (counts, sizes, places; never the words)",
    },
  }
  for name, command in pairs(commands) do
    vim.api.nvim_create_user_command(name, command[1], { desc = command[2], force = true })
  end
  vim.api.nvim_create_user_command("NextwordForget", function(args)
    M.forget(args.args)
  end, {
    desc = "Delete what nextword learned (everything, or `workspace`)",
    nargs = "?",
    complete = function()
      return { "workspace" }
    end,
    force = true,
  })
end

--- Configure nextword and attach it to matching buffers, now and as they open.
---@param opts? nextword.Config
function M.setup(opts)
  if vim.fn.has("nvim-0.11") == 0 then
    return notify("needs Neovim 0.11 or newer", vim.log.levels.ERROR)
  end
  stop() -- a second setup() restarts the server with the new options
  config.merge(opts)
  create_commands()
  vim.api.nvim_clear_autocmds({ group = group })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    callback = function(args)
      attach(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd("LspDetach", {
    group = group,
    callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      if client and client.name == NAME then
        -- The popup must not keep asking a stopped client.
        vim.lsp.completion.enable(false, client.id, args.buf)
        pcall(vim.api.nvim_del_augroup_by_name, trigger_group(args.buf))
        ghost.disable(args.buf)
      end
    end,
  })
  M.enable(true)
end

return M
