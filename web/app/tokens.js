// The API tokens page (/account/tokens): one's personal tokens listed (never their
// secrets), a new one made with a description and its scopes (its secret shown once),
// and a token revoked. Over the HTTP API of docs/bots.md with the session token. Loaded
// only when the page is opened; its words are in words/<lang>/tokens.js.

import { api } from './net.js';
import * as follow from './follow.js';
import { fmtDateTime, loadWords, onLang, t } from './i18n.js';
import { h } from './ui.js';

await loadWords('tokens');

/** The scopes a token may have, as the server names them. */
const SCOPES = ['bot:play', 'board:play', 'challenge:read', 'challenge:write', 'preference:read', 'tournament:write'];

function tokenRow(tok, revoke) {
  const status = tok.revokedAt ? t('tokens.revokedAt', { date: fmtDateTime(tok.revokedAt) }) : t('tokens.live');
  return h('tr', { 'data-token': tok.id, class: tok.revokedAt ? 'revoked' : '' },
    h('td', { class: 'token-description' }, tok.description),
    h('td', {}, tok.scopes.split(',').filter(Boolean).join(', ')),
    h('td', {}, fmtDateTime(tok.createdAt)),
    h('td', { class: 'token-status' }, status),
    h('td', {}, tok.revokedAt ? '' : h('button', { class: 'link revoke', onclick: () => revoke(tok) }, t('tokens.revoke'))));
}

export function tokensScreen() {
  const { app, view } = follow.ctx;
  const token = app.auth && !app.auth.guest ? app.auth.token : null;
  let created = null;
  let list = null;
  let error = '';
  // What the form holds, kept across redraws (a refusal, a language switch).
  const draft = { description: '', scopes: new Set() };
  const draw = () => {
    document.title = 'damka · ' + t('tokens.title');
    if (!token) {
      view.replaceChildren(h('section', { class: 'card', id: 'tokens' }, h('h1', {}, t('tokens.title')), h('p', {}, t('tokens.signin'))));
      return;
    }
    view.replaceChildren(h('div', { class: 'events', id: 'tokens' },
      h('section', { class: 'card wide' },
        h('h1', {}, t('tokens.title')),
        h('p', { class: 'muted' }, t('tokens.intro')),
        error ? h('p', { class: 'error', role: 'alert' }, error) : '',
        created ? h('div', { id: 'token-created', role: 'status' },
          h('label', { for: 'token-secret' }, t('tokens.secret')),
          h('input', { id: 'token-secret', readonly: true, value: created, size: 40, onfocus: (e) => e.target.select() }),
          h('p', { class: 'muted' }, t('tokens.secretOnce'))) : '',
        list === null ? h('p', { class: 'muted' }, t('tokens.loading'))
          : list.length === 0 ? h('p', { class: 'muted', id: 'tokens-none' }, t('tokens.none'))
            : h('table', { class: 'list', id: 'tokens-list' },
              h('thead', {}, h('tr', {}, ['tokens.description', 'tokens.scopes', 'tokens.created', 'tokens.status'].map((k) => h('th', {}, t(k))), h('th', {}))),
              h('tbody', {}, list.map((tok) => tokenRow(tok, revoke))))),
      form()));
  };
  const form = () => {
    const description = h('input', {
      id: 'token-description', maxlength: 100, value: draft.description, placeholder: t('tokens.descriptionPlaceholder'),
      'aria-label': t('tokens.description'), oninput: (e) => { draft.description = e.target.value; },
    });
    const boxes = SCOPES.map((s) => h('label', { class: 'scope' },
      h('input', {
        type: 'checkbox', name: 'scope', value: s, checked: draft.scopes.has(s),
        onchange: (e) => { if (e.target.checked) draft.scopes.add(s); else draft.scopes.delete(s); },
      }), ' ', h('code', {}, s), ' — ', t('tokens.scope.' + s)));
    return h('section', { class: 'card' },
      h('h2', {}, t('tokens.new')),
      h('form', {
        id: 'token-form',
        onsubmit: async (e) => {
          e.preventDefault();
          const scopes = SCOPES.filter((s) => draft.scopes.has(s));
          if (!scopes.length) {
            error = t('tokens.needScope');
            draw();
            return;
          }
          try {
            const r = await api('POST', '/api/tokens', { description: draft.description.trim(), scopes }, token);
            created = r.token;
            error = '';
            draft.description = '';
            draft.scopes.clear();
          } catch (err) {
            error = err.message;
          }
          await load();
        },
      }, description, h('fieldset', {}, h('legend', {}, t('tokens.scopes')), boxes),
      h('button', { type: 'submit', id: 'token-create' }, t('tokens.create'))));
  };
  const load = async () => {
    try {
      list = (await api('GET', '/api/tokens', undefined, token)).tokens;
    } catch (err) {
      error = err.message;
      list = list || [];
    }
    draw();
  };
  async function revoke(tok) {
    if (!window.confirm(t('tokens.revokeConfirm'))) return;
    try {
      await api('DELETE', '/api/tokens/' + encodeURIComponent(tok.id), undefined, token);
      error = '';
    } catch (err) {
      error = err.message;
    }
    await load();
  }
  draw();
  if (token) load();
  const off = onLang(draw);
  return { leave: off };
}
