// Worker threads do not inherit the TypeScript loader of the process (nor vitest's): register
// tsx in this thread, then load the export lane's worker (bundled builds start dist/export-worker-entry.mjs).
import { register } from 'tsx/esm/api';

register();
await import('./modules/exports/export-worker.ts');
