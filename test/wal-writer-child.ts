/**
 * Child process of `src/db/sqlite-driver.test.ts`: 20 writers insert page-sized rows into the
 * database the parent names until `rows` are in, with nothing else to keep the process alive
 * (no server, no timer), while the WAL starts over every 128 frames. Prints how many it wrote.
 */
import { walTable } from '../src/db/sqlite-driver.test-support.js';

const [file, wanted] = process.argv.slice(2) as [string, string];
const db = await walTable(file, 128);
let rows = 0;
await Promise.all(
  Array.from({ length: 20 }, async () => {
    while (rows < Number(wanted)) {
      rows += 1;
      await db
        .insertInto('t')
        .values({ body: 'x'.repeat(3500) })
        .execute();
    }
  }),
);
await db.destroy();
process.stdout.write(`wrote ${rows}\n`);
