import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { testTimingsFile } from './environment';

/**
 * Loaded by ava in each test file's process (`ava.require` in package.json): at exit, appends the file's wall
 * time to the run's timings, which test/run.ts sums up as the slowest files.
 */
const started = Date.now();
const file = path.relative(process.cwd(), fileURLToPath(test.meta.file));
const timings = testTimingsFile();
if (timings !== undefined)
  process.on('exit', () => fs.appendFileSync(timings, `${JSON.stringify({ file, ms: Date.now() - started })}\n`));
