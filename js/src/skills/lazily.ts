// A value made on first use and kept: how skill modules build their Zod
// contracts when a world first registers them rather than when the module is
// evaluated, so they are not part of the engine snapshot every start
// deserialises. Every later call returns the same object.

/** `make`'s value, made on the first call and the same on every call after. */
export function lazily<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}
