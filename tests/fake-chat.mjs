// A small OpenAI-compatible chat API for the SDK, CLI and browser stacks (tests/stack.sh):
// `POST /v1/chat/completions`, whole or streamed as OpenAI streams (`data: {chat.completion.chunk}`
// events, then `data: [DONE]`). Its answer is made from the prompt, so tests can check what it cites:
// "From the knowledge base: <source 1's first sentence> [1]." (or "I do not know." without sources).
//
//   node tests/fake-chat.mjs PORT
import http from 'node:http';

const port = Number(process.argv[2] || 0);

function reply(body) {
  const user = body.messages?.find((m) => m.role === 'user')?.content ?? '';
  const first = /^\[1\] ([^\n]*?[.!?])(\s|$)/m.exec(user) ?? /^\[1\] ([^\n]*)/m.exec(user);
  return first ? `From the knowledge base: ${first[1]} [1].` : 'I do not know.';
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    res.writeHead(404).end();
    return;
  }
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', async () => {
    const body = JSON.parse(raw || '{}');
    const text = reply(body);
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id: 'chatcmpl-fake', object: 'chat.completion', created: 0, model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta, finish = null) => `data: ${JSON.stringify({
      id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: body.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }));
    for (let i = 0; i < text.length; i += 8) {
      await new Promise((r) => setTimeout(r, 5));
      res.write(chunk({ content: text.slice(i, i + 8) }));
    }
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  });
});
server.listen(port, '127.0.0.1');
