// The token pages: a chain's tokens by holders, and one token (a pos contract address, or a pow
// token's creating transaction hash) with its holders and its transfers, each page by cursor.
// Amounts are shown in the token's own decimals, exactly.

import { field, fill, h } from './dom.js';
import { addressLink, backToChain, blockLink, card, chainTag, count, explorerPage, pagedTable, reporter, tokenLink, txLink } from './parts.js';
import { ago, tokenUnits } from './units.js';

const percent = (share) => (share === null || share === undefined ? '–' : `${share.toLocaleString('en', { maximumFractionDigits: 4 })} %`);
const amountCell = (raw, decimals) => h('td', { class: 'num', 'data-raw': raw }, tokenUnits(raw, decimals));

/** The chain's tokens, most holders first (GET /{chain}/tokens). */
export function renderTokens(root, { api, chain }) {
  const list = pagedTable(
    api,
    `/${chain}/tokens`,
    ['token', 'name', 'holders', 'transfers', 'supply', 'first transfer'],
    (t) =>
      h(
        'tr',
        { 'data-token': t.token },
        h('td', {}, tokenLink(chain, t.token, t.symbol)),
        h('td', {}, t.name ?? '–'),
        h('td', { class: 'num' }, count(t.holders)),
        h('td', { class: 'num' }, count(t.transfers)),
        amountCell(t.total_supply, t.decimals),
        h('td', {}, t.first_transfer_height === null ? '–' : blockLink(chain, t.first_transfer_height)),
      ),
    'no tokens',
    { sort: 'holders' },
  );
  fill(
    root,
    explorerPage(
      { page: 'tokens', chain, back: backToChain(chain) },
      h('h2', {}, chainTag(chain), ' tokens'),
      card(null, 'tokens', list.el),
    ),
  );
  const report = reporter(root, 'token list');
  return { ready: list.load().catch(report), refresh: () => list.load().catch(report) };
}

/** One token: its figures, then its holders and transfers, whose amounts need its decimals first. */
export function renderToken(root, { api, chain, id }) {
  const detail = h('dl', { class: 'fields', 'data-part': 'token' }, h('p', { class: 'muted' }, 'loading…'));
  const title = h('h2', {}, chainTag(chain), ' token ', h('code', { class: 'address' }, id));
  const base = `/${chain}/tokens/${encodeURIComponent(id)}`;
  // Set by the detail before either table is read.
  let decimals = null;
  const holders = pagedTable(
    api,
    `${base}/holders`,
    ['holder', 'balance', 'share', 'transfers', 'last activity'],
    (x) => h('tr', { 'data-holder': x.address }, h('td', {}, addressLink(chain, x.address)), amountCell(x.balance, decimals), h('td', { class: 'num' }, percent(x.share_pct)), h('td', { class: 'num' }, count(x.transfer_count)), h('td', { class: 'nowrap' }, x.last_activity ?? '–')),
    'no holders',
  );
  const transfers = pagedTable(
    api,
    `${base}/transfers`,
    ['time', 'transaction', 'block', 'from', 'to', 'amount'],
    (x) => h('tr', { 'data-tx': x.tx_hash }, h('td', { class: 'nowrap' }, x.timestamp), h('td', {}, txLink(chain, x.tx_hash)), h('td', {}, blockLink(chain, x.height)), h('td', {}, addressLink(chain, x.from_addr)), h('td', {}, addressLink(chain, x.to_addr)), amountCell(x.amount, decimals)),
    'no transfers',
  );
  fill(
    root,
    explorerPage(
      { page: 'token', chain, id, back: { href: `#/tokens/${chain}`, text: `← ${chain} tokens` } },
      title,
      h('div', { class: 'card' }, detail),
      card('Holders', 'holders', holders.el),
      card('Transfers', 'transfers', transfers.el),
    ),
  );
  async function loadDetail() {
    const t = await api.get(base);
    decimals = t.decimals;
    const unit = t.symbol ? ` ${t.symbol}` : '';
    fill(title, chainTag(chain), ' token ', h('strong', { 'data-field': 'name' }, t.name ?? 'unnamed'), t.symbol ? h('span', { class: 'muted' }, ` (${t.symbol})`) : null);
    fill(
      detail,
      field('id', h('code', { 'data-field': 'token' }, t.token)),
      field('symbol', t.symbol, { 'data-field': 'symbol' }),
      field('decimals', t.decimals === null ? 'unknown' : String(t.decimals), { 'data-field': 'decimals' }),
      field('total supply', t.total_supply === null ? '–' : `${tokenUnits(t.total_supply, t.decimals)}${unit}`, { 'data-field': 'total_supply', 'data-raw': t.total_supply ?? '' }),
      field('holders', count(t.holders), { 'data-field': 'holders' }),
      field('transfers', count(t.transfers), { 'data-field': 'transfers' }),
      field('creator', addressLink(chain, t.creator), { 'data-field': 'creator' }),
      field('created by', txLink(chain, t.created_tx)),
      field('created', t.created_height === null ? '–' : h('span', {}, blockLink(chain, t.created_height), ` · ${t.created_at} (${ago(t.created_at)})`)),
      field('first transfer', t.first_transfer_height === null ? '–' : h('span', {}, blockLink(chain, t.first_transfer_height), ` · ${t.first_transfer_at}`)),
    );
    detail.dataset.state = 'ready';
  }
  const report = reporter(root, 'token');
  const ready = loadDetail().then(() => Promise.all([holders.load(), transfers.load()])).catch(report);
  return { ready, refresh: () => loadDetail().catch(report) };
}
