import { createRequire } from 'node:module';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildTracingLayer, TRACING_LAYER_MODULE as LAYER_NAME_IN_INFRA } from '../../../infra/tracing-layer';
import {
  activeTracing,
  captureClient,
  startTracing,
  stopTracing,
  TRACING_LAYER_MODULE,
} from '../../../shared/adapters/tracing/xray';

const inLambda = { AWS_LAMBDA_FUNCTION_NAME: 'relay-callback' };

/** Loads modules the way Lambda does for the layer: from its nodejs/node_modules directory. */
function layerLoader(): (id: string) => unknown {
  const dir = buildTracingLayer();
  return createRequire(join(dir, 'nodejs', 'node_modules', 'probe.js'));
}

afterEach(() => {
  stopTracing();
  vi.unstubAllEnvs();
});

describe('X-Ray tracing through the tracing layer', () => {
  it('loads nothing outside Lambda and leaves SDK clients untouched', () => {
    // Prepare
    const load = vi.fn();
    const client = new DynamoDBClient({ region: 'eu-west-1' });
    const before = client.middlewareStack.identify();

    // Act
    const tracing = startTracing({ serviceName: 'relay-callback', env: {}, load });

    // Assess
    expect(tracing).toBeUndefined();
    expect(load).not.toHaveBeenCalled();
    expect(captureClient(client).middlewareStack.identify()).toEqual(before);
  });

  it('stays off in Lambda when POWERTOOLS_TRACE_ENABLED is false', () => {
    const load = vi.fn();

    const tracing = startTracing({
      serviceName: 'relay-callback',
      env: { ...inLambda, POWERTOOLS_TRACE_ENABLED: 'false' },
      load,
    });

    expect(tracing).toBeUndefined();
    expect(load).not.toHaveBeenCalled();
  });

  it('warns once and runs untraced when the layer is not attached', () => {
    // Prepare
    const warn = vi.fn();
    const missing = () => {
      throw new Error(`Cannot find module '${TRACING_LAYER_MODULE}'\nRequire stack: …`);
    };

    // Act
    const tracing = startTracing({ serviceName: 'relay-callback', env: inLambda, load: missing, warn });

    // Assess
    expect(tracing).toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatch(/tracing is off: the relay-tracing layer is not attached/);
    expect(warn.mock.calls[0]?.[0]).not.toContain('Require stack');
  });

  it('runs untraced, with a warning, when the layer cannot start a tracer', () => {
    // Prepare: a layer of another shape.
    const warn = vi.fn();
    const broken = () => ({
      Tracer: class {
        constructor() {
          throw new Error('unsupported options');
        }
      },
      captureLambdaHandler: () => ({}),
    });

    // Act
    const tracing = startTracing({ serviceName: 'relay-callback', env: inLambda, load: broken, warn });

    // Assess
    expect(tracing).toBeUndefined();
    expect(activeTracing()).toBeUndefined();
    expect(warn.mock.calls[0]?.[0]).toMatch(/tracing is off: the tracer could not start/);
  });

  it('names the same module as the layer the construct builds', () => {
    expect(LAYER_NAME_IN_INFRA).toBe(TRACING_LAYER_MODULE);
  });

  it('captures SDK clients with the real layer: every call gets an X-Ray subsegment middleware', () => {
    // Prepare: Powertools Tracer only traces inside a Lambda execution environment.
    vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs22.x');
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'relay-callback');
    const client = new DynamoDBClient({ region: 'eu-west-1' });
    const before = client.middlewareStack.identify();

    // Act
    const tracing = startTracing({ serviceName: 'relay-callback', env: inLambda, load: layerLoader() });
    const captured = captureClient(client);

    // Assess
    expect(tracing?.tracer.isTracingEnabled()).toBe(true);
    expect(activeTracing()).toBe(tracing);
    expect(typeof tracing?.middleware.before).toBe('function');
    const added = captured.middlewareStack.identify().filter((name) => !before.includes(name));
    expect(added.join(' ')).toMatch(/XRay/i);
  });
});
