// The weight's gradient of a depthwise 2-D convolution (`conv2d_depthwise.wgsl`), one workgroup
// per (image, output channel): for each kernel position, the products of the output gradient and
// the input values that position met, summed over the output positions by the workgroup's
// threads and then across them; each image writes its own share (summed over the images
// afterwards). The image's gradient and input rows are re-read per kernel position from cache.
// meta: [0] workgroups (N·O), [1] O, [2] Og, [3] oh, [4] ow, [5] kh, [6] kw, [7] H, [8] W,
//       [9..11) stride (h, w), [11..13) padding in front (h, w), [13..15) dilation (h, w),
//       [15..19) input strides (n, c, h, w), [19] gradient offset (contiguous [N, O, oh·ow]),
//       [20] input offset, [21] workgroups per grid row, [22] `out`'s row stride.
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> gy: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;

var<workgroup> red: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let q = wg.y * m(21u) + wg.x;
    if (q >= m(0u)) { return; }
    let oc = q % m(1u);
    let n = q / m(1u);
    let ow = m(4u);
    let npos = m(3u) * ow;
    let kw = m(6u);
    let xb = m(20u) + n * m(15u) + (oc / m(2u)) * m(16u);
    let gb = m(19u) + q * npos;
    for (var r = 0u; r < m(5u) * kw; r++) {
        let i = r / kw;
        let dy = i32(i * m(13u)) - i32(m(11u));
        let dx = i32((r - i * kw) * m(14u)) - i32(m(12u));
        var acc = 0.0;
        for (var l = t; l < npos; l += 256u) {
            let oy = l / ow;
            let y = i32(oy * m(9u)) + dy;
            let xx = i32((l - oy * ow) * m(10u)) + dx;
            if (u32(y) < m(7u) && u32(xx) < m(8u)) {
                acc = fma(gy[gb + l], x[xb + u32(y) * m(17u) + u32(xx) * m(18u)], acc);
            }
        }
        red[t] = acc;
        workgroupBarrier();
        for (var s = 128u; s > 0u; s >>= 1u) {
            if (t < s) {
                red[t] += red[t + s];
            }
            workgroupBarrier();
        }
        if (t == 0u) {
            out[q * m(22u) + r] = red[0];
        }
        workgroupBarrier();
    }
}
