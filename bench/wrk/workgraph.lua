-- wrk script: Work Graph workers over HTTP, driven by a C load generator.
--
--   WG_MODE=lifecycle WG_CONNECTIONS=32 WG_THREADS=2 \
--     wrk -t 2 -c 32 -d 10s -s bench/wrk/workgraph.lua http://127.0.0.1:PORT
--
-- Each connection is one worker with its own state (its lease, its epoch). wrk calls request()
-- and response() per thread, not per connection, and does not say which connection asks or
-- answers, so a thread keeps its workers' next requests in one queue: an answer queues its
-- worker's next request, and whichever of the thread's connections is free sends the queue's
-- first. Every request carries an X-Request-Id, which the service echoes in its answer; that is
-- how an answer finds the request (its worker, its lease, when it was sent). Each worker has one
-- request in flight at a time, as with one connection per thread, but a thread's connections
-- share one event loop, as pgbench's clients share its threads (-j).
--
-- Environment (all of the script's settings, so that delay() exists only where it is used)
--   WG_MODE          lifecycle: claim -> complete, again at once (closed loop)
--                    renew: claim -> renew -> complete (closed loop)
--                    checkpoint: claim -> checkpoint (a small JSON object) -> complete, every
--                    item checkpointed once (closed loop); the checkpoint's latency is
--                    reported as renewUs, the middle request's
--                    chained: claim, then complete with claimNext, whose answer holds the next
--                    lease: one request per item while items are ready (closed loop; a claim
--                    again only after a completion found nothing next)
--                    batch: POST /claims/batch (limit WG_BATCH, default 100) -> POST /completions
--                    of all of them (closed loop)
--                    open: claims due at WG_RATE per second in all for WG_SECONDS, spread over
--                    the WG_CONNECTIONS connections, each followed at once by its complete; a
--                    claim's latency counts from when it was due, so falling behind shows (no
--                    coordinated omission)
--   WG_CONNECTIONS   the connections in all (wrk's -c); WG_THREADS wrk's -t (default: as many
--                    as connections). Each thread runs WG_CONNECTIONS / WG_THREADS workers; the
--                    open loop needs one connection per thread (it paces each connection).
--   WG_WORKERS_FILE  lines "workerId token": worker i is line i (thread t runs the workers
--                    after the (t - 1) * WG_CONNECTIONS / WG_THREADS first ones) and sends
--                    "Authorization: Bearer token" (a token "-" sends none). Without it,
--                    worker i is "wrk-i" and sends WG_TOKEN, if set.
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
local batch_size, open_rate, open_seconds, interval, next_due
local claim_next
workers_here = 0 -- this thread's connections, each one worker; read by done()
-- The workers' next requests, oldest first; each is {worker, state, lease_id, epoch, leases}, state
-- one of claim, renew, complete, completions. An answer moves its request here with its new state.
local ready, ready_first, ready_last = {}, 1, 0
local in_flight = {} -- X-Request-Id -> the request, with sent_at (and due_at in the open loop)
local sequence = 0
-- wrk 4 calls request() once more in the first thread, right after its init(), to check the
-- request it builds, and sends nothing of it: that call must leave the queue as it is.
local verifying = false

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

local function enqueue(r)
	ready_last = ready_last + 1
	ready[ready_last] = r
end

local function dequeue()
	if ready_first > ready_last then
		return nil
	end
	local r = ready[ready_first]
	ready[ready_first] = nil
	ready_first = ready_first + 1
	return r
end

local function read_workers_file(path, first, count)
	local found, n = {}, 0
	for line in io.lines(path) do
		if line:match("%S") then
			n = n + 1
			if n >= first and n < first + count then
				local id, token = line:match("^(%S+)%s+(%S+)")
				table.insert(found, { id, token })
			end
		end
	end
	if #found < count then
		error("WG_WORKERS_FILE " .. path .. " has " .. n .. " workers, " .. (first + count - 1) .. " are needed")
	end
	return found
end

function init(args)
	local connections = tonumber(os.getenv("WG_CONNECTIONS") or "")
	local threads_in_all = tonumber(os.getenv("WG_THREADS") or "") or connections
	local per_thread = 1
	if connections and threads_in_all then
		if connections % threads_in_all ~= 0 then
			error("WG_CONNECTIONS " .. connections .. " is not a multiple of WG_THREADS " .. threads_in_all)
		end
		per_thread = math.floor(connections / threads_in_all)
	end
	if mode == "open" and per_thread ~= 1 then
		error("the open loop paces each connection: run it with as many threads as connections")
	end
	local first = (index - 1) * per_thread + 1
	local file = os.getenv("WG_WORKERS_FILE")
	local identities = {}
	if file and file ~= "" then
		identities = read_workers_file(file, first, per_thread)
	else
		for i = first, first + per_thread - 1 do
			table.insert(identities, { "wrk-" .. i, os.getenv("WG_TOKEN") })
		end
	end
	local queue = os.getenv("WG_QUEUE")
	local queues = (queue and queue ~= "") and (',"queues":["' .. queue .. '"]') or ""
	claim_next = ',"claimNext":{' .. string.gsub(queues, "^,", "") .. '}'
	local limit = ""
	if mode == "batch" then
		batch_size = tonumber(os.getenv("WG_BATCH") or "100")
		limit = ',"limit":' .. batch_size
	elseif mode == "open" then
		open_rate = tonumber(os.getenv("WG_RATE"))
		open_seconds = tonumber(os.getenv("WG_SECONDS"))
		-- Every connection takes every C-th due time, C = the number of connections.
		interval = connections / open_rate
		-- Claims due within the window for this connection (the first is due at its offset).
		due_count = math.floor((open_seconds - (index - 1) / open_rate) / interval) + 1
	end
	verifying = (index == 1)
	workers_here = per_thread
	for _, identity in ipairs(identities) do
		local id, token = identity[1], identity[2]
		local headers = { ["Content-Type"] = "application/json" }
		if token and token ~= "" and token ~= "-" then
			headers["Authorization"] = "Bearer " .. token
		end
		local worker = { id = id, headers = headers,
			claim_body = '{"workerId":"' .. id .. '"' .. queues .. limit .. '}' }
		enqueue({ worker = worker, state = "claim" })
	end
end

if mode == "open" then
	-- Only the open loop paces its claims (with delay() defined, wrk schedules every request
	-- through a timer). One connection per thread: the queue's first is this connection's next.
	function delay()
		local r = ready[ready_first]
		if not r or r.state ~= "claim" then
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

local function send(r)
	local worker = r.worker
	sequence = sequence + 1
	local id = "wrk-" .. index .. "-" .. sequence
	in_flight[id] = r
	r.sent_at = now_us()
	worker.headers["X-Request-Id"] = id
	if r.state == "claim" then
		if mode == "open" then
			r.due_at = next_due or r.sent_at
			next_due = r.due_at + interval * 1e6
			sent_count = sent_count + 1
		end
		if mode == "batch" then
			return wrk.format("POST", "/claims/batch", worker.headers, worker.claim_body)
		end
		return wrk.format("POST", "/claims", worker.headers, worker.claim_body)
	elseif r.state == "renew" then
		return wrk.format("POST", "/leases/" .. r.lease_id .. "/renew", worker.headers, '{"epoch":' .. r.epoch .. '}')
	elseif r.state == "checkpoint" then
		return wrk.format("POST", "/leases/" .. r.lease_id .. "/checkpoints", worker.headers,
			'{"epoch":' .. r.epoch .. ',"data":{"step":1,"cursor":"page-41"}}')
	elseif r.state == "complete" then
		local asks_next = (mode == "chained") and claim_next or ""
		return wrk.format("POST", "/leases/" .. r.lease_id .. "/complete", worker.headers,
			'{"epoch":' .. r.epoch .. asks_next .. '}')
	else -- "completions"
		local parts = {}
		for i, l in ipairs(r.leases) do
			parts[i] = '{"leaseId":"' .. l[1] .. '","epoch":' .. l[2] .. '}'
		end
		return wrk.format("POST", "/completions", worker.headers,
			'{"completions":[' .. table.concat(parts, ",") .. ']}')
	end
end

function request()
	if not index then
		-- (Older wrk checked it in the setup state, before any init().)
		return wrk.format("POST", "/claims", { ["Content-Type"] = "application/json" }, '{"workerId":"wrk-0"}')
	end
	if verifying then
		verifying = false
		local r = ready[ready_first]
		return wrk.format("POST", "/claims", r.worker.headers, r.worker.claim_body)
	end
	local r = dequeue()
	if not r then
		-- A connection asks again before every answer came: wrk reconnected after a socket
		-- error, and that request's answer is lost. Send again the longest waiting one.
		local oldest
		for id, f in pairs(in_flight) do
			if not oldest or f.sent_at < in_flight[oldest].sent_at then
				oldest = id
			end
		end
		error_sample("a connection asked again before its answer came (socket error?)")
		r = in_flight[oldest]
		in_flight[oldest] = nil
	end
	return send(r)
end

local function unexpected(r, what, status, body)
	error_sample(what .. " -> " .. status .. " " .. string.sub((body or ""):gsub("%s+", " "), 1, 200))
	enqueue({ worker = r.worker, state = "claim" })
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

-- The middle request of the renew and checkpoint modes, by state: the status it succeeds with
-- and how an unexpected answer to it is reported. Either is timed as renewUs.
local middle_requests = {
	renew = { ok = 200, what = "POST /leases/{id}/renew" },
	checkpoint = { ok = 201, what = "POST /leases/{id}/checkpoints" },
}

local function answered(r, status, body, took)
	local worker = r.worker
	if r.state == "claim" then
		if status == 204 then
			empty = empty + 1
			return enqueue(r)
		end
		if status == 404 and mode == "batch" then
			-- The batch endpoints are not built: the runner reports the point as not available.
			not_found = not_found + 1
			return enqueue(r)
		end
		if status ~= 201 then
			return unexpected(r, "POST claim", status, body)
		end
		if mode == "open" then
			took = now_us() - r.due_at
		end
		table.insert(claim_us, took)
		if mode == "batch" then
			local leases, seen, from = {}, {}, 1
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
				return unexpected(r, "POST /claims/batch (no lease in the answer)", status, body)
			end
			return enqueue({ worker = worker, state = "completions", leases = leases })
		end
		local lease_id, epoch = lease_of(body, 1)
		if not lease_id then
			return unexpected(r, "POST /claims (no lease in the answer)", status, body)
		end
		local middle = (mode == "renew" or mode == "checkpoint") and mode or "complete"
		return enqueue({ worker = worker, state = middle, lease_id = lease_id, epoch = epoch })
	elseif middle_requests[r.state] then
		local middle = middle_requests[r.state]
		if status ~= middle.ok then
			return unexpected(r, middle.what, status, body)
		end
		table.insert(renew_us, took)
		return enqueue({ worker = worker, state = "complete", lease_id = r.lease_id, epoch = r.epoch })
	elseif r.state == "complete" then
		if status ~= 200 then
			return unexpected(r, "POST /leases/{id}/complete", status, body)
		end
		table.insert(complete_us, took)
		items = items + 1
		if mode == "chained" then
			-- The next lease follows the completed one's lease and item, after "next":.
			local at = string.find(body, '"next":{', 1, true)
			if at then
				local lease_id, epoch = lease_of(body, at)
				if not lease_id then
					return unexpected(r, "POST /leases/{id}/complete (no lease in next)", status, body)
				end
				return enqueue({ worker = worker, state = "complete", lease_id = lease_id, epoch = epoch })
			elseif not string.find(body, '"next":null', 1, true) then
				return unexpected(r, "POST /leases/{id}/complete (no next in the answer)", status, body)
			end
		end
		return enqueue({ worker = worker, state = "claim" })
	else -- "completions"
		if status == 404 then
			not_found = not_found + 1
			return enqueue({ worker = worker, state = "claim" })
		end
		if status ~= 200 then
			return unexpected(r, "POST /completions", status, body)
		end
		table.insert(complete_us, took)
		local done_here = 0
		for _ in string.gmatch(body, '"status":200[,}]') do
			done_here = done_here + 1
		end
		if done_here ~= #r.leases then
			error_sample("POST /completions: " .. done_here .. " of " .. #r.leases .. " completed: "
				.. string.sub(body, 1, 200))
		end
		items = items + done_here
		batches = batches + 1
		return enqueue({ worker = worker, state = "claim" })
	end
end

function response(status, hdrs, body)
	local now = now_us()
	local id = hdrs["X-Request-Id"] or hdrs["x-request-id"]
	local r = id and in_flight[id]
	if not r then
		-- Without its request the worker's loop cannot go on; request() sends the oldest
		-- unanswered one again when a connection finds nothing to send.
		return error_sample("an answer without a known X-Request-Id (" .. tostring(id) .. ") -> " .. status)
	end
	in_flight[id] = nil
	answered(r, status, body, now - r.sent_at)
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
	local totals = { items = 0, empty = 0, batches = 0, errors = 0, not_found = 0, due_count = 0, sent_count = 0,
		workers_here = 0 }
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
		totals.workers_here, summary.duration, summary.requests, totals.items, totals.empty, totals.batches, totals.errors,
		totals.not_found, totals.due_count, totals.sent_count, percentiles(merged.claim_us),
		percentiles(merged.renew_us), percentiles(merged.complete_us), e.connect, e.read, e.write, e.timeout,
		table.concat(samples, ",")))
end
