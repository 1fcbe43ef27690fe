// 2-D max pooling's input gradient (ops::pool::MaxPool2dBackward): one invocation per input
// element (n, c, h, w) sums the gradient of every window whose recorded maximum (idx) is this
// element, windows in increasing (oh, ow) as PyTorch's kernel adds them. A window covers row h
// when oh·sh − ph + i·dh = h for a tap i < kh: oh from ⌈(h + ph − (kh − 1)·dh) / sh⌉ to
// ⌊(h + ph) / sh⌋; the index test settles the dilation. No atomics, every element written.
// meta: [0] inputs, [1] H, [2] W, [3] OH, [4] OW, [5] kh, [6] kw, [7] stride h, [8] stride w,
//       [9] pad h, [10] pad w, [11] dilation h, [12] dilation w, [13] grad offset,
//       [14..18) grad strides (n, c, oh, ow), [18] C, [19] invocations per grid row.
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> g: array<f32>;
@group(0) @binding(3) var<storage, read> idx: array<i32>;

// The first output whose window can reach input position `q` (padded: q + pad).
fn first_window(q: i32, k: i32, d: i32, s: i32) -> u32 {
    let lo = q - (k - 1) * d;
    if (lo <= 0) { return 0u; }
    return u32((lo + s - 1) / s);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let e = gid.y * m(19u) + gid.x;
    if (e >= m(0u)) { return; }
    let H = m(1u);
    let W = m(2u);
    let OH = m(3u);
    let OW = m(4u);
    let w = e % W;
    let h = (e / W) % H;
    let p = e / (W * H);
    let hp = i32(h + m(9u));
    let wp = i32(w + m(10u));
    let sh = i32(m(7u));
    let sw = i32(m(8u));
    let oh0 = first_window(hp, i32(m(5u)), i32(m(11u)), sh);
    let ow0 = first_window(wp, i32(m(6u)), i32(m(12u)), sw);
    let oh1 = min(OH, u32(hp / sh) + 1u);
    let ow1 = min(OW, u32(wp / sw) + 1u);
    let here = i32(h * W + w);
    let gbase = m(13u) + (p / m(18u)) * m(14u) + (p % m(18u)) * m(15u);
    var acc = 0.0;
    for (var oh = oh0; oh < oh1; oh++) {
        for (var ow = ow0; ow < ow1; ow++) {
            if (idx[(p * OH + oh) * OW + ow] == here) {
                acc += g[gbase + oh * m(16u) + ow * m(17u)];
            }
        }
    }
    out[e] = acc;
}
