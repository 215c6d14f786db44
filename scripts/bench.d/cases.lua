-- cases.lua: the requests of scripts/bench's cases, for wrk. Environment:
--   BENCH_CASE     the case (see scripts/bench)
--   BENCH_DATA     the folder holding the fixture's tokens.txt, items.txt, sessions.txt, sync.json
--   BENCH_THREADS  wrk's -t, so each thread takes every BENCH_THREADS-th request number
--   BENCH_OFFSET   the first request number (a second run must not repeat the first's requests)
--   BENCH_PACE_MS  pause before each request on a connection: a fixed rate, for latency
--   BENCH_PATH_<operationId>  each operation's path template (scripts/bench.d/paths.py): the
--                  cases name operations, not paths
local case = os.getenv("BENCH_CASE")
local data = os.getenv("BENCH_DATA")
local step = tonumber(os.getenv("BENCH_THREADS") or "1")
local offset = tonumber(os.getenv("BENCH_OFFSET") or "0")
local pace = tonumber(os.getenv("BENCH_PACE_MS") or "0")

-- An operation's path, its {parameter} filled with `value` when it has one.
local function path(operation, value)
    local template = os.getenv("BENCH_PATH_" .. operation)
    assert(template, "no path for " .. operation .. " (scripts/bench exports them)")
    return (template:gsub("{[a-z_]+}", value or ""))
end

local function lines(name)
    local list = {}
    for line in io.lines(data .. "/" .. name) do list[#list + 1] = line end
    return list
end

local count = 0
function setup(thread)
    thread:set("thread_index", count)
    count = count + 1
end

local tokens, items, sessions, sync_body, number

if pace > 0 then
    function delay() return pace end
end

local function json_headers(account)
    local headers = { ["Content-Type"] = "application/json" }
    if account then headers["Authorization"] = "Bearer " .. tokens[account] end
    return headers
end

local function rfc3339(seconds) return os.date("!%Y-%m-%dT%H:%M:%SZ", seconds) end
-- Uploads: 10-minute sessions from six days ago on, one slot after another for each account.
local upload_base = math.floor(os.time() / 600) * 600 - 6 * 86400

-- The cases whose request varies (each buys, uploads or rates anew); every other case's
-- request is the same each time, set once in init() below and formatted once by wrk: a
-- script that defines request() makes wrk call Lua for every request, and on two shared cores
-- that CPU is the server's too (the health check 34,000-40,700 req/s against 39,000-45,500 without,
-- three runs each, 2026-12-07).
local varying = {}
function varying.purchase(i)
    local account, item = 1 + i % 2000, math.floor(i / 2000) % #items
    return wrk.format("POST", path("shop_purchases_create"), json_headers(account), '{"item_id":"' .. items[item + 1] .. '"}')
end
function varying.upload(i)
    local account, slot = 4001 + i % 1000, math.floor(i / 1000)
    local start = upload_base + slot * 600
    return wrk.format("POST", path("focus_sessions_create"), json_headers(account), string.format(
        '{"id":"b3e00000-0000-4000-8000-%012x","started_at":"%s","ended_at":"%s"}',
        i, rfc3339(start), rfc3339(start + 600)))
end
function varying.rate(i)
    -- Five sessions an account, listed account by account: consecutive requests take
    -- different accounts, as pgbench's random pick does, not one account's five at once
    -- (which would queue on that user's row lock).
    local accounts = #sessions / 5
    local j = i % #sessions
    local account, id = sessions[1 + (j % accounts) * 5 + math.floor(j / accounts) % 5]:match("(%d+) (%S+)")
    return wrk.format("POST", path("focus_sessions_rate", id), json_headers(tonumber(account)), '{"rating":"good"}')
end

-- The fixed cases: method, path, headers and body.
local function fixed()
    if case == "me" then
        return "GET", path("me_get"), json_headers(1)
    elseif case == "update_me" then
        return "PATCH", path("me_update"), json_headers(1), '{"settings":{"show_tip_on_timer":true}}'
    elseif case == "friends" then
        return "GET", path("friends_list"), json_headers(1)
    elseif case == "leaderboard_friends" then
        return "GET", path("leaderboards_get", "daily") .. "?scope=friends", json_headers(1)
    elseif case == "leaderboard_global" then
        return "GET", path("leaderboards_get", "weekly") .. "?scope=global", json_headers(1)
    elseif case == "leaderboard_global_last" then
        -- Account 5500 focused on nothing today: its rank counts every row of the day.
        return "GET", path("leaderboards_get", "daily") .. "?scope=global", json_headers(5500)
    elseif case == "tip_sync" then
        return "POST", path("mindfulness_tips_sync"), json_headers(nil), sync_body
    elseif case == "catalog" then
        return "GET", path("shop_items_list"), {}
    elseif case == "catalog_304" then
        return "GET", path("shop_items_list"), { ["If-None-Match"] = os.getenv("BENCH_ETAG") }
    else
        return "GET", path("health"), {}
    end
end

function init(args)
    tokens = lines("tokens.txt")       -- tokens[n]: account n's token
    items = lines("items.txt")         -- the items a purchase can buy
    sessions = lines("sessions.txt")   -- "account session_id", accounts 1-1000
    local file = io.open(data .. "/sync.json")
    sync_body = file:read("*a")
    file:close()
    number = offset + thread_index
    if not varying[case] then
        local headers
        wrk.method, wrk.path, headers, wrk.body = fixed()
        for name, value in pairs(headers) do wrk.headers[name] = value end
    end
end

if varying[case] then
    function request()
        local i = number
        number = number + step
        return varying[case](i)
    end
end

-- How many requests were sent and how many answered 4xx/5xx (every case expects 2xx or 304).
function done(summary, latency, requests)
    io.stderr:write(string.format("requests %d errors %d\n", summary.requests, summary.errors.status))
end
