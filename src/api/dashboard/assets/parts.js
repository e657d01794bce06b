// What every explorer page builds with: the hash routes of its pages, links to them, tables, and
// a table read page by page by cursor. One place, so that a page's link is spelled once.

import { fill, h } from './dom.js';
import { groupedCoins, shortHash, UNIT } from './units.js';

export const PAGE_SIZE = 25;

export const blockHref = (chain, id) => `#/block/${chain}/${encodeURIComponent(id)}`;
export const txHref = (chain, hash) => `#/tx/${chain}/${encodeURIComponent(hash)}`;
export const addressHref = (chain, address) => `#/address/${chain}/${encodeURIComponent(address)}`;
export const tokenHref = (chain, id) => `#/token/${chain}/${encodeURIComponent(id)}`;
/** Validators are pos only: their route names no chain. */
export const validatorHref = (index) => `#/validator/${encodeURIComponent(index)}`;

export const blockLink = (chain, id, text = `#${Number(id).toLocaleString('en')}`) => h('a', { href: blockHref(chain, id), 'data-block': String(id) }, text);
export const txLink = (chain, hash) => (hash ? h('a', { href: txHref(chain, hash), title: hash, 'data-tx-link': hash }, h('code', {}, shortHash(hash, 6))) : '–');
export const addressLink = (chain, address) => (address ? h('a', { href: addressHref(chain, address), title: address }, shortHash(address, 7)) : '–');
/** A token by its symbol (its name, else its shortened id, when it has none). */
export const tokenLink = (chain, id, symbol = null) => h('a', { href: tokenHref(chain, id), title: id, 'data-token-link': id }, symbol ?? h('code', {}, shortHash(id, 6)));
export const validatorLink = (index) => (index === null || index === undefined ? '–' : h('a', { href: validatorHref(index), 'data-validator-link': String(index) }, String(index)));
export const coins = (raw, chain) => (raw === null || raw === undefined ? '–' : `${groupedCoins(raw, chain)} ${UNIT}`);
/** A long hex value (a key, a public key) shortened, the whole of it in the title. */
export const longHex = (hex, keep = 10) => (hex ? h('code', { title: hex }, shortHash(hex, keep)) : h('span', { class: 'muted' }, 'empty'));
export const count = (n) => (n === null || n === undefined ? '–' : Number(n).toLocaleString('en'));

export function table(columns, rows, empty) {
  return h(
    'div',
    { class: 'table-wrap' },
    h('table', { class: 'txs' }, h('thead', {}, h('tr', {}, columns.map((c) => h('th', {}, c)))), h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: columns.length, class: 'muted' }, empty)))),
  );
}

/**
 * A table that reads `path` page by page by cursor; `row` makes a table row of an item. "next"
 * follows the answer's `next_cursor`, "previous" goes back through the cursors already used, so
 * paging never skips or repeats a row while blocks arrive. The wrapper's data-state is "loading"
 * while a page is on its way, and carries the page's number and row count once it is shown.
 */
export function pagedTable(api, path, columns, row, empty, query = {}) {
  const wrap = h('div', { 'data-state': 'loading' });
  const pager = h('div', { class: 'pager' });
  const previous = [];
  let cursor;
  async function load() {
    wrap.dataset.state = 'loading';
    const body = await api.get(path, { ...query, limit: PAGE_SIZE, cursor });
    fill(wrap, table(columns, body.items.map(row), empty));
    fill(
      pager,
      body.total === null || body.total === undefined ? null : h('span', { class: 'muted', 'data-part': 'total' }, `${count(body.total)} in all`),
      h('button', { type: 'button', 'data-turn': 'previous', disabled: previous.length === 0, onclick: () => ((cursor = previous.pop()), load()) }, '← previous'),
      h('button', { type: 'button', 'data-turn': 'next', disabled: !body.next_cursor, onclick: () => (previous.push(cursor), (cursor = body.next_cursor), load()) }, 'next →'),
    );
    wrap.dataset.state = 'ready';
    wrap.dataset.count = String(body.items.length);
    wrap.dataset.pageNumber = String(previous.length + 1);
  }
  return { el: h('div', {}, wrap, pager), load };
}

/** A chain's tag, the first word of a page's title. */
export const chainTag = (chain) => h('span', { class: `chain-tag ${chain}` }, chain);

/**
 * An explorer page's section: named by `page` and `id` (so that a test tells it from the page it
 * replaces), a link `back` ({ href, text }) when it has one, its title, then its cards.
 */
export function explorerPage({ page, chain, id, back }, title, ...content) {
  return h('section', { class: 'explorer-page', 'data-page': page, 'data-chain': chain, 'data-id': id }, back ? h('a', { href: back.href, class: 'back' }, back.text) : null, title, ...content);
}

/** The way back to a chain's charts, where most pages are opened from. */
export const backToChain = (chain) => ({ href: `#/chain/${chain}`, text: `← ${chain}` });

/** A row of a recipient list (a pow transfer's, a multi-signature spend's). */
export const recipientRow = (chain, r) => h('tr', { 'data-recipient': r.to_addr }, h('td', { class: 'num' }, r.recipient_index), h('td', {}, addressLink(chain, r.to_addr)), h('td', { class: 'num' }, groupedCoins(r.amount, chain)));
export const RECIPIENT_COLUMNS = ['#', 'to', `amount (${UNIT})`];

/** A multi-signature address's signatories with their weights, in order. */
export const signatoryTable = (chain, signatories) => table(['signatory', 'weight'], signatories.map((s) => h('tr', { 'data-signatory': s.address }, h('td', {}, addressLink(chain, s.address)), h('td', { class: 'num' }, s.weight))), '');

/** A card of a page: a title over its content, named by `part` for the tests. */
export const card = (title, part, ...content) => h('div', { class: 'card', 'data-part': part }, title ? h('h3', {}, title) : null, ...content);

/** The error line a page shows above itself when an answer fails (the API's detail for a 404). */
export function reporter(root, what) {
  return (error) => {
    if (error.status === 401) return;
    root.querySelector('.explorer-page')?.prepend(h('p', { class: 'error', 'data-part': 'error' }, error.status === 404 ? error.message : `Could not load this ${what}: ${error.message}`));
  };
}
