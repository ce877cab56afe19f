// The custom form's frame document (issue 51, decision 224), built by
// scripts/build-web-app-frame.mjs and written into the app's bundle as a chunk of its own: the
// entry screen loads it with the first custom form (host.ts), and the service worker keeps it with
// the app's other files, so a frame is drawn without any request, also offline.

/** The frame's whole HTML document, put in place by the build (esbuild `define`). */
declare const SDCS_FRAME_DOCUMENT: string;
export const FRAME_DOCUMENT: string = SDCS_FRAME_DOCUMENT;
