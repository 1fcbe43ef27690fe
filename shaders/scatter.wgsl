// Scatter kernel (scatter, scatter with a value, scatter_add): one invocation per index element
// i; it writes src[i] (or the scalar) to out at i's coordinates with the one along `dim`
// replaced by index[i]. `out` already holds a copy of self. Adds are atomic (a compare-exchange
// loop for f32). Indices outside [0, size) are skipped.
// meta: [0] numel of index, [1] rank, [2] invocations per grid row, [3] dim, [4] src offset,
//       [5] index offset, [6] out size along dim, [7] scalar value bits, [8..16) index shape,
//       [16..24) out strides, [24..32) index strides, [32..40) src strides.
@group(0) @binding(1) var<storage, read_write> out: array</*{{OUT}}*/>;
@group(0) @binding(2) var<storage, read> idx: array<i32>;
/*{{SRC_BINDING}}*/

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * m(2u) + gid.x;
    if (i >= m(0u)) { return; }
    var rem = i;
    var dst = 0u;
    var io = m(5u);
    var so = m(4u);
    let dim = m(3u);
    for (var d = m(1u); d > 0u; d--) {
        let s = m(7u + d);
        let c = rem % s;
        rem /= s;
        io += c * m(23u + d);
        so += c * m(31u + d);
        if (d - 1u != dim) { dst += c * m(15u + d); }
    }
    let k = idx[io];
    if (k < 0 || u32(k) >= m(6u)) { return; }
    dst += u32(k) * m(16u + dim);
/*{{WRITE}}*/
}
