// Depthwise 2-D convolution (one input channel per group: `Cg` = 1), one invocation per output
// element: the kh·kw products of its window, zero outside the input. A group's few output
// channels would fill one row of the implicit GEMM's 64-row tiles (`conv2d.wgsl`); here each
// output costs its window's loads, served from cache by its neighbours' overlapping windows.
// meta: [0] outputs (N·O·oh·ow), [1] O, [2] Og, [3] oh, [4] ow, [5] kh, [6] kw, [7] H, [8] W,
//       [9..11) stride (h, w), [11..13) padding in front (h, w), [13..15) dilation (h, w),
//       [15..19) input strides (n, c, h, w), [19] weight offset, [20] input offset,
//       [21] invocations per grid row, [22] the weight's row stride.
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.y * m(21u) + gid.x;
    if (idx >= m(0u)) { return; }
    let ox = idx % m(4u);
    let r1 = idx / m(4u);
    let oy = r1 % m(3u);
    let r2 = r1 / m(3u);
    let oc = r2 % m(1u);
    let n = r2 / m(1u);
    let xb = m(20u) + n * m(15u) + (oc / m(2u)) * m(16u);
    let wb = m(19u) + oc * m(22u);
    let y0 = i32(oy * m(9u)) - i32(m(11u));
    let x0 = i32(ox * m(10u)) - i32(m(12u));
    let kw = m(6u);
    var acc = 0.0;
    for (var i = 0u; i < m(5u); i++) {
        let y = y0 + i32(i * m(13u));
        if (u32(y) < m(7u)) {
            let row = xb + u32(y) * m(17u);
            for (var j = 0u; j < kw; j++) {
                let xx = x0 + i32(j * m(14u));
                if (u32(xx) < m(8u)) {
                    acc = fma(w[wb + i * kw + j], x[row + u32(xx) * m(18u)], acc);
                }
            }
        }
    }
    out[idx] = acc;
}
