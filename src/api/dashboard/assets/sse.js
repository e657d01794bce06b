// Server-Sent Events over fetch(): the browser's EventSource cannot send an Authorization header.
// Messages are parsed as the HTML standard's event-stream format; after a drop the stream is
// opened again with Last-Event-ID, so the server resumes after the last event seen.

/**
 * Yields `{ id, event, data }` per message of the byte stream `body`, and `{ retry }` as soon as a
 * retry field arrives (it applies at once, message or not); comments are skipped.
 */
export async function* parseEventStream(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let message = { data: [], event: '', id: undefined };
  const dispatch = () => {
    const out = message.data.length > 0 || message.id !== undefined ? { id: message.id, event: message.event || 'message', data: message.data.join('\n') } : null;
    message = { data: [], event: '', id: undefined };
    return out;
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    // Lines end with CRLF, LF or CR; a CR at the end of the chunk may be the first half of a CRLF.
    let match;
    const line = /\r\n|\n|\r(?=.)/s;
    while ((match = line.exec(buffer))) {
      const text = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      if (text === '') {
        const out = dispatch();
        if (out) yield out;
        continue;
      }
      if (text.startsWith(':')) continue;
      const colon = text.indexOf(':');
      const field = colon === -1 ? text : text.slice(0, colon);
      let data = colon === -1 ? '' : text.slice(colon + 1);
      if (data.startsWith(' ')) data = data.slice(1);
      if (field === 'data') message.data.push(data);
      else if (field === 'event') message.event = data;
      else if (field === 'id' && !data.includes('\0')) message.id = data;
      else if (field === 'retry' && /^\d+$/.test(data)) yield { retry: Number(data) };
    }
  }
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Follows `url` until `signal` aborts: `onEvent({ id, event, data })` per message (data parsed as
 * JSON), `onState(state)` with `connecting`, `live`, `reconnecting`, `unavailable` (the server has
 * no event stream) or `unauthorized`. Reconnects with backoff, sending the last id seen.
 */
export async function followEvents({ url, key, onEvent, onState, signal }) {
  let lastId;
  // The wait before reconnecting: the server's `retry`, doubled after each failed attempt.
  let retry = 1000;
  let delay = retry;
  onState('connecting');
  while (!signal.aborted) {
    try {
      const headers = { authorization: `Bearer ${key()}`, accept: 'text/event-stream' };
      if (lastId !== undefined) headers['last-event-id'] = lastId;
      const res = await fetch(url, { headers, signal, cache: 'no-store' });
      if (res.status === 404 || res.status === 405) return onState('unavailable');
      if (res.status === 401) return onState('unauthorized');
      if (!res.ok || !res.body) throw new Error(`event stream answered ${res.status}`);
      onState('live');
      delay = retry;
      for await (const message of parseEventStream(res.body)) {
        if (message.retry !== undefined) {
          retry = delay = message.retry;
          continue;
        }
        if (message.id !== undefined) lastId = message.id;
        let data = null;
        try {
          data = message.data ? JSON.parse(message.data) : null;
        } catch {
          // Not JSON: passed on as null, the kind alone still tells what happened.
        }
        onEvent({ id: message.id, event: message.event, data });
      }
    } catch (error) {
      if (signal.aborted) return;
      console.warn('event stream:', error);
    }
    if (signal.aborted) return;
    onState('reconnecting');
    await sleep(delay, signal);
    delay = Math.min(delay * 2, Math.max(retry, 30_000));
  }
}
