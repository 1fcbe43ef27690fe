// Poisson draws (torch.poisson), one invocation per element: each element reads its own Philox
// stream, counter [element, call, POISSON_TAG, group] under the generator's key (cpu.rs is
// the twin: the same words on every device). Below rate 10, Knuth's product of uniforms;
// from 10 up, Hörmann's transformed rejection (PTRS), about 1.2 pairs of uniforms per draw.
// meta: [0] n, [1] invocations per grid row, [2] rate offset, [3] key lo, [4] key hi, [5] call,
//       [6] tag.
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> rate: array<f32>;

// The high and low words of a * b (WGSL has no 64-bit integers).
fn mulhilo(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>(a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u), a * b);
}

// Ten rounds of Philox4x32.
fn philox(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    var c = counter;
    var k = key;
    for (var r = 0u; r < 10u; r++) {
        let p0 = mulhilo(0xD2511F53u, c.x);
        let p1 = mulhilo(0xCD9E8D57u, c.z);
        c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y);
        k += vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
    }
    return c;
}

struct Stream {
    c: vec4<u32>,
    buf: vec4<u32>,
    used: u32,
}

// The next uniform in [0, 1) (24 random bits, as torch.rand).
fn next_uniform(s: ptr<function, Stream>) -> f32 {
    if ((*s).used == 4u) {
        (*s).buf = philox((*s).c, vec2<u32>(m(3u), m(4u)));
        (*s).c.w += 1u;
        (*s).used = 0u;
    }
    let x = (*s).buf[(*s).used];
    (*s).used += 1u;
    return f32(x >> 8u) * (1.0 / 16777216.0);
}

fn poisson(lam: f32, s: ptr<function, Stream>) -> f32 {
    if (lam == 0.0) { return 0.0; }
    if (!(lam > 0.0) || isinf_f32(lam)) { return nan_like(1.0); }
    if (lam < 10.0) {
        let limit = exp_f32(-lam);
        var p = 1.0;
        var k = 0.0;
        for (var i = 0u; i < 1000u; i++) {
            p *= next_uniform(s);
            if (p <= limit) { return k; }
            k += 1.0;
        }
        return k;
    }
    let slam = sqrt(lam);
    let loglam = log_f32(lam);
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let invalpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    for (var i = 0u; i < 1000u; i++) {
        let u = next_uniform(s) - 0.5;
        let v = next_uniform(s);
        let us = 0.5 - abs(u);
        if (us <= 0.0) { continue; }
        let k = floor((2.0 * a / us + b) * u + lam + 0.43);
        if (us >= 0.07 && v <= vr) { return k; }
        if (k < 0.0 || (us < 0.013 && v > us)) { continue; }
        if (v <= 0.0) { return k; }
        if (log_f32(v) + log_f32(invalpha) - log_f32(a / (us * us) + b) <= -lam + k * loglam - lgamma_f32(k + 1.0)) {
            return k;
        }
    }
    return floor(lam);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * m(1u) + gid.x;
    if (i >= m(0u)) { return; }
    var s = Stream(vec4<u32>(i, m(5u), m(6u), 0u), vec4<u32>(0u), 4u);
    let v = poisson(rate[m(2u) + i], &s);
    out[i] = /*{{STORE}}*/;
}
