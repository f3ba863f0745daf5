// The scripts the build ships, as it bundles them (posviz.assets.bundle): an
// entry module with every module it imports, made by the project's Python.
// ./dev test passes its interpreter in POSVIZ_PYTHON (tests/test_link_vectors.py).
import {execFileSync} from "node:child_process";

const PYTHON = process.env.POSVIZ_PYTHON || new URL("../../.venv/bin/python", import.meta.url).pathname;
const MAKE = "import json, sys\nfrom posviz import assets\n"
  + "print(assets.bundle(sys.argv[1], sys.argv[2], **json.loads(sys.argv[3])), end='')";

// The script of ``entry`` (a file of posviz.export); ``fills`` go into its placeholders.
export function bundled(entry, fills = {}, pkg = "posviz.export") {
  return execFileSync(PYTHON, ["-c", MAKE, pkg, entry, JSON.stringify(fills)], {encoding: "utf-8"});
}
