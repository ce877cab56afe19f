// Worker threads do not inherit the TypeScript loader of the process (nor vitest's): register
// tsx in this thread, then load the sandbox worker.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
