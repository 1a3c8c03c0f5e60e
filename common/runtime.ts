// How this process runs: from the npm install (dist/ beside node_modules), or as the single
// executable built by scripts/buildBinary.mjs, whose bundle sets `__VAULTD_BUILD__` before any
// module runs. Modules that read files of the install (the compute worker, the code stamp,
// the package.json) ask here first.
export interface BuildInfo {
  version: string;
  /** the git commit the binary was built from */
  commit: string;
  /** sha256 of the bundled program (names the cache folder of its native libraries) */
  bundleHash: string;
  /** the publish identity's code stamp, as the npm install of the same commit computes it */
  codeStamp: string;
}

/** The binary's build facts; null when running from the npm install. */
export const BINARY_BUILD: BuildInfo | null = (globalThis as { __VAULTD_BUILD__?: BuildInfo }).__VAULTD_BUILD__ ?? null;
