// Types of numbers.js for the unit tests (the client is plain JavaScript).
export type ReadNumber = { value: number | null; error?: undefined } | { error: string; value?: undefined };
export function browserLocale(): string;
export function numberSymbols(locale: string): { decimal: string; group: string; example: string };
export function readNumber(text: string, locale?: string): ReadNumber;
export function formatExact(value: number, locale?: string): string;
export function numberForInput(value: number, locale?: string): string;
