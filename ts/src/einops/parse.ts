/**
 * The einops pattern grammar, parsed by hand (no `eval`, no regular expression over the whole
 * pattern): one side of `"b c (h w) ... -> b (h w c) ..."` becomes a list of groups. The rules and
 * error messages are einops' own (its `ParsedExpression`), so a pattern einops rejects is
 * rejected here with the same words, and one it accepts means the same thing.
 *
 * @module
 */

import { EinopsError } from "../errors.js";

/** The one-character stand-in for `...` while parsing (einops uses the same character). */
export const ELLIPSIS = "\u2026";

/**
 * An unnamed axis of a given length (`(h 2)`): every occurrence is a different axis, as in
 * einops, so two `2`s never refer to each other.
 */
export class AnonymousAxis {
  constructor(readonly value: number) {}
  /** How einops prints it in its messages (`2-axis`). */
  toString(): string {
    return `${this.value}-axis`;
  }
}

/** An elementary axis: a name, `…` (the ellipsis as a whole) or an anonymous length. */
export type Axis = string | AnonymousAxis;

/** One side of a pattern. */
export interface ParsedSide {
  /** Top-level entries: a group of axes (`[]` for `1` or `()`), or `"…"` for a bare ellipsis. */
  composition: (Axis[] | typeof ELLIPSIS)[];
  /** Every axis named or numbered on this side (anonymous axes by identity, `…` included). */
  identifiers: Set<Axis>;
  hasEllipsis: boolean;
  /** Whether the ellipsis sits inside brackets (`(...)`); only allowed on the right. */
  ellipsisParenthesized: boolean;
  /** Whether an anonymous axis longer than 1 appears (`(h 2)`). */
  hasNonUnitaryAnonymous: boolean;
}

const IDENT_START = /^[\p{L}\p{Nl}_]$/u;
const IDENT_REST = /^[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]$/u;
const ALNUM = /^[\p{L}\p{N}]$/u;

/** Python's `str.isidentifier`, close enough for axis names. */
function isIdentifier(name: string): boolean {
  const chars = [...name];
  return (
    chars.length > 0 &&
    IDENT_START.test(chars[0]!) &&
    chars.every((c) => IDENT_REST.test(c))
  );
}

/** Why `name` cannot name an axis, or `""` when it can (einops' wording). */
export function axisNameProblem(name: string): string {
  if (!isIdentifier(name)) return "not a valid python identifier";
  if (name.startsWith("_") || name.endsWith("_"))
    return "axis name should should not start or end with underscore";
  return "";
}

/** Parses one side of a pattern (`"b (h w) c"`); throws {@link EinopsError} on bad syntax. */
export function parseSide(expression: string): ParsedSide {
  const side: ParsedSide = {
    composition: [],
    identifiers: new Set(),
    hasEllipsis: false,
    ellipsisParenthesized: false,
    hasNonUnitaryAnonymous: false,
  };
  if (expression.includes(".")) {
    if (!expression.includes("..."))
      throw new EinopsError(
        "Expression may contain dots only inside ellipsis (...)",
      );
    if (
      expression.split("...").length !== 2 ||
      expression.split(".").length !== 4
    )
      throw new EinopsError(
        "Expression may contain dots only inside ellipsis (...); only one ellipsis for tensor ",
      );
    expression = expression.replace("...", ELLIPSIS);
    side.hasEllipsis = true;
  }
  let group: Axis[] | null = null;

  const addAxis = (x: string): void => {
    if (side.identifiers.has(x))
      throw new EinopsError(
        `Indexing expression contains duplicate dimension "${x}"`,
      );
    if (x === ELLIPSIS) {
      side.identifiers.add(ELLIPSIS);
      if (group === null) side.composition.push(ELLIPSIS);
      else {
        group.push(ELLIPSIS);
        side.ellipsisParenthesized = true;
      }
      return;
    }
    const isNumber = /^[0-9]+$/.test(x);
    if (isNumber && Number(x) === 1) {
      // A length-1 axis: an empty group on its own, nothing inside brackets.
      if (group === null) side.composition.push([]);
      return;
    }
    const problem = axisNameProblem(x);
    if (!isNumber && problem !== "")
      throw new EinopsError(`Invalid axis identifier: ${x}\n${problem}`);
    let axis: Axis = x;
    if (isNumber) {
      const value = Number(x);
      if (value < 1)
        throw new EinopsError(
          `Anonymous axis should have positive length, not ${value}`,
        );
      axis = new AnonymousAxis(value);
      side.hasNonUnitaryAnonymous = true;
    }
    side.identifiers.add(axis);
    if (group === null) side.composition.push([axis]);
    else group.push(axis);
  };

  let current: string | null = null;
  for (const ch of expression) {
    if (ch === "(" || ch === ")" || ch === " ") {
      if (current !== null) addAxis(current);
      current = null;
      if (ch === "(") {
        if (group !== null)
          throw new EinopsError(
            "Axis composition is one-level (brackets inside brackets not allowed)",
          );
        group = [];
      } else if (ch === ")") {
        if (group === null) throw new EinopsError("Brackets are not balanced");
        side.composition.push(group);
        group = null;
      }
    } else if (ALNUM.test(ch) || ch === "_" || ch === ELLIPSIS) {
      current = current === null ? ch : current + ch;
    } else {
      throw new EinopsError(`Unknown character '${ch}'`);
    }
  }
  if (group !== null)
    throw new EinopsError(
      `Imbalanced parentheses in expression: "${expression}"`,
    );
  if (current !== null) addAxis(current);
  return side;
}

/** A Python `repr` of an axis or a set of axes, as einops' messages print them. */
export function pyRepr(x: Axis | Iterable<Axis>): string {
  if (typeof x === "string") return `'${x}'`;
  if (x instanceof AnonymousAxis) return x.toString();
  const items = [...x].map((a) => pyRepr(a));
  return `{${items.join(", ")}}`;
}

/** einops' wrapper around an error of one call: which call, the input's shape, the lengths. */
export function wrapError(
  e: unknown,
  reduction: string,
  pattern: string,
  shape: readonly number[] | null,
  lengths: Readonly<Record<string, number>>,
): unknown {
  if (!(e instanceof EinopsError)) return e;
  const info = Object.entries(lengths)
    .map(([k, v]) => `'${k}': ${v}`)
    .join(", ");
  const input =
    shape === null
      ? "\n Input is list. "
      : `\n Input tensor shape: torch.Size([${shape.join(", ")}]). `;
  return new EinopsError(
    ` Error while processing ${reduction}-reduction pattern "${pattern}".${input}Additional info: {${info}}.\n ${e.message}`,
  );
}
