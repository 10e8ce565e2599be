// The benchmarks' one way of keeping calls in flight: `width` workers, each making its next call
// as soon as its last one is answered, until `calls` calls were made.

/**
 * Makes `calls` calls of `call()` with at most `width` (64, the figure) in flight at once.
 * @param {() => Promise<unknown>} call
 * @param {number} calls
 * @param {number} [width]
 */
export async function inFlight(call, calls, width = 64) {
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      next++;
      await call();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
}
