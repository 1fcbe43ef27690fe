// 2-D max pooling with indices (ops::pool::MaxPool2d): one invocation per output (n, c, oh, ow)
// scans its window's in-bounds taps, keeping the first largest value (a NaN replaces the running
// maximum, as PyTorch's kernel does), and writes the value and its position h·W + w in the plane.
// Padding is never read, so a window of -inf values still names an in-bounds position.
// meta: [0] outputs, [1] C, [2] H, [3] W, [4] OH, [5] OW, [6] kh, [7] kw, [8] stride h,
//       [9] stride w, [10] pad h, [11] pad w, [12] dilation h, [13] dilation w, [14] x offset,
//       [15..19) x strides (n, c, h, w), [19] invocations per grid row, [20] 1: write idx.
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> idx: array<i32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let e = gid.y * m(19u) + gid.x;
    if (e >= m(0u)) { return; }
    let H = i32(m(2u));
    let W = i32(m(3u));
    let OH = m(4u);
    let OW = m(5u);
    let ow = e % OW;
    let oh = (e / OW) % OH;
    let p = e / (OW * OH);
    let base = m(14u) + (p / m(1u)) * m(15u) + (p % m(1u)) * m(16u);
    let h0 = i32(oh * m(8u)) - i32(m(10u));
    let w0 = i32(ow * m(9u)) - i32(m(11u));
    var best = 0.0;
    var at = -1;
    for (var i = 0u; i < m(6u); i++) {
        let h = h0 + i32(i * m(12u));
        if (h < 0 || h >= H) { continue; }
        for (var j = 0u; j < m(7u); j++) {
            let w = w0 + i32(j * m(13u));
            if (w < 0 || w >= W) { continue; }
            let v = x[base + u32(h) * m(17u) + u32(w) * m(18u)];
            if (at < 0 || v > best || isnan_f32(v)) {
                best = v;
                at = h * W + w;
            }
        }
    }
    out[e] = best;
    if (m(20u) != 0u) { idx[e] = at; }
}
