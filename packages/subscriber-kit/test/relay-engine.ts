import { MemoryDeliveryLog } from '../../../shared/adapters/memory/delivery-log';
import { MemoryDestinationStates } from '../../../shared/adapters/memory/destination-states';
import { DeliveryEngine } from '../../../shared/app/delivery/engine';
import type { Scheduler, WebhookSender } from '../../../shared/app/delivery/ports';
import type { Clock } from '../../../shared/app/ports';
import { type DestinationConfig, destinationSchema } from '../../../shared/config/schema';
import { createScrubber } from '../../../shared/util/redact';

/**
 * The relay's delivery engine with one destination, `partner`, built as `npm start` builds it
 * (local/relay.ts): the kit's tests check its deliveries, so that the kit and the relay cannot drift apart.
 * The one place these tests construct it.
 */
export function relayEngine(
  destination: Record<string, unknown>,
  deps: { sender: WebhookSender; clock: Clock; scheduler: Scheduler },
) {
  const partner: DestinationConfig = destinationSchema.parse(destination);
  const log = new MemoryDeliveryLog();
  const engine = new DeliveryEngine({
    destinations: { partner },
    secretsOf: () => partner.signingSecrets,
    log,
    states: new MemoryDestinationStates(),
    scrub: createScrubber(partner.signingSecrets),
    runtime: 'local',
    ...deps,
  });
  return { engine, log };
}
