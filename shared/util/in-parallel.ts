/**
 * `work` applied to every element, at most `width` calls in flight at once (a store's reads or writes
 * fanned out without flooding the table or the SDK's sockets); the results in the elements' order.
 *
 * The first failure rejects the whole call at once and no element is started after it: the caller's
 * answer is that failure, and work begun after it (a read or write in the middle of an outage) would
 * only be wasted. Calls already in flight run to their end; their outcomes are dropped.
 */
export async function inParallel<T, R>(
  all: readonly T[],
  width: number,
  work: (one: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(all.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < all.length) {
      const at = next++;
      try {
        results[at] = await work(all[at]!, at);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, width), all.length) }, worker));
  return results;
}
