// Elementwise kernel: one invocation per output element, over a 2-D grid of 256-wide groups.
// A fused chain is several nodes; each node's value s<j> is kept in its dtype's storage form,
// exactly as an unfused kernel would have stored it.
// meta: [0] numel, [1] rank, [2] invocations per grid row, [8 + k] offset of leaf k,
//       [16 + q] scalar q's bits, [24..32) shape, [32 + 8k .. 40 + 8k) strides of leaf k,
//       [3] and [88..96): offset and strides of the output when it is a strided view.
@group(0) @binding(1) var<storage, read_write> out: array</*{{OUT}}*/>;
/*{{INPUTS}}*/

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * m(2u) + gid.x;
    if (i >= m(0u)) { return; }
/*{{INDEX}}*/
/*{{COMPUTE}}*/
    out[oo] = /*{{RESULT}}*/;
}
