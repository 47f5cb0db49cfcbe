--- Ghost text: the server's inline completion (a phrase of a few words, or the rest of the
--- top word) shown after the cursor as virtual text, with keys to accept it all or a word.
---
--- Neovim 0.11 has no inline-completion client, so the plugin asks
--- `textDocument/inlineCompletion` itself at each change in Insert mode and draws the answer
--- with an extmark. An answer to an older state of the buffer is dropped. Typing what the
--- ghost text shows keeps the rest on screen until the server's next answer.
local M = {}

local INLINE = "textDocument/inlineCompletion"
local NS = vim.api.nvim_create_namespace("nextword_ghost")
local HIGHLIGHT = "NextwordGhost"

---@class nextword.Shown
---@field bufnr integer
---@field row integer 0-based line of the cursor
---@field col integer byte column of the cursor
---@field text string what follows the cursor if accepted

---@type nextword.Shown?
local shown = nil
local asked = 0 -- requests sent; only the answer to the newest is shown

---@param bufnr integer
local function augroup_name(bufnr)
  return "nextword_ghost_" .. bufnr
end

--- Remove the ghost text.
function M.clear()
  if shown and vim.api.nvim_buf_is_valid(shown.bufnr) then
    vim.api.nvim_buf_clear_namespace(shown.bufnr, NS, 0, -1)
  end
  shown = nil
end

--- The ghost text shown at the cursor of the current buffer, if any.
---@return string?
function M.text()
  if not shown or shown.bufnr ~= vim.api.nvim_get_current_buf() then
    return nil
  end
  local cursor = vim.api.nvim_win_get_cursor(0)
  if cursor[1] - 1 ~= shown.row or cursor[2] ~= shown.col then
    return nil
  end
  return shown.text
end

---@param bufnr integer
---@param row integer
---@param col integer
---@param text string
local function show(bufnr, row, col, text)
  M.clear()
  if text == "" then
    return
  end
  vim.api.nvim_buf_set_extmark(bufnr, NS, row, col, {
    virt_text = { { text, HIGHLIGHT } },
    virt_text_pos = "inline",
    hl_mode = "combine",
  })
  shown = { bufnr = bufnr, row = row, col = col, text = text }
end

