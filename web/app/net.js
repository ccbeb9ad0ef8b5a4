// The connection to the server: HTTP helpers and one WebSocket that says hello, keeps
// a queue while it is down, reconnects with backoff and tells the app when it is back
// (so that it can resume its games from the last version it saw).

export async function api(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = 'Bearer ' + token;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (_) {
    data = { message: text };
  }
  if (!res.ok) {
    const err = new Error((data && (data.message || data.error || data.code)) || res.statusText);
    err.status = res.status;
    err.code = data && (data.code || data.error);
    throw err;
  }
  return data;
}

export class Conn {
  constructor(token, handlers) {
    this.token = token;
    this.h = handlers; // { message(msg), status(state), welcome(msg) }
    this.queue = [];
    this.ready = false;
    this.closed = false;
    this.delay = 500;
    this.open();
  }

  open() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/ws?token=${encodeURIComponent(this.token)}`);
    this.ws = ws;
    this.h.status('connecting');
    ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', protocol: 1, client: 'damka-web 0.1' }));
    ws.onmessage = (e) => {
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch (_) {
        return;
      }
      if (msg.type === 'welcome') {
        const again = this.welcomed;
        this.welcomed = true;
        this.ready = true;
        this.delay = 500;
        this.h.status('online');
        this.h.welcome(msg, again);
        const q = this.queue;
        this.queue = [];
        for (const m of q) this.send(m);
        return;
      }
      this.h.message(msg);
    };
    ws.onclose = (e) => {
      this.ready = false;
      if (this.closed) return;
      this.h.status('offline', e.code);
      // 4001: the token expired; 4002: another protocol; 4006: the session was ended
      // (logged out elsewhere, password changed). Reconnecting would not help.
      if (e.code === 4001 || e.code === 4002 || e.code === 4006) return;
      setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, 8000);
    };
  }

  send(msg) {
    if (this.ready && this.ws.readyState === 1) this.ws.send(JSON.stringify(msg));
    else this.queue.push(msg);
  }

  close() {
    this.closed = true;
    this.ws.close(1000);
  }
}
