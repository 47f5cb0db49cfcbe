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
---@field phraseWords? integer Most words ghost text offers as a phrase (0..8; 0 = phrases off)
---@field speculate? boolean Decide the next word boundary while a likely word is typed
---@field corrections? "prose"|"always"|"off" Offer the word a misspelled prefix stands for
---@field blockOffensiveWords? boolean Never offer an offensive word you have not written or learned
---@field languages? string[] LSP languageIds served; nil = the ids of `filetypes`
---@field logLevel? "error"|"warning"|"info"|"debug"|"trace"
---@field learning? boolean Learn your words locally (off by default; `:NextwordForget` deletes them)
---@field learningScope? "user"|"workspace" Where learned words are kept

--- Insert-mode keys for the ghost text; false leaves a key unmapped. A key you (or another
--- plugin) mapped is never taken; with no ghost text shown, a key does what it did before.
---@class nextword.Keys
---@field accept? string|false Accept all of the ghost text
---@field accept_word? string|false Accept its next word

---@class nextword.Config
---@field cmd? string[] The language server command, executable first
---@field filetypes? string[] Filetypes whose buffers get completions
---@field autotrigger? boolean Open the popup while typing
---@field inline? boolean Ghost text after the cursor (a phrase, or the rest of the top word)
---@field keys? nextword.Keys
---@field completeopt? string|false 'completeopt' for attached buffers; false leaves it alone
---@field settings? nextword.Settings

---@class nextword.Options: nextword.Config
---@field cmd string[]
---@field filetypes string[]
---@field autotrigger boolean
---@field inline boolean
---@field keys nextword.Keys
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
  inline = true, -- ghost text (virtual text) after the cursor; also the server's `inline`
  keys = { -- Insert-mode keys for the ghost text (false: none); a key already mapped is left alone
    accept = "<Tab>", -- accept all of it (the phrase); without ghost text, Tab as before
    accept_word = "<C-Right>", -- accept its next word; without ghost text, <C-Right> as before
  },
  completeopt = "menuone,noselect,popup", -- noselect: only <C-n>/<C-p> then <C-y> accept a word
  settings = { -- sent to the server as initializationOptions and the "nextword" configuration section
    model = nil, -- model directory; nil = the bundled model
    chineseModel = nil, -- model for Chinese text; nil = the bundled one, "" = none
    k = 5, -- candidates per completion (1..50)
    temperature = 0, -- 0 ranks by probability; > 0 samples the order (0..5)
    windowTokens = 128, -- tokens of context before the cursor (16..512; 64-128 advised)
    throttleMs = 50, -- at most one model decision per document per interval (ms)
    phraseWords = 4, -- most words ghost text offers as a phrase (0..8); 0 = phrases off
    speculate = true, -- decide the next word boundary while a likely word is still typed
    corrections = "prose", -- offer the intended word for a misspelled prefix: prose | always (code too) | off
    blockOffensiveWords = true, -- never offer an offensive word you have not written or learned
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
  vim.validate("keys", merged.keys, "table")
  for _, name in ipairs({ "accept", "accept_word" }) do
    vim.validate("keys." .. name, merged.keys[name], function(v)
      return type(v) == "string" or v == false
    end, "a key (string) or false")
  end
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
