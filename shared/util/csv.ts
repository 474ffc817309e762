/**
 * A small RFC 4180 reader that streams: it takes text in chunks of any size and yields one record at a
 * time, so memory holds one record, never the file (docs/statements.md#files). Quoted fields may hold
 * commas, doubled quotes and line breaks; CRLF and LF both end a record; a UTF-8 byte-order mark is dropped.
 */

export interface CsvRecord {
  /** 1-based line number where the record starts (what a person sees in an editor). */
  line: number;
  fields: string[];
}

export class CsvFormatError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'CsvFormatError';
  }
}

/** Longest field accepted: a statement cell is short; a runaway quote must not eat the memory. */
const MAX_FIELD_CHARS = 64 * 1024;

/** A field past MAX_FIELD_CHARS stops the file (kept out of readCsv's loop, which holds its state in locals for speed). */
function checkLength(field: string, recordLine: number, hint: string): void {
  if (field.length > MAX_FIELD_CHARS)
    throw new CsvFormatError(`a field is over ${MAX_FIELD_CHARS} characters${hint}`, recordLine);
}

/** An empty line: one empty field. */
const isBlank = (fields: readonly string[]) => fields.length === 1 && fields[0] === '';

export async function* readCsv(
  chunks: AsyncIterable<string> | Iterable<string>,
  options: { delimiter?: string } = {},
): AsyncGenerator<CsvRecord> {
  const delimiter = options.delimiter ?? ',';
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  /** Inside quotes, a quote was just seen: either the closing one or the first of a doubled pair. */
  let quoteSeen = false;
  let fieldStarted = false;
  let line = 1;
  let recordLine = 1;
  let first = true;
  let pendingCr = false;
  const endField = () => {
    fields.push(field);
    field = '';
    fieldStarted = false;
  };
  for await (const chunk of chunks) {
    const text = first && chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
    if (text.length > 0) first = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (pendingCr) {
        pendingCr = false;
        if (c === '\n') continue;
      }
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false;
          if (c === '"') {
            field += '"';
            continue;
          }
          quoted = false;
          // The character after a closing quote must end the field or the record.
          if (c !== delimiter && c !== '\r' && c !== '\n')
            throw new CsvFormatError('text after a closing quote', line);
        } else if (c === '"') {
          quoteSeen = true;
          continue;
        } else {
          if (c === '\n') line++;
          field += c;
          checkLength(field, recordLine, ' (an unclosed quote?)');
          continue;
        }
      }
      if (c === '"') {
        if (fieldStarted && field.length > 0)
          throw new CsvFormatError('a quote inside an unquoted field', line);
        quoted = true;
        fieldStarted = true;
        continue;
      }
      if (c === delimiter) {
        endField();
        continue;
      }
      if (c === '\r' || c === '\n') {
        endField();
        const record = { line: recordLine, fields };
        fields = [];
        line++;
        recordLine = line;
        if (c === '\r') pendingCr = true;
        if (!isBlank(record.fields)) yield record;
        continue;
      }
      fieldStarted = true;
      field += c;
      checkLength(field, recordLine, '');
    }
  }
  if (quoted && !quoteSeen) throw new CsvFormatError('a quoted field is never closed', recordLine);
  if (fieldStarted || fields.length > 0) {
    endField();
    if (!isBlank(fields)) yield { line: recordLine, fields };
  }
}

/** A plain decimal number, negative included ("-100", "12.50"): a spreadsheet reads it as a value, never a formula. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * One cell of a CSV we write (RFC 4180 quoting). A cell starting with = + - @ (or a tab or carriage
 * return) is prefixed with ' so that a spreadsheet opening the file never runs it as a formula (CSV
 * injection: a reference or a provider's message is text someone else chose). A plain negative number
 * ("-100", a balance drift) is left a number: it runs nothing, and a prefix would turn it into text.
 * A cell holding a semicolon or a tab is quoted too: a spreadsheet set to split on them (Excel where the
 * decimal separator is a comma, a paste as tab-separated text) would otherwise start a new cell there, and
 * `ACC-1;=HYPERLINK(…)` would be a formula in the next cell.
 */
function csvCell(value: string | number | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",;\t\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A whole CSV file: the header row, then one row per record, CRLF line ends (as spreadsheets expect). */
export function toCsv(
  columns: ReadonlyArray<string | number | null | undefined>,
  rows: ReadonlyArray<ReadonlyArray<string | number | null | undefined>>,
): string {
  return (
    [columns.map(csvCell).join(','), ...rows.map((row) => row.map(csvCell).join(','))].join('\r\n') + '\r\n'
  );
}
