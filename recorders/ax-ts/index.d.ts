// Types of @axmem/ax-recorder (the package is plain ES modules: no build step).
import type { AxAIService, AxAgent } from '@ax-llm/ax';

export interface AxSessionRecorderLimits {
  /** Model calls recorded per session (default 5000); later calls run, unrecorded. */
  maxExchanges: number;
  /** Approximate size of the recording in bytes (default 64 MiB). */
  maxBytes: number;
  /** A function result, hook payload or search result larger than this (as JSON
   * characters) is stored as a preview (default 256 KiB). */
  maxValueChars: number;
}

export const DEFAULT_LIMITS: Readonly<AxSessionRecorderLimits>;

export interface AxSessionRecorderOptions {
  /** Where the session is written: after every forward and on save(). */
  file?: string;
  /** The label the studio shows. */
  name?: string;
  /** The session id (default: a time stamp and a random suffix). */
  id?: string;
  /** Strings that must never be written (API keys, tokens). */
  secrets?: string[];
  /** Also scrub the values of environment variables named like credentials (default true). */
  scrubEnvironment?: boolean;
  /** Write after every forward (default: true when `file` is set). */
  autosave?: boolean;
  limits?: Partial<AxSessionRecorderLimits>;
  /** Default: process.emitWarning(message, 'AxSessionRecorderWarning'). */
  onWarning?: (message: string) => void;
  /** The @ax-llm/ax version, when it cannot be found from the working directory. */
  axVersion?: string;
}

export interface AxSessionSaveResult {
  ok: boolean;
  file: string | null;
  bytes?: number;
  error?: string;
}

/** A `.axsession.json` document (see the studio's docs/axsession-format.md). */
export type AxSessionDocument = Record<string, unknown> & {
  format: 'axsession';
  version: number;
  forwards: Array<Record<string, unknown>>;
  exchanges: Array<Record<string, unknown>>;
};

type AgentFactory<A> = (signature: any, options: any) => A;

export class AxSessionRecorder {
  constructor(options?: AxSessionRecorderOptions);
  readonly warnings: string[];
  /** Time spent in the recorder's own code (ms). */
  readonly overheadMs: number;
  /** The app's AI service, recorded: pass the result to forward(). */
  wrapAI<T extends AxAIService>(ai: T): AxAIService;
  /** The agent options with the recorder's hooks and recorded function tools. */
  agentOptions<O extends object>(options: O): O;
  /** Record the forwards of an agent built with `agentOptions(options)`. */
  wrapAgent<A extends AxAgent<any, any>>(agent: A, info?: { signature?: string; options?: object; name?: string }): A;
  /** `factory(signature, agentOptions(options))`, recorded: `rec.agent(agent, 'q:string -> a:string', {...})`. */
  agent<A extends AxAgent<any, any>>(factory: AgentFactory<A>, signature: string, options?: object, name?: string): A;
  /** The session document (secrets scrubbed). */
  document(): AxSessionDocument;
  /** Write the session; never throws (a failure is a warning and `ok: false`). */
  save(file?: string): AxSessionSaveResult;
}

export interface AxSessionReplayerOptions {
  /** Function tools whose recorded results are served instead of calling them
   * (by name or `namespace.name`). */
  functions?: string[];
  /** Serve the recorded results of the app's onSkillsSearch/onMemoriesSearch (default 'live'). */
  hostSearches?: 'live' | 'recorded';
  /** The @ax-llm/ax module: recorded model errors are rethrown as its classes. */
  ax?: Record<string, unknown>;
}

export class AxSessionMismatchError extends Error {
  readonly kind: 'prompt' | 'extra_call' | 'missing_calls' | 'function' | 'search' | 'output' | 'context_map';
  /** The first line of the message (without the diff). */
  readonly summary: string;
  /** The model call number (0-based), when the mismatch is a model call. */
  readonly call?: number;
  readonly stage?: string;
  readonly forward?: number;
  readonly turn?: number;
  /** A unified diff of what was recorded and what the agent does now. */
  readonly diff?: string;
}

export class AxSessionReplayer {
  static load(file: string, options?: AxSessionReplayerOptions): AxSessionReplayer;
  constructor(doc: AxSessionDocument, options?: AxSessionReplayerOptions);
  /** The first mismatch, once there is one. */
  readonly mismatch: AxSessionMismatchError | null;
  /** Model calls served so far. */
  readonly position: number;
  readonly forwards: Array<Record<string, unknown>>;
  /** The replaying AI service: no network, no key. */
  ai(): AxAIService;
  agentOptions<O extends object>(options: O): O;
  wrapAgent<A extends AxAgent<any, any>>(agent: A, info?: { options?: object }): A;
  agent<A extends AxAgent<any, any>>(factory: AgentFactory<A>, signature: string, options?: object): A;
  /** The inputs recorded for forward `i`. */
  inputs<T extends Record<string, any> = Record<string, any>>(i?: number): T;
  /** The output recorded for forward `i`. */
  output<T extends Record<string, any> = Record<string, any>>(i?: number): T | null;
  /** The recorded catalog as `skillsCatalog` / `memoriesCatalog` options. */
  catalog(): { skillsCatalog: Array<Record<string, unknown>>; memoriesCatalog: Array<Record<string, unknown>> };
  /** Throws unless every recorded model call was used and nothing differed. */
  assertComplete(): void;
}

export class SessionFileError extends Error {}
export function readSessionFile(file: string, maxBytes?: number): AxSessionDocument;
export function requestAsText(neutralRequest: Record<string, unknown>): string;
export function canonicalJson(value: unknown): string;
export function requestDigest(neutralRequest: Record<string, unknown>): string;
export function toNeutral<T>(value: T): unknown;
export function fromNeutral<T>(value: T): unknown;
export const RECORDER_NAME: string;
export const RECORDER_VERSION: string;
