// The custom activity form's frame (issue 51): /app/ui-frame.html, one self-contained document.
// Its script (client/custom-form/frame.js with Preact, and the worker runtime frame-worker.js as
// a string it puts in the component's blob) and its style sheet are inline, so that the frame's
// CSP allows exactly those two by their SHA-256 hashes and nothing else: the frame has an
// opaque origin, for which 'self' would mean nothing it could load without CORS.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const sha256 = (text) => `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;

const common = {
  bundle: true,
  write: false,
  format: 'iife',
  platform: 'browser',
  target: ['chrome100', 'firefox100', 'safari15'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
};

/** Writes `ui-frame.html` to `outdir`; answers `{file, scriptHash, styleHash}` for the manifest. */
export async function buildFrame(root, outdir) {
  const dir = `${root}src/modules/web-app/client/custom-form`;
  const worker = await build({ ...common, entryPoints: [`${dir}/frame-worker.ts`] });
  const workerCode = worker.outputFiles[0].text;
  const frame = await build({
    ...common,
    entryPoints: [`${dir}/frame.ts`],
    define: { 'process.env.NODE_ENV': '"production"', SDCS_FRAME_WORKER: JSON.stringify(workerCode) },
  });
  const script = frame.outputFiles[0].text;
  const css = await build({ ...common, format: undefined, entryPoints: [`${dir}/frame.css`] });
  const style = css.outputFiles[0].text;
  if (/<\/(script|style)/i.test(script + style)) throw new Error('web app frame: a closing tag in the inline code');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="robots" content="noindex">
<style>${style}</style>
</head>
<body>
<script>${script}</script>
</body>
</html>
`;
  const file = 'ui-frame.html';
  writeFileSync(`${outdir}/${file}`, html);
  return { file, scriptHash: sha256(script), styleHash: sha256(style) };
}
