// The TSDoc check of `make lint-ts`: every public export of the package (ts/src/index.ts, through
// its namespaces: nn, optim, webgpu, …) has a doc comment — functions, classes, their public
// methods and accessors, interfaces and type aliases, variables, the fields of options
// interfaces (`*Options`), and the methods of `Tensor` (declared across modules). An overloaded
// function counts as documented when one of its signatures is (TypeScript shows that comment for
// all of them). Written with the TypeScript compiler API rather than TypeDoc's validation, which
// wants a comment on every overload signature and every inherited member of every subclass.
//   node scripts/check-tsdoc.mjs            exit 1 with the list of undocumented names
import ts from "typescript";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const configPath = path.join(root, "ts/tsconfig.json");
const config = ts.getParsedCommandLineOfConfigFile(
  configPath,
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
);
const program = ts.createProgram({
  rootNames: config.fileNames,
  options: config.options,
});
const checker = program.getTypeChecker();
const entry = program.getSourceFile(path.join(root, "ts/src/index.ts"));
const missing = new Set();
const seen = new Set();

const documented = (sym) =>
  sym.getDocumentationComment(checker).length > 0 ||
  sym.getJsDocTags(checker).length > 0;
const isPrivate = (decl) =>
  (ts.getCombinedModifierFlags(decl) &
    (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !==
    0 ||
  (decl.name && ts.isPrivateIdentifier(decl.name));
const fromOurs = (sym) =>
  (sym.declarations ?? []).some(
    (d) =>
      d.getSourceFile().fileName.startsWith(path.join(root, "ts/src")) &&
      !d.getSourceFile().fileName.includes("/wasm/"),
  );

function need(sym, name) {
  if (!documented(sym)) missing.add(name);
}

/** The members of a class or interface that must be documented. */
function members(sym, name, { options = false } = {}) {
  const type = checker.getDeclaredTypeOfSymbol(sym);
  for (const m of checker.getPropertiesOfType(type)) {
    const decls = m.declarations ?? [];
    if (
      decls.length === 0 ||
      decls.some(isPrivate) ||
      m.name.startsWith("_") ||
      m.name.startsWith("#")
    )
      continue;
    // Members written in this class or interface (inherited ones are checked where declared).
    const own = decls.some(
      (d) =>
        d.parent &&
        d.parent.symbol &&
        (d.parent.symbol === sym ||
          checker.getMergedSymbol?.(d.parent.symbol) === sym ||
          d.parent.symbol.name === sym.name),
    );
    if (!own || !fromOurs(m)) continue;
    const isMethod = decls.some(
      (d) =>
        ts.isMethodDeclaration(d) ||
        ts.isMethodSignature(d) ||
        ts.isGetAccessor(d) ||
        ts.isSetAccessor(d),
    );
    const isProp = decls.some(
      (d) => ts.isPropertySignature(d) || ts.isPropertyDeclaration(d),
    );
    if (isMethod || (isProp && options)) need(m, `${name}.${m.name}`);
  }
}

function visit(sym, name) {
  if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  if (seen.has(sym)) return;
  seen.add(sym);
  if (!fromOurs(sym)) return;
  if (
    sym.flags &
    (ts.SymbolFlags.ValueModule | ts.SymbolFlags.NamespaceModule)
  ) {
    const isFile = (sym.declarations ?? []).some((d) => ts.isSourceFile(d));
    if (!isFile) need(sym, name);
    for (const e of checker.getExportsOfModule(sym))
      visit(e, `${name}.${e.name}`);
    return;
  }
  if (sym.flags & ts.SymbolFlags.Class) {
    need(sym, name);
    members(sym, name);
    return;
  }
  if (sym.flags & ts.SymbolFlags.Interface) {
    need(sym, name);
    members(sym, name, {
      options: /Options$/.test(sym.name) || sym.name === "Tensor",
    });
    return;
  }
  if (
    sym.flags &
    (ts.SymbolFlags.Function |
      ts.SymbolFlags.Variable |
      ts.SymbolFlags.TypeAlias |
      ts.SymbolFlags.Enum)
  )
    need(sym, name);
}

const mod = checker.getSymbolAtLocation(entry);
for (const e of checker.getExportsOfModule(mod)) visit(e, e.name);
const list = [...missing].sort();
if (list.length > 0) {
  console.error(
    `TSDoc check: ${list.length} public names without a doc comment:\n  ${list.join("\n  ")}`,
  );
  process.exit(1);
}
console.log(`TSDoc check: every public name of ${seen.size} is documented`);
