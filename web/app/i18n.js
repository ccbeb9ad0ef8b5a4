// The client's words in its four languages (English, Russian, Ukrainian, Macedonian):
// the current language, the lookup of a word by its key, plurals, numbers and dates.
// A page downloads the words of its language only: each screen module keeps them in
// `words/<lang>/<module>.js` (the same keys in all four languages) and waits for them
// with `await loadWords('<module>')` when it loads; a language switch loads the new
// language's words of every module loaded so far before the screens draw again. The
// language of a page is chosen by index.html's first script, which also preloads the
// words every page needs. `web/tests/i18n.test.js` fails when a key is missing or empty
// in any language, so a word is never looked for in another language.

export const LANGS = ['en', 'ru', 'uk', 'mk'];
export const LANG_NAMES = { en: 'English', ru: 'Русский', uk: 'Українська', mk: 'Македонски' };

// The words of each language loaded so far: every module in `modules` in the current
// language, and whatever an earlier language had.
const tables = { en: {}, ru: {}, uk: {}, mk: {} };
// `<lang>/<module>` -> the load of that file, merged into `tables[lang]` when it came.
const loads = new Map();
// The modules whose words the page uses.
const modules = new Set();
const listeners = new Set();

// index.html chose it: the remembered one, else the browser's first that the client
// speaks, else English.
let lang = LANGS.includes(document.documentElement.lang) ? document.documentElement.lang : 'en';
// The language being switched to (the last asked for), `lang` when none is.
let wanted = lang;

export const currentLang = () => lang;

/** Loads `module`'s words in `l` once (a failed load is tried again next time). */
function ensure(l, module) {
  const key = `${l}/${module}`;
  if (!loads.has(key)) {
    const load = import(`./words/${l}/${module}.js`).then((m) => {
      Object.assign(tables[l], m.default);
    }, (err) => {
      loads.delete(key);
      throw err;
    });
    loads.set(key, load);
  }
  return loads.get(key);
}

/** Resolves when `module`'s words are there in the current language; from then on a
 * language switch brings them in the new one too. Screen modules await it when they
 * load; app.js calls it beside the dynamic import of a screen so that both files come
 * at once. */
export async function loadWords(module) {
  modules.add(module);
  let l;
  do {
    l = lang;
    await ensure(l, module);
  } while (l !== lang);
}

/** Switches the language: loads its words of every module the page uses, then
 * remembers it in this browser and tells every listener (the screens render again).
 * Resolves to false, changing nothing, when the language is unknown, another switch
 * came meanwhile, or its words did not load. */
export async function setLang(next) {
  if (!LANGS.includes(next) || next === wanted) return false;
  wanted = next;
  try {
    let names;
    do {
      names = [...modules];
      await Promise.all(names.map((m) => ensure(next, m)));
    } while (names.length < modules.size);
  } catch (_) {
    if (wanted === next) wanted = lang;
    return false;
  }
  if (wanted !== next) return false;
  lang = next;
  localStorage.setItem('damka.lang', lang);
  document.documentElement.lang = lang;
  for (const f of listeners) f(lang);
  return true;
}

/** Call `f(lang)` after every language switch. */
export function onLang(f) {
  listeners.add(f);
  return () => listeners.delete(f);
}

/** The word for `key` in the current language with `{name}` replaced from `vars`; the
 * key itself when there is none. A word that is an object of plural forms (`one`,
 * `few`, `many`, `other`) is chosen by `vars.n`. */
export function t(key, vars = {}) {
  let w = tables[lang][key] ?? key;
  if (typeof w === 'object') {
    const form = new Intl.PluralRules(lang).select(Number(vars.n ?? 0));
    w = w[form] ?? w.other ?? w.many ?? Object.values(w)[0];
  }
  return String(w).replace(/\{(\w+)\}/g, (m, k) => (k in vars ? (k === 'n' ? fmtNumber(vars[k]) : String(vars[k])) : m));
}

/** Whether a key has a word (to fall back to server text for unknown error codes). */
export const hasWord = (key) => key in tables[lang];

export const fmtNumber = (n, opts) => new Intl.NumberFormat(lang, opts).format(n);

export const fmtDate = (ms, opts = { dateStyle: 'medium' }) => new Intl.DateTimeFormat(lang, opts).format(new Date(ms));

export const fmtDateTime = (ms) => fmtDate(ms, { dateStyle: 'medium', timeStyle: 'short' });
