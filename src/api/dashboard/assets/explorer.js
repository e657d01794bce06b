// The explorer's pages: the latest blocks and transactions of a chain (above its charts, moving
// as blocks arrive), a block page with its transactions and withdrawals, and a transaction page
// with its recipients, token and internal transfers, receipt, fee, migration leg and the pow
// subtype's own body (slave keys, a created token, lattice keys, a multi-signature body).

import { field, fill, h } from './dom.js';
import {
  addressHref, addressLink, backToChain, blockHref, blockLink, card, chainTag, coins, count, explorerPage, longHex, pagedTable, RECIPIENT_COLUMNS, recipientRow,
  reporter, signatoryTable, table, tokenHref, tokenLink, txHref, txLink, validatorHref, validatorLink,
} from './parts.js';
import { ago, groupedCoins, shortHash, tokenUnits, UNIT } from './units.js';

const LATEST = 10;

/** The latest blocks and transactions of `chain`, in two cards: `refresh` reads them again (a block arrived). */
export function renderLatest(root, { api, chain }) {
  const blocks = h('div', { 'data-part': 'latest-blocks', 'data-state': 'loading' });
  const txs = h('div', { 'data-part': 'latest-transactions', 'data-state': 'loading' });
  root.append(
    h(
      'div',
      { class: 'latest' },
      h('article', { class: 'card' }, h('h3', {}, 'Latest blocks'), blocks),
      h('article', { class: 'card' }, h('h3', {}, 'Latest transactions'), txs),
    ),
  );
  async function load() {
    const [b, t] = await Promise.all([api.get(`/${chain}/blocks`, { limit: LATEST }), api.get(`/${chain}/transactions`, { limit: LATEST })]);
    fill(
      blocks,
      table(
        ['block', 'age', 'txs', 'producer', `fees (${UNIT})`],
        b.items.map((block) =>
          h('tr', { 'data-height': String(block.height) }, h('td', {}, blockLink(chain, block.height)), h('td', { class: 'nowrap' }, ago(block.timestamp)), h('td', { class: 'num' }, block.tx_count), h('td', {}, addressLink(chain, block.producer)), h('td', { class: 'num' }, groupedCoins(block.fees, chain))),
        ),
        'no blocks yet',
      ),
    );
    blocks.dataset.state = 'ready';
    blocks.dataset.tip = b.items[0] ? String(b.items[0].height) : '';
    fill(
      txs,
      table(
        ['hash', 'type', 'from', 'to', `value (${UNIT})`],
        t.items.map((tx) => h('tr', { 'data-tx': tx.tx_hash }, h('td', {}, txLink(chain, tx.tx_hash)), h('td', {}, tx.tx_type ?? '–'), h('td', {}, addressLink(chain, tx.from_addr)), h('td', {}, addressLink(chain, tx.to_addr)), h('td', { class: 'num' }, groupedCoins(tx.value, chain)))),
        'no transactions yet',
      ),
    );
    txs.dataset.state = 'ready';
  }
  return { ready: load(), refresh: load };
}

