import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryDeliveryLog } from '../../../../shared/adapters/memory/delivery-log';
import { MemoryDestinationStates } from '../../../../shared/adapters/memory/destination-states';
import { exportDestinations } from '../../../../shared/app/console/export-csv';
import { type DeliveryAdmin, listDestinations } from '../../../../shared/app/delivery/destinations-admin';
import { destinationSchema } from '../../../../shared/config/schema';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const QUEUE_ARN = 'arn:aws:sqs:af-south-1:210987654321:momo-events.fifo';
const clock = { now: () => new Date('2026-11-29T12:00:00.000Z') };

/** One destination of each type, as the config parses them (the https one names no type: the default). */
function admin(): DeliveryAdmin {
  return {
    destinations: {
      shop: destinationSchema.parse({
        url: 'https://shop.example.com/hooks?token=abc',
        signingSecrets: [secret],
      }),
      erp: destinationSchema.parse({
        type: 'sqs',
        queue: 'https://sqs.af-south-1.amazonaws.com/210987654321/momo-events.fifo',
        roleArn: 'arn:aws:iam::210987654321:role/momo-relay-deliveries',
        signingSecrets: [secret],
      }),
    },
    log: new MemoryDeliveryLog(),
    states: new MemoryDestinationStates(),
  };
}

describe('the destinations answer (GET /v1/destinations)', () => {
  it('tells an https destination from an sqs one by its type and target, the queue shown by its ARN', async () => {
    // Act
    const { destinations } = await listDestinations(admin(), clock);

    // Assess
    expect(destinations.map((d) => ({ id: d.id, type: d.type, url: d.url }))).toEqual([
      { id: 'erp', type: 'sqs', url: QUEUE_ARN },
      { id: 'shop', type: 'https', url: 'https://shop.example.com/hooks?…' },
    ]);
  });

  it('shows the partner role an sqs destination is delivered as, and none for an https one', async () => {
    // Act
    const { destinations } = await listDestinations(admin(), clock);

    // Assess
    expect(destinations.map((d) => [d.id, d.role])).toEqual([
      ['erp', 'arn:aws:iam::210987654321:role/momo-relay-deliveries'],
      ['shop', null],
    ]);
  });

  it('exports each destination’s type beside its target in the CSV, never a secret', async () => {
    // Act
    const exported = await exportDestinations(admin(), clock);

    // Assess
    const [header, ...rows] = exported.csv.trim().split(/\r?\n/);
    expect(header!.split(',').slice(0, 3)).toEqual(['id', 'type', 'url']);
    expect(rows.map((r) => r.split(',').slice(0, 3))).toEqual([
      ['erp', 'sqs', QUEUE_ARN],
      ['shop', 'https', 'https://shop.example.com/hooks?…'],
    ]);
    expect(exported.csv).not.toContain(secret);
    expect(exported.rows).toBe(2);
  });
});
