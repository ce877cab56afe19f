// Worker threads do not inherit the TypeScript loader of the process (nor vitest's): register
// tsx in this thread, then load the heavy-work worker (bundled builds start dist/heavy-worker-entry.mjs).
import { register } from 'tsx/esm/api';

register();
await import('./heavy-worker.ts');
