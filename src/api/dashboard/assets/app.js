// The dashboard: both chains' tips, the latest blocks and transactions and the charts of the chosen
// chain, block, transaction, address, token and validator pages, a search, and live updates from
// each chain's event stream (GET /api/v1/{chain}/events).

import { createApi, storedKey, storeKey, apiUrl } from './api.js';
import { CHARTS, SECTIONS } from './charts.js';
import { chainOfAddress, renderAddress } from './address.js';
import { fill, h } from './dom.js';
import { renderBlock, renderLatest, renderSearch, renderTransaction, searchTarget } from './explorer.js';
import { followEvents } from './sse.js';
import { renderToken, renderTokens } from './token.js';
import { renderValidator, renderValidators } from './validator.js';
import { ago } from './units.js';

const CHAINS = ['pow', 'pos'];
/** Charts are fetched again at most this often while blocks arrive. */
const REFRESH_MS = 3000;

const config = JSON.parse(document.getElementById('quarry-config').textContent);
const echarts = window.echarts;

// The key: the one this browser saved, else the demo's (quarry demo only), else asked for.
let key = storedKey() ?? config.demoKey ?? null;
const api = createApi({ key: () => key, onUnauthorized: () => askForKey('That key was refused. Enter a valid API key.') });

// ---- layout -----------------------------------------------------------------------------------

const tipEls = {};
const liveEls = {};
const tips = {};
const header = h(
  'header',
  { class: 'top' },
  h('a', { class: 'brand', href: '#/' }, 'Quarry'),
  h(
    'div',
    { class: 'tips' },
    CHAINS.map((chain) => {
      tipEls[chain] = h('strong', { 'data-tip': chain }, '–');
      liveEls[chain] = h('span', { class: 'live', 'data-live': chain, title: 'event stream' });
      return h('span', { class: 'tip' }, liveEls[chain], h('span', { class: `chain-tag ${chain}` }, chain), ' tip ', tipEls[chain], h('small', { 'data-tip-age': chain }));
    }),
  ),
  h(
    'nav',
    { class: 'switch', 'aria-label': 'chain' },
    CHAINS.map((chain) => h('a', { href: `#/chain/${chain}`, 'data-switch': chain }, chain)),
  ),
  h(
    'form',
    { class: 'search', role: 'search', onsubmit: search },
    h('input', { type: 'search', name: 'q', placeholder: 'Address, transaction or block hash, height, token, label', 'aria-label': 'search', autocomplete: 'off', spellcheck: 'false' }),
    h('button', { type: 'submit' }, 'Go'),
  ),
  h('button', { type: 'button', class: 'key-button', onclick: () => askForKey() }, 'API key'),
);
const message = h('p', { class: 'message', hidden: true });
const main = h('main');
const keyInput = h('input', { type: 'password', name: 'key', autocomplete: 'off', placeholder: 'API key', required: true, size: 40 });
const keyNote = h('p', { class: 'muted' });
const keyDialog = h(
  'dialog',
  { class: 'key-dialog' },
  h(
    'form',
    { method: 'dialog', onsubmit: saveKey },
    h('h2', {}, 'API key'),
    keyNote,
    keyInput,
    h('p', { class: 'muted small' }, 'Kept in this browser only (localStorage); sent as Authorization: Bearer to this server.'),
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => keyDialog.close() }, 'Cancel'), h('button', { type: 'submit', class: 'primary' }, 'Save')),
  ),
);
document.body.append(header, message, main, keyDialog);

function askForKey(note = 'Every /api/v1 call needs a key (`quarry keys create`, or QUARRY_API_KEYS).') {
  keyNote.textContent = note;
  keyInput.value = key ?? '';
  if (!keyDialog.open) keyDialog.showModal();
}

function saveKey(event) {
  event.preventDefault();
  key = keyInput.value.trim() || null;
  storeKey(key);
  keyDialog.close();
  restart();
}

function showMessage(text) {
  message.textContent = text ?? '';
  message.hidden = !text;
}

async function search(event) {
  event.preventDefault();
  const text = new FormData(event.target).get('q').trim();
  if (!text) return;
  showMessage(null);
  try {
    location.hash = await searchTarget(api, text, chainOfAddress);
  } catch (error) {
    if (error.status !== 401) showMessage(`Could not search: ${error.message}`);
  }
}

function openAddress(chain, address) {
  location.hash = `#/address/${chain}/${address}`;
}

// ---- tips ---------------------------------------------------------------------------------------

function showTip(chain, height, time) {
  if (height === null || height === undefined) return;
  tips[chain] = { height, time };
  tipEls[chain].textContent = `#${Number(height).toLocaleString('en')}`;
  tipEls[chain].dataset.height = String(height);
  document.querySelector(`[data-tip-age="${chain}"]`).textContent = time ? ` · ${ago(time)}` : '';
}

