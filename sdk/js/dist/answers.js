// Answers from an index (`POST /v1/indexes/:indexId/answer`), whole or streamed: a stream is an
// async iterator of the text as the model writes it, with the whole answer from `result()`.
/** The stream of one answer, read once: `open` sends the request and returns its 200 response. */
export class AnswerEvents {
    constructor(open, failure) {
        this.open = open;
        this.failure = failure;
        this.started = false;
        this.done = new Promise((resolve, reject) => {
            this.settle = { resolve, reject };
        });
        // A loop that fails has thrown already: its rejection here must not be reported unhandled.
        this.done.catch(() => undefined);
    }
    result() {
        if (!this.started) {
            void (async () => {
                for await (const _ of this)
                    ;
            })().catch(() => undefined);
        }
        return this.done;
    }
    async *[Symbol.asyncIterator]() {
        if (this.started)
            throw new TypeError('Shipmate: an answer stream can be read once');
        this.started = true;
        try {
            const res = await this.open();
            for await (const { event, data } of serverSentEvents(res)) {
                const body = JSON.parse(data);
                if (event === 'delta')
                    yield String(body.text ?? '');
                else if (event === 'done') {
                    this.settle.resolve(body);
                    return;
                }
                else if (event === 'error')
                    throw this.failure(body);
            }
            throw this.failure({ code: 'network_error', detail: 'the answer stream ended before its last event' });
        }
        catch (e) {
            this.settle.reject(e);
            throw e;
        }
    }
}
/** The events of a `text/event-stream` body, as they arrive. */
async function* serverSentEvents(res) {
    if (!res.body)
        return;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
        for (;;) {
            const { value, done } = await reader.read();
            buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
            buffer = buffer.replace(/\r\n?/g, '\n');
            let end;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
                const block = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                let event = 'message';
                const data = [];
                for (const line of block.split('\n')) {
                    if (line.startsWith('event:'))
                        event = line.slice(6).trim();
                    else if (line.startsWith('data:'))
                        data.push(line.slice(5).replace(/^ /, ''));
                }
                if (data.length)
                    yield { event, data: data.join('\n') };
            }
            if (done)
                return;
        }
    }
    finally {
        reader.releaseLock();
    }
}
