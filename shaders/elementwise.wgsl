// Elementwise kernel: one invocation per output element, over a 2-D grid of 256-wide groups.
// meta: [0] numel, [1] rank, [2] invocations per grid row, [3] scalar operand bits,
//       [4 + k] offset of input k, [8..16) shape, [16..24) strides of input 0, [24..32) input 1.
@group(0) @binding(1) var<storage, read_write> out: array</*{{OUT}}*/>;
/*{{INPUTS}}*/

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * m(2u) + gid.x;
    if (i >= m(0u)) { return; }
/*{{INDEX}}*/
/*{{LOADS}}*/
    out[i] = /*{{STORE}}*/;
}
