import { downloadCsv } from './api';
import { h, replace } from './dom';

/**
 * Every list's "Export CSV" (docs/console.md#exports): the list as the API exports it with the filters
 * the view shows (`query()` is read at the click, so a filter typed but not yet applied is not used
 * unless the view's query says so), then one line on what was saved: the rows, and when the export was
 * cut at its bound (the server reads a bounded amount per request), that it was, and what to do.
 */
export function exportButton(
  testId: string,
  path: string,
  query: () => Record<string, string | number | undefined | null>,
): HTMLElement {
  const said = h('span', { class: 'muted', role: 'status', 'data-testid': `${testId}-said` });
  const button = h('button', { type: 'button', class: 'secondary', 'data-testid': testId }, 'Export CSV');
  button.addEventListener('click', async () => {
    button.disabled = true;
    replace(said, '');
    try {
      const saved = await downloadCsv(path, query());
      const rows = saved.rows === null ? 'The list' : `${saved.rows} rows`;
      replace(
        said,
        saved.complete
          ? ` ${rows} saved.`
          : ` ${rows} saved: not all of them (an export reads a bounded amount); narrow the filters for the rest.`,
      );
    } catch (error) {
      replace(
        said,
        h('span', { class: 'error' }, ` ${error instanceof Error ? error.message : String(error)}`),
      );
    } finally {
      button.disabled = false;
    }
  });
  return h('span', { class: 'export' }, button, said);
}
