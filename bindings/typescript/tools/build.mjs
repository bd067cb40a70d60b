// `npm run build`: the package's two builds from one TypeScript source, into a fresh dist/.
//   dist/esm  ES modules (tsconfig.json), read as such through the package's "type": "module"
//   dist/cjs  CommonJS (tsconfig.cjs.json), with a package.json saying "type": "commonjs"
// Each has its own .d.ts files, so the types of `import` and of `require` describe the module
// format each one gets (what TypeScript's node16/nodenext resolution checks).
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const tsc = require.resolve("typescript/bin/tsc");
const root = new URL("../", import.meta.url);

rmSync(new URL("dist", root), { recursive: true, force: true });
for (const project of ["tsconfig.json", "tsconfig.cjs.json"]) {
  execFileSync(process.execPath, [tsc, "-p", project], { cwd: root, stdio: "inherit" });
}
writeFileSync(new URL("dist/cjs/package.json", root), '{ "type": "commonjs" }\n');