/** Seconds between two asks while a chain is still loading (the demo's first start answers 503 until it is in). */
const LOADING_RETRY_MS = 5000;
let loadingShown = false;

async function loadTips() {
  let body;
  try {
    body = await api.get('/analytics/dashboard/summary');
  } catch (error) {
    if (error.status !== 503) throw error;
    // Says what is still loading (the problem's detail), and asks again until it is in; then the view is fetched anew.
    showMessage(error.message);
    loadingShown = true;
    setTimeout(() => loadTips().catch(() => {}), LOADING_RETRY_MS);
    return;
  }
  if (loadingShown) {
    loadingShown = false;
    showMessage(null);
    view?.refresh();
  }
  for (const chain of CHAINS) showTip(chain, body.chains[chain]?.max_height, body.chains[chain]?.latest_block_time);
}

setInterval(() => {
  for (const chain of CHAINS) if (tips[chain]) showTip(chain, tips[chain].height, tips[chain].time);
}, 10_000);

// ---- views --------------------------------------------------------------------------------------

/** ECharts instances of the current view, disposed when it changes. */
let instances = [];
let view = null;
/** Counts views: an answer that arrives after its view was left is dropped. */
let generation = 0;

function track(instance) {
  instances.push(instance);
  return instance;
}

function disposeView() {
  for (const instance of instances) instance.dispose();
  instances = [];
  view = null;
}

function route() {
  const [, kind, a, b] = location.hash.split('/');
  if (kind === 'address' && CHAINS.includes(a) && b) return { kind: 'address', chain: a, address: decodeURIComponent(b) };
  if (kind === 'block' && CHAINS.includes(a) && b) return { kind: 'block', chain: a, id: decodeURIComponent(b) };
  if (kind === 'tx' && CHAINS.includes(a) && b) return { kind: 'tx', chain: a, hash: decodeURIComponent(b) };
  if (kind === 'token' && CHAINS.includes(a) && b) return { kind: 'token', chain: a, id: decodeURIComponent(b) };
  if (kind === 'tokens' && CHAINS.includes(a)) return { kind: 'tokens', chain: a };
  // Validators are pos's only: their routes name no chain.
  if (kind === 'validator' && a) return { kind: 'validator', id: decodeURIComponent(a) };
  if (kind === 'validators') return { kind: 'validators' };
  if (kind === 'search' && a) return { kind: 'search', q: decodeURIComponent(a) };
  return { kind: 'charts', chain: CHAINS.includes(a) && kind === 'chain' ? a : rememberedChain() };
}

function rememberedChain() {
  try {
    const chain = localStorage.getItem('quarry.chain');
    return CHAINS.includes(chain) ? chain : 'pos';
  } catch {
    return 'pos';
  }
}

/** Each explorer page by its route's kind; the charts view is the rest. */
const PAGES = {
  address: (r, isCurrent) => renderAddress(main, { api, chain: r.chain, address: r.address, echarts, openAddress, track: (instance) => (isCurrent() ? track(instance) : instance) }),
  block: (r) => renderBlock(main, { api, chain: r.chain, id: r.id }),
  tx: (r) => renderTransaction(main, { api, chain: r.chain, hash: r.hash }),
  token: (r) => renderToken(main, { api, chain: r.chain, id: r.id }),
  tokens: (r) => renderTokens(main, { api, chain: r.chain }),
  validator: (r) => renderValidator(main, { api, id: r.id }),
  validators: () => renderValidators(main, { api }),
  search: (r) => renderSearch(main, { api, q: r.q }),
};

function render() {
  disposeView();
  const current = ++generation;
  const isCurrent = () => current === generation;
  document.body.dataset.charts = 'loading';
  const r = route();
  for (const link of document.querySelectorAll('[data-switch]')) link.classList.toggle('active', r.kind === 'charts' && link.dataset.switch === r.chain);
  if (!key) {
    fill(main, h('p', { class: 'empty-state' }, 'Enter an API key to see the charts.'));
    askForKey();
    return;
  }
  const page = PAGES[r.kind]?.(r, isCurrent) ?? null;
  if (page) {
    view = page;
    view.ready.then(() => isCurrent() && (document.body.dataset.charts = 'ready'));
    return;
  }
  try {
    localStorage.setItem('quarry.chain', r.chain);
  } catch {
    // Not kept: the default chain is shown next time.
  }
  view = renderCharts(r.chain, isCurrent);
}

