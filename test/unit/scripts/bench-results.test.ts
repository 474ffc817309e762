import { describe, expect, it } from 'vitest';
import { type BenchRun, HISTORY_ROWS, mergeResults, summarize } from '../../../scripts/bench-results';

const run = (at: string, commit = 'abc1234'): BenchRun => ({
  at,
  commit,
  machine: '2 cores, load 0.3, Node v20.19.0',
  options: '--only poller',
});

const poller = (p50: string) => ({
  id: 'poller' as const,
  lines: [
    'Poller under load',
    '| measure | value | target |',
    '|---|---|---|',
    `| first-check lag p50 / p95 | ${p50} | reported |`,
  ],
});

describe('the results file the bench writes', () => {
  it('creates the file with the header and the measured section only', () => {
    // Act
    const text = mergeResults(undefined, [poller('3.4 / 5.0 s')], run('2026-11-29T08:00:00.000Z'));

    // Assess
    expect(text).toMatch(/^# Results/);
    expect(text).toContain('<!-- bench:poller -->');
    expect(text).toContain('| first-check lag p50 / p95 | 3.4 / 5.0 s | reported |');
    expect(text).toContain(
      '| 2026-11-29 08:00 | abc1234 | 2 cores, load 0.3, Node v20.19.0 | --only poller |',
    );
    expect(text).not.toContain('bench:callbacks');
  });

  it('replaces the latest numbers of a measured section, extends its history and keeps the others', () => {
    // Prepare
    const first = mergeResults(
      undefined,
      [poller('3.4 / 5.0 s'), { id: 'outage', lines: ['| acks p99 | 1260 ms | < 2 s |'] }],
      run('2026-11-29T08:00:00.000Z'),
    );
    const withNote = first.replace(
      '# Results\n',
      '# Results\n\nA note from before the bench wrote this file.\n',
    );

    // Act
    const second = mergeResults(
      withNote,
      [poller('2.9 / 4.1 s')],
      run('2026-11-30T09:30:00.000Z', 'def5678'),
    );

    // Assess
    expect(second).not.toContain('| first-check lag p50 / p95 | 3.4 / 5.0 s | reported |');
    expect(second).toContain('| first-check lag p50 / p95 | 2.9 / 4.1 s | reported |');
    const history = second.match(/^\| 2026-11-\d\d [^\n]*first-check[^\n]*$/gm) ?? [];
    expect(history).toHaveLength(2);
    expect(history[1]).toContain('def5678');
    expect(history[1]).toContain('first-check lag p50 / p95: 2.9 / 4.1 s');
    expect(second).toContain('| acks p99 | 1260 ms | < 2 s |');
    expect(second).toContain('A note from before the bench wrote this file.');
    expect(second.match(/<!-- bench:poller -->/g)).toHaveLength(1);
  });

  it(`keeps the last ${HISTORY_ROWS} runs of a section`, () => {
    // Prepare
    let text: string | undefined;
    for (let day = 1; day <= HISTORY_ROWS + 5; day++)
      text = mergeResults(
        text,
        [poller(`${day} s`)],
        run(`2026-10-${String(day).padStart(2, '0')}T08:00:00.000Z`),
      );

    // Assess
    const rows = text!.match(/^\| 2026-[^\n]*$/gm)!;
    expect(rows).toHaveLength(HISTORY_ROWS);
    expect(rows.at(-1)).toContain(`${HISTORY_ROWS + 5} s`);
  });

  it('summarizes a section by its first table rows, without header or separator rows', () => {
    expect(
      summarize([
        'title',
        '| measure | value | target |',
        '|---|---|---|',
        '| a | 1 | x |',
        '| b | 2 | y |',
        'note',
      ]),
    ).toBe('a: 1; b: 2');
  });
});
