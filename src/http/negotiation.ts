/**
 * The weight an `Accept` header gives a media type: its own entry, else `type/*`, else `*\/*`
 * (RFC 9110 §12.5.1; a more specific entry wins), 0 when nothing matches.
 */
function weight(accept: string, mediaType: string): number {
  const [type] = mediaType.split('/');
  let best = { specificity: -1, q: 0 };
  for (const entry of accept.split(',')) {
    const [range = '', ...params] = entry.trim().toLowerCase().split(';');
    const q = Number(params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean) ?? '1');
    const specificity =
      range === mediaType ? 2 : range === `${type}/*` ? 1 : range === '*/*' ? 0 : Number.NaN;
    if (specificity > best.specificity) best = { specificity, q: Number.isFinite(q) ? q : 0 };
  }
  return best.q;
}

/** True when the `Accept` header asks for `wanted` with more weight than for `otherwise`. */
export function prefers(accept: string | undefined, wanted: string, otherwise: string): boolean {
  if (!accept) return false;
  return weight(accept, wanted) > weight(accept, otherwise);
}

/** A `Content-Disposition` value that makes a browser save the answer as `fileName`. */
export function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
