/**
 * Node downloads of `torch.hub`: into `<dst>.partial`, renamed to `dst` when complete and
 * checked. The validator of the version being received (ETag or Last-Modified) is kept in
 * `<dst>.partial.json`, so an interrupted download resumes after its bytes with a `Range` request
 * only while the server still has that version.
 *
 * @module
 */

import { importOptional } from "../runtime.js";
import { readBody, request, type Report } from "./http.js";

export interface NodeFsP {
  stat(p: string): Promise<{ size: number | bigint }>;
  mkdir(p: string, o: { recursive: boolean }): Promise<unknown>;
  open(
    p: string,
    flags: string,
  ): Promise<{
    write(b: Uint8Array): Promise<unknown>;
    close(): Promise<void>;
  }>;
  readFile(p: string, enc?: "utf8"): Promise<Uint8Array & string>;
  writeFile(p: string, data: string): Promise<void>;
  rename(a: string, b: string): Promise<void>;
  rm(p: string, o: { force: boolean }): Promise<void>;
}

export const nodeFs = async (): Promise<NodeFsP> =>
  (await importOptional("node:fs/promises")) as NodeFsP;

/** The size of the file at `p`, or `null` when there is none. */
export async function sizeOf(fs: NodeFsP, p: string): Promise<number | null> {
  try {
    return Number((await fs.stat(p)).size);
  } catch {
    return null;
  }
}

interface Kept {
  url: string;
  validator: string | null;
}

async function readKept(fs: NodeFsP, p: string): Promise<Kept | null> {
  try {
    return JSON.parse(await fs.readFile(p, "utf8")) as Kept;
  } catch {
    return null;
  }
}

/**
 * Downloads `url` into `dst` through `dst.partial`, resuming a partial download of the same URL
 * and version; `check`, when given, verifies the whole file (the hash) before the rename.
 */
export async function downloadNode(
  url: string,
  dst: string,
  check: ((bytes: Uint8Array) => Promise<void>) | null,
  report: Report,
): Promise<void> {
  const fs = await nodeFs();
  const slash = dst.lastIndexOf("/");
  if (slash > 0) await fs.mkdir(dst.slice(0, slash), { recursive: true });
  const partial = `${dst}.partial`;
  const metaPath = `${partial}.json`;
  const kept = await readKept(fs, metaPath);
  const have =
    kept !== null && kept.url === url ? ((await sizeOf(fs, partial)) ?? 0) : 0;
  const answer = await request(url, have, have > 0 ? kept!.validator : null);
  if (answer.start === 0)
    await fs.writeFile(
      metaPath,
      JSON.stringify({ url, validator: answer.validator }),
    );
  if (answer.complete) report(answer.start, answer.total);
  else {
    const file = await fs.open(partial, answer.start > 0 ? "a" : "w");
    try {
      await readBody(
        url,
        answer.res,
        answer.start,
        answer.total,
        (c) => file.write(c).then(() => {}),
        report,
      );
    } finally {
      await file.close();
    }
  }
  try {
    if (check !== null) await check(await fs.readFile(partial));
  } catch (e) {
    await fs.rm(partial, { force: true });
    await fs.rm(metaPath, { force: true });
    throw e;
  }
  await fs.rename(partial, dst);
  await fs.rm(metaPath, { force: true });
}
