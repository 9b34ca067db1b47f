/* global module, require */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: lazy require() per export */
// Bundle stand-in for @oclif/core's index, which loads every part of oclif (help, parser,
// logger, semver for an engine check, …) before the first command runs. This one re-exports the
// parts the program and the bundled plugins use, from oclif's own subpath exports, each loaded on
// first use (esbuild reads a named import of a CommonJS module when it is used, so the getters
// stay lazy). scripts/bundle.mjs fails the build when the bundle imports a name this file lacks.
const lazy = (load) => ({ enumerable: true, get: load });
Object.defineProperties(module.exports, {
  Args: lazy(() => require('@oclif/core/args')),
  Command: lazy(() => require('@oclif/core/command').Command),
  Errors: lazy(() => require('@oclif/core/errors')),
  execute: lazy(() => require('@oclif/core/execute').execute),
  Flags: lazy(() => require('@oclif/core/flags')),
  flush: lazy(() => require('@oclif/core/flush').flush),
  Help: lazy(() => require('@oclif/core/help').Help),
  run: lazy(() => require('@oclif/core/run').run),
  settings: lazy(() => require('@oclif/core/settings').settings),
  toConfiguredId: lazy(() => require('@oclif/core/util/ids').toConfiguredId),
  ux: lazy(() => require('@oclif/core/ux').ux),
});
