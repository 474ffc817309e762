import { httpsDestination } from './https';
import type { DestinationIo } from './ports';
import { sqsDestination } from './sqs';
import type { Deliverer, DestinationRuntime, DestinationTypeModule } from './types';

/**
 * Every destination type (docs/webhooks.md#destination-types). Adding one = a folder under
 * shared/destinations/ and a line here; the config schema, the start and synth checks, the construct's
 * IAM, the API's list and both delivery paths read the type through this list.
 */
const REGISTERED: DestinationTypeModule<never>[] = [
  httpsDestination as DestinationTypeModule<never>,
  sqsDestination as DestinationTypeModule<never>,
];

/** The type of a destination whose config names none. */
export const DEFAULT_DESTINATION_TYPE = 'https';

export function findDestinationType(id: string): DestinationTypeModule<unknown> | undefined {
  return REGISTERED.find((t) => t.id === id) as DestinationTypeModule<unknown> | undefined;
}

export function destinationTypeIds(): string[] {
  return REGISTERED.map((t) => t.id);
}

/**
 * Adds a type without a line above: the injection point the fake-type test uses to show that a folder is
 * all a type needs (test/unit/destinations/registry.test.ts). Returns the undo. Register before the
 * config is parsed (destinations are validated against the registry).
 */
export function registerDestinationType<S>(module: DestinationTypeModule<S>): () => void {
  if (findDestinationType(module.id)) throw new Error(`destination type ${module.id} is registered already`);
  REGISTERED.push(module as DestinationTypeModule<never>);
  return () => {
    const at = REGISTERED.indexOf(module as DestinationTypeModule<never>);
    if (at >= 0) REGISTERED.splice(at, 1);
  };
}

/** The parts of a parsed destination the registry reads (shared/config/schema.ts's DestinationConfig). */
interface TypedDestination {
  type: string;
  settings: unknown;
}

function typeOf(destination: TypedDestination): DestinationTypeModule<unknown> {
  const type = findDestinationType(destination.type);
  // The config schema refuses an unknown type: only a type unregistered after parsing gets here.
  if (!type) throw new Error(`destination type "${destination.type}" is not registered`);
  return type;
}

/** Every problem of the destinations where they run (synth, npm start, the delivery function's start). */
export function destinationProblems(
  destinations: Readonly<Record<string, TypedDestination>>,
  where: { runtime: DestinationRuntime; io?: DestinationIo },
): string[] {
  return Object.entries(destinations).flatMap(([name, d]) => typeOf(d).problems(name, d.settings, where));
}

/** Where a destination delivers, safe to show. */
export function shownTarget(destination: TypedDestination): string {
  return typeOf(destination).shown(destination.settings);
}

/** The IAM roles the delivery function assumes for these destinations, each once, in config order. */
export function assumedRoles(destinations: Readonly<Record<string, TypedDestination>>): string[] {
  const roles = Object.values(destinations).flatMap((d) => typeOf(d).assumedRoles?.(d.settings) ?? []);
  return [...new Set(roles)];
}

/** Each registered type's sender, built once per process: `deliverer(type)` for an attempt. */
export function createDeliverers(io: DestinationIo): (type: string) => Deliverer<unknown> {
  const built = new Map<string, Deliverer<unknown>>();
  return (id) => {
    let deliverer = built.get(id);
    if (!deliverer) {
      deliverer = typeOf({ type: id, settings: undefined }).createDeliverer(io);
      built.set(id, deliverer);
    }
    return deliverer;
  };
}
