/** The statement bucket's key layout and the scheduled close's input: read by the statements function and the construct. */

/** Where an upload starts an import (docs/statements.md#in-aws): `statements/<provider>/<account>/[template=<name>/]<file>`. */
export const STATEMENT_KEY_PREFIX = 'statements/';
/** Where each upload's answer is written: `reports/<provider>/<account>/[template=<name>/]<file>.json`. */
export const REPORT_KEY_PREFIX = 'reports/';
/** What EventBridge Scheduler sends the statements function to close the due days. */
export const CLOSE_DAYS_INPUT = { action: 'close-days' } as const;
