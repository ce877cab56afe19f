// The API's answers the app last read, kept per person in this browser's IndexedDB so that the
// app opens without a connection (network first: a kept answer is used only when the service
// cannot be reached). The key names the organization and the person: someone else signing in on
// the same browser never sees them, and signing out forgets the person's answers.
import { clear, createStore, del, get, keys, set } from 'idb-keyval';

const USER = 'sdcs.userId';
let store: ReturnType<typeof createStore> | null = null;
const answers = () => {
  store ??= createStore('sdcs-answers', 'answers');
  return store;
};

/** Who the kept answers belong to: set once /me answered for this session's token. */
export function rememberUser(userId: string) {
  sessionStorage.setItem(USER, userId);
}

function owner() {
  const user = sessionStorage.getItem(USER);
  const organization = sessionStorage.getItem('sdcs.organizationId');
  return user && organization ? `${organization}:${user}` : null;
}

/** The person whose session this tab holds (organization:user), or null. */
export const currentOwner = owner;

/** Keeps the answer of a GET (silently nothing without IndexedDB or a known person). */
export async function keepAnswer(url: string, body: unknown) {
  const who = owner();
  if (!who) return;
  try {
    await set(`${who} ${url}`, body, answers());
  } catch {
    // Without IndexedDB the app works online only.
  }
}

/** The answer kept for this GET, or undefined. */
export async function keptAnswer(url: string): Promise<unknown> {
  const who = owner();
  if (!who) return undefined;
  try {
    return await get(`${who} ${url}`, answers());
  } catch {
    return undefined;
  }
}

/** Forgets the signed-in person's kept answers (on sign-out), then who they are. */
export async function forgetAnswers() {
  const who = owner();
  sessionStorage.removeItem(USER);
  if (!who) return;
  try {
    const mine = (await keys(answers())).filter((k) => String(k).startsWith(`${who} `));
    await Promise.all(mine.map((k) => del(k, answers())));
  } catch {
    await clear(answers()).catch(() => undefined);
  }
}
