/**
 * Capabilities from several sources, merged into the one object a client declares: what its
 * handlers imply, what each feature adds (tasks have a receiving side and a requesting side that
 * both write under `capabilities.tasks`), then the user's own declarations on top.
 *
 * Objects merge key by key at every depth, so `{ tasks: { requests: { sampling: ... } } }` and
 * `{ tasks: { list: {} } }` keep each other's keys; any other value (an array, a string,
 * `undefined`) replaces what was there.
 */
export type CapabilityObject = Record<string, unknown>;

/** A new object: `base` with each layer merged over it in turn; none of the arguments is changed. */
export function mergeCapabilities(base: CapabilityObject, ...layers: (CapabilityObject | undefined)[]): CapabilityObject {
  let merged: CapabilityObject = { ...base };
  for (const layer of layers) if (layer) merged = mergeTwo(merged, layer);
  return merged;
}

function mergeTwo(under: CapabilityObject, over: CapabilityObject): CapabilityObject {
  const merged: CapabilityObject = { ...under };
  for (const [key, value] of Object.entries(over)) {
    const mine = Object.hasOwn(merged, key) ? merged[key] : undefined;
    // Defined, not assigned: a "__proto__" key from a parsed file stays a key.
    Object.defineProperty(merged, key, {
      value: isPlainObject(mine) && isPlainObject(value) ? mergeTwo(mine, value) : value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return merged;
}

function isPlainObject(value: unknown): value is CapabilityObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
