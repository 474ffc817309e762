import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/child-process';
import { checkPublicUrls, formatVerdicts, listPublicUrls } from '../../../scripts/check-urls';
import { parseConfig } from '../../../shared/config/load';

const SECRET = 'check-urls-secret-0123';
const config = parseConfig({
  publicBaseUrl: 'https://relay.example.com',
  management: { bearerToken: 'check-urls-token' },
  accounts: {
    momo: { demo: {} },
    daraja: {
      'ke-600638': { pathSecret: SECRET, c2b: { partner: { url: 'https://partner.example.com/decide' } } },
    },
  },
});

describe('check-urls', () => {
  it('lists the thirteen Daraja route URLs with the path secret, the configured partner URL and the MoMo pattern', () => {
    // Act
    const urls = listPublicUrls(config);
    // Assess
    const daraja = urls.filter((u) => u.provider === 'daraja').map((u) => u.url);
    expect(daraja).toEqual([
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/stk`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/c2b/validation`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/c2b/confirmation`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/b2c/result`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/b2c/timeout`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/b2b/result`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/b2b/timeout`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/status/result`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/status/timeout`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/balance/result`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/balance/timeout`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/reversal/result`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/reversal/timeout`,
      'https://partner.example.com/decide',
    ]);
    expect(urls.find((u) => u.provider === 'momo')?.url).toBe(
      'https://relay.example.com/v1/momo/demo/{kind}/{referenceId}',
    );
  });

  it('passes every URL of a sound config', () => {
    expect(checkPublicUrls(config).filter((v) => v.violations.length)).toEqual([]);
  });

  it('fails each URL under a base that breaks the rules, with the reasons', () => {
    // Prepare
    const bad = { ...config, publicBaseUrl: 'https://mpesa-relay.ngrok.io' };
    // Act
    const verdicts = checkPublicUrls(bad).filter((v) => v.source === 'route');
    const report = formatVerdicts(verdicts);
    // Assess
    expect(verdicts.every((v) => v.violations.map((x) => x.rule).includes('forbidden-word'))).toBe(true);
    expect(verdicts.every((v) => v.violations.map((x) => x.rule).includes('tunnel-host'))).toBe(true);
    expect(report).toContain('FAIL');
    expect(report).toMatch(/\d+ of \d+ URLs break the URL rules/);
  });

  it('can print the report with path secrets hidden', () => {
    const report = formatVerdicts(checkPublicUrls(config), {
      hideSecrets: (url) => url.replace(SECRET, '{secret}'),
    });
    expect(report).not.toContain(SECRET);
    expect(report).toContain('/v1/daraja/ke-600638/{secret}/stk');
  });

  it('reads the path secret a deployed config names from Secrets Manager, as npm start does', async () => {
    // Prepare: a config as docs/configuration.md#secrets asks for the cloud (the secret named, not written)
    // and a stand-in for Secrets Manager's GetSecretValue.
    const asked: string[] = [];
    const secretsManager = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const { SecretId } = JSON.parse(body) as { SecretId: string };
        asked.push(SecretId);
        res.setHeader('content-type', 'application/x-amz-json-1.1');
        res.end(JSON.stringify({ Name: SecretId, SecretString: JSON.stringify({ pathSecret: SECRET }) }));
      });
    });
    await new Promise<void>((r) => secretsManager.listen(0, '127.0.0.1', r));
    const file = join(mkdtempSync(join(tmpdir(), 'check-urls-')), 'prod-config.json');
    writeFileSync(
      file,
      JSON.stringify({
        publicBaseUrl: 'https://relay.example.com',
        management: { auth: 'iam' },
        accounts: { daraja: { ke: { shortCode: '600638', callbackSecretId: 'relay/daraja/ke/callback' } } },
      }),
    );
    const env = {
      ...process.env,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(secretsManager.address() as AddressInfo).port}`,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'eu-west-1',
      AWS_PROFILE: '',
    };
    // Act: npm run check-urls -- --config prod-config.json, as the docs show it.
    const run = await new Promise<{ code: number; output: string }>((resolve) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', 'scripts/check-urls.ts', '--config', file],
        { cwd: ROOT, env },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
      ),
    );
    secretsManager.close();
    // Assess
    expect(run.output).toContain(`https://relay.example.com/v1/daraja/ke/${SECRET}/stk`);
    expect(run.code, run.output).toBe(0);
    expect(asked).toEqual(['relay/daraja/ke/callback']);
  });
});
