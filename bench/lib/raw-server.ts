/** The ceiling: Bun.serve answering 200 to every request after reading its body. */
const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  async fetch(req) {
    await req.arrayBuffer();
    return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
  },
});
console.log(`listening ${server.port}`);
