// Run before `npm pack` and `npm publish` (the "prepack" script): copies the repository's
// license files into the package folder, since npm leaves symbolic links out of a package.
// The copies are git-ignored; the root files are the ones to edit.
import { copyFileSync } from "node:fs";

const root = new URL("../../../", import.meta.url);
const here = new URL("../", import.meta.url);
for (const name of ["LICENSE-MIT", "LICENSE-APACHE"]) {
  copyFileSync(new URL(name, root), new URL(name, here));
}
