-- wrk script: Work Graph workers over HTTP, driven by a C load generator.
--
--   WG_MODE=lifecycle wrk -t C -c C -d 10s -s bench/wrk/workgraph.lua http://127.0.0.1:PORT
--
-- Run it with as many threads as connections (-t = -c): wrk calls request()/response() per
-- thread, not per connection, so one connection per thread is what makes each connection one
-- worker with its own state (its lease, its epoch, its clock).
--
-- Environment (all of the script's settings, so that delay() exists only where it is used)
--   WG_MODE          lifecycle: claim -> complete, again at once (closed loop)
--                    renew: claim -> renew -> complete (closed loop)
--                    chained: claim, then complete with claimNext, whose answer holds the next
--                    lease: one request per item while items are ready (closed loop; a claim
--                    again only after a completion found nothing next)
--                    batch: POST /claims/batch (limit WG_BATCH, default 100) -> POST /completions
--                    of all of them (closed loop)
--                    open: claims due at WG_RATE per second in all for WG_SECONDS, spread over
--                    the WG_CONNECTIONS connections, each followed at once by its complete; a
--                    claim's latency counts from when it was due, so falling behind shows (no
--                    coordinated omission)
--   WG_WORKERS_FILE  lines "workerId token": connection i is the worker of line i, and sends
--                    "Authorization: Bearer token" (a token "-" sends none). Without it,
--                    connection i is worker "wrk-i" and sends WG_TOKEN, if set.
--   WG_QUEUE         claim from this queue only (default: any queue)
--
-- done() prints one line "wg-result {json}" that bench/src/Wrk.java reads: counts, per-kind
-- latency percentiles (microseconds, measured inside the script around each request), answers
-- that were not the expected ones, and wrk's own socket errors.

local ffi = require("ffi")
ffi.cdef [[
	typedef struct { long tv_sec; long tv_nsec; } wg_timespec;
	int clock_gettime(int clock, wg_timespec *ts);
]]
local CLOCK_MONOTONIC = 1
local timespec = ffi.new("wg_timespec")

local function now_us()
	ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
	return tonumber(timespec.tv_sec) * 1e6 + tonumber(timespec.tv_nsec) / 1e3
end

-- ------------------------------------------------------------------ setup (main state)

local threads = {}

