// Mocha's spec reporter, plus a record of how long each test file took and how many tests
// passed, failed and were skipped, written as JSON to the file named by --reporter-option
// timings=FILE. scripts/test.mjs runs suites side by side and prints one table from these
// records at the end of every run. CommonJS: mocha loads reporters with require().
/* global module, require */
/* eslint-disable @typescript-eslint/no-require-imports -- mocha loads reporters with require() */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const {
  EVENT_SUITE_BEGIN,
  EVENT_SUITE_END,
  EVENT_TEST_PASS,
  EVENT_TEST_FAIL,
  EVENT_TEST_PENDING,
  EVENT_RUN_END,
} = Mocha.Runner.constants;

class TimingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const out = options?.reporterOption?.timings ?? options?.reporterOptions?.timings;
    const files = {};
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const started = new Map();
    const fileOf = (x) => (x.file ? path.relative(process.cwd(), x.file) : '(no file)');
    runner.on(EVENT_SUITE_BEGIN, (s) => {
      // A file's top-level describe blocks: their time includes their hooks.
      if (s.parent?.root) started.set(s, Date.now());
    });
    runner.on(EVENT_SUITE_END, (s) => {
      const t = started.get(s);
      if (t === undefined) return;
      started.delete(s);
      const f = (files[fileOf(s)] ??= { ms: 0, passed: 0, failed: 0, skipped: 0 });
      f.ms += Date.now() - t;
    });
    const count = (key) => (t) => {
      counts[key]++;
      const f = (files[fileOf(t)] ??= { ms: 0, passed: 0, failed: 0, skipped: 0 });
      f[key]++;
    };
    runner.on(EVENT_TEST_PASS, count('passed'));
    runner.on(EVENT_TEST_FAIL, (t) => {
      // A failing hook counts as a failure of its file, like mocha's own count.
      count('failed')(t);
    });
    runner.on(EVENT_TEST_PENDING, count('skipped'));
    runner.once(EVENT_RUN_END, () => {
      if (out) fs.writeFileSync(out, JSON.stringify({ counts, files }));
    });
  }
}

module.exports = TimingReporter;
