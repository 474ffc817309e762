#!/usr/bin/env node
// Saturates the CPU so the test suite can be run on a busy machine (docs/development.md, "Testing on a busy
// machine"). Spawns one busy-loop worker thread per core (or --workers N) and stops after --seconds S
// (default 900), on SIGINT or on SIGTERM, whichever comes first. Prints its pid so it can be stopped by pid.
//
//   npm run saturate -- --seconds 600 --workers 2
import console from 'node:console';
import { availableParallelism } from 'node:os';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { Worker } from 'node:worker_threads';

// --help before anything starts (every script in package.json answers it; scripts/cli.ts is TypeScript and
// this file runs on plain node).
if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
  console.log(
    [
      'Usage: npm run saturate -- [--seconds 900] [--workers <cores>]',
      '',
      'Keeps the CPU busy so the tests can be run on a busy machine (docs/development.md#testing-on-a-busy-machine):',
      'one busy-loop worker thread per core (or --workers N) until --seconds S have passed (default 900),',
      'SIGINT or SIGTERM. Prints its pid so it can be stopped by pid.',
    ].join('\n'),
  );
  process.exit(0);
}

// A mistyped option must not start 15 minutes of busy workers on a shared machine: only these are taken.
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 2) {
  if (args[i] !== '--seconds' && args[i] !== '--workers') {
    const what = args[i].startsWith('-') ? 'Unknown option' : 'Unexpected argument';
    console.error(`✖ ${what} '${args[i]}'\n\nUsage: npm run saturate -- [--seconds 900] [--workers <cores>]`);
    process.exit(2);
  }
}

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`saturate: --${name} needs a positive number`);
    process.exit(2);
  }
  return value;
}

const workers = Math.floor(option('workers', availableParallelism()));
const seconds = option('seconds', 900);

const busyLoop = `
  const { parentPort } = require('node:worker_threads');
  let stop = false;
  parentPort.on('message', () => { stop = true; });
  let x = 0;
  (function spin() {
    const until = Date.now() + 50;
    while (Date.now() < until) x = (x * 31 + 7) % 1000003;
    if (!stop) setImmediate(spin); else process.exit(0);
  })();
`;

let stopping = false;
const threads = [];
function stop(why) {
  if (stopping) return;
  stopping = true;
  clearTimeout(timer);
  console.log(`saturate: stopping (${why})`);
  const killer = setTimeout(() => process.exit(0), 2_000);
  killer.unref();
  void Promise.all(
    threads.map(
      (t) =>
        new Promise((resolve) => {
          t.once('exit', resolve);
          t.postMessage('stop');
        }),
    ),
  ).then(() => process.exit(0));
}

process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
const timer = setTimeout(() => stop('timeout'), seconds * 1000);
for (let i = 0; i < workers; i++) threads.push(new Worker(busyLoop, { eval: true }));
console.log(`saturate: pid ${process.pid}, ${workers} busy worker(s) for ${seconds} s`);
