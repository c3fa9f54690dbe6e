// Errors in a session file and back: the kind the studio understands (its `Errors`
// section), the class name, the message; on replay, the same Ax error class when the test
// hands over the @ax-llm/ax module, so Ax handles it (retries, gives up) as it did live.
import { redactUrl, scrubCredentials } from './scrub.js';

/** What the server said in an error body (`{error: {message}}` or a string), if anything. */
function serverMessage(body) {
  if (typeof body === 'string') return body;
  const said = body?.error?.message ?? body?.message ?? body?.error;
  return typeof said === 'string' ? said : null;
}

const KIND_BY_CLASS = {
  AxAIServiceAuthenticationError: 'auth',
  AxAIServiceTimeoutError: 'timeout',
  AxAIServiceNetworkError: 'network',
  AxAIServiceStreamTerminatedError: 'network',
  AxAIServiceResponseError: 'bad_response',
  AxAIServiceAbortedError: 'cancelled',
  AbortError: 'cancelled',
};

/** `{kind, type, message, status?, status_text?, url?, retryable}` of an error thrown by a
 * model call or a forward. */
export function describeError(error) {
  // Ax's bundle is minified: its classes set `name`, their constructor names are mangled.
  const named = typeof error?.name === 'string' && error.name !== 'Error' ? error.name : null;
  const type = named ?? (error?.constructor?.name && error.constructor.name !== 'Object' ? error.constructor.name : 'Error');
  const message = error instanceof Error ? error.message : String(error);
  const status = Number.isInteger(error?.status) ? error.status : undefined;
  let kind = KIND_BY_CLASS[type] ?? KIND_BY_CLASS[error?.name] ?? (type.startsWith('AxAI') ? 'other' : 'agent');
  if (status !== undefined) kind = status === 429 ? 'rate_limited' : status === 401 || status === 403 ? 'auth' : 'http_status';
  const out = { kind, type, message };
  if (status !== undefined) out.status = status;
  if (typeof error?.statusText === 'string' && error.statusText) out.status_text = error.statusText;
  if (typeof error?.url === 'string' && error.url) out.url = redactUrl(error.url);
  const said = serverMessage(error?.responseBody);
  if (said && said !== message) out.detail = scrubCredentials(said.slice(0, 2000));
  out.retryable = status !== undefined ? [429, 500, 502, 503, 504, 529].includes(status) : kind === 'network' || kind === 'timeout';
  return out;
}

/** The error a recorded exchange ended with, rebuilt (the Ax class when `ax` has it). */
export function rebuildError(recorded, ax) {
  const type = String(recorded?.type ?? 'Error');
  const message = String(recorded?.message ?? 'recorded failure');
  const url = String(recorded?.url ?? 'replay://recorded');
  const Cls = ax && typeof ax[type] === 'function' ? ax[type] : undefined;
  if (Cls) {
    try {
      switch (type) {
        case 'AxAIServiceStatusError':
        case 'AxTokenLimitError':
          return new Cls(recorded.status ?? 500, recorded.status_text ?? '', url, undefined, message);
        case 'AxAIServiceNetworkError':
          return new Cls(new Error(message), url, undefined, undefined);
        case 'AxAIServiceTimeoutError':
          return new Cls(url, 0);
        case 'AxAIServiceAuthenticationError':
          return new Cls(url, undefined, message);
        case 'AxAIServiceResponseError':
          return new Cls(message, url);
        case 'AxAIServiceAbortedError':
          return new Cls(url, message);
        case 'AxAIServiceStreamTerminatedError':
          return new Cls(url);
        default:
          return new Cls(message);
      }
    } catch {
      // an unexpected constructor: fall through to a plain error with the recorded name
    }
  }
  const error = new Error(message);
  error.name = type;
  if (recorded?.status !== undefined) error.status = recorded.status;
  return error;
}
