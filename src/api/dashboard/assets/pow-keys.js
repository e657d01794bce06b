// What only a pow address has: its XMSS one-time keys (GET /pow/addresses/{a}/ots), with a
// warning when a key index was signed with twice, and for a multi-signature address its
// signatories, threshold and spends (/multisig, /multisig/spends). docs/api-ots.md.

import { field, fill, h } from './dom.js';
import { addressLink, card, coins, count, pagedTable, signatoryTable, table, txLink } from './parts.js';

/** A multi-signature address's form (descriptor 110000: `Q11…`, 79 characters): it has no one-time keys. */
export const isMultiSigAddress = (address) => address.length === 79 && address.startsWith('Q11');

/** Keys per row of the bitfield grid: a page of 8,192 keys is 128 × 64 cells. */
const GRID_COLUMNS = 128;
const CELL = 3;

/**
 * The page's bitfield as a grid, a cell per key, used keys dark: key k of the page is bit k % 8
 * (least significant first) of byte k >> 3, as the node keeps it. data-used counts the cells drawn.
 */
function bitfieldGrid(page) {
  const keys = page.last_index - page.first_index + 1;
  const canvas = h('canvas', { class: 'ots-grid', width: GRID_COLUMNS * CELL, height: Math.ceil(keys / GRID_COLUMNS) * CELL, 'data-part': 'ots-grid' });
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#e3e8f0';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#b7791f';
  let used = 0;
  for (let k = 0; k < keys; k++) {
    const byte = parseInt(page.bitfield.slice((k >> 3) * 2, (k >> 3) * 2 + 2), 16);
    if (!((byte >> (k % 8)) & 1)) continue;
    used++;
    ctx.fillRect((k % GRID_COLUMNS) * CELL, Math.floor(k / GRID_COLUMNS) * CELL, CELL - 1, CELL - 1);
  }
  canvas.dataset.used = String(used);
  canvas.title = `keys ${page.first_index}–${page.last_index}: ${page.keys_used} used`;
  return canvas;
}

/** The warning a reused key deserves: each index signed with more than once, with the transactions that did. */
function reuseWarning(o) {
  const listed = o.reuses.length < o.reused_keys ? ` (the first ${o.reuses.length} listed)` : '';
  return h(
    'div',
    { class: 'warning', role: 'alert', 'data-part': 'ots-reuse', 'data-count': String(o.reused_keys) },
    h('strong', {}, `One-time key reuse: ${count(o.reused_keys)} key ${o.reused_keys === 1 ? 'index was' : 'indexes were'} signed with more than once${listed}.`),
    ' Each reuse weakens this address\'s XMSS key; its coins should move to a new address.',
    table(
      ['key index', 'uses', 'signed by'],
      o.reuses.map((r) => h('tr', { 'data-reused-index': String(r.ots_index) }, h('td', { class: 'num' }, r.ots_index), h('td', { class: 'num' }, r.uses), h('td', {}, r.transactions.flatMap((t, i) => [i ? ', ' : null, txLink('pow', t.tx_hash)])))),
      '',
    ),
  );
}