/** A block page: `id` is a height or a hash. */
export function renderBlock(root, { api, chain, id }) {
  const detail = h('dl', { class: 'fields', 'data-part': 'block' }, h('p', { class: 'muted' }, 'loading…'));
  const title = h('h2', {}, chainTag(chain), ' block ', h('code', {}, id));
  const base = `/${chain}/blocks/${encodeURIComponent(id)}`;
  const txs = pagedTable(
    api,
    `${base}/transactions`,
    ['#', 'hash', 'type', 'from', 'to', `value (${UNIT})`, `fee (${UNIT})`],
    (tx) => h('tr', { 'data-tx': tx.tx_hash }, h('td', { class: 'num' }, tx.tx_index), h('td', {}, txLink(chain, tx.tx_hash)), h('td', {}, tx.tx_type ?? '–'), h('td', {}, addressLink(chain, tx.from_addr)), h('td', {}, addressLink(chain, tx.to_addr)), h('td', { class: 'num' }, groupedCoins(tx.value, chain)), h('td', { class: 'num' }, groupedCoins(tx.fee, chain))),
    'no transactions',
  );
  const withdrawals =
    chain === 'pos'
      ? pagedTable(
          api,
          `${base}/withdrawals`,
          ['index', 'validator', 'address', `amount (${UNIT})`],
          (w) => h('tr', {}, h('td', { class: 'num' }, w.index), h('td', { class: 'num' }, validatorLink(w.validator_index)), h('td', {}, addressLink(chain, w.address)), h('td', { class: 'num' }, groupedCoins(w.amount, chain))),
          'no withdrawals',
        )
      : null;
  fill(
    root,
    explorerPage(
      { page: 'block', chain, id, back: backToChain(chain) },
      title,
      h('div', { class: 'card' }, detail),
      h('div', { class: 'card' }, h('h3', {}, 'Transactions'), txs.el),
      withdrawals ? card('Withdrawals', 'withdrawals', withdrawals.el) : null,
    ),
  );
  async function loadDetail() {
    const b = await api.get(base);
    fill(title, chainTag(chain), ' block ', h('strong', { 'data-field': 'height' }, `#${b.height.toLocaleString('en')}`));
    fill(
      detail,
      field('hash', h('code', { 'data-field': 'hash' }, b.hash)),
      field('parent', b.height > 0 ? blockLink(chain, b.parent_hash, shortHash(b.parent_hash, 10)) : h('code', {}, b.parent_hash)),
      field('time', `${b.timestamp} (${ago(b.timestamp)})`),
      field('transactions', String(b.tx_count), { 'data-field': 'tx_count' }),
      field(chain === 'pow' ? 'miner' : 'fee recipient', addressLink(chain, b.producer)),
      // Null where no beacon node recorded the slot's proposer (a generated world): shown as unknown, never guessed.
      chain === 'pos' ? field('proposer', b.proposer_index === null ? 'unknown' : validatorLink(b.proposer_index), { 'data-field': 'proposer_index' }) : null,
      field('size', `${b.size.toLocaleString('en')} bytes`),
      chain === 'pow' ? field('reward', coins(b.reward, chain)) : null,
      field('fees', coins(b.fees, chain)),
      chain === 'pos' ? field('burned', coins(b.burned, chain)) : null,
      chain === 'pos' ? field('gas used', `${(b.gas_used ?? 0).toLocaleString('en')} of ${(b.gas_limit ?? 0).toLocaleString('en')}`) : null,
      chain === 'pos' ? field('base fee per gas', b.base_fee_per_gas === null ? '–' : `${b.base_fee_per_gas} planck`) : null,
      chain === 'pos' ? field('withdrawals', `${b.withdrawals_count ?? 0} (${coins(b.withdrawals_total, chain)})`) : null,
      field('confirmations', String(b.confirmations), { 'data-field': 'confirmations' }),
      field('final', b.finalized === null ? 'unknown' : b.finalized ? 'yes' : 'not yet', { 'data-field': 'finalized' }),
    );
    detail.dataset.state = 'ready';
  }
  const report = reporter(root, 'block');
  const ready = Promise.all([loadDetail(), txs.load(), withdrawals?.load()]).catch(report);
  return { ready, refresh: () => loadDetail().catch(report) };
}

/** A card with a table, or nothing when there are no rows (a transaction shows only the lists it has). */
const listCard = (title, part, columns, rows) => (rows.length ? card(title, part, table(columns, rows, '')) : null);

/** What a transaction moved: its recipients, token transfers (each in its token's decimals) and internal transfers. */
function transferCards(chain, t) {
  return [
    listCard('Recipients', 'recipients', RECIPIENT_COLUMNS, (t.recipients ?? []).map((r) => recipientRow(chain, r))),
    listCard(
      'Token transfers',
      'token-transfers',
      ['token', 'from', 'to', 'amount'],
      (t.token_transfers ?? []).map((x) =>
        h('tr', { 'data-log-index': String(x.log_index) }, h('td', {}, tokenLink(chain, x.contract, x.token_symbol)), h('td', {}, addressLink(chain, x.from_addr)), h('td', {}, addressLink(chain, x.to_addr)), h('td', { class: 'num', 'data-raw': x.amount }, tokenUnits(x.amount, x.token_decimals))),
      ),
    ),
    listCard('Internal transfers', 'internal-transfers', ['trace', 'from', 'to', `value (${UNIT})`], (t.internal_transfers ?? []).map((x) => h('tr', {}, h('td', {}, x.trace_address), h('td', {}, addressLink(chain, x.from_addr)), h('td', {}, addressLink(chain, x.to_addr)), h('td', { class: 'num' }, groupedCoins(x.value, chain))))),
  ];
}

