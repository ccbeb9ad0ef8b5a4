// The client's words are complete (node only, no browser): every module's words exist
// in web/app/words/<lang>/ for English, Russian, Ukrainian and Macedonian with the same
// keys, none empty, the same {variables} in every language and every plural form the
// language's Intl.PluralRules asks for; every word the client's code names exists;
// every error code the server sends (shared/src/protocol/error.rs) has its sentence,
// and every rule that can end a game (shared/src/law/outcome.rs, the server's details)
// its words. And the page fetches what it uses: index.html preloads the modules app.js
// imports and, in the page's language, the words of those that load words; every
// module whose words the code loads has them, and no words file is left unused.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { LANGS, root, wordTables as tables } from './lib.js';

const app = path.join(root, 'web/app');

const vars = (w) => {
  const forms = typeof w === 'object' ? Object.values(w) : [w];
  return [...new Set(forms.flatMap((f) => [...String(f).matchAll(/\{(\w+)\}/g)].map((m) => m[1])))].sort().join(',');
};

/** Every problem of one module's table: missing, empty, extra, plural forms, variables. */
export function problems(name, words) {
  const out = [];
  const keys = new Set(LANGS.flatMap((l) => Object.keys(words[l] || {})));
  for (const l of LANGS) {
    const table = words[l] || {};
    const needed = new Intl.PluralRules(l).resolvedOptions().pluralCategories;
    for (const k of keys) {
      const w = table[k];
      if (w === undefined) out.push(`${name}: ${l} lacks ${k}`);
      else if (typeof w === 'object') {
        for (const form of needed) if (!String(w[form] ?? '').trim()) out.push(`${name}: ${l} ${k} lacks the plural form ${form}`);
        if (!('n' in Object.fromEntries(vars(w).split(',').map((v) => [v, 1])))) out.push(`${name}: ${l} ${k} is a plural without {n}`);
      } else if (!String(w).trim()) out.push(`${name}: ${l} ${k} is empty`);
      if (w !== undefined && table !== words.en && words.en && words.en[k] !== undefined && vars(w) !== vars(words.en[k])) {
        out.push(`${name}: ${l} ${k} has {${vars(w)}} where English has {${vars(words.en[k])}}`);
      }
    }
  }
  return out;
}

test('the checker finds a missing word, an empty one, a missing plural form and a changed variable', () => {
  const bad = {
    en: { a: 'A {name}', b: 'B', c: { one: '{n} game', other: '{n} games' } },
    ru: { a: 'А {nom}', b: '', c: { one: '{n} партия', other: '{n} партии' } },
    uk: { a: 'А {name}', b: 'Б', c: { one: '{n} партія', few: '{n} партії', many: '{n} партій', other: '{n} партії' } },
    mk: { b: 'Б', c: { one: '{n} партија', other: '{n} партии' } },
  };
  const found = problems('bad', bad).join('\n');
  assert.match(found, /mk lacks a/);
  assert.match(found, /ru b is empty/);
  assert.match(found, /ru c lacks the plural form few/);
  assert.match(found, /ru a has \{nom\}/);
  assert.doesNotMatch(found, /uk/);
});

test('every module has every word in all four languages, with the same variables and all plural forms', async () => {
  const all = await tables();
  assert.ok(Object.keys(all).length >= 5, 'the words of app, ui, board, events and settings');
  const found = Object.entries(all).flatMap(([name, words]) => [
    ...LANGS.filter((l) => !words[l]).map((l) => `${name}: no words/${l}/${name}.js`),
    ...problems(name, words),
  ]);
  assert.deepEqual(found, []);
  assert.deepEqual(readdirSync(path.join(app, 'words')).sort(), [...LANGS].sort(), 'words/ holds one directory per language');
});

/** The modules `file` imports statically (`import ... from './x.js'`). */
const importsOf = (file) => [...readFileSync(path.join(app, file), 'utf8').matchAll(/^import [^;]* from '\.\/([a-z]+\.js)';$/gm)].map((m) => m[1]);

