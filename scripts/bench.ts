/**
 * npm run bench — measures the design's performance targets on this machine and prints the numbers.
 * It never fails on a slow result: speed is reported, not asserted (see docs/development.md, Performance).
 *
 *   npm run bench -- --callbacks 4400 --concurrency 16 [--rounds 10] [--publish-during] [--only poller|callbacks|consoles|deliveries|statements|bundles] [--rows N] [--no-results]
 *
 * Throughput compares, in the same run and against the same DynamoDB Local, the relay end to end
 * (HTTP → API Gateway adapter → middy → domain → DynamoDB) with the raw DynamoDB calls a callback needs
 * (receipt update, consistent read, conditional put) issued straight from the store. The two phases
 * alternate in rounds so that drift (JIT warm-up, a growing database) does not favour either.
 */
import { setBenchOptions } from './bench-options';
import { parseCli, requireOneOf } from './cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** The sections `--only` names (scripts/bench-run.ts measureAll). */
const SECTIONS = ['poller', 'callbacks', 'consoles', 'deliveries', 'statements', 'bundles'] as const;

const USAGE = `Usage: npm run bench -- [options]

Measures the design's performance targets on this machine (DynamoDB Local, the relay in this process) and
prints the numbers; a slow result is reported, never a failure (docs/development.md#performance).

Options:
  --callbacks <n>     MoMo callbacks in all (default 4400)
  --concurrency <n>   callbacks in flight at once (default 16)
  --rounds <n>        rounds the relay and the raw DynamoDB calls alternate in (default 10)
  --publish-during    keep the local stream pump publishing during the rounds
  --only <section>    ${SECTIONS.join(' | ')}: only that section
  --rows <n>          statements: rows of the large file (default 1000000; a 100,000-row file beside it)
  --no-results        print only: do not write the numbers into docs/results.md
  --help              this text`;

const { values } = parseCli(USAGE, {
  options: {
    callbacks: { type: 'string', default: '4400' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '10' },
    'publish-during': { type: 'boolean', default: false },
    /**
     * `poller`: only the "Poller under load" section; `callbacks`: only the callback throughput and cost
     * table; `consoles`: only the "Acks with consoles open" section; `deliveries`: only the webhook
     * "Deliveries" section (no DynamoDB Local); `bundles`: only the Lambda bundles and their cold init.
     */
    only: { type: 'string' },
    'no-results': { type: 'boolean', default: false },
    /** `--only statements`: rows of the large statement file (default 1,000,000). */
    rows: { type: 'string', default: '1000000' },
  },
});
// A typo (`--only bundle`) would otherwise run every section, minutes long, and rewrite docs/results.md.
requireOneOf(USAGE, 'only', values.only, SECTIONS);
setBenchOptions(values);
// Loaded once the options are known: `--help` and a mistyped option answer without loading the relay,
// the AWS SDK and aws-cdk-lib (2.6 s of CPU under tsx before, about 0.8 s now).
await import('./bench-run');
