// Prints the one line CI reads, last: "N passed, N failed" (", N skipped" when some were). Usage:
//   node scripts/test-summary.mjs <vitest json report> [vitest's exit code]
// vitest's json report counts only tests in the failed state: a throwing beforeAll marks its tests skipped,
// a throwing afterAll leaves them passed, an unhandled error is not in the report at all. So a failed file
// without a failed test, a report that says `success: false` and a non-zero exit code each count as a failure.
// Tests whose server is not configured skip themselves: said here when tests were skipped, and a failure
// when LEASEHOLD_TEST_SERVERS=required (CI).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const SERVER_TIERS = [
  { name: 'PostgreSQL', variables: ['LEASEHOLD_TEST_PG_URL', 'LEASEHOLD_TEST_PG_E2E_URL'], start: 'scripts/services/pg-up.sh' },
  { name: 'MariaDB', variables: ['LEASEHOLD_TEST_MYSQL_URL'], start: 'scripts/services/mariadb-up.sh' },
  { name: 'Keystone', variables: ['LEASEHOLD_TEST_KEYSTONE_URL'], start: 'scripts/services/keystone-up.sh' },
  { name: 'OpenStack', variables: ['LEASEHOLD_TEST_OPENSTACK_ENV'], start: 'scripts/services/openstack/up.sh' },
  { name: 'Kafka', variables: ['LEASEHOLD_TEST_KAFKA_MOCK_BROKERS'], start: 'scripts/services/kafka-mock-up.sh' },
  { name: 'RabbitMQ', variables: ['LEASEHOLD_TEST_AMQP_URL'], start: 'scripts/services/rabbitmq-up.sh' },
];

const readReport = (file) => {
  try {
    return { report: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (error) {
    return { problem: `no test report at ${file}: ${error instanceof Error ? error.message : String(error)}` };
  }
};

/** Files vitest marks failed although none of their tests failed: a hook, the file's own code, or its import. */
const failedOutsideTests = (report) =>
  (report.testResults ?? [])
    .filter((file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'))
    .map((file) => {
      const notRun = (file.assertionResults ?? []).filter((test) => test.status !== 'passed').length;
      const why = file.message || "a beforeAll/afterAll hook failed (its error is in vitest's output above)";
      return `FAILED outside its tests: ${relative(process.cwd(), file.name)}: ${why}${notRun > 0 ? ` (${notRun} of its tests did not run)` : ''}`;
    });

const vitestFailures = (report, exitCode) => {
  const failures = failedOutsideTests(report);
  const counted = (report.numFailedTests ?? 0) + failures.length;
  if (counted === 0 && report.success !== true) failures.push("FAILED: vitest's report says the run did not succeed");
  else if (counted === 0 && exitCode !== null && exitCode !== 0) {
    failures.push(
      `FAILED: vitest exited with code ${exitCode} with no failed test or file in its report: an error outside the tests (see "Unhandled Errors" above)`,
    );
  }
  return failures;
};

const serverNotes = (env, anySkipped) => {
  const required = env.LEASEHOLD_TEST_SERVERS === 'required';
  const failures = [];
  const skipped = [];
  for (const tier of SERVER_TIERS) {
    const unset = tier.variables.filter((variable) => (env[variable] ?? '') === '');
    if (unset.length === 0) continue;
    if (required)
      failures.push(
        `FAILED: the ${tier.name} tests could not run: ${unset.join(', ')} unset (its server did not start) and LEASEHOLD_TEST_SERVERS=required`,
      );
    else skipped.push(`${tier.name} (${unset.join(', ')} unset; ${tier.start} starts one)`);
  }
  return {
    failures,
    skipped: anySkipped && skipped.length > 0 ? [`no test server, so their tests were skipped: ${skipped.join('; ')}`] : [],
  };
};

const main = () => {
  const file = process.argv[2] ?? '.vitest-results.json';
  const exitCode = process.argv[3] === undefined ? null : Number(process.argv[3]);
  const { report, problem } = readReport(file);
  const failures = report === undefined ? [`FAILED: ${problem}`] : vitestFailures(report, exitCode);
  const passed = report?.numPassedTests ?? 0;
  const skipped = (report?.numPendingTests ?? 0) + (report?.numTodoTests ?? 0);
  const servers = serverNotes(process.env, skipped > 0);
  const failed = (report?.numFailedTests ?? 0) + failures.length + servers.failures.length;
  for (const line of [...servers.skipped, ...failures, ...servers.failures]) console.log(line);
  console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  process.exit(failed > 0 ? 1 : 0);
};

main();