function setup(thread)
	table.insert(threads, thread)
	thread:set("index", #threads)
end

-- ------------------------------------------------------------------ running (per thread)

local mode = os.getenv("WG_MODE") or "lifecycle"
local batch_size, open_rate, open_seconds
local worker_id, headers, claim_body, claim_next
local state = "claim"
local leases = {} -- {id, epoch} pairs of the batch being completed
local lease_id, epoch
local sent_at, due_at, next_due, interval

-- Results, read by done() through thread:get().
claim_us, renew_us, complete_us = {}, {}, {}
items, empty, batches, errors, not_found = 0, 0, 0, 0, 0
due_count, sent_count = 0, 0
error_samples = {}

local function error_sample(what)
	errors = errors + 1
	if #error_samples < 3 then
		table.insert(error_samples, what)
	end
end

local function read_workers_file(path, i)
	local n = 0
	for line in io.lines(path) do
		if line:match("%S") then
			n = n + 1
			if n == i then
				local id, token = line:match("^(%S+)%s+(%S+)")
				return id, token
			end
		end
	end
	error("WG_WORKERS_FILE " .. path .. " has " .. n .. " workers, connection " .. i .. " needs one")
end

function init(args)
	local token
	local file = os.getenv("WG_WORKERS_FILE")
	if file and file ~= "" then
		worker_id, token = read_workers_file(file, index)
	else
		worker_id = "wrk-" .. index
		token = os.getenv("WG_TOKEN")
	end
	headers = { ["Content-Type"] = "application/json" }
	if token and token ~= "" and token ~= "-" then
		headers["Authorization"] = "Bearer " .. token
	end
	local queue = os.getenv("WG_QUEUE")
	local queues = (queue and queue ~= "") and (',"queues":["' .. queue .. '"]') or ""
	claim_body = '{"workerId":"' .. worker_id .. '"' .. queues .. '}'
	claim_next = ',"claimNext":{' .. string.gsub(queues, "^,", "") .. '}'
	if mode == "batch" then
		batch_size = tonumber(os.getenv("WG_BATCH") or "100")
		claim_body = '{"workerId":"' .. worker_id .. '"' .. queues .. ',"limit":' .. batch_size .. '}'
	elseif mode == "open" then
		open_rate = tonumber(os.getenv("WG_RATE"))
		open_seconds = tonumber(os.getenv("WG_SECONDS"))
		-- Every connection takes every C-th due time, C = the number of connections.
		local c = tonumber(os.getenv("WG_CONNECTIONS"))
		interval = c / open_rate
		-- Claims due within the window for this connection (the first is due at its offset).
		due_count = math.floor((open_seconds - (index - 1) / open_rate) / interval) + 1
	end
end

if mode == "open" then
	-- Only the open loop paces its claims (with delay() defined, wrk schedules every request
	-- through a timer).
	function delay()
		if state ~= "claim" then
			return 0
		end
		local now = now_us()
		if not next_due then
			-- wrk asks before the first request too: connection i starts at its offset.
			next_due = now + (index - 1) / open_rate * 1e6
		end
		local wait = next_due - now
		return (wait > 0) and math.floor(wait / 1000) or 0
	end
end

-- wrk also calls request() once in the setup state, to check the request it builds, before
-- any init() or delay(): everything here must cope with that.
function request()
	sent_at = now_us()
	if state == "claim" then
		if mode == "open" then
			due_at = next_due or sent_at
			next_due = due_at + (interval or 0) * 1e6
			sent_count = sent_count + 1
		end
		if mode == "batch" then
			return wrk.format("POST", "/claims/batch", headers, claim_body)
		end
		return wrk.format("POST", "/claims", headers, claim_body)
	elseif state == "renew" then
		return wrk.format("POST", "/leases/" .. lease_id .. "/renew", headers, '{"epoch":' .. epoch .. '}')
	elseif state == "complete" then
		local asks_next = (mode == "chained") and claim_next or ""
		return wrk.format("POST", "/leases/" .. lease_id .. "/complete", headers,
			'{"epoch":' .. epoch .. asks_next .. '}')
	else -- "completions"
		local parts = {}
		for i, l in ipairs(leases) do
			parts[i] = '{"leaseId":"' .. l[1] .. '","epoch":' .. l[2] .. '}'
		end
		return wrk.format("POST", "/completions", headers, '{"completions":[' .. table.concat(parts, ",") .. ']}')
	end
end

local function unexpected(what, status, body)
	error_sample(what .. " -> " .. status .. " " .. string.sub((body or ""):gsub("%s+", " "), 1, 200))
	state = "claim"
end

-- The lease comes first in {lease, item}; its epoch is the first one after its id.
local function lease_of(body, from)
	local s, e, id = string.find(body, '"lease":{"id":"([%x%-]+)"', from)
	if not s then
		return nil
	end
	local ep = string.match(body, '"epoch":(%d+)', e)
	return id, ep, e
end

function response(status, hdrs, body)
	local took = now_us() - sent_at
	if state == "claim" then
		if status == 204 then
			empty = empty + 1
			return
		end
		if status == 404 and mode == "batch" then
			-- The batch endpoints are not built: the runner reports the point as not available.
			not_found = not_found + 1
			return
		end
		if status ~= 201 then
			return unexpected("POST claim", status, body)
		end
		if mode == "open" then
			took = now_us() - due_at
		end
		table.insert(claim_us, took)
		if mode == "batch" then
			leases = {}
			local seen = {}
			local from = 1
			while true do
				local id, ep, e = lease_of(body, from)
				if not id then
					break
				end
				-- Each claim's item shows its lease again: one entry per lease id.
				if not seen[id] then
					seen[id] = true
					table.insert(leases, { id, ep })
				end
				from = e
			end
			if #leases == 0 then
				return unexpected("POST /claims/batch (no lease in the answer)", status, body)
			end
			state = "completions"
			return
		end
		lease_id, epoch = lease_of(body, 1)
		if not lease_id then
			return unexpected("POST /claims (no lease in the answer)", status, body)
		end
		state = (mode == "renew") and "renew" or "complete"
	elseif state == "renew" then
		if status ~= 200 then
			return unexpected("POST /leases/{id}/renew", status, body)
		end
		table.insert(renew_us, took)
		state = "complete"
	elseif state == "complete" then
		if status ~= 200 then
			return unexpected("POST /leases/{id}/complete", status, body)
		end
		table.insert(complete_us, took)
		items = items + 1
		state = "claim"
		if mode == "chained" then
			-- The next lease follows the completed one's lease and item, after "next":.
			local at = string.find(body, '"next":{', 1, true)
			if at then
				lease_id, epoch = lease_of(body, at)
				if not lease_id then
					return unexpected("POST /leases/{id}/complete (no lease in next)", status, body)
				end
				state = "complete"
			elseif not string.find(body, '"next":null', 1, true) then
				return unexpected("POST /leases/{id}/complete (no next in the answer)", status, body)
			end
		end
	else -- "completions"
		if status == 404 then
			not_found = not_found + 1
			state = "claim"
			return
		end
		if status ~= 200 then
			return unexpected("POST /completions", status, body)
		end
		table.insert(complete_us, took)
		local done_here = 0
		for _ in string.gmatch(body, '"status":200[,}]') do
			done_here = done_here + 1
		end
		if done_here ~= #leases then
			error_sample("POST /completions: " .. done_here .. " of " .. #leases .. " completed: "
				.. string.sub(body, 1, 200))
		end
		items = items + done_here
		batches = batches + 1
		state = "claim"
	end
end

-- ------------------------------------------------------------------ done (main state)

local function percentiles(all)
	table.sort(all)
	local function p(q)
		if #all == 0 then
			return "null"
		end
		local rank = math.max(1, math.min(#all, math.ceil(q / 100 * #all)))
		return string.format("%.1f", all[rank])
	end
	return string.format('{"n":%d,"p50":%s,"p99":%s,"p999":%s}', #all, p(50), p(99), p(99.9))
end

local function json_string(s)
	return '"' .. s:gsub('[%c"\\]', function(c)
		if c == '"' then
			return '\\"'
		elseif c == "\\" then
			return "\\\\"
		end
		return " "
	end) .. '"'
end

function done(summary, latency, requests)
	local totals = { items = 0, empty = 0, batches = 0, errors = 0, not_found = 0, due_count = 0, sent_count = 0 }
	local merged = { claim_us = {}, renew_us = {}, complete_us = {} }
	local samples = {}
	for _, t in ipairs(threads) do
		for k in pairs(totals) do
			totals[k] = totals[k] + (t:get(k) or 0)
		end
		for k, list in pairs(merged) do
			for _, v in ipairs(t:get(k) or {}) do
				table.insert(list, v)
			end
		end
		for _, s in ipairs(t:get("error_samples") or {}) do
			if #samples < 5 then
				table.insert(samples, json_string(s))
			end
		end
	end
	local e = summary.errors
	io.write(string.format(
		'wg-result {"connections":%d,"durationUs":%d,"requests":%d,"items":%d,"emptyClaims":%d,"batches":%d,'
			.. '"errors":%d,"notFound":%d,"due":%d,"sent":%d,"claimUs":%s,"renewUs":%s,"completeUs":%s,'
			.. '"socketErrors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},"errorSamples":[%s]}\n',
		#threads, summary.duration, summary.requests, totals.items, totals.empty, totals.batches, totals.errors,
		totals.not_found, totals.due_count, totals.sent_count, percentiles(merged.claim_us),
		percentiles(merged.renew_us), percentiles(merged.complete_us), e.connect, e.read, e.write, e.timeout,
		table.concat(samples, ",")))
end
