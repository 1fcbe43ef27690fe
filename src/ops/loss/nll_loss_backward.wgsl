// F.nll_loss's input gradient (nll.rs, NllLossBackward): one invocation per element of the
// contiguous (n, c) gradient, 0 except at (i, t = tgt[i]) for rows the forward counts, where it is
// -w[t]·s: s = g[i] ('none'), g[0] ('sum'), g[0] / total weight ('mean'). This replaces the
// one-hot product's backward chain with a single write of every element.
// meta: [0] n·c, [1] c, [2] ignore_index (i32 bits; -1 when outside [0, c)), [3] 1 when a weight
//       is bound, [4] g offset, [5] g stride (0 for a scalar g), [6] reduction (0 none, 1 sum,
//       2 mean), [7] tgt offset, [8] tgt stride, [9] w offset, [10] w stride, [11] total weight
//       offset, [12] invocations per grid row.
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> g: array<f32>;
@group(0) @binding(3) var<storage, read> tgt: array<i32>;
// Without a weight (or, for 'none'/'sum', a total) the host binds `g` here.
@group(0) @binding(4) var<storage, read> w: array<f32>;
@group(0) @binding(5) var<storage, read> total: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let e = gid.y * m(12u) + gid.x;
    if (e >= m(0u)) { return; }
    let c = m(1u);
    let i = e / c;
    let t = tgt[m(7u) + i * m(8u)];
    var v = 0.0;
    if (t >= 0 && u32(t) == e % c && t != bitcast<i32>(m(2u))) {
        var s = g[m(4u) + i * m(5u)];
        if (m(6u) == 2u) { s = s / total[m(11u)]; }
        var wt = 1.0;
        if (m(3u) != 0u) { wt = w[m(9u) + u32(t) * m(10u)]; }
        v = -wt * s;
    }
    out[e] = v;
}
