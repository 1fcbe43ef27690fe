// Reduction kernel: one 256-invocation workgroup per output element; each invocation strides
// over the reduced elements, then a tree reduction in workgroup memory.
// meta: [0] outputs, [1] outer rank, [2] inner rank, [3] reduced count R, [4] input offset,
//       [5] workgroups per grid row, [8..16) outer shape, [16..24) outer strides,
//       [24..32) inner shape, [32..40) inner strides.
@group(0) @binding(1) var<storage, read_write> out: array</*{{OUT}}*/>;
@group(0) @binding(2) var<storage, read> inp: array</*{{IN}}*/>;

var<workgroup> partial: array</*{{T}}*/, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let o = wg.y * m(5u) + wg.x;
    if (o >= m(0u)) { return; }
    var rem = o;
    var base = m(4u);
    for (var d = m(1u); d > 0u; d--) {
        let s = m(7u + d);
        base += (rem % s) * m(15u + d);
        rem /= s;
    }
    let count = m(3u);
    var acc = /*{{T}}*/(0);
    for (var j = lid; j < count; j += 256u) {
        var r = j;
        var off = base;
        for (var d = m(2u); d > 0u; d--) {
            let s = m(23u + d);
            off += (r % s) * m(31u + d);
            r /= s;
        }
        acc += /*{{LOAD}}*/;
    }
    partial[lid] = acc;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) { partial[lid] += partial[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) {
        let v = /*{{FINISH}}*/;
        out[o] = /*{{STORE}}*/;
    }
}
