/**
 * The op-table rows the TS layer exposes, by torch name, in the core's table order
 * (`src/ops/table.rs`), as the schema lists them (schema/elementwise.yaml, generated into
 * `schema/generated_rows.ts`). Each name has a `Tensor` method and a `torch.*` function, both
 * generated from the same entries; tests/types checks them at compile time, and the Node and
 * browser tests check these lists against the core's `op_names()` in both directions.
 *
 * @module
 */

import { BINARY_OPS, UNARY_OPS } from "../schema/generated_rows.js";

export { BINARY_OPS, UNARY_OPS };

/** A unary op-table row name. */
export type UnaryOp = (typeof UNARY_OPS)[number];
/** A binary op-table row name. */
export type BinaryOp = (typeof BINARY_OPS)[number];
