// The peer point of bench/run.sh: graphile-worker, the best-known PostgreSQL job queue, in its
// default mode (each job fetched on its own and completed on its own: two transactions per job,
// like a claim and a complete), at the same concurrency and on the same PostgreSQL as the service.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/wgbench_peer_x CONCURRENCY=32 JOBS=100000 \
//     WARM_SECONDS=10 MEASURE_SECONDS=10 node bench/peer/graphile.js
//
// Installs graphile-worker's schema in that (fresh) database, adds JOBS jobs of a no-op task in
// bulk, runs the worker pool, and counts completed jobs (its own job:success events) over
// MEASURE_SECONDS after WARM_SECONDS of warm-up (between the lines "wg-window start" and
// "wg-window end"). Pool size is concurrency + 1, as graphile-worker's
// own performance test sets it. Prints one line "wg-peer {json}"; exits non-zero on a failed job
// or when the jobs ran out before the window closed (a drained queue is not throughput).
//
// Its job tables are vacuumed every VACUUM_EVERY_SECONDS (2; 0: never) while the workers run, as
// the service vacuums its queue tables every 2 s. graphile-worker leaves that to autovacuum, and the
// benchmark's server runs without it: unvacuumed, every completed job leaves a dead row where the
// next fetch looks, and on a 2-vCPU machine the rate fell from 3,830 jobs/s (5-10 s after the start)
// to 3,200 (10-20 s) and 2,350 (30-40 s); vacuumed, it held 4,440 at 30-40 s.
"use strict";

process.env.NO_LOG_SUCCESS = "1"; // read when graphile-worker loads: no log line per job

const { EventEmitter } = require("node:events");
const fs = require("node:fs");
const path = require("node:path");
const { run, makeWorkerUtils, Logger } = require("graphile-worker");

// The package's "exports" hide its package.json; read it from next to its entry point.
const version = JSON.parse(
  fs.readFileSync(path.join(path.dirname(require.resolve("graphile-worker")), "..", "package.json"), "utf8"),
).version;

const env = (name, otherwise) => process.env[name] ?? otherwise;
const connectionString = env("DATABASE_URL");
const concurrency = Number(env("CONCURRENCY", "32"));
const jobs = Number(env("JOBS", "100000"));
const warmSeconds = Number(env("WARM_SECONDS", "10"));
const measureSeconds = Number(env("MEASURE_SECONDS", "10"));
const vacuumSeconds = Number(env("VACUUM_EVERY_SECONDS", "2"));

// Warnings and errors only: the default logger's info lines are not part of what is measured.
const logger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") {
    console.error(`graphile-worker ${level}: ${message}`);
  }
});

const seconds = (ns) => Number(ns) / 1e9;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function addJobs(utils, n) {
  // In chunks: one statement per 50,000 jobs through graphile-worker's own add_jobs().
  const chunk = 50_000;
  for (let done = 0; done < n; done += chunk) {
    await utils.withPgClient((client) =>
      client.query(
        `select count(*) from graphile_worker.add_jobs(array(
           select row('bench', json_build_object('i', i), null, null, null, null, null, null)::graphile_worker.job_spec
           from generate_series(1, $1::int) i))`,
        [Math.min(chunk, n - done)],
      ),
    );
  }
}

// Vacuums the job tables every vacuumSeconds until stopped; answers how many vacuums ran.
function vacuumLoop(utils) {
  let running = vacuumSeconds > 0;
  let vacuums = 0;
  const done = (async () => {
    while (running) {
      await sleep(vacuumSeconds * 1000);
      if (running) {
        await utils.withPgClient((client) =>
          client.query("vacuum graphile_worker._private_jobs, graphile_worker._private_job_queues"),
        );
        vacuums++;
      }
    }
    return vacuums;
  })();
  return async () => {
    running = false;
    return done;
  };
}

async function main() {
  const utils = await makeWorkerUtils({ connectionString, logger });
  let completed = 0;
  let failed = 0;
  let runner;
  try {
    await utils.migrate();
    const t0 = process.hrtime.bigint();
    await addJobs(utils, jobs);
    const fillSeconds = seconds(process.hrtime.bigint() - t0);

    const events = new EventEmitter();
    events.on("job:success", () => completed++);
    events.on("job:error", () => failed++);
    runner = await run({
      connectionString,
      concurrency,
      maxPoolSize: concurrency + 1,
      noHandleSignals: true,
      logger,
      events,
      taskList: { bench: async () => {} },
    });
    const stopVacuuming = vacuumLoop(utils);

    await sleep(warmSeconds * 1000);
    // The runner measures CPU between these two lines.
    console.log("wg-window start");
    const startCount = completed;
    const start = process.hrtime.bigint();
    await sleep(measureSeconds * 1000);
    const endCount = completed;
    const window = seconds(process.hrtime.bigint() - start);
    console.log("wg-window end");
    const vacuums = await stopVacuuming();
    const drained = endCount >= jobs;
    const result = {
      library: "graphile-worker " + version,
      mode:
        "default (per-job fetch and completion)" +
        (vacuumSeconds > 0 ? `, its job tables vacuumed every ${vacuumSeconds} s` : ", never vacuumed"),
      vacuumEverySeconds: vacuumSeconds,
      vacuums,
      concurrency,
      maxPoolSize: concurrency + 1,
      jobs,
      fillSeconds: Number(fillSeconds.toFixed(1)),
      warmSeconds,
      windowSeconds: Number(window.toFixed(3)),
      completedInWindow: endCount - startCount,
      jobsPerSecond: Number(((endCount - startCount) / window).toFixed(1)),
      completedInAll: endCount,
      failed,
      drained,
    };
    console.log("wg-peer " + JSON.stringify(result));
    process.exitCode = failed > 0 || drained ? 1 : 0;
  } finally {
    if (runner) {
      await runner.stop();
    }
    await utils.release();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
