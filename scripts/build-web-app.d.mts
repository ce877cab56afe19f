/** Builds the web app into `outdir` (replaced); answers the manifest it wrote. */
export function buildWebApp(
  root: string,
  outdir: string,
): Promise<{
  script: string;
  style: string | null;
  files: string[];
  webManifest: string;
  serviceWorker: string;
  precache: { url: string; revision: string | null }[];
  frame: { file: string; scriptHash: string; styleHash: string };
}>;
