/**
 * Bundled in place of `mnemonist/lru-cache` (esbuild alias, see infra/bundling.ts). Its one user in the
 * bundles is the SDK's endpoint-discovery cache (`@aws-sdk/endpoint-cache`, built by every DynamoDB client
 * and used only when endpoint discovery is on, which the relay never turns on). mnemonist's typed-array
 * LRU is ~5 KB of every bundle; a Map keeps insertion order, which is all an LRU needs. Only the Lambda
 * bundles use this; local runs and tests keep mnemonist.
 */
export default class LRUCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** The value, without touching its recency. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Stores the value as the most recently used; the least recently used goes when over capacity. */
  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    return this;
  }

  clear(): void {
    this.entries.clear();
  }
}
