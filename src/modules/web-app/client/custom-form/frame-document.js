// The custom form's frame document (issue 51, decision 224), built by
// scripts/build-web-app-frame.mjs and written into the app's bundle as a chunk of its own: the
// entry screen loads it with the first custom form (host.js), and the service worker keeps it with
// the app's other files, so a frame is drawn without any request, also offline.

/* global SDCS_FRAME_DOCUMENT */
export const FRAME_DOCUMENT = SDCS_FRAME_DOCUMENT;
