import { extname } from 'node:path';

/** The longest file name kept (bytes of UTF-8), as most file systems allow. */
export const FILE_NAME_MAX_BYTES = 255;

/**
 * Checks a file name as given: no path parts, no control characters, not over-long. Returns
 * the problem, or undefined when the name may be kept (NFC-normalized) for downloads.
 */
export function fileNameProblem(name: string): string | undefined {
  if (/[/\\]/.test(name)) return 'must be a file name without a path (no / or \\)';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) return 'must not contain control characters';
  if (name.trim() !== name || name.trim() === '') return 'must not be empty or start or end with spaces';
  if (name === '.' || name === '..' || name.startsWith('.')) return 'must not start with a dot';
  if (Buffer.byteLength(name, 'utf8') > FILE_NAME_MAX_BYTES)
    return `must be at most ${FILE_NAME_MAX_BYTES} bytes long`;
  return undefined;
}

/** The lowercase extension without its dot ('' when there is none). */
export const extensionOf = (name: string) => extname(name).slice(1).toLowerCase();

/** The name used in the storage key: ASCII letters, digits, `.`, `-` and `_` only. */
export function safeKeyName(name: string): string {
  const extension = extensionOf(name);
  const stem = name
    .slice(0, name.length - (extension ? extension.length + 1 : 0))
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[._-]+|[._-]+$/g, '')
    .slice(0, 100);
  return `${stem || 'file'}${extension ? `.${extension}` : ''}`;
}
