/**
 * Installs the `Tensor` methods of the op families (one module per family, next to its
 * `torch.*` functions in ops/): importing this module declares them on `Tensor` and puts them on
 * its prototype. The elementwise rows (tensor/elementwise.ts) come first: aliases.ts copies some.
 *
 * @module
 */

import "../elementwise.js";
import "./custom_devices.js";
import "./devices.js";
import "./creation_like.js";
import "./pointwise.js";
import "./bitwise.js";
import "./composites.js";
import "./conditional.js";
import "./reductions.js";
import "./nn_kernels.js";
import "./indexing.js";
import "./index_put.js";
import "./masked_scatter.js";
import "./scatter.js";
import "./sorting.js";
import "./searching.js";
import "./unique.js";
import "./joins.js";
import "./linalg.js";
import "./index_names.js";
import "./aliases.js";
