// The settings page: the language, the board's colours, the piece set and the switches
// of prefs.js, each saved when changed, with a board that shows the choice at once.
// Loaded only when the page is opened.

import { Board } from './board.js';
import { LANGS, LANG_NAMES, currentLang, loadWords, t } from './i18n.js';
import { BOARDS, PIECES, SWITCHES, boardStyle, onPrefs, prefs, savePrefs } from './prefs.js';
import { h } from './ui.js';

await loadWords('settings');

/** The settings page. */
export function settingsScreen({ view, auth }) {
  document.title = `damka · ${t('settings.title')}`;
  const status = h('p', { id: 'settings-status', role: 'status', class: 'muted' });
  const save = async (change) => {
    status.textContent = '';
    const failed = await savePrefs(change, auth);
    status.textContent = failed || (auth && !auth.guest ? t('settings.saved_account') : t('settings.saved_browser'));
  };
  const preview = h('div', { class: 'board-wrap settings-board', id: 'settings-board' });
  const drawPreview = () => {
    const b = new Board(preview, 'russian', () => {}, { ...boardStyle(), keyboard: false });
    b.set({ fen: 'W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,K12', legal: [], last: null, mine: null });
  };
  const choice = (name, values, word) => h('label', { class: 'field' }, h('span', {}, t('settings.' + name)),
    h('select', { name, id: 'pref-' + name, onchange: (e) => save({ [name]: e.target.value }) },
      values.map((v) => h('option', { value: v, selected: (name === 'language' ? currentLang() : prefs()[name]) === v }, word(v)))));
  const toggle = (name) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', name, id: 'pref-' + name, checked: prefs()[name], onchange: (e) => save({ [name]: e.target.checked }) }),
    ' ', t('settings.' + name));
  const draw = () => {
    view.replaceChildren(h('div', { class: 'settings', id: 'settings' },
      h('section', { class: 'card' },
        h('h1', {}, t('settings.title')),
        auth && !auth.guest ? '' : h('p', { class: 'muted' }, t('settings.guest_note')),
        choice('language', LANGS, (l) => LANG_NAMES[l]),
        choice('board', BOARDS, (v) => t('settings.board_' + v)),
        choice('pieces', PIECES, (v) => t('settings.pieces_' + v)),
        SWITCHES.map(toggle),
        status),
      h('section', { class: 'card' }, h('h2', {}, t('settings.preview')), preview)));
    drawPreview();
  };
  draw();
  const off = onPrefs(drawPreview);
  return { relang: draw, leave: off };
}
