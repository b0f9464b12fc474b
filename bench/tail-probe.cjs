// A probe for where a request's tail goes, loaded into Kontor's server with `--require`
// (`PROBE=1 node bench/variants.mjs` loads it into every variant). It writes one JSON line per
// event to `PROBE_FILE` (the checkpoint thread to `PROBE_FILE.worker`), each with `t`, the
// wall-clock time in ms since the epoch at which the event began, and `ms`, how long it lasted:
// - `loop`: the event loop's largest delay in each 50 ms window where it was over 5 ms
//   (`monitorEventLoopDelay`: a timer fired that late, so nothing else ran meanwhile);
// - `gc`: a garbage collection pause of the main thread (`kind`: scavenge, mark-compact, …);
// - `fsync`: the WAL flush of the SQLite group commit (`FileHandle.datasync`, thread pool);
// - `checkpoint`: a PASSIVE checkpoint of the SQLite checkpoint thread, with its frames;
// - `pool`: a wait for a PostgreSQL connection longer than 1 ms, with how many waited;
// - `runq`: in each 50 ms window where it was over 5 ms, how long the main thread was ready to
//   run but waited for a CPU (`/proc/self/schedstat`), with the CPU time the process's other
//   threads had in that window (`threads`) and by thread name (`by`: V8Worker for V8's
//   concurrent marking and compiling, libuv-worker for the WAL flush, the checkpoint thread…):
//   where `threads` is about as long, the process held its own main thread up (on a pinned
//   core they share it); where it is short, other processes on its core had it.
// Not loaded by Kontor itself; a measuring tool only.
'use strict';
const fs = require('node:fs');
const { isMainThread } = require('node:worker_threads');
const { monitorEventLoopDelay, constants } = require('node:perf_hooks');

const file = process.env.PROBE_FILE;
if (file) {
  const lines = [];
  const now = () => performance.timeOrigin + performance.now();
  const record = (event) => lines.push(JSON.stringify(event));
  const out = isMainThread ? file : `${file}.worker`;
  const flush = () => {
    if (lines.length === 0) return;
    fs.appendFileSync(out, `${lines.join('\n')}\n`);
    lines.length = 0;
  };
  setInterval(flush, 1000).unref();
  process.on('exit', flush);

  if (isMainThread) {
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    // The main thread's CPU time and run-queue wait so far (ns), where Linux tells them.
    const schedstat = () => {
      try {
        return fs.readFileSync('/proc/self/schedstat', 'utf8').split(' ').map(Number);
      } catch {
        return undefined;
      }
    };
    /** CPU time (ms) so far of each of the process's other threads, by thread id. */
    const threadCpu = () => {
      const cpu = new Map();
      try {
        for (const tid of fs.readdirSync('/proc/self/task')) {
          if (Number(tid) === process.pid) continue;
          try {
            const ns = Number(
              fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0],
            );
            cpu.set(tid, ns / 1e6);
          } catch {
            // ended meanwhile
          }
        }
      } catch {
        // no /proc
      }
      return cpu;
    };
    /** A thread's name (V8Worker, libuv-worker, …), read once. */
    const names = new Map();
    const nameOf = (tid) => {
      if (!names.has(tid)) {
        try {
          names.set(tid, fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim());
        } catch {
          names.set(tid, '?');
        }
      }
      return names.get(tid);
    };
    let sched = schedstat();
    let threadsBefore = threadCpu();
    let windowStart = now();
    setInterval(() => {
      const max = delay.max / 1e6;
      if (max > 5) record({ e: 'loop', t: now() - max, ms: max });
      delay.reset();
      const next = schedstat();
      const threadsNow = threadCpu();
      if (sched && next) {
        const waited = (next[1] - sched[1]) / 1e6;
        if (waited > 5) {
          // The other threads' CPU in the window, summed by name.
          const by = {};
          let threads = 0;
          for (const [tid, ms] of threadsNow) {
            const used = ms - (threadsBefore.get(tid) ?? 0);
            if (used <= 0) continue;
            threads += used;
            by[nameOf(tid)] = (by[nameOf(tid)] ?? 0) + used;
          }
          record({ e: 'runq', t: windowStart, ms: waited, threads, by });
        }
      }
      sched = next;
      threadsBefore = threadsNow;
      windowStart = now();
    }, 50).unref();

    const kinds = {
      [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
      [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
      [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
      [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
    };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        record({
          e: 'gc',
          t: performance.timeOrigin + entry.startTime,
          ms: entry.duration,
          kind: kinds[entry.detail?.kind] ?? String(entry.detail?.kind),
        });
    }).observe({ entryTypes: ['gc'] });

    // The group commit's flush: FileHandle.datasync, on the prototype every handle shares.
    void fs.promises.open('/dev/null').then(async (handle) => {
      const proto = Object.getPrototypeOf(handle);
      await handle.close();
      const datasync = proto.datasync;
      proto.datasync = async function timedDatasync(...args) {
        const t = now();
        try {
          return await datasync.apply(this, args);
        } finally {
          record({ e: 'fsync', t, ms: now() - t });
        }
      };
    });

    try {
      const pg = require('pg');
      const connect = pg.Pool.prototype.connect;
      pg.Pool.prototype.connect = function timedConnect(callback) {
        const t = now();
        const waiting = this.waitingCount;
        const done = () => {
          const ms = now() - t;
          if (ms > 1) record({ e: 'pool', t, ms, waiting });
        };
        if (callback)
          return connect.call(this, (...args) => {
            done();
            callback(...args);
          });
        return connect.call(this).then((client) => {
          done();
          return client;
        });
      };
    } catch {
      // no pg: SQLite only
    }
  } else {
    try {
      const Database = require('better-sqlite3');
      const pragma = Database.prototype.pragma;
      Database.prototype.pragma = function timedPragma(source, options) {
        if (!String(source).includes('wal_checkpoint')) return pragma.call(this, source, options);
        const t = now();
        const result = pragma.call(this, source, options);
        const row = Array.isArray(result) ? result[0] : undefined;
        const ms = now() - t;
        if (ms > 1 || row?.checkpointed)
          record({ e: 'checkpoint', t, ms, frames: row?.checkpointed });
        return result;
      };
    } catch {
      // no better-sqlite3 here
    }
  }
}
