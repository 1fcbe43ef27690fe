// Shared by every kernel: the per-dispatch parameters ("meta") live in one uniform arena, a
// 256-byte slot per dispatch chosen by a dynamic offset; `m(i)` reads word i of this slot.
struct Meta { w: array<vec4<u32>, 16> }
@group(0) @binding(0) var<uniform> params: Meta;

fn m(i: u32) -> u32 { return params.w[i >> 2u][i & 3u]; }

// NaN test that survives fast-math style folding of `x != x`.
fn isnan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn isnan_i32(x: i32) -> bool { return false; }

// WGSL's pow is undefined for negative bases; PyTorch defines them for integral exponents.
fn pow_f32(a: f32, b: f32) -> f32 {
    if (b == 0.0) { return 1.0; }
    if (a < 0.0 && floor(b) == b) {
        let r = pow(-a, b);
        return select(r, -r, (abs(b) % 2.0) == 1.0);
    }
    if (a == 0.0 && b > 0.0) { return 0.0; }
    return pow(a, b);
}

// Integer power as PyTorch's integer kernels compute it (negative exponents: 0 unless |a| = 1).
fn pow_i32(a: i32, b: i32) -> i32 {
    if (b < 0) {
        if (a == 1) { return 1; }
        if (a == -1) { return select(-1, 1, (b % 2) == 0); }
        return 0;
    }
    var base = a;
    var e = u32(b);
    var acc = 1;
    while (e > 0u) {
        if ((e & 1u) == 1u) { acc = acc * base; }
        base = base * base;
        e = e >> 1u;
    }
    return acc;
}
