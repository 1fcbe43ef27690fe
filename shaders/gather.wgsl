// Gather kernel (index_select, gather, take_along_dim, …): out[i] = src at i's coordinates, with
// the coordinate along `dim` replaced by the index read at i. Indices outside [0, size) give 0:
// a kernel cannot throw, so the host checks what it can (see tensor/indexing.rs).
// meta: [0] numel, [1] rank, [2] invocations per grid row, [3] dim, [4] src offset,
//       [5] index offset, [6] src size along dim, [8..16) out shape, [16..24) src strides,
//       [24..32) index strides.
@group(0) @binding(1) var<storage, read_write> out: array</*{{T}}*/>;
@group(0) @binding(2) var<storage, read> src: array</*{{T}}*/>;
@group(0) @binding(3) var<storage, read> idx: array<i32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * m(2u) + gid.x;
    if (i >= m(0u)) { return; }
    var rem = i;
    var so = m(4u);
    var io = m(5u);
    let dim = m(3u);
    for (var d = m(1u); d > 0u; d--) {
        let s = m(7u + d);
        let c = rem % s;
        rem /= s;
        io += c * m(23u + d);
        if (d - 1u != dim) { so += c * m(15u + d); }
    }
    let k = idx[io];
    if (k < 0 || u32(k) >= m(6u)) {
        out[i] = /*{{T}}*/(0);
        return;
    }
    out[i] = src[so + u32(k) * m(16u + dim)];
}
