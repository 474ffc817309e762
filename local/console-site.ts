import type { ServerResponse } from 'node:http';
import { buildConsole, type ConsoleFile } from '../scripts/build-console';
import { API_ANSWER_HEADERS } from '../shared/http/types';

/** Where `npm start` serves the operator console. */
export const CONSOLE_PATH = '/console/';

/** The API's headers (no-store, nosniff, DENY, no-referrer), with the page's own policy. */
const HEADERS = {
  ...API_ANSWER_HEADERS,
  // The page talks only to this relay; the token typed on its sign-in page never leaves for elsewhere.
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/**
 * The console as the local server serves it: built once in memory when the relay starts (no build step
 * before `npm start`, nothing written to the working tree), answered under /console/. A local relay's
 * console signs in with the management bearer token (`config.json`: mode local).
 */
export function consoleSite(): (path: string, response: ServerResponse) => Promise<boolean> {
  let files: Promise<Map<string, ConsoleFile>> | undefined;
  return async (path, response) => {
    if (path === '/console') {
      response.writeHead(301, { ...HEADERS, location: CONSOLE_PATH, 'content-length': '0' });
      response.end();
      return true;
    }
    if (!path.startsWith(CONSOLE_PATH)) return false;
    const name = path.slice(CONSOLE_PATH.length) || 'index.html';
    if (name === 'config.json') {
      const body = JSON.stringify({ mode: 'local' });
      response.writeHead(200, {
        ...HEADERS,
        'content-type': 'application/json',
        'content-length': String(body.length),
      });
      response.end(body);
      return true;
    }
    files ??= buildConsole();
    let file: ConsoleFile | undefined;
    try {
      file = (await files).get(name);
    } catch (error) {
      files = undefined;
      const body = `console build failed: ${(error as Error).message}`;
      response.writeHead(500, {
        ...HEADERS,
        'content-type': 'text/plain; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
      });
      response.end(body);
      return true;
    }
    if (!file) {
      response.writeHead(404, { ...HEADERS, 'content-type': 'text/plain', 'content-length': '9' });
      response.end('not found');
      return true;
    }
    response.writeHead(200, {
      ...HEADERS,
      'content-type': file.contentType,
      'content-length': String(file.body.length),
    });
    response.end(file.body);
    return true;
  };
}
