import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { DESTINATION, LOG_FLUSH_MS, LogOutput } from './log-output.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-log-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function output(name: string) {
  const file = path.join(dir, name);
  const destination = pino.destination({ ...DESTINATION, dest: file });
  const read = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  return { out: new LogOutput(destination), destination, read };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('LogOutput', () => {
  it('holds a quiet line back at most the flush interval, then writes it', async () => {
    const { out, read } = output('quiet.log');
    const logger = pino({ base: undefined }, out);
    await sleep(50); // the file is open
    logger.info({ n: 1 }, 'first');
    expect(read()).toBe('');
    await sleep(LOG_FLUSH_MS + 150);
    expect(read()).toContain('"msg":"first"');
  });

  it('writes a burst in order, once 4 KB are waiting, without waiting for the timer', async () => {
    const { out, read } = output('burst.log');
    const logger = pino({ base: undefined }, out);
    await sleep(50);
    for (let n = 0; n < 200; n++) logger.info({ n }, 'line');
    await sleep(50);
    const early = read().split('\n').filter(Boolean);
    expect(early.length).toBeGreaterThan(0);
    await sleep(LOG_FLUSH_MS + 150);
    const lines = read()
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { n: number }).n);
    expect(lines).toEqual([...Array(200).keys()]);
  });

  it('calls back from flush once the waiting lines are written', async () => {
    const { out, read } = output('flush.log');
    const logger = pino({ base: undefined }, out);
    await sleep(50);
    for (let n = 0; n < 3; n++) logger.info({ n }, 'flushed');
    const seen = await new Promise<string>((resolve) => out.flush(() => resolve(read())));
    expect(seen.match(/flushed/g)).toHaveLength(3);
  });

  it('writes every waiting line on flushSync (shutdown)', async () => {
    const { out, read } = output('sync.log');
    const logger = pino({ base: undefined }, out);
    await sleep(50);
    logger.info('last words');
    out.flushSync();
    expect(read()).toContain('last words');
  });
});

/** Runs `body` as an ES module in a child process, after importing pino and LogOutput. */
function runChild(body: string) {
  const script = `
    import pino from 'pino';
    import { LogOutput } from './src/shared/log-output.ts';
    ${body}`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    encoding: 'utf8',
  });
}

describe('LogOutput in a process that ends', () => {
  it.each([
    ['exits at once after logging', 'process.exit(3);'],
    ['throws an uncaught error after logging', "throw new Error('boom');"],
    ['runs out of work after logging', 'process.exitCode = 4;'],
  ])('loses no line when the process %s', (_name, ending) => {
    const run = runChild(`
      const logger = pino({ base: undefined }, new LogOutput());
      for (let n = 0; n < 3; n++) logger.error({ n }, 'about to end');
      ${ending}`);
    expect(run.status).not.toBe(0);
    expect(run.stdout.match(/about to end/g)).toHaveLength(3);
  });

  it('writes at exit what the destination holds, then the lines still waiting, in order', () => {
    // The destination holds the first 4 KB handed over (below its own minimum of 8 KB, so no
    // write is under way on the thread pool); the rest still waits in LogOutput.
    const run = runChild(`
      const destination = pino.destination({ dest: 1, sync: false, minLength: 8192 });
      destination.on('ready', () => {
        const logger = pino({ base: undefined }, new LogOutput(destination));
        for (let n = 0; n < 100; n++) logger.info({ n }, 'line');
        process.exit(5);
      });`);
    expect(run.status).toBe(5);
    const lines = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { n: number }).n);
    expect(lines).toEqual([...Array(100).keys()]);
  });

  it('loses no line written to a file when the process runs out of work', () => {
    const file = path.join(dir, 'ends.log');
    const run = runChild(`
      const destination = pino.destination({ dest: ${JSON.stringify(file)}, sync: false });
      destination.on('ready', () => {
        const logger = pino({ base: undefined }, new LogOutput(destination));
        for (let n = 0; n < 3; n++) logger.info({ n }, 'before the end');
      });`);
    expect(run.status).toBe(0);
    expect(fs.readFileSync(file, 'utf8').match(/before the end/g)).toHaveLength(3);
  });
});
