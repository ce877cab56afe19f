// The locale numbers and dates are formatted and read in: the app's language, with the browser's
// region when the browser speaks that language (de-CH for German on a Swiss browser), else the
// language alone. No dependencies: the import worker reads it too (through format.js).

const fromBrowser = () => {
  try {
    return new Intl.NumberFormat().resolvedOptions().locale;
  } catch {
    return 'en';
  }
};

let current = fromBrowser();

/** The BCP 47 locale Intl formats and reads numbers and dates with. */
export const formattingLocale = () => current;

/** Sets the formatting locale for the app language `language` (en, de, …). */
export function setFormattingLocale(language: string): string {
  const preferred = (globalThis.navigator?.languages ?? []).find(
    (tag) => tag.split('-')[0]?.toLowerCase() === language,
  );
  current = preferred ?? language;
  return current;
}