test('index.html preloads what every page uses and nothing else: app.js\'s modules, and their words in the page\'s language', async () => {
  const html = readFileSync(path.join(app, 'index.html'), 'utf8');
  const graph = new Set();
  const walk = (f) => {
    for (const m of importsOf(f)) if (!graph.has(m)) { graph.add(m); walk(m); }
  };
  walk('app.js');
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="\/assets\/\{\{BUILD\}\}\/([a-z]+\.js)">/g)].map((m) => m[1]);
  assert.deepEqual(preloaded.sort(), [...graph].sort());
  assert.match(html, /<script type="module" src="\/assets\/\{\{BUILD\}\}\/app\.js"><\/script>/);
  // The words: those the page's modules (and app.js) wait for when they load.
  const loading = (f) => [...readFileSync(path.join(app, f), 'utf8').matchAll(/^await loadWords\('([a-z]+)'\);$/gm)].map((m) => m[1]);
  const needed = ['app.js', ...graph].flatMap(loading).sort();
  const script = html.match(/for \(const m of \[([^\]]*)\]\)[^`]*`\/assets\/\{\{BUILD\}\}\/words\/\$\{lang\}\/\$\{m\}\.js`/);
  assert.ok(script, 'index.html preloads the words of the page\'s language');
  assert.deepEqual(script[1].split(',').map((x) => x.trim().replace(/'/g, '')).sort(), needed);
  assert.doesNotMatch(html, /words\/(en|ru|uk|mk)\//, 'no language\'s words are preloaded for every page');
});

test('every module whose words the code loads has them, and every words file is loaded', async () => {
  const all = await tables();
  const named = new Set();
  for (const f of readdirSync(app).filter((x) => x.endsWith('.js'))) {
    const code = readFileSync(path.join(app, f), 'utf8');
    for (const m of code.matchAll(/\b(?:loadWords|withWords)\('([a-z]+)'/g)) named.add(m[1]);
  }
  assert.deepEqual([...named].sort(), Object.keys(all).sort());
});

test('every word the client names exists, and every error code the server sends has its sentence', async () => {
  const all = await tables();
  const en = Object.assign({}, ...Object.values(all).map((w) => w.en));
  const missing = [];
  for (const f of readdirSync(app).filter((x) => x.endsWith('.js'))) {
    const code = readFileSync(path.join(app, f), 'utf8');
    // Whole keys; a key ending in `_` or `.` is a prefix, checked by its family below.
    for (const m of code.matchAll(/\bt\('([a-z0-9_]+\.[a-z0-9_.]*[a-z0-9])'/g)) if (!(m[1] in en)) missing.push(`${f}: ${m[1]}`);
  }
  const errors = readFileSync(path.join(root, 'shared/src/protocol/error.rs'), 'utf8');
  const codes = [...errors.matchAll(/^\s+[A-Z]\w* = "([a-z_]+)",/gm)].map((m) => m[1]);
  assert.ok(codes.length > 50, `read the error codes (${codes.length})`);
  for (const c of codes) if (!('error.' + c in en)) missing.push(`error code ${c}`);
  // Words looked up by a prefix and a server value.
  const families = {
    variant: ['russian', 'brazilian', 'pool', 'czech', 'portuguese', 'italian', 'international', 'frisian', 'chess', 'chess960'],
    reason: ['checkmate', 'stalemate', 'no_pieces', 'no_moves', 'resignation', 'timeout', 'agreement', 'repetition', 'move_rule', 'insufficient_material', 'rule_draw', 'abandoned', 'aborted'],
    speed: ['bullet', 'blitz', 'rapid', 'classical'],
    colour: ['random', 'white', 'black'],
    side: ['white', 'black'],
    status: ['upcoming', 'running', 'finishing', 'finished'],
    system: ['round_robin', 'swiss', 'scheveningen', 'knockout'],
    'game.to_move': ['white', 'black'],
    'arena.result': ['win', 'draw', 'loss'],
    'analysis.count': ['inaccuracy', 'mistake', 'blunder'],
    analysis: ['inaccuracy', 'mistake', 'blunder'],
    'settings.board': ['brown', 'green', 'blue', 'grey'],
    'settings.pieces': ['flat', 'classic'],
  };
  for (const [prefix, values] of Object.entries(families)) {
    for (const v of values) {
      const key = prefix.includes('.') ? `${prefix}_${v}` : `${prefix}.${v}`;
      if (!(key in en)) missing.push(key);
    }
  }
  assert.deepEqual(missing, []);
});

test('every rule that can end a game has its description in words', async () => {
  const all = await tables();
  const en = Object.assign({}, ...Object.values(all).map((w) => w.en));
  // As ui.js's ruleText looks them up.
  const key = (text) => 'rule.' + text.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
  const known = (text) => {
    if (key(text) in en) return true;
    const m = text.match(/^(.*?)\s*\(([^()]*)\)$/);
    return !!m && (key(m[2]) in en || key(m[1]) in en);
  };
  const read = (f) => readFileSync(path.join(root, f), 'utf8');
  const articles = [...read('shared/src/law/outcome.rs').matchAll(/=> "([^"]+)",/g)].map((m) => m[1]);
  assert.ok(articles.length > 30, `read the rules' articles (${articles.length})`);
  const details = [
    ...[...read('server/src/game/record.rs').matchAll(/Some\("([^"]+)"\.to_string\(\)\)/g)].map((m) => m[1]),
    ...[...read('server/src/game/mod.rs').matchAll(/pub const NO_START: &str = "([^"]+)";/g)].map((m) => m[1]),
  ];
  assert.ok(details.length >= 3, `read the server's details (${details.length})`);
  // An article without a description (`IDF 8.2.9`) is shown as the rules number it.
  const missing = [...articles, ...details].filter((a) => /[a-z]{3,}/.test(a.replace(/^[A-Z]+[^(]*/, '')) && !known(a));
  assert.deepEqual(missing, []);
});
