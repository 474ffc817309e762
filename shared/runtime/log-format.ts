import { LogFormatter, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';

/**
 * The functions' log line: level, message, time, service and the request id (what ties a line to its
 * invocation's REPORT), then the line's own fields. Powertools' default adds the function's ARN, name and
 * memory size (the log group already says which function), the sampling rate and the trace id to every
 * line: ~250 B of a callback's ~500 B line, billed per GB ingested and stored
 * (docs/deploy.md#cost-notes). The trace id stays when the invocation is traced (Sampled=1), and
 * cold_start only on the cold one.
 */
export class RelayLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = attributes.lambdaContext;
    const traced = attributes.xRayTraceId && /Sampled=1/.test(process.env._X_AMZN_TRACE_ID ?? '');
    return new LogItem({
      attributes: {
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        service: attributes.serviceName,
        ...(context?.awsRequestId ? { request_id: context.awsRequestId } : {}),
        ...(context?.coldStart ? { cold_start: true } : {}),
        ...(traced ? { xray_trace_id: attributes.xRayTraceId } : {}),
      },
    }).addAttributes(additional);
  }
}
