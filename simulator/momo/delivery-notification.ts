/**
 * RequesttoPayDeliveryNotification (MoMo Open API docs, delivery notification): an extra free-text SMS or e-mail to the
 * payer of a successful request to pay.
 *
 * MTN's docs: path `/collection/v1_0/requesttopay/{ref}/deliverynotification`; required header
 * `notificationMessage` (max length 160); optional header `Language` (ISO 639-1 or 639-3); body
 * `{notificationMessage}`; 200 enqueued, 400 invalid data, 404 unknown reference or not the caller's,
 * 409 not successfully completed, 410 opportunity expired, 429 too many attempts (only after a success).
 *
 * Documented choices where MTN's docs are silent:
 * - Method POST (MTN's real method; MTN's docs do not show it). 200 has no body.
 * - The body is optional; when it carries `notificationMessage` that text is held to the same 160 limit.
 * - The window is 24 hours of provider time from the moment the request to pay became SUCCESSFUL
 *   (scaled by `timeScale` like the approval window); after it, 410.
 * - One notification per transaction: any attempt after an accepted one answers 429.
 * - Checks in the order 400, 404, 409, 410, 429. The error codes are in `momoDeliveryNotificationErrors`.
 */
import type { SimContext } from '../core/context';
import type { Reply, RequestContext } from '../core/http';
import { UUID_V4 } from '../core/ids';
import type { RouteAdder } from './spelling';
import type { MomoAuth } from './auth';
import { momoDeliveryNotificationErrors, momoErrors } from './errors';
import type { MomoTransaction } from './operations';

const DELIVERY_NOTIFICATION_MAX_LENGTH = 160;
/** Provider time; scaled by `timeScale`. */
const DELIVERY_NOTIFICATION_WINDOW_MS = 24 * 60 * 60 * 1000;
const DELIVERY_NOTIFICATION_MAX_ATTEMPTS = 1;

export class MomoDeliveryNotifications {
  /** Accepted notifications per request-to-pay reference. */
  private readonly sent = new Map<string, string[]>();

  constructor(
    private readonly sim: SimContext,
    private readonly auth: MomoAuth,
    private readonly transactions: ReadonlyMap<string, MomoTransaction>,
  ) {}

  reset(): void {
    this.sent.clear();
  }

  register(router: RouteAdder): void {
    router.add('momo', 'POST', '/collection/v1_0/requesttopay/:ref/deliverynotification', (ctx) =>
      this.notify(ctx),
    );
  }

  private notify(ctx: RequestContext): Reply {
    const user = this.auth.authenticate(ctx, 'collection');
    const ref = ctx.params.ref ?? '';
    if (!UUID_V4.test(ref)) throw momoErrors.badRequest('The reference id must be a UUID version 4.');
    const message = ctx.header('notificationmessage');
    if (message === undefined || message.trim() === '') {
      throw momoErrors.badRequest('Header notificationMessage is required.');
    }
    if (message.length > DELIVERY_NOTIFICATION_MAX_LENGTH) {
      throw momoErrors.badRequest(
        `notificationMessage is limited to ${DELIVERY_NOTIFICATION_MAX_LENGTH} characters.`,
      );
    }
    const language = ctx.header('language');
    if (language !== undefined && !/^[a-zA-Z]{2,3}$/.test(language)) {
      throw momoErrors.badRequest('Language must be an ISO 639-1 or ISO 639-3 code.');
    }
    if (ctx.hasBody) {
      const body = ctx.json(() => momoErrors.badRequest('The body is not valid JSON.'));
      const text =
        body && typeof body === 'object'
          ? (body as { notificationMessage?: unknown }).notificationMessage
          : null;
      if (text !== undefined && typeof text !== 'string') {
        throw momoErrors.badRequest('notificationMessage must be a string.');
      }
      if (typeof text === 'string' && text.length > DELIVERY_NOTIFICATION_MAX_LENGTH) {
        throw momoErrors.badRequest(
          `notificationMessage is limited to ${DELIVERY_NOTIFICATION_MAX_LENGTH} characters.`,
        );
      }
    }
    const txn = this.transactions.get(ref);
    if (txn?.kind !== 'requesttopay' || txn.apiUserId !== user.id) throw momoErrors.notFound();
    if (txn.status !== 'SUCCESSFUL') throw momoDeliveryNotificationErrors.notCompleted();
    if (
      this.sim.scheduler.now() - txn.updatedAt >
      this.sim.scheduler.scaled(DELIVERY_NOTIFICATION_WINDOW_MS)
    ) {
      throw momoDeliveryNotificationErrors.expired();
    }
    const sent = this.sent.get(ref) ?? [];
    if (sent.length >= DELIVERY_NOTIFICATION_MAX_ATTEMPTS) throw momoDeliveryNotificationErrors.tooMany();
    sent.push(message);
    this.sent.set(ref, sent);
    return { status: 200 };
  }
}
