// Device-side value check (CUDA's device-side assert, reported with PyTorch's CPU wording): every
// element of a strided tensor must lie in [lo, hi] (NaN fails) unless it equals `except`. Each
// check dispatched since the last report has a slot of its own, so that the host can tell which
// checks failed and raise each failure on the reads that depend on it (webgpu/checks.rs); the
// first failing invocation of a check records its message id, the value's bits and the side in
// its slot. The header keeps the first failure of all, for checks that have no slot (a replayed
// graph's, or more checks between two reports than there are slots).
// meta: [0] numel, [1] rank, [2] invocations per grid row, [3] offset, [4] message id,
//       [5] flags (1: int32 values, 2: an `except` value), [6] lo, [7] hi, [8] except (bits of
//       the values' type), [9] slot (0xffffffff: none), [16..24) shape, [24..32) strides.
// err: [0] failures, [1] message id, [2] value bits, [3] 1 below lo (or NaN) / 2 above hi,
//      [4] flags of the failing check; then from word 8, four words a slot: failures, message
//      id, value bits, side | flags << 8.
@group(0) @binding(1) var<storage, read_write> err: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> x: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * m(2u) + gid.x;
    if (i >= m(0u)) { return; }
    var rem = i;
    var o = m(3u);
    for (var d = m(1u); d > 0u; d--) {
        let s = m(15u + d);
        o += (rem % s) * m(23u + d);
        rem /= s;
    }
    let w = x[o];
    let flags = m(5u);
    if ((flags & 2u) != 0u && w == m(8u)) { return; }
    var side = 0u;
    if ((flags & 1u) != 0u) {
        let v = bitcast<i32>(w);
        if (v < bitcast<i32>(m(6u))) { side = 1u; } else if (v > bitcast<i32>(m(7u))) { side = 2u; }
    } else {
        let v = bitcast<f32>(w);
        if (v > bitcast<f32>(m(7u))) { side = 2u; } else if (!(v >= bitcast<f32>(m(6u)))) { side = 1u; }
    }
    if (side == 0u) { return; }
    if (atomicAdd(&err[0], 1u) == 0u) {
        atomicStore(&err[1], m(4u));
        atomicStore(&err[2], w);
        atomicStore(&err[3], side);
        atomicStore(&err[4], flags);
    }
    let slot = m(9u);
    if (slot != 0xffffffffu) {
        let at = 8u + slot * 4u;
        if (atomicAdd(&err[at], 1u) == 0u) {
            atomicStore(&err[at + 1u], m(4u));
            atomicStore(&err[at + 2u], w);
            atomicStore(&err[at + 3u], side | (flags << 8u));
        }
    }
}
