// Elementwise kernel, contiguous variant: four consecutive elements per invocation, read and
// written as vec4 words, over a 2-D grid of 256-wide groups (a quarter of the general kernel's).
// Each element is computed by the same statements as in shaders/elementwise.wgsl (one block per
// lane), so the results are the same bit for bit. Every leaf starts at an offset that is a
// multiple of 4 and the output at 0; the buffers hold whole words up to the last element.
// meta: [0] numel, [2] invocations per grid row, [8 + k] offset of leaf k, [16 + q] scalar q's bits.
@group(0) @binding(1) var<storage, read_write> out: array<vec4</*{{OUT}}*/>>;
/*{{INPUTS}}*/

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * m(2u) + gid.x;
    let n = m(0u);
    let whole = n >> 2u;
    if (i > whole || (i == whole && (n & 3u) == 0u)) { return; }
/*{{LOADS}}*/
    var r: vec4</*{{OUT}}*/>;
/*{{LANES}}*/
    if (i < whole) {
        out[i] = r;
    } else {
        // The last, partial word: lanes past the end keep what the buffer holds.
        out[i] = select(out[i], r, vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n & 3u));
    }
}