/** The one-time keys panel of pow address `address`: `load` reads the page of keys in view again. */
export function otsPanel(api, address) {
  const body = h('div', { 'data-part': 'ots', 'data-state': 'loading' }, h('p', { class: 'muted' }, 'loading…'));
  let page = 1;
  async function load() {
    body.dataset.state = 'loading';
    let o;
    try {
      o = await api.get(`/pow/addresses/${encodeURIComponent(address)}/ots`, { page });
    } catch (error) {
      // The coinbase sentinel signs with no key: a 404 says so.
      if (error.status !== 404) throw error;
      fill(body, h('p', { class: 'muted' }, error.message));
      body.dataset.state = 'none';
      return;
    }
    const turn = (to) => ((page = to), load());
    fill(
      body,
      o.reused_keys > 0 ? reuseWarning(o) : null,
      h(
        'dl',
        { class: 'fields' },
        field('keys used', `${count(o.keys_used)} of ${count(o.keys_total)}`, { 'data-field': 'keys_used', 'data-count': String(o.keys_used) }),
        field('keys left', count(o.keys_left), { 'data-field': 'keys_left' }),
        field('signatures', count(o.signatures), { 'data-field': 'signatures' }),
        field('next unused index', o.next_unused_index === null ? 'none: every key is used' : count(o.next_unused_index), { 'data-field': 'next_unused_index' }),
        field('highest used index', o.highest_used_index === null ? 'none yet' : count(o.highest_used_index), { 'data-field': 'highest_used_index' }),
        field('tree', `height ${o.tree_height}, ${o.hash_function}`, { 'data-field': 'tree' }),
      ),
      h('progress', { class: 'ots-bar', max: o.keys_total, value: o.keys_used, title: `${o.keys_used} of ${o.keys_total} keys used` }),
      bitfieldGrid(o.page),
      o.pages > 1
        ? h(
            'div',
            { class: 'pager' },
            h('span', { class: 'muted' }, `keys ${count(o.page.first_index)}–${count(o.page.last_index)} (page ${o.page.number} of ${count(o.pages)})`),
            h('button', { type: 'button', disabled: page <= 1, onclick: () => turn(page - 1) }, '← lower'),
            h('button', { type: 'button', disabled: page >= o.pages, onclick: () => turn(page + 1) }, 'higher →'),
          )
        : null,
    );
    body.dataset.state = 'ready';
  }
  return { el: card('One-time keys (XMSS)', 'ots-panel', body), load };
}

/** The multi-signature panel of pow address `address`: who signs, the threshold, what it holds, its spends. */
export function multiSigPanel(api, address) {
  const base = `/pow/addresses/${encodeURIComponent(address)}/multisig`;
  const body = h('div', { 'data-part': 'multisig', 'data-state': 'loading' }, h('p', { class: 'muted' }, 'loading…'));
  const spends = pagedTable(
    api,
    `${base}/spends`,
    ['spend', 'proposer', 'total', 'approved', 'expiry', 'state'],
    (s) =>
      h(
        'tr',
        { 'data-spend': s.tx_hash },
        h('td', {}, txLink('pow', s.tx_hash)),
        h('td', {}, addressLink('pow', s.proposer)),
        h('td', { class: 'num' }, coins(s.total, 'pow')),
        h('td', { class: 'num' }, `${s.approved_weight} of ${s.threshold}`),
        h('td', { class: 'num' }, count(s.expiry_height)),
        h('td', {}, s.executed_by ? h('span', {}, 'executed by ', txLink('pow', s.executed_by.tx_hash)) : s.status),
      ),
    'no spends',
  );
  async function loadState() {
    let m;
    try {
      m = await api.get(base);
    } catch (error) {
      // An address of the form that no stored multi_sig_create made.
      if (error.status !== 404) throw error;
      fill(body, h('p', { class: 'muted' }, error.message));
      body.dataset.state = 'none';
      return;
    }
    fill(
      body,
      h(
        'dl',
        { class: 'fields' },
        field('threshold', `${m.threshold} of ${m.total_weight}`, { 'data-field': 'threshold' }),
        field('balance', coins(m.balance, 'pow'), { 'data-field': 'multisig_balance', 'data-raw': m.balance }),
        field('received', coins(m.received, 'pow')),
        field('spent', coins(m.spent, 'pow')),
        field('spends', `${m.spends.total}: ${m.spends.open} open, ${m.spends.executed} executed, ${m.spends.expired} expired`, { 'data-field': 'spends' }),
        field('created by', txLink('pow', m.created.tx_hash)),
        field('creator', addressLink('pow', m.created.creator)),
      ),
      signatoryTable('pow', m.signatories),
    );
    body.dataset.state = 'ready';
  }
  // Its spends only once the address is known to be one (an unknown one has none to list).
  const load = () => loadState().then(() => (body.dataset.state === 'ready' ? spends.load() : null));
  return { el: card('Multi-signature address', 'multisig-panel', body, h('h3', {}, 'Spends'), spends.el), load };
}
