import middy from '@middy/core';
import {
  type CreatedObject,
  IMPORTS_DONE_METRIC,
  IMPORTS_REFUSED_METRIC,
  type ObjectImportAnswer,
  type StatementObjects,
  importObject,
} from '../../shared/app/statements/import-object';
import {
  CLOSE_DAYS_INPUT,
  DAYS_CLOSED_METRIC,
  DAYS_OVERDUE_METRIC,
  type ScheduledCloseResult,
  closeDueDays,
} from '../../shared/app/statements/scheduled-close';
import type { RelayMetrics } from '../../shared/app/ports';
import type { RelayServices } from '../../shared/app/services';

/**
 * The parts of an S3 event notification this function reads (hand-written like the SQS event of the
 * buffer consumer; the shape is S3's "event message structure", version 2.x).
 */
export interface S3ObjectCreatedEvent {
  Records: {
    eventSource: string;
    eventName: string;
    userIdentity?: { principalId?: string };
    s3: { bucket: { name: string }; object: { key: string; size?: number } };
  }[];
}

export interface StatementsContext {
  getRemainingTimeInMillis?: () => number;
}

const isS3Event = (event: unknown): event is S3ObjectCreatedEvent =>
  Array.isArray((event as S3ObjectCreatedEvent)?.Records) &&
  (event as S3ObjectCreatedEvent).Records.every((r) => r?.eventSource === 'aws:s3');

/** S3 notifications URL-encode the key with spaces as `+`. */
const decodeKey = (key: string) => decodeURIComponent(key.replace(/\+/g, ' '));

/**
 * The statements function (docs/statements.md#in-aws): an object created under `statements/` in the
 * statement bucket is imported (one by one; a refused file is answered in its report and counted, never
 * thrown), and the scheduled close closes the due days. Anything else is refused loudly.
 */
export function createStatementsHandler(
  services: RelayServices & { objects: StatementObjects; metrics: RelayMetrics },
) {
  const statements = services.statements;
  if (!statements) throw new Error('The statements function needs the statement store');
  const deps = { ...services, statements };
  return middy(
    async (
      event: unknown,
      context: StatementsContext,
    ): Promise<{ imports: ObjectImportAnswer[] } | ScheduledCloseResult> => {
      if (isS3Event(event)) {
        const imports: ObjectImportAnswer[] = [];
        for (const record of event.Records) {
          if (!record.eventName.startsWith('ObjectCreated:')) continue;
          const object: CreatedObject = {
            bucket: record.s3.bucket.name,
            key: decodeKey(record.s3.object.key),
            principal: record.userIdentity?.principalId ?? '',
          };
          const answer = await importObject(deps, object);
          services.metrics.count(
            answer.status === 'imported' ? IMPORTS_DONE_METRIC : IMPORTS_REFUSED_METRIC,
            1,
          );
          imports.push(answer);
        }
        return { imports };
      }
      if ((event as { action?: unknown })?.action === CLOSE_DAYS_INPUT.action) {
        const started = Date.now();
        // The days not reached are the next run's: stop 15 s before the time-out (metrics must leave).
        const remaining = context.getRemainingTimeInMillis?.() ?? 60_000;
        const result = await closeDueDays(deps, {
          budgetMs: Math.max(1_000, remaining - 15_000),
          elapsedMs: () => Date.now() - started,
        });
        // Written on every run, zero included: no datapoint means the schedule stopped (the alarm treats
        // missing data as breaching).
        services.metrics.count(DAYS_OVERDUE_METRIC, result.overdue);
        services.metrics.count(DAYS_CLOSED_METRIC, result.closed);
        return result;
      }
      throw new Error(
        'The statements function takes an S3 ObjectCreated notification or {"action":"close-days"}',
      );
    },
  );
}
