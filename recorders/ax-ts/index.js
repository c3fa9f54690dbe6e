// @axmem/ax-recorder: record Ax agent sessions from your own app, replay them offline in
// your own tests, inspect them in Ax Memory & Skills Studio. See README.md.
export { AxSessionRecorder, DEFAULT_LIMITS } from './src/recorder.js';
export { AxSessionReplayer, AxSessionMismatchError, requestAsText } from './src/replayer.js';
export { readSessionFile, SessionFileError } from './src/files.js';
export { canonicalJson, requestDigest } from './src/json.js';
export { toNeutral, fromNeutral } from './src/neutral.js';
export { RECORDER_NAME, RECORDER_VERSION } from './src/versions.js';
