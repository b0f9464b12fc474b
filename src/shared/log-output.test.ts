import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { LOG_FLUSH_MS, LogOutput } from './log-output.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-log-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function output(name: string) {
  const file = path.join(dir, name);
  const destination = pino.destination({ dest: file, sync: false, minLength: 4096 });
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

  it('writes every waiting line on flushSync (shutdown)', async () => {
    const { out, read } = output('sync.log');
    const logger = pino({ base: undefined }, out);
    await sleep(50);
    logger.info('last words');
    out.flushSync();
    expect(read()).toContain('last words');
  });
});

describe('LogOutput in a process that ends', () => {
  it.each([
    ['exits at once after logging', 'process.exit(3);'],
    ['throws an uncaught error after logging', "throw new Error('boom');"],
  ])('loses no line when the process %s', (_name, ending) => {
    const script = `
      import pino from 'pino';
      import { LogOutput } from './src/shared/log-output.ts';
      const logger = pino({ base: undefined }, new LogOutput());
      for (let n = 0; n < 3; n++) logger.error({ n }, 'about to end');
      ${ending}`;
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: path.resolve(import.meta.dirname, '../..'),
        encoding: 'utf8',
      },
    );
    expect(run.status).not.toBe(0);
    expect(run.stdout.match(/about to end/g)).toHaveLength(3);
  });
});
