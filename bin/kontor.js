#!/usr/bin/env node
// The operator CLI; `npm ci` builds dist/ (the `prepare` script).
import('../dist/cli.js').catch((err) => {
  console.error(`kontor: ${err.message}\nRun \`npm run build\` first.`);
  process.exit(1);
});
