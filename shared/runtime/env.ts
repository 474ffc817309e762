import { ConfigError } from '../domain/errors';

/** A required environment variable, failing the cold start with its name when missing. */
export function requireEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (!value) throw new ConfigError(`Environment variable ${name} is required`);
  return value;
}
