import type { components } from './schema.js';
type Schemas = components['schemas'];
export type AnswerInput = Schemas['AnswerQuery'];
export type Answer = Schemas['Answer'];
export type Citation = Schemas['Citation'];
/** What `answer(..., { stream: true })` gives back. */
export interface AnswerStream extends AsyncIterable<string> {
    /**
     * The whole answer with its citations, once the stream has ended: after the loop, or alone (it
     * then reads the stream itself). Rejects as the stream does.
     */
    result(): Promise<Answer>;
}
/** A problem the stream reported (`event: error`), raised as the client's own error type. */
export type StreamFailure = (problem: Record<string, unknown>) => Error;
/** The stream of one answer, read once: `open` sends the request and returns its 200 response. */
export declare class AnswerEvents implements AnswerStream {
    private readonly open;
    private readonly failure;
    private readonly done;
    private settle;
    private started;
    constructor(open: () => Promise<Response>, failure: StreamFailure);
    result(): Promise<Answer>;
    [Symbol.asyncIterator](): AsyncIterator<string>;
}
export {};
