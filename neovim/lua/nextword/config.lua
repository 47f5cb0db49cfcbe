--- The plugin's options: documented defaults, merged once by `setup()`.
---
--- The server settings under `settings` carry the server's own camelCase names
--- (server/nextword/lsp/settings.py), the one spelling used by every editor client.
local M = {}

--- Server settings; the server validates them and falls back to its default on a bad value.
---@class nextword.Settings
---@field model? string Model directory; nil = the bundled model
---@field chineseModel? string Model for Chinese text; nil = the bundled one, "" = none
---@field k? integer Candidates per completion (1..50)
---@field temperature? number 0 ranks by probability; > 0 samples the order (0..5)
---@field windowTokens? integer Tokens of context before the cursor (16..512)
---@field throttleMs? integer At most one model decision per document per interval
---@field corrections? "prose"|"always"|"off" Offer the word a misspelled prefix stands for
---@field languages? string[] LSP languageIds served; nil = the ids of `filetypes`
---@field logLevel? "error"|"warning"|"info"|"debug"|"trace"
---@field learning? boolean Learn your words locally (off by default; `:NextwordForget` deletes them)
---@field learningScope? "user"|"workspace" Where learned words are kept

---@class nextword.Config
---@field cmd? string[] The language server command, executable first
---@field filetypes? string[] Filetypes whose buffers get completions
---@field autotrigger? boolean Open the popup while typing
---@field inline? boolean Ghost text where Neovim has `vim.lsp.inline_completion` (0.12+)
---@field completeopt? string|false 'completeopt' for attached buffers; false leaves it alone
---@field settings? nextword.Settings

---@class nextword.Options: nextword.Config
---@field cmd string[]
---@field filetypes string[]
---@field autotrigger boolean
---@field inline boolean
---@field completeopt string|false
---@field settings nextword.Settings

---@type nextword.Options
M.defaults = {
  cmd = { "nextword", "serve", "--stdio" }, -- the server command; the executable is looked up on PATH
  filetypes = { -- buffers of these filetypes attach; prose first, then code (comments, strings)
    "text",
    "markdown",
    "gitcommit",
    "rst",
    "tex",
    "org",
    "asciidoc",
    "mail",
    "python",
    "javascript",
    "typescript",
    "javascriptreact",
    "typescriptreact",
    "rust",
    "go",
    "c",
    "cpp",
    "java",
    "lua",
    "ruby",
    "sh",
    "bash",
    "html",
    "yaml",
    "toml",
  },
  autotrigger = true, -- popup at a space (prose), refined as you type; false: <C-x><C-o> only
  inline = true, -- ghost text on Neovim >= 0.12 (0.11: the popup); also the server's `inline`
  completeopt = "menuone,noselect,popup", -- noselect: only <C-n>/<C-p> then <C-y> accept a word
  settings = { -- sent to the server as initializationOptions and the "nextword" configuration section
    model = nil, -- model directory; nil = the bundled model
    chineseModel = nil, -- model for Chinese text; nil = the bundled one, "" = none
    k = 5, -- candidates per completion (1..50)
    temperature = 0, -- 0 ranks by probability; > 0 samples the order (0..5)
    windowTokens = 128, -- tokens of context before the cursor (16..512; 64-128 advised)
    throttleMs = 50, -- at most one model decision per document per interval (ms)
    corrections = "prose", -- offer the intended word for a misspelled prefix: prose | always (code too) | off
    languages = nil, -- languageIds served; nil = the language ids of `filetypes`
    logLevel = "info", -- error | warning | info | debug | trace (trace logs your text)
    learning = false, -- learn your words locally (off by default)
    learningScope = "user", -- where learned words are kept: user | workspace
  },
}

-- Neovim filetypes whose LSP languageId differs from the filetype.
local LANGUAGE_IDS = { rst = "restructuredtext" }

---@type nextword.Options
M.options = vim.deepcopy(M.defaults)
M.configured = false -- set by setup(), for :checkhealth

---@param opts? nextword.Config
---@return nextword.Options
function M.merge(opts)
  vim.validate("opts", opts, "table", true)
  local merged = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  -- Lists replace rather than merge: a user's filetypes list is the whole list.
  for _, key in ipairs({ "cmd", "filetypes" }) do
    if opts and opts[key] then
      merged[key] = vim.deepcopy(opts[key])
    end
  end
  vim.validate("cmd", merged.cmd, function(v)
    return type(v) == "table" and type(v[1]) == "string"
  end, "a list of strings, the executable first")
  vim.validate("filetypes", merged.filetypes, "table")
  vim.validate("autotrigger", merged.autotrigger, "boolean")
  vim.validate("inline", merged.inline, "boolean")
  vim.validate("completeopt", merged.completeopt, function(v)
    return type(v) == "string" or v == false
  end, "a 'completeopt' value or false")
  vim.validate("settings", merged.settings, "table")
  M.options = merged
  M.configured = true
  return merged
end

---@param filetype string
---@return string
function M.language_id(filetype)
  return LANGUAGE_IDS[filetype] or filetype
end

--- What the server receives: `settings`, plus `inline` and `languages` derived from the options.
---@param options? nextword.Options
---@return table<string, any>
function M.server_settings(options)
  options = options or M.options
  local settings = vim.deepcopy(options.settings)
  settings.inline = options.inline
  if settings.languages == nil then
    settings.languages = vim.tbl_map(M.language_id, options.filetypes)
  end
  return settings
end

return M