function renderCharts(chain, isCurrent) {
  const charts = CHARTS.filter((c) => c.chains.includes(chain));
  const cards = new Map();
  // One grid for every chart, each card labelled with its section, so that a wide screen fills its rows.
  const sectionTitle = new Map(SECTIONS.map((section) => [section.id, section.title]));
  const ordered = SECTIONS.flatMap((section) => charts.filter((c) => c.section === section.id));
  fill(
    main,
    h(
      'nav',
      { class: 'explore', 'data-part': 'explore' },
      h('a', { href: `#/tokens/${chain}` }, `${chain} tokens`),
      chain === 'pos' ? h('a', { href: '#/validators' }, 'validators') : null,
    ),
  );
  const latest = renderLatest(main, { api, chain });
  main.append(
    h(
      'div',
      { class: 'grid' },
      ordered.map((chart) => {
        const el = h('div', { class: 'chart', 'data-chart': chart.id, 'data-chain': chain, 'data-state': 'loading' });
        cards.set(chart.id, el);
        return h(
          'article',
          { class: 'card', 'data-section': chart.section },
          h('p', { class: 'section-tag' }, sectionTitle.get(chart.section)),
          h('h3', {}, chart.title),
          h('p', { class: 'note' }, chart.note),
          el,
        );
      }),
    ),
  );
  const drawn = new Map();
  async function draw(chart) {
    const el = cards.get(chart.id);
    try {
      const body = await chart.load(api, chain);
      if (!isCurrent()) return;
      let instance = drawn.get(chart.id);
      if (!instance) {
        instance = track(echarts.init(el));
        drawn.set(chart.id, instance);
        if (chart.onClick) instance.on('click', (params) => chart.onClick(params, chain, openAddress));
      }
      if (chart.empty(body)) {
        instance.setOption({ title: { text: 'no data yet', left: 'center', top: 'middle', textStyle: { color: '#999', fontSize: 13 } }, series: [] }, true);
        el.dataset.state = 'empty';
      } else {
        // A chart already drawn is updated in place (merged), so a new block moves it instead of redrawing it.
        instance.setOption(chart.option(body, chain), { notMerge: el.dataset.state !== 'ready' });
        el.dataset.state = 'ready';
      }
      delete el.dataset.stale;
      el.dataset.updated = String(Date.now());
    } catch (error) {
      if (!isCurrent() || error.status === 401) return;
      // A chart already drawn keeps its drawing until the next answer; one never drawn says why.
      if (drawn.has(chart.id)) el.dataset.stale = 'true';
      else {
        el.dataset.state = 'error';
        fill(el, h('p', { class: 'error' }, `Could not load: ${error.message}`));
      }
    }
  }
  const drawAll = () => Promise.all(charts.map(draw));
  const latestShown = latest.ready.catch((error) => error.status !== 401 && showMessage(`Could not load the latest blocks: ${error.message}`));
  const ready = Promise.all([drawAll(), latestShown]).then(() => isCurrent() && (document.body.dataset.charts = 'ready'));
  return { ready, refresh: () => Promise.all([drawAll(), latest.refresh().catch(() => {})]) };
}

window.addEventListener('hashchange', render);
window.addEventListener('resize', () => instances.forEach((i) => i.resize()));

// ---- live updates -------------------------------------------------------------------------------

let refreshTimer = null;
let lastRefresh = 0;
/** Fetches the visible view again, at most once per REFRESH_MS (the last request in a burst wins). */
function scheduleRefresh() {
  if (refreshTimer) return;
  const wait = Math.max(0, lastRefresh + REFRESH_MS - Date.now());
  refreshTimer = setTimeout(() => {
    refreshTimer = null;
    lastRefresh = Date.now();
    view?.refresh();
  }, wait);
}

const LIVE_TITLES = { connecting: 'connecting to the event stream', live: 'live: updates as blocks arrive', reconnecting: 'event stream dropped: reconnecting', unavailable: 'this server has no event stream', unauthorized: 'event stream refused the key' };

function onEvent(chain, { event, data }) {
  if (event === 'block' && data) {
    const height = Number(data.height);
    if (!tips[chain] || height >= tips[chain].height) showTip(chain, height, data.timestamp ?? null);
    scheduleRefresh();
  } else if (event === 'reorg' || event === 'gap') {
    // The tip may have moved back, or events were missed: ask again.
    loadTips().catch(() => {});
    scheduleRefresh();
  } else if (event === 'day') {
    scheduleRefresh();
  }
}

let streams = null;
function follow() {
  streams?.abort();
  streams = new AbortController();
  for (const chain of CHAINS) {
    followEvents({
      url: apiUrl(`/${chain}/events`),
      key: () => key,
      signal: streams.signal,
      onEvent: (message) => onEvent(chain, message),
      onState: (state) => {
        liveEls[chain].dataset.state = state;
        liveEls[chain].title = LIVE_TITLES[state] ?? state;
      },
    });
  }
}

function restart() {
  showMessage(null);
  render();
  if (!key) return;
  loadTips().catch((error) => error.status !== 401 && showMessage(`Could not load the tips: ${error.message}`));
  follow();
}

restart();
