#!/usr/bin/env node
/**
 * `leasehold` (package.json "bin"; `npx leasehold --help`): history, export, verify, backup and restore over the
 * service's data folder (all but restore without writing to it). Exit codes: 0 ok, 1 a failure or differences found, 2 a usage error.
 */
import { runCli } from './cli-program.js';

process.exitCode = await runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
