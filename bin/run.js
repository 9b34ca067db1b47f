#!/usr/bin/env node
// oclif entry point: commands are loaded from the compiled dist/src/commands.
import { execute } from '@oclif/core';

await execute({ dir: import.meta.url });
