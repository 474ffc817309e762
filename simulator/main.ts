/**
 * `npm run simulator`: runs the provider simulator until SIGINT/SIGTERM.
 * Env: SIM_PORT (default 4010), SIM_HOST (127.0.0.1), SIM_TIME_SCALE (1), SIM_APPROVAL_DELAY_MS (300),
 * SIM_MOMO_MSISDN_BASE (46733123450), SIM_AIRTEL_CALLBACK_URL (none), SIM_FAULTS (global faults for all providers).
 */
import { parseCli } from '../scripts/cli';
import { createSimulator } from './server';

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`${name} must be a non-negative number, got "${raw}"`);
    process.exit(2);
  }
  return n;
}

const USAGE = `Usage: npm run simulator

The provider simulator alone (MoMo, Airtel and Daraja sandboxes), wired to nothing: point your own client
code at it (simulator/README.md#running-it-alone-npm-run-simulator). Runs until Ctrl-C or SIGTERM.
Settings come from the environment:
  SIM_PORT                 listening port (default 4010)
  SIM_HOST                 listening address (default 127.0.0.1)
  SIM_TIME_SCALE           multiplier for provider business time (default 1)
  SIM_APPROVAL_DELAY_MS    real ms until a payer answers (default 300)
  SIM_MOMO_MSISDN_BASE     first MSISDN of the MoMo outcome tables (default 46733123450)
  SIM_AIRTEL_CALLBACK_URL  where Airtel callbacks go (default none)
  SIM_FAULTS               global faults for all providers, e.g. delay=500
With the relay: npm start -- --simulator (README.md#try-every-provider-with-the-simulator).`;

async function main(): Promise<void> {
  parseCli(USAGE, { options: {} });
  const airtelCallbackUrl = process.env.SIM_AIRTEL_CALLBACK_URL;
  const sim = await createSimulator({
    port: numberFromEnv('SIM_PORT', 4010),
    host: process.env.SIM_HOST ?? '127.0.0.1',
    timeScale: numberFromEnv('SIM_TIME_SCALE', 1) || 1,
    approvalDelayMs: numberFromEnv('SIM_APPROVAL_DELAY_MS', 300),
    ...(process.env.SIM_FAULTS ? { faults: { all: process.env.SIM_FAULTS } } : {}),
    ...(process.env.SIM_MOMO_MSISDN_BASE
      ? { momo: { sandboxMsisdnBase: process.env.SIM_MOMO_MSISDN_BASE } }
      : {}),
  });
  if (airtelCallbackUrl) {
    for (const app of sim.options.airtel.apps) app.callbackUrl = airtelCallbackUrl;
  }

  const i = sim.info();
  const u = i.momo.apiUsers[0];
  const a = i.airtel.apps[0];
  const lines = [
    '',
    `Provider simulator listening on ${i.baseUrl}`,
    '',
    'MTN MoMo',
    `  collection subscription key   ${i.momo.collectionSubscriptionKeys.primary} (secondary ${i.momo.collectionSubscriptionKeys.secondary})`,
    `  disbursement subscription key ${i.momo.disbursementSubscriptionKeys.primary} (secondary ${i.momo.disbursementSubscriptionKeys.secondary})`,
    `  remittance subscription key   ${i.momo.remittanceSubscriptionKeys.primary} (secondary ${i.momo.remittanceSubscriptionKeys.secondary})`,
    u
      ? `  API user / API key            ${u.id} / ${u.apiKey} (providerCallbackHost ${u.providerCallbackHost})`
      : '',
    `  X-Target-Environment          ${i.momo.targetEnvironment}, currency ${i.momo.currency}`,
    `  sandbox MSISDN base           ${i.momo.sandboxMsisdnBase} (base+0 Failed, +1 Rejected, +2 Expired, +3 Ongoing, +4 Delayed, …)`,
    'Airtel Money',
    a ? `  client_id / client_secret     ${a.clientId} / ${a.clientSecret}` : '',
    a
      ? `  callback                      ${a.callbackUrl ?? '(none: set SIM_AIRTEL_CALLBACK_URL or PATCH /_sim/config)'}, hash key ${a.callbackKey}, recipe ${a.hashRecipe}`
      : '',
    '  RSA public key                GET /v1/rsa/encryption-keys (or /_sim/airtel/public-key)',
    'Safaricom Daraja',
    `  consumer key / secret         ${i.daraja.consumerKey} / ${i.daraja.consumerSecret}`,
    ...Object.entries(i.daraja.passkeys).map(
      ([code, key]) => `  STK short code / passkey      ${code} / ${key}`,
    ),
    `  callbacks sent from           ${i.daraja.callbackSourceIp} (X-Forwarded-For); foreign-ip fault uses ${i.foreignSourceIp}`,
    '',
    'Admin and faults',
    ...i.admin.map((l) => `  ${l}`),
    '',
  ];
  console.log(lines.filter((l, idx, all) => l !== '' || all[idx - 1] !== '').join('\n'));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal} received, stopping the simulator`);
    sim.close().then(
      () => process.exit(0),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e) => {
  const port = process.env.SIM_PORT || 4010;
  if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
    console.error(
      `✖ Port ${port} is in use: is \`npm start -- --simulator\` or another \`npm run simulator\` running? Stop it, or SIM_PORT=${Number(port) + 1} npm run simulator`,
    );
  else console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
