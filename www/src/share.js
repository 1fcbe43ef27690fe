// Code in the URL: deflate-raw (the browser's CompressionStream, no library needed) and base64url,
// so a link to a training loop stays a few hundred characters.

async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** `code` → the string after `#code=`. */
export async function encodeCode(code) {
  const packed = await pipe(
    new TextEncoder().encode(code),
    new CompressionStream("deflate-raw"),
  );
  let bin = "";
  for (const b of packed) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The inverse of {@link encodeCode}. */
export async function decodeCode(text) {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(
    await pipe(bytes, new DecompressionStream("deflate-raw")),
  );
}
