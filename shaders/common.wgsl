// Shared by every kernel: the per-dispatch parameters ("meta") live in one uniform arena, a
// 512-byte slot per dispatch chosen by a dynamic offset; `m(i)` reads word i of this slot.
struct Meta { w: array<vec4<u32>, 32> }
@group(0) @binding(0) var<uniform> params: Meta;

fn m(i: u32) -> u32 { return params.w[i >> 2u][i & 3u]; }

// NaN test that survives fast-math style folding of `x != x`.
fn isnan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn isnan_i32(x: i32) -> bool { return false; }

fn isinf_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }
// ±inf with the sign of `s`, and NaN, built at run time (constant inf/NaN are shader errors).
fn inf_like(s: f32) -> f32 { return bitcast<f32>((bitcast<u32>(s) & 0x80000000u) | 0x7f800000u); }
fn nan_like(s: f32) -> f32 { return bitcast<f32>(bitcast<u32>(s) | 0x7fc00000u); }
fn is_odd_int(b: f32) -> bool { return floor(b) == b && (abs(b) % 2.0) == 1.0; }

// C99/IEEE pow, which PyTorch follows; WGSL's pow is undefined for bases <= 0 and non-finite
// operands.
fn pow_f32(a: f32, b: f32) -> f32 {
    if (b == 0.0 || a == 1.0) { return 1.0; }
    if (isnan_f32(a) || isnan_f32(b)) { return nan_like(a + b); }
    let aa = abs(a);
    if (isinf_f32(b)) {
        if (aa == 1.0) { return 1.0; }
        if ((aa < 1.0) == (b > 0.0)) { return 0.0; }
        return inf_like(1.0 + aa);
    }
    let odd = is_odd_int(b);
    if (a == 0.0) {
        // ±0: odd integral exponents keep the sign of the zero.
        if (b < 0.0) { return select(inf_like(1.0), inf_like(a), odd); }
        return select(0.0, a, odd);
    }
    if (isinf_f32(a)) {
        let r = select(aa, 0.0, b < 0.0);
        return select(r, -r, a < 0.0 && odd);
    }
    if (a < 0.0) {
        if (floor(b) != b) { return nan_like(a); }
        let r = pow(aa, b);
        return select(r, -r, odd);
    }
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

// Bits of 1/(2π) after the binary point, behind one zero word (for the bits before it).
const INV_TAU_BITS = array<u32, 7>(0u, 0x28BE60DBu, 0x9391054Au, 0x7F09D5F4u, 0x7D4D3770u, 0x36D8A566u, 0x4F10E410u);

// High 32 bits of the 64-bit product a·b.
fn mulhi_u32(a: u32, b: u32) -> u32 {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
}

// An angle in [-π, π) with the sine and cosine of x (Payne–Hanek reduction): WGSL bounds the
// error of sin/cos only on [-π, π], and PyTorch gives correct results for any finite x.
// x = m·2^e exactly; the turns x/(2π) mod 1 come from a 64-bit window of 1/(2π)'s bits.
fn reduce_angle(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    let biased = (bits >> 23u) & 0xffu;
    if (biased < 128u) { return x; }          // |x| < 2: already in range
    if (biased == 255u) { return nan_like(x); } // ±inf, NaN
    let m = (bits & 0x7fffffu) | 0x800000u;
    let g = biased - 118u;                    // bit e + 1 of 1/(2π), counted in INV_TAU_BITS
    let q = g / 32u;
    let r = g % 32u;
    let w0 = INV_TAU_BITS[q];
    let w1 = INV_TAU_BITS[q + 1u];
    let w2 = INV_TAU_BITS[q + 2u];
    let hi = select((w0 << r) | (w1 >> (32u - r)), w0, r == 0u);
    let lo = select((w1 << r) | (w2 >> (32u - r)), w1, r == 0u);
    let turns = m * hi + mulhi_u32(m, lo); // frac(|x| / 2π) · 2^32
    let angle = f32(bitcast<i32>(turns)) * 1.4629180792671596e-9; // 2π / 2^32
    return select(angle, -angle, x < 0.0);
}

// Transcendentals with PyTorch's results on the whole f32 range. Tint may assume no NaN/inf and
// SwiftShader's builtins are approximate near their edges, so specials are handled explicitly
// (bit tests) and the builtins only see arguments where they are accurate.
fn exp_f32(a: f32) -> f32 {
    if (isnan_f32(a)) { return a; }
    if (a > 88.72284) { return inf_like(1.0 + abs(a)); }
    if (a < -103.97208) { return 0.0; }
    return exp(a);
}

fn log_f32(a: f32) -> f32 {
    if (isnan_f32(a)) { return a; }
    if (a < 0.0) { return nan_like(a); }
    if (a == 0.0) { return inf_like(-1.0 - abs(a)); }
    if (isinf_f32(a)) { return a; }
    return log(a);
}

fn sigmoid_f32(a: f32) -> f32 {
    if (isnan_f32(a)) { return a; }
    if (a >= 0.0) { return 1.0 / (1.0 + exp_f32(-a)); }
    let e = exp_f32(a);
    return e / (1.0 + e);
}

fn tanh_f32(a: f32) -> f32 {
    if (isnan_f32(a)) { return a; }
    // |tanh(x)| rounds to 1 in f32 beyond 9.01; the builtin overflows on large |x|.
    if (abs(a) > 9.1) { return sign(a); }
    return tanh(a);
}

// sin and cos: Payne–Hanek to [-π, π), Cody–Waite to [-π/4, π/4] with the quadrant, then
// minimax polynomials (error ~1e-7), instead of builtins that are loose on some adapters.
fn sincos_f32(x: f32, want_cos: bool) -> f32 {
    if (isnan_f32(x) || isinf_f32(x)) { return nan_like(x); }
    let a = reduce_angle(x);
    let j = round(a * 0.63661977236758134);
    let r = (a - j * 1.5707963705062866) + j * 4.371139000186243e-8;
    let z = r * r;
    let s = r + r * z * (-1.6666654611e-1 + z * (8.3321608736e-3 + z * -1.9515295891e-4));
    let c = 1.0 - 0.5 * z + z * z * (4.166664568298827e-2 + z * (-1.388731625493765e-3 + z * 2.443315711809948e-5));
    let q = (i32(j) + select(0, 1, want_cos)) & 3;
    if (q == 0) { return s; }
    if (q == 1) { return c; }
    if (q == 2) { return -s; }
    return -c;
}

// An f32 rounded to float16 (round to nearest even; beyond ±65504 → ±inf; NaN kept), as the f32
// word a float16 tensor stores. Subnormal halves are multiples of 2⁻²⁴.
fn round_f16(v: f32) -> f32 {
    if (isnan_f32(v)) { return v; }
    if (abs(v) < 6.103515625e-05) { return round(v * 16777216.0) / 16777216.0; }
    let b = bitcast<u32>(v);
    let r = bitcast<f32>((b + 0xfffu + ((b >> 13u) & 1u)) & 0xffffe000u);
    if (abs(r) > 65504.0) { return inf_like(v); }
    return r;
}

// An f32 rounded to bfloat16 (round to nearest even on the top 16 bits; NaN kept quiet).
fn round_bf16(v: f32) -> f32 {
    let b = bitcast<u32>(v);
    if (isnan_f32(v)) { return bitcast<f32>(b | 0x00400000u); }
    return bitcast<f32>((b + 0x7fffu + ((b >> 16u) & 1u)) & 0xffff0000u);
}