/** The pow subtype's own body (slave keys, the token it created, lattice keys, a multi-signature body); each null when absent. */
function bodyCards(chain, t) {
  return [
    listCard('Slave keys registered', 'slave-keys', ['slave', 'access type'], (t.slave_keys ?? []).map((k) => h('tr', { 'data-slave': k.slave_address }, h('td', {}, addressLink(chain, k.slave_address)), h('td', {}, k.access_type === 0 ? '0 (all)' : String(k.access_type))))),
    t.token ? createdTokenCard(chain, t.token) : null,
    t.lattice_keys
      ? card(
          'Lattice keys published',
          'lattice-keys',
          h(
            'dl',
            { class: 'fields' },
            field('Kyber (pk1)', longHex(t.lattice_keys.kyber_pk), { 'data-field': 'kyber_pk' }),
            field('Dilithium (pk2)', longHex(t.lattice_keys.dilithium_pk), { 'data-field': 'dilithium_pk' }),
            field('ECDSA (pk3)', longHex(t.lattice_keys.ecdsa_pk), { 'data-field': 'ecdsa_pk' }),
          ),
        )
      : null,
    t.multi_sig ? multiSigCard(chain, t.multi_sig) : null,
  ];
}

function createdTokenCard(chain, token) {
  return card(
    'Token created',
    'created-token',
    h(
      'dl',
      { class: 'fields' },
      field('token', tokenLink(chain, token.address, token.name ?? token.symbol), { 'data-field': 'token' }),
      field('symbol', token.symbol),
      field('decimals', token.decimals === null ? '–' : String(token.decimals)),
      field('creator', addressLink(chain, token.creator)),
      // pos answers no supply here (a contract's supply moves): the token page has it.
      token.total_supply === null ? null : field('total supply', `${tokenUnits(token.total_supply, token.decimals)}${token.symbol ? ` ${token.symbol}` : ''}`, { 'data-field': 'total_supply' }),
    ),
  );
}

/** A multi_sig_create, _spend or _vote: its own fields; what its votes decided is on the multi-signature address's page. */
function multiSigCard(chain, m) {
  const fields = h(
    'dl',
    { class: 'fields' },
    field('kind', m.kind, { 'data-field': 'multisig_kind' }),
    field(m.kind === 'create' ? 'address made' : m.kind === 'spend' ? 'spends from' : 'spend of', m.multisig_address ? addressLink(chain, m.multisig_address) : 'not stored', { 'data-field': 'multisig_address' }),
    m.kind === 'create' ? field('threshold', `${m.threshold} of ${m.signatories.reduce((sum, s) => sum + s.weight, 0)}`, { 'data-field': 'threshold' }) : null,
    m.kind === 'spend' ? field('total', coins(m.total, chain), { 'data-field': 'total', 'data-raw': m.total }) : null,
    m.kind === 'spend' ? field('expires after block', count(m.expiry_height), { 'data-field': 'expiry_height' }) : null,
    m.kind === 'vote' ? field('spend', txLink(chain, m.spend_tx_hash), { 'data-field': 'spend_tx_hash' }) : null,
    m.kind === 'vote' ? field('vote', m.unvote ? 'withdraws approval' : 'approves', { 'data-field': 'unvote' }) : null,
  );
  const rows =
    m.kind === 'create'
      ? signatoryTable(chain, m.signatories)
      : m.kind === 'spend'
        ? table(RECIPIENT_COLUMNS, m.recipients.map((r) => recipientRow(chain, r)), '')
        : null;
  return card('Multi-signature', 'multi-sig', fields, rows);
}

