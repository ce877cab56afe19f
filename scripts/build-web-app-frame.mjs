// The custom activity form's frame (issue 51): one self-contained document that the app writes
// into each row's `<iframe sandbox="allow-scripts" srcdoc>` (decision 224), so that it needs no
// request and works offline. Its script (client/custom-form/frame.ts with Preact, and the worker
// runtime frame-worker.ts as a string it puts in the component's blob) and its style sheet are
// inline. A srcdoc document inherits the app's CSP, which allows exactly these two by their
// SHA-256 hashes (web-app.ts reads them from the manifest); the document's own `<meta>` CSP,
// enforced beside the inherited one, takes away everything else the app's page may do: no
// request of any kind, not even to the service ('self' of the inherited policy is the app's).
import { createHash } from 'node:crypto';
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

/** The frame document's own policy: its inline code by hash, workers from its blobs, nothing else. */
export function frameMetaCsp(scriptHash, styleHash) {
  return (
    `default-src 'none'; script-src '${scriptHash}'; style-src '${styleHash}'; worker-src blob:; ` +
    "connect-src 'none'; img-src 'none'; font-src 'none'; media-src 'none'; object-src 'none'; " +
    "frame-src 'none'; child-src 'none'; manifest-src 'none'; form-action 'none'; base-uri 'none'"
  );
}

/** Builds the frame document; answers `{html, scriptHash, styleHash}` (written into the app's bundle). */
export async function buildFrame(root) {
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
  const scriptHash = sha256(script);
  const styleHash = sha256(style);
  // The policy comes before the style and the script: a <meta> CSP applies to what follows it.
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${frameMetaCsp(scriptHash, styleHash)}">
<style>${style}</style>
</head>
<body>
<script>${script}</script>
</body>
</html>
`;
  return { html, scriptHash, styleHash };
}
