// Type-level assertions for the shape tests (a dozen lines, so no dependency is added for them).

/** `true` when `A` and `B` are the same type (not merely mutually assignable). */
export type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;

/** Compiles only when `T` is `true`: `assert<Equal<X, Y>>()`. */
export function assert<T extends true>(): void {
  void (0 as unknown as T);
}

/** Compiles only when `value`'s type is exactly `T`: `expectType<Tensor<[2, 3]>>()(x)`. */
export function expectType<T>(): <V>(
  value: V & (Equal<V, T> extends true ? unknown : { expected: T }),
) => void {
  return () => undefined;
}
