/**
 * The statement files' lines of `npm run cost` (docs/statements.md#in-aws), apart from scripts/cost.ts so
 * both can change without meeting: the cost per million statement rows imported from files uploaded to
 * the statement bucket, and what the statement bucket and the scheduled close cost at idle.
 */
import type { CostLine, Prices } from '../cost';

/** S3 Standard list prices (us-east-1 and eu-west-1 alike), 2025-11. */
export const S3_PRICES = { putPerThousand: 0.005, getPerThousand: 0.0004, storagePerGbMonth: 0.023 } as const;

/**
 * Measured by `npm run bench -- --only statements` (docs/results.md#statement-import), as AWS bills them:
 * the read units per matched row by DynamoDB Local's ConsumedCapacity with AWS's least charges added (the
 * range query of the day's rows, a lookup query a row — billed 0.5 in AWS when it finds nothing, 0 by
 * DynamoDB Local — and the BatchGetItems of a batch), and the write units per matched row by AWS's 1 KB
 * rule over the items the import changed (index entries too). The bench prints whether these still match.
 */
export const MEASURED_STATEMENT_UNITS = { writeUnitsPerRow: 1, readUnitsPerRow: 1.01 } as const;

/** The assumptions the lines name; the DynamoDB units per row are the bench's (MEASURED_STATEMENT_UNITS). */
export const STATEMENT_ASSUMPTIONS = {
  rowsPerFile: 10_000,
  /** GETs per file: the layout detection reads the first lines, then the file is read twice (checked, imported). */
  getsPerFile: 3,
  /** PUTs per file: the upload and its report. */
  putsPerFile: 2,
  writeUnitsPerRow: MEASURED_STATEMENT_UNITS.writeUnitsPerRow,
  readUnitsPerRow: MEASURED_STATEMENT_UNITS.readUnitsPerRow,
  lambdaMsPerRow: 2,
  memoryMb: 512,
  bytesPerRow: 150,
  /** The scheduled close: one run an hour (`dayCloseInterval`), an idle run reads one close per account and day. */
  closeRunsPerMonth: 720,
  closeRunMs: 300,
} as const;

const MILLION = 1_000_000;

export function perMillionStatementRows(prices: Prices, a = STATEMENT_ASSUMPTIONS): CostLine[] {
  const files = MILLION / a.rowsPerFile;
  const gbSeconds = (MILLION * a.lambdaMsPerRow * a.memoryMb) / 1024 / 1000;
  return [
    {
      item: 'S3 PUT (upload + report)',
      dollars: (files * a.putsPerFile * S3_PRICES.putPerThousand) / 1000,
      formula: `${files} files of ${a.rowsPerFile.toLocaleString('en')} rows × ${a.putsPerFile} × $${S3_PRICES.putPerThousand}/1000`,
    },
    {
      item: 'S3 GET (detect, check, import)',
      dollars: (files * a.getsPerFile * S3_PRICES.getPerThousand) / 1000,
      formula: `${files} files × ${a.getsPerFile} × $${S3_PRICES.getPerThousand}/1000`,
    },
    {
      item: 'Lambda (statements function)',
      dollars: gbSeconds * prices.lambdaArmPerGbSecond + files * (prices.lambdaPerMillionRequests / MILLION),
      formula: `${a.lambdaMsPerRow} ms/row (assumed) × ${a.memoryMb} MB = ${gbSeconds.toFixed(0)} GB-s × $${prices.lambdaArmPerGbSecond}/GB-s + ${files} invocations`,
    },
    {
      item: 'DynamoDB writes',
      dollars: a.writeUnitsPerRow * prices.dynamoPerMillionWrites,
      formula: `${a.writeUnitsPerRow} WRU/row (measured: npm run bench -- --only statements, AWS's 1 KB rule) × $${prices.dynamoPerMillionWrites}/M`,
    },
    {
      item: 'DynamoDB reads',
      dollars: a.readUnitsPerRow * prices.dynamoPerMillionReads,
      formula: `${a.readUnitsPerRow} RRU/row (measured: npm run bench -- --only statements, AWS's least charges) × $${prices.dynamoPerMillionReads}/M`,
    },
    {
      item: 'S3 storage of the files (a month)',
      dollars: ((MILLION * a.bytesPerRow) / 1024 ** 3) * S3_PRICES.storagePerGbMonth,
      formula: `${a.bytesPerRow} B/row × $${S3_PRICES.storagePerGbMonth}/GB-month (Standard; Standard-IA after 30 days)`,
    },
  ];
}

/** The statement bucket and the scheduled close with no upload: the close's runs (its alarms are in the template's count). */
export function statementIdleFloor(prices: Prices, accounts: number, a = STATEMENT_ASSUMPTIONS): CostLine[] {
  const gbSeconds = (a.closeRunsPerMonth * a.closeRunMs * a.memoryMb) / 1024 / 1000;
  // An idle run reads each account's open days' closes (CLOSE_CATCH_UP_DAYS + 2 days at most).
  const reads = a.closeRunsPerMonth * accounts * 5;
  return [
    { item: 'Statement bucket (empty)', dollars: 0, formula: 'S3 bills storage and requests only' },
    {
      item: 'Scheduled close (statements function)',
      dollars:
        gbSeconds * prices.lambdaArmPerGbSecond +
        (a.closeRunsPerMonth * prices.lambdaPerMillionRequests) / MILLION +
        (reads * prices.dynamoPerMillionReads) / MILLION,
      formula: `${a.closeRunsPerMonth} runs × ${a.closeRunMs} ms (assumed) × ${a.memoryMb} MB + ${reads.toLocaleString('en')} reads (${accounts} accounts × 5 days)`,
    },
  ];
}