/** A transaction page. */
export function renderTransaction(root, { api, chain, hash }) {
  const detail = h('dl', { class: 'fields', 'data-part': 'transaction' }, h('p', { class: 'muted' }, 'loading…'));
  const parts = h('div');
  fill(
    root,
    explorerPage(
      { page: 'transaction', chain, id: hash, back: backToChain(chain) },
      h('h2', {}, chainTag(chain), ' transaction ', h('code', { class: 'address' }, hash)),
      h('div', { class: 'card' }, detail),
      parts,
    ),
  );
  async function load() {
    const t = await api.get(`/${chain}/transactions/${encodeURIComponent(hash)}`);
    fill(
      detail,
      field('block', blockLink(chain, t.height), { 'data-field': 'height' }),
      field('time', `${t.timestamp} (${ago(t.timestamp)})`),
      field('type', t.tx_type, { 'data-field': 'tx_type' }),
      field('from', addressLink(chain, t.from_addr)),
      field('to', addressLink(chain, t.to_addr)),
      field('value', coins(t.value, chain), { 'data-field': 'value', 'data-raw': t.value ?? '' }),
      field('fee', coins(t.fee, chain), { 'data-field': 'fee' }),
      chain === 'pos' ? field('burned', coins(t.burned, chain)) : null,
      chain === 'pos' ? field('status', t.status === null ? '–' : t.status === 1 ? 'success' : 'reverted', { 'data-field': 'status' }) : null,
      chain === 'pos' ? field('gas used', t.gas_used === null ? '–' : `${t.gas_used.toLocaleString('en')} of ${(t.gas ?? 0).toLocaleString('en')}`) : null,
      chain === 'pow' && t.ots_index !== null && t.ots_index !== undefined ? field('OTS key index', String(t.ots_index)) : null,
      field('confirmations', String(t.confirmations), { 'data-field': 'confirmations' }),
      t.migration ? field('migration', `${t.migration.role} of ${coins(t.migration.amount, chain)}`) : null,
    );
    detail.dataset.state = 'ready';
    fill(parts, transferCards(chain, t), bodyCards(chain, t));
  }
  const report = reporter(root, 'transaction');
  const ready = load().catch(report);
  return { ready, refresh: () => load().catch(report) };
}

/** The dashboard page of an API path a search hit resolves with (`/api/v1/pos/blocks/0x…`), or null when the page has none. */
export function pageOfPath(path) {
  const [, chain, kind, id] = path.replace(/^\/api\/v1/, '').split('/');
  if (!chain || !id) return null;
  const decoded = decodeURIComponent(id);
  if (kind === 'blocks') return blockHref(chain, decoded);
  if (kind === 'transactions') return txHref(chain, decoded);
  if (kind === 'addresses') return addressHref(chain, decoded);
  if (kind === 'tokens') return tokenHref(chain, decoded);
  if (kind === 'validators' && chain === 'pos') return validatorHref(decoded);
  return null;
}

/** The hits of a search (GET /search?q=): each a link to its page. */
export function renderSearch(root, { api, q }) {
  const list = h('ul', { class: 'hits', 'data-part': 'hits', 'data-state': 'loading' });
  fill(root, explorerPage({ page: 'search', id: q }, h('h2', {}, 'Search ', h('code', {}, q)), h('div', { class: 'card' }, list)));
  async function load() {
    const body = await api.get('/search', { q });
    fill(
      list,
      body.items.length === 0
        ? h('li', { class: 'muted' }, 'nothing found')
        : body.items.map((hit) => {
            const href = pageOfPath(hit.path);
            const text = hit.label ? `${hit.label} · ${shortHash(hit.id, 10)}` : hit.kind === 'block' && hit.height !== null ? `block #${hit.height.toLocaleString('en')} · ${shortHash(hit.id, 10)}` : hit.id;
            return h('li', { 'data-hit': hit.kind }, h('span', { class: 'kind' }, hit.kind), chainTag(hit.chain), href ? h('a', { href, title: hit.id }, text) : h('code', {}, text));
          }),
    );
    list.dataset.state = 'ready';
  }
  const report = (error) => fill(list, h('li', { class: 'error', 'data-part': 'error' }, error.message));
  return { ready: load().catch(report), refresh: () => load().catch(report) };
}

/**
 * Where the search box goes for `q`: the page of its only hit, else the page of its hits. An
 * address is recognised without asking (its page answers for every well-formed address).
 */
export async function searchTarget(api, q, chainOfAddress) {
  const chain = chainOfAddress(q);
  if (chain) return addressHref(chain, q);
  const body = await api.get('/search', { q });
  const only = body.items.length === 1 ? pageOfPath(body.items[0].path) : null;
  return only ?? `#/search/${encodeURIComponent(q)}`;
}
