// Prints the one line CI reads: "N passed, N failed" (vitest's own summary is not parsed by CI).
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.vitest-results.json';
let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const suite of report.testResults ?? []) {
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) failed += 1;
  }
} catch (error) {
  console.error(`no test report at ${file}: ${error instanceof Error ? error.message : String(error)}`);
  failed = Math.max(failed, 1);
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
