// Stable row sorts as a bitonic network over rows padded to a power of two P, in global memory:
// `init` copies each row's words with their indices into `data` (interleaved key, index), one
// `stage` dispatch per (k, j) step orders pairs, `final` writes the first n indices of each row.
// Padding (index >= n) sorts last; NaN sorts above +inf; equal keys keep index order, so the
// network's result equals a stable sort.
// meta: [0] rows, [1] n, [2] P, [3] input offset, [4] k, [5] j, [6] invocations per grid row,
//       [7] descending.
/*{{BINDINGS}}*/

// Whether (xk, xi) goes before (yk, yi).
fn before(xk: u32, xi: u32, yk: u32, yi: u32) -> bool {
    let n = m(1u);
    if (xi >= n) { return false; }
    if (yi >= n) { return true; }
    let a = bitcast</*{{T}}*/>(xk);
    let b = bitcast</*{{T}}*/>(yk);
/*{{ORDER}}*/
    if (m(7u) != 0u) { return greater || (equal && xi < yi); }
    return less || (equal && xi < yi);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = gid.y * m(6u) + gid.x;
/*{{BODY}}*/
}
