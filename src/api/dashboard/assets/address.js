// The address page: its detail, its balance per day, and its transactions page by page (by the
// spec's cursor: `next_cursor` leads to older transactions; the cursors already used lead back).
// A pow address also shows its one-time keys, or, a multi-signature address, its signatories and spends.

import { field, fill, h } from './dom.js';
import { isMultiSigAddress, multiSigPanel, otsPanel } from './pow-keys.js';
import { coinsNumber, compact, groupedCoins, shortHash, UNIT } from './units.js';

const PAGE_SIZE = 25;

/** The chain an address belongs to, by its form (docs: pow Q + 78 hex, pos Q/Z/0x + 40 hex or Q + 128 hex); null if neither. */
export function chainOfAddress(text) {
  const a = text.trim();
  if (/^Q[0-9a-fA-F]{78}$/.test(a)) return 'pow';
  if (/^(Q|Z|0x)[0-9a-fA-F]{40}$/i.test(a) || /^Q[0-9a-fA-F]{128}$/i.test(a)) return 'pos';
  return null;
}

export function renderAddress(root, { api, chain, address, echarts, openAddress, track }) {
  const detail = h('dl', { class: 'fields', 'data-part': 'detail' }, h('p', { class: 'muted' }, 'loading…'));
  const chartEl = h('div', { class: 'chart', 'data-chart': 'balance-history' });
  const txBody = h('tbody');
  const pager = h('div', { class: 'pager' });
  const keys = chain !== 'pow' ? null : isMultiSigAddress(address) ? multiSigPanel(api, address) : otsPanel(api, address);
  fill(
    root,
    h(
      'section',
      { class: 'address-page', 'data-address': address, 'data-chain': chain },
      h('a', { href: `#/chain/${chain}`, class: 'back' }, `← ${chain} charts`),
      h('h2', {}, h('span', { class: `chain-tag ${chain}` }, chain), ' ', h('code', { class: 'address' }, address)),
      h('div', { class: 'card' }, detail),
      keys?.el,
      h('div', { class: 'card' }, h('h3', {}, `Balance per day (${UNIT})`), chartEl),
      h(
        'div',
        { class: 'card' },
        h('h3', {}, 'Transactions'),
        h('div', { class: 'table-wrap' }, h('table', { class: 'txs' }, h('thead', {}, h('tr', {}, ['time', 'hash', 'type', 'from', 'to', `value (${UNIT})`, `fee (${UNIT})`].map((c) => h('th', {}, c)))), txBody)),
        pager,
      ),
    ),
  );

  const linkTo = (other) => {
    if (!other) return '–';
    if (other === address) return h('span', { class: 'self', title: other }, 'this address');
    return h('a', { href: `#/address/${chain}/${other}`, title: other, onclick: (e) => (e.preventDefault(), openAddress(chain, other)) }, shortHash(other, 7));
  };

  async function loadDetail() {
    const d = await api.get(`/${chain}/addresses/${encodeURIComponent(address)}`, { with_labels: true });
    fill(
      detail,
      field('balance', `${groupedCoins(d.balance, chain)} ${UNIT}`, { 'data-field': 'balance', 'data-raw': d.balance ?? '' }),
      field('transactions', d.tx_count === null ? '–' : d.tx_count.toLocaleString('en'), { 'data-field': 'tx_count' }),
      field('received', `${groupedCoins(d.total_received, chain)} ${UNIT}`),
      field('sent', `${groupedCoins(d.total_sent, chain)} ${UNIT}`),
      field('fees paid', `${groupedCoins(d.total_fees_paid, chain)} ${UNIT}`),
      field('first seen', d.first_seen),
      field('last seen', d.last_seen),
      d.label ? field('label', `${d.label}${d.label_category ? ` (${d.label_category})` : ''}`) : null,
      d.master_address ? field('master', linkTo(d.master_address)) : null,
      d.wallet_class ? field('class', d.wallet_class) : null,
    );
  }

  async function loadBalance() {
    const body = await api.get(`/${chain}/addresses/${encodeURIComponent(address)}/balance-history`);
    const chart = track(echarts.init(chartEl));
    if (body.items.length === 0) {
      chartEl.dataset.state = 'empty';
      chart.setOption({ title: { text: 'no activity', left: 'center', top: 'middle', textStyle: { color: '#999', fontSize: 13 } }, series: [] });
      return;
    }
    chart.setOption({
      color: ['#2f6fde'],
      grid: { left: 64, right: 24, top: 16, bottom: 32 },
      tooltip: { trigger: 'axis' },
      xAxis: { type: 'category', data: body.items.map((d) => d.day) },
      yAxis: { type: 'value', axisLabel: { formatter: compact } },
      series: [{ name: 'balance', type: 'line', step: 'end', showSymbol: body.items.length < 40, areaStyle: { opacity: 0.12 }, data: body.items.map((d) => coinsNumber(d.net_delta_cumulative, chain)) }],
    });
    chartEl.dataset.state = 'ready';
  }

  // Cursors of the pages before this one (undefined: the newest page).
  const previous = [];
  let cursor;
  let shown = 0;

  async function loadTransactions() {
    const body = await api.get(`/${chain}/addresses/${encodeURIComponent(address)}/transactions`, { limit: PAGE_SIZE, cursor });
    fill(
      txBody,
      body.items.length === 0
        ? h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'no transactions'))
        : body.items.map((tx) =>
            h(
              'tr',
              { 'data-tx': tx.tx_hash },
              h('td', { class: 'nowrap' }, tx.timestamp ?? '–'),
              h('td', {}, h('a', { href: `#/tx/${chain}/${encodeURIComponent(tx.tx_hash)}`, title: tx.tx_hash }, h('code', {}, shortHash(tx.tx_hash, 6)))),
              h('td', {}, tx.tx_type ?? '–'),
              h('td', {}, linkTo(tx.from_addr)),
              h('td', {}, linkTo(tx.to_addr)),
              h('td', { class: `num ${tx.to_addr === address ? 'in' : tx.from_addr === address ? 'out' : ''}` }, groupedCoins(tx.value, chain)),
              h('td', { class: 'num' }, groupedCoins(tx.fee, chain)),
            ),
          ),
    );
    const first = shown + 1;
    const last = shown + body.items.length;
    fill(
      pager,
      h('button', { type: 'button', disabled: previous.length === 0, 'data-page': 'newer', onclick: () => turn(-1) }, '← newer'),
      h('span', { class: 'muted', 'data-part': 'page' }, body.items.length ? `${first.toLocaleString('en')}–${last.toLocaleString('en')}${body.total === null ? '' : ` of ${body.total.toLocaleString('en')}`}` : ''),
      h('button', { type: 'button', disabled: !body.has_more || !body.next_cursor, 'data-page': 'older', onclick: () => turn(1, body.next_cursor) }, 'older →'),
    );
    pager.dataset.state = 'ready';
  }

  function turn(direction, next) {
    pager.dataset.state = 'loading';
    if (direction > 0) {
      previous.push(cursor);
      cursor = next;
      shown += PAGE_SIZE;
    } else {
      cursor = previous.pop();
      shown = Math.max(0, shown - PAGE_SIZE);
    }
    loadTransactions().catch(report);
  }

  const report = (error) => {
    console.error(error);
    root.querySelector('.address-page')?.prepend(h('p', { class: 'error' }, `Could not load this address: ${error.message}`));
  };

  const refresh = () => Promise.all([loadDetail(), loadBalance(), loadTransactions(), keys?.load()]).catch(report);
  return { ready: refresh(), refresh: () => Promise.all([loadDetail(), cursor === undefined ? loadTransactions() : null, keys?.load()]).catch(report) };
}
