// The read shapes leave out fields that have no value rather than sending null; this is the one
// helper every read verb uses for that.

/** Sets `target[key]` only when `value` is neither null nor undefined. */
export function setPresent<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | null | undefined): void {
  if (value !== null && value !== undefined) target[key] = value;
}
