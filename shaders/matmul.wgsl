// Batched matmul, 16×16 output tile per workgroup staged through workgroup memory; inputs are
// strided views (transposes and broadcast batch dims cost no copy).
// meta: [0] M, [1] N, [2] K, [3] batch rank, [4] offset a, [5] offset b, [6] a row stride,
//       [7] a k stride, [8] b k stride, [9] b col stride, [12..16) batch shape,
//       [16..20) a batch strides, [20..24) b batch strides.
@group(0) @binding(1) var<storage, read_write> out: array</*{{OUT}}*/>;
@group(0) @binding(2) var<storage, read> a: array</*{{IN}}*/>;
@group(0) @binding(3) var<storage, read> b: array</*{{IN}}*/>;

var<workgroup> ta: array<array</*{{T}}*/, 16>, 16>;
var<workgroup> tb: array<array</*{{T}}*/, 16>, 16>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let M = m(0u);
    let N = m(1u);
    let K = m(2u);
    let row = wg.y * 16u + lid.y;
    let col = wg.x * 16u + lid.x;
    var rem = wg.z;
    var oa = m(4u);
    var ob = m(5u);
    for (var d = m(3u); d > 0u; d--) {
        let s = m(11u + d);
        let c = rem % s;
        rem /= s;
        oa += c * m(15u + d);
        ob += c * m(19u + d);
    }
    var acc = /*{{T}}*/(0);
    for (var t = 0u; t < K; t += 16u) {
        let ka = t + lid.x;
        if (row < M && ka < K) {
            ta[lid.y][lid.x] = /*{{T}}*/(a[oa + row * m(6u) + ka * m(7u)]);
        } else {
            ta[lid.y][lid.x] = /*{{T}}*/(0);
        }
        let kb = t + lid.y;
        if (kb < K && col < N) {
            tb[lid.y][lid.x] = /*{{T}}*/(b[ob + kb * m(8u) + col * m(9u)]);
        } else {
            tb[lid.y][lid.x] = /*{{T}}*/(0);
        }
        workgroupBarrier();
        for (var p = 0u; p < 16u; p++) {
            acc += ta[lid.y][p] * tb[p][lid.x];
        }
        workgroupBarrier();
    }
    if (row < M && col < N) {
        let v = acc;
        out[wg.z * M * N + row * N + col] = /*{{STORE}}*/;
    }
}
