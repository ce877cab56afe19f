// The page's document: the data- attributes the server wrote on <body>, the elements of the
// shell, and the small DOM helpers every part uses (text is always set with textContent).

export const body = document.body;
const data = body.dataset;

/** The dashboard's id (absent on the not-found page: the script does nothing there). */
export const dashboardId = data['dashboardId'] ?? '';
export const pageNeedsPassword = data['requiresPassword'] === 'true';
export const pageNeedsEmail = data['requiresEmail'] === 'true';

/** An element of the shell by its id (the server always writes them). */
export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node as T;
}

/** An element with a class and text (text only: never HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string | number | null,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function setStatus(text: string, isError = false): void {
  const line = $('status');
  line.textContent = text;
  line.className = isError ? 'status error' : 'status';
}
