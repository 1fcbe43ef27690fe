// The TypeScript worker: a language service over a virtual file system (@typescript/vfs) holding
// the standard library, webtorch's .d.ts (www/dist/types.json, built from pkg/) and the
// playground's globals; @valtown/codemirror-ts's worker API answers the editor's lint, completion
// and hover requests, and `transpile` turns the editor's TypeScript into the JS the run worker runs.
import ts from "typescript";
import * as Comlink from "comlink";
import {
  createSystem,
  createVirtualTypeScriptEnvironment,
} from "@typescript/vfs";
import { createWorker } from "@valtown/codemirror-ts/worker";

/** The editor's compiler options (lib as scripts/build-playground.mjs packs it). */
const compilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  // Tabs import each other as "./model.ts" (the run worker links them by those names).
  allowImportingTsExtensions: true,
  lib: ["lib.es2023.d.ts", "lib.esnext.disposable.d.ts", "lib.dom.d.ts"],
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
};

const service = createWorker(async () => {
  const res = await fetch(new URL("./types.json", import.meta.url));
  const files = new Map(Object.entries(await res.json()));
  const system = createSystem(files);
  return createVirtualTypeScriptEnvironment(
    system,
    ["/playground.d.ts"],
    ts,
    compilerOptions,
  );
});

Comlink.expose({
  ...service,
  /**
   * The editor's code as an ES module (types stripped) and its source map, plus the first syntax
   * error if the code does not parse: `{ js, map, error: { message, line } | null }`.
   */
  transpile(code) {
    const out = ts.transpileModule(code, {
      compilerOptions: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        sourceMap: true,
      },
      fileName: "index.ts",
      reportDiagnostics: true,
    });
    const d = out.diagnostics?.find(
      (x) => x.category === ts.DiagnosticCategory.Error,
    );
    const error = d
      ? {
          message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
          line:
            d.file && d.start !== undefined
              ? d.file.getLineAndCharacterOfPosition(d.start).line + 1
              : null,
        }
      : null;
    return {
      js: out.outputText.replace(/\/\/# sourceMappingURL=.*$/m, ""),
      map: out.sourceMapText,
      error,
    };
  },
});