--- Show the server's answer, if the buffer and the cursor are where it was asked.
---@param client vim.lsp.Client
---@param bufnr integer
---@param result table?
local function answered(client, bufnr, result)
  if bufnr ~= vim.api.nvim_get_current_buf() or vim.fn.mode() ~= "i" then
    return
  end
  local items = result and (result.items or result) or {}
  local item = items[1]
  if type(item) ~= "table" or type(item.insertText) ~= "string" or not item.range then
    return M.clear()
  end
  local cursor = vim.api.nvim_win_get_cursor(0)
  local row, col = cursor[1] - 1, cursor[2]
  local range = item.range
  if range.start.line ~= row or range["end"].line ~= row then
    return M.clear()
  end
  -- The item replaces the typed prefix (range.start to the cursor): show what it adds.
  local line = vim.api.nvim_get_current_line()
  local ok, start = pcall(vim.str_byteindex, line, client.offset_encoding, range.start.character, false)
  if not ok or start > col then
    return M.clear()
  end
  local typed = line:sub(start + 1, col)
  if item.insertText:sub(1, #typed) ~= typed then
    return M.clear()
  end
  show(bufnr, row, col, item.insertText:sub(#typed + 1))
end

--- Ask the server for the ghost text at the cursor.
---@param client vim.lsp.Client
---@param bufnr integer
function M.request(client, bufnr)
  asked = asked + 1
  local mine = asked
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  ---@diagnostic disable-next-line: inject-field
  params.context = { triggerKind = 2 } -- Automatic
  local tick = vim.api.nvim_buf_get_changedtick(bufnr)
  client:request(INLINE, params, function(err, result)
    -- Only the newest request's answer, and only while the buffer is as it was asked.
    if err or mine ~= asked or not vim.api.nvim_buf_is_valid(bufnr) then
      return
    end
    if vim.api.nvim_buf_get_changedtick(bufnr) ~= tick then
      return
    end
    answered(client, bufnr, result)
  end, bufnr)
end

--- After a change: keep what the user typed of the ghost text off it, drop the rest.
---@param bufnr integer
local function follow(bufnr)
  if not shown or shown.bufnr ~= bufnr then
    return M.clear()
  end
  local cursor = vim.api.nvim_win_get_cursor(0)
  local row, col = cursor[1] - 1, cursor[2]
  local typed = col - shown.col
  if row == shown.row and typed == 0 then
    return -- the change put the cursor here (a word accepted): it stays as shown
  end
  local line = vim.api.nvim_get_current_line()
  if row ~= shown.row or typed < 0 or line:sub(shown.col + 1, col) ~= shown.text:sub(1, typed) then
    return M.clear()
  end
  show(bufnr, row, col, shown.text:sub(typed + 1))
end

--- Insert `text` at the cursor of the current window, the cursor after it.
---@param text string
local function insert(text)
  local cursor = vim.api.nvim_win_get_cursor(0)
  local row, col = cursor[1] - 1, cursor[2]
  local lines = vim.split(text, "\n", { plain = true })
  vim.api.nvim_buf_set_text(0, row, col, row, col, lines)
  local last = #lines == 1 and col + #text or #lines[#lines]
  vim.api.nvim_win_set_cursor(0, { row + #lines, last })
end

--- Accept all of the ghost text.
function M.accept()
  local text = M.text()
  if text then
    M.clear()
    insert(text)
  end
end

--- Accept the ghost text's next word (and the space after it); the rest stays shown.
function M.accept_word()
  local text = M.text()
  if not text then
    return
  end
  local word = text:match("^%s*[^%s]+%s?") or text
  local bufnr = vim.api.nvim_get_current_buf()
  M.clear()
  insert(word)
  local cursor = vim.api.nvim_win_get_cursor(0)
  show(bufnr, cursor[1] - 1, cursor[2], text:sub(#word + 1))
end

--- The keys the plugin mapped in `bufnr`, and those it left alone (mapped by the user).
---@type table<integer, { mapped: string[], skipped: string[] }>
M.keys = {}

--- Neovim's own default Insert-mode mappings (`:h default-mappings`), by their description:
--- not the user's, so the plugin maps over them in its buffers and keeps what they do.
local NEOVIM_DEFAULTS = { "^vim%.snippet%.jump if active, otherwise " }

---@param mapping table a `maparg()` dictionary
---@return boolean
local function neovim_default(mapping)
  if mapping.buffer ~= 0 or mapping.expr ~= 1 or type(mapping.callback) ~= "function" then
    return false
  end
  for _, pattern in ipairs(NEOVIM_DEFAULTS) do
    if (mapping.desc or ""):match(pattern) then
      return true
    end
  end
  return false
end

--- Map `lhs` in Insert mode for this buffer, unless the user has mapped it: with ghost
--- text shown it runs `action`, otherwise the key does what it did before (Neovim's
--- default mapping of it, e.g. `<Tab>`'s snippet jump, or the key itself).
---@param bufnr integer
---@param lhs string
---@param action string the function of this module to run
---@param desc string
---@return boolean mapped
local function map(bufnr, lhs, action, desc)
  local existing = vim.fn.maparg(lhs, "i", false, true)
  local before = nil ---@type fun(): string?
  if next(existing) ~= nil and not (existing.desc or ""):match("^nextword: ") then
    if not neovim_default(existing) then
      return false -- the user's (or another plugin's): never taken
    end
    before = existing.callback
  end
  vim.keymap.set("i", lhs, function()
    if not M.text() then
      return before and before() or lhs
    end
    local run = ("<Cmd>lua require('nextword.ghost').%s()<CR>"):format(action)
    -- A popup open over the ghost text closes first, leaving the typed text as it was.
    return (vim.fn.pumvisible() == 1 and "<C-e>" or "") .. run
  end, { buffer = bufnr, expr = true, desc = desc })
  return true
end

--- Show ghost text in `bufnr` from `client`, with the keys of `keys`.
---@param client vim.lsp.Client
---@param bufnr integer
---@param keys nextword.Keys
function M.enable(client, bufnr, keys)
  vim.api.nvim_set_hl(0, HIGHLIGHT, { link = "Comment", default = true })
  local group = vim.api.nvim_create_augroup(augroup_name(bufnr), { clear = true })
  vim.api.nvim_create_autocmd({ "TextChangedI", "TextChangedP" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      follow(bufnr)
      M.request(client, bufnr)
    end,
  })
  vim.api.nvim_create_autocmd({ "InsertLeave", "BufLeave" }, {
    group = group,
    buffer = bufnr,
    callback = M.clear,
  })
  vim.api.nvim_create_autocmd("CursorMovedI", {
    group = group,
    buffer = bufnr,
    callback = function()
      if shown and not M.text() then
        M.clear() -- moved away from it (typing moves it too: TextChangedI redraws)
      end
    end,
  })
  local record = { mapped = {}, skipped = {} }
  for _, key in ipairs({
    { keys.accept, "accept", "nextword: accept the ghost text" },
    { keys.accept_word, "accept_word", "nextword: accept the ghost text's next word" },
  }) do
    if key[1] then
      local done = map(bufnr, key[1], key[2], key[3])
      table.insert(done and record.mapped or record.skipped, key[1])
    end
  end
  M.keys[bufnr] = record
end

--- Stop showing ghost text in `bufnr`: its autocmds and the keys the plugin mapped go.
---@param bufnr integer
function M.disable(bufnr)
  pcall(vim.api.nvim_del_augroup_by_name, augroup_name(bufnr))
  local record = M.keys[bufnr]
  if record and vim.api.nvim_buf_is_valid(bufnr) then
    for _, lhs in ipairs(record.mapped) do
      pcall(vim.keymap.del, "i", lhs, { buffer = bufnr })
    end
  end
  M.keys[bufnr] = nil
  if shown and shown.bufnr == bufnr then
    M.clear()
  end
end

return M
