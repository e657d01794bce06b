// The validator pages (pos only): the validators by index, and one validator by index or public
// key with its state as the staking sync last read it, the blocks it proposed and the withdrawals
// paid from it, each page by cursor.

import { field, fill, h } from './dom.js';
import { addressLink, backToChain, blockLink, card, chainTag, coins, count, explorerPage, longHex, pagedTable, reporter, validatorLink } from './parts.js';
import { groupedCoins, UNIT } from './units.js';

const epoch = (e) => (e === null || e === undefined ? 'none' : count(e));

/** Every validator, by index (GET /pos/validators). */
export function renderValidators(root, { api }) {
  const list = pagedTable(
    api,
    '/pos/validators',
    ['index', 'status', `balance (${UNIT})`, `effective (${UNIT})`, 'withdrawal address', 'slashed'],
    (v) =>
      h(
        'tr',
        { 'data-validator': String(v.index) },
        h('td', { class: 'num' }, validatorLink(v.index)),
        h('td', {}, v.status),
        h('td', { class: 'num' }, groupedCoins(v.balance, 'pos')),
        h('td', { class: 'num' }, groupedCoins(v.effective_balance, 'pos')),
        h('td', {}, addressLink('pos', v.withdrawal_address)),
        h('td', {}, v.slashed ? 'yes' : 'no'),
      ),
    'no validators stored',
  );
  fill(
    root,
    explorerPage(
      { page: 'validators', chain: 'pos', back: backToChain('pos') },
      h('h2', {}, chainTag('pos'), ' validators'),
      card(null, 'validators', list.el),
    ),
  );
  const report = reporter(root, 'validator list');
  return { ready: list.load().catch(report), refresh: () => list.load().catch(report) };
}

/** One validator: `id` is its index or its public key, as the API takes it. */
export function renderValidator(root, { api, id }) {
  const detail = h('dl', { class: 'fields', 'data-part': 'validator' }, h('p', { class: 'muted' }, 'loading…'));
  const title = h('h2', {}, chainTag('pos'), ' validator ', h('code', { class: 'address' }, id));
  const base = `/pos/validators/${encodeURIComponent(id)}`;
  const blocks = pagedTable(
    api,
    `${base}/blocks`,
    ['slot', 'time', 'block', 'txs', 'fee recipient', `proposer reward (${UNIT})`, `priority fees (${UNIT})`],
    // A proposal whose execution block is not stored yet has its slot and reward only.
    (p) =>
      h(
        'tr',
        { 'data-slot': String(p.slot) },
        h('td', { class: 'num' }, count(p.slot)),
        h('td', { class: 'nowrap' }, p.timestamp),
        h('td', {}, p.height === null ? 'not stored' : blockLink('pos', p.height)),
        h('td', { class: 'num' }, count(p.tx_count)),
        h('td', {}, addressLink('pos', p.fee_recipient)),
        h('td', { class: 'num' }, groupedCoins(p.proposer_reward, 'pos')),
        h('td', { class: 'num' }, groupedCoins(p.priority_fees, 'pos')),
      ),
    'no proposals recorded',
  );
  const withdrawals = pagedTable(
    api,
    `${base}/withdrawals`,
    ['index', 'block', 'time', 'address', `amount (${UNIT})`],
    (w) => h('tr', { 'data-withdrawal': w.index }, h('td', { class: 'num' }, w.index), h('td', {}, blockLink('pos', w.height)), h('td', { class: 'nowrap' }, w.timestamp), h('td', {}, addressLink('pos', w.address)), h('td', { class: 'num', 'data-raw': w.amount }, groupedCoins(w.amount, 'pos'))),
    'no withdrawals',
  );
  fill(
    root,
    explorerPage(
      { page: 'validator', chain: 'pos', id, back: { href: '#/validators', text: '← validators' } },
      title,
      h('div', { class: 'card' }, detail),
      card('Blocks proposed', 'proposals', blocks.el),
      card('Withdrawals', 'withdrawals', withdrawals.el),
    ),
  );
  async function loadDetail() {
    const v = await api.get(base);
    fill(title, chainTag('pos'), ' validator ', h('strong', { 'data-field': 'index' }, `#${v.index}`));
    fill(
      detail,
      field('status', `${v.status}${v.slashed ? ' (slashed)' : ''}`, { 'data-field': 'status' }),
      field('balance', coins(v.balance, 'pos'), { 'data-field': 'balance', 'data-raw': v.balance }),
      field('effective balance', coins(v.effective_balance, 'pos'), { 'data-field': 'effective_balance', 'data-raw': v.effective_balance }),
      field('withdrawal address', addressLink('pos', v.withdrawal_address)),
      field('activation epoch', epoch(v.activation_epoch)),
      field('exit epoch', epoch(v.exit_epoch)),
      field('blocks proposed', count(v.proposed_blocks), { 'data-field': 'proposed_blocks' }),
      field('withdrawals', `${count(v.withdrawals_count)} (${coins(v.withdrawals_total, 'pos')})`, { 'data-field': 'withdrawals', 'data-count': String(v.withdrawals_count), 'data-raw': v.withdrawals_total }),
      // Signed: penalties can outweigh rewards. Null when no day of its history is recorded (no beacon node).
      field('net rewards', v.rewards_total === null ? 'not recorded' : `${coins(v.rewards_total, 'pos')} over ${count(v.days)} days`, { 'data-field': 'rewards_total', 'data-raw': v.rewards_total ?? '' }),
      field('public key', longHex(v.pubkey, 12)),
      field('state read', v.updated_at),
    );
    detail.dataset.state = 'ready';
  }
  const report = reporter(root, 'validator');
  const ready = Promise.all([loadDetail(), blocks.load(), withdrawals.load()]).catch(report);
  return { ready, refresh: () => loadDetail().catch(report) };
}
