// Binary search of each value in its sorted row (searchsorted, bucketize).
// meta: [0] values, [1] n per row, [2] m, [3] one shared sorted row, [4] right, [5] sorted offset,
//       [6] values offset, [7] invocations per grid row.
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
@group(0) @binding(2) var<storage, read> sorted: array</*{{T}}*/>;
@group(0) @binding(3) var<storage, read> vals: array</*{{T}}*/>;

fn ge(a: /*{{T}}*/, b: /*{{T}}*/) -> bool { /*{{GE}}*/ }
fn gt(a: /*{{T}}*/, b: /*{{T}}*/) -> bool { /*{{GT}}*/ }

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = gid.y * m(7u) + gid.x;
    if (t >= m(0u)) { return; }
    var r = 0u;
    if (m(3u) == 0u) { r = t / m(1u); }
    let base = m(5u) + r * m(2u);
    let v = vals[m(6u) + t];
    var lo = 0u;
    var hi = m(2u);
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        let s = sorted[base + mid];
        var go = !ge(s, v);
        if (m(4u) != 0u) { go = !gt(s, v); }
        if (go) { lo = mid + 1u; } else { hi = mid; }
    }
    out[t] = i32(lo);
}
