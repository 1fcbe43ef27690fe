// Debian's Chromium under Playwright, with WebGPU on SwiftShader (no GPU or display here; the
// Vulkan SwiftShader adapter is a real WebGPU implementation). Never downloads a browser.
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--enable-unsafe-webgpu",
  "--enable-unsafe-swiftshader",
  "--use-angle=swiftshader",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-dev-shm-usage",
  // Chromium refuses to sandbox as root.
  ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
];

/**
 * Launches headless Chromium; resolves to the Browser. `{ webgpu: false }` leaves WebGPU out (no
 * adapter), for the CPU-fallback tests.
 */
export function launchChromium({ webgpu = true } = {}) {
  const args = webgpu
    ? CHROMIUM_ARGS
    : [
        ...CHROMIUM_ARGS.filter((a) => !/webgpu|swiftshader/.test(a)),
        "--disable-features=WebGPU",
      ];
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args });
}

/**
 * A new page that records console errors and uncaught exceptions into `page.problems`, and echoes
 * the page's console to stdout when WEBTORCH_TEST_VERBOSE is set.
 */
export async function newPage(browser) {
  const page = await browser.newPage();
  page.problems = [];
  page.on("console", (msg) => {
    if (msg.type() === "error")
      page.problems.push(`console.error: ${msg.text()}`);
    if (process.env.WEBTORCH_TEST_VERBOSE)
      console.log(`[page ${msg.type()}] ${msg.text()}`);
  });
  page.on("pageerror", (err) =>
    page.problems.push(`uncaught: ${err.stack ?? err.message}`),
  );
  page.on("response", (res) => {
    if (res.status() >= 400)
      page.problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  return page;
}
