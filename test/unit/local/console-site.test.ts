import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { consoleSite } from '../../../local/console-site';

/** The status and headers the console site writes for a path. */
async function answerTo(path: string): Promise<{ status: number; headers: Record<string, string> }> {
  const written = { status: 0, headers: {} as Record<string, string> };
  const response = {
    writeHead(status: number, headers: Record<string, string>) {
      written.status = status;
      written.headers = headers;
      return this;
    },
    end() {
      return this;
    },
  } as unknown as ServerResponse;
  await consoleSite()(path, response);
  return written;
}

/*
 * docs/routes.md, "Headers of every answer": every answer, a 404 included, carries Cache-Control: no-store
 * and X-Content-Type-Options: nosniff. The console's own 404 (a file the console does not have) and its
 * redirect carried neither.
 */
describe('the local console site', () => {
  it.each([
    ['a file it does not have (404)', '/console/nope.js', 404],
    ['its path without the slash (301)', '/console', 301],
    ['its page', '/console/', 200],
  ])('answers %s with no-store and nosniff', async (_, path, status) => {
    // Act
    const answer = await answerTo(path);
    // Assess
    expect(answer.status).toBe(status);
    expect(answer.headers).toMatchObject({
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
  });
});
