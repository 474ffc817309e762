/**
 * Every relative link in the repository's Markdown leads somewhere: the file exists and, when the link
 * names a section, the section does (anchors as GitHub makes them, test/docs/markdown.ts). A new user
 * following the README from page to page met a dead anchor in docs/ledger.md.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf } from './markdown';

const ROOT = join(import.meta.dirname, '../..');
const SKIPPED = new Set(['node_modules', 'dist', 'cdk.out', 'coverage']);

function markdownFiles(dir = ROOT): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name.startsWith('.') || SKIPPED.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The Markdown outside fenced blocks and code spans, where a `[text](href)` is a link. */
function prose(text: string): string {
  let fence: string | undefined;
  const lines = text.split('\n').filter((line) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (f && (fence === undefined || f.startsWith(fence))) {
      fence = fence === undefined ? f : undefined;
      return false;
    }
    return fence === undefined;
  });
  return lines.join('\n').replace(/`[^`\n]*`/g, '');
}

/** What is wrong with each relative link of the file; empty when every one leads somewhere. */
function brokenLinks(file: string, text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].flatMap(([, href]) => {
    if (/^[a-z][a-z+.-]*:/i.test(href!)) return [];
    const [path, anchor] = href!.split('#');
    const target = path ? join(dirname(file), decodeURI(path)) : file;
    const where = `${relative(ROOT, file)}: ${href}`;
    if (!existsSync(target)) return [`${where} (no such file)`];
    if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor))
      return [`${where} (no such section)`];
    return [];
  });
}

describe('links in the Markdown', () => {
  it('lead to a file that exists and, when they name one, to a section it has', () => {
    // Act
    const broken = markdownFiles().flatMap((file) => brokenLinks(file, readFileSync(file, 'utf8')));
    // Assess
    expect(broken).toEqual([]);
  });

  it('a link to a missing file or section is reported, one in a code block or an external one is not', () => {
    // Prepare
    const file = join(ROOT, 'README.md');
    const text = [
      '[ok](docs/configuration.md#npm-start) [gone](docs/nope.md) [no section](docs/ledger.md#nope)',
      '[web](https://example.com/x.md#y) `[code](docs/nope.md)`',
      '```',
      '[fenced](docs/nope.md)',
      '```',
    ].join('\n');
    // Act
    const broken = brokenLinks(file, text);
    // Assess
    expect(broken).toEqual([
      'README.md: docs/nope.md (no such file)',
      'README.md: docs/ledger.md#nope (no such section)',
    ]);
  });
});
