// The charts of one chain: what each one asks the API and how its answer becomes an ECharts option.
// Every option's first series holds the chart's main figure, one point per day (or per row).

import { coinsNumber, compact, shortHash, UNIT } from './units.js';

const PALETTE = ['#2f6fde', '#e0772b', '#2ca58d', '#9b59b6', '#d64550', '#7f8c8d'];

const base = () => ({
  color: PALETTE,
  animationDuration: 400,
  grid: { left: 56, right: 24, top: 36, bottom: 32 },
  tooltip: { trigger: 'axis' },
  legend: { top: 0, right: 8, itemWidth: 14, itemHeight: 8, textStyle: { fontSize: 11 } },
});

const dayAxis = (items) => ({ type: 'category', data: items.map((d) => d.day), axisLabel: { formatter: (day) => day.slice(5) } });
const valueAxis = (name, extra = {}) => ({ type: 'value', name, nameTextStyle: { align: 'left' }, axisLabel: { formatter: compact }, ...extra });
const line = (name, data, extra = {}) => ({ name, type: 'line', data, showSymbol: false, smooth: false, ...extra });
const bar = (name, data, extra = {}) => ({ name, type: 'bar', data, ...extra });

/**
 * `chains`: where the chart applies (pow burns no fees). `load(api, chain)`: the answer.
 * `option(body, chain)`: the ECharts option. `empty(body)`: true when there is nothing to draw.
 */
export const CHARTS = [
  {
    id: 'active-addresses',
    section: 'network',
    title: 'Active addresses per day',
    note: 'DAU, WAU, MAU · 90 days',
    chains: ['pow', 'pos'],
    load: (api, chain) => api.get('/analytics/network/active-addresses-daily', { chain, window: '90d' }),
    empty: (body) => body.items.length === 0,
    option: (body) => ({
      ...base(),
      xAxis: dayAxis(body.items),
      yAxis: valueAxis('addresses'),
      series: [line('DAU', body.items.map((d) => d.dau), { areaStyle: { opacity: 0.15 } }), line('WAU', body.items.map((d) => d.wau)), line('MAU', body.items.map((d) => d.mau))],
    }),
  },
  {
    id: 'block-times',
    section: 'network',
    title: 'Blocks and block time',
    note: 'blocks per day, mean seconds between blocks · 30 days',
    chains: ['pow', 'pos'],
    load: (api, chain) => api.get('/analytics/block-times', { chain, window: '30d' }),
    empty: (body) => body.items.length === 0,
    option: (body) => ({
      ...base(),
      grid: { left: 56, right: 48, top: 36, bottom: 32 },
      xAxis: dayAxis(body.items),
      yAxis: [valueAxis('blocks'), valueAxis('s', { splitLine: { show: false } })],
      series: [
        bar('blocks', body.items.map((d) => d.block_count), { itemStyle: { opacity: 0.7 } }),
        line('block time (s)', body.items.map((d) => (d.avg_block_time_seconds === null ? null : Math.round(d.avg_block_time_seconds * 10) / 10)), { yAxisIndex: 1 }),
      ],
    }),
  },
  {
    id: 'tps',
    section: 'network',
    title: 'Transactions per second',
    note: 'mean over the last hour, day and week',
    chains: ['pow', 'pos'],
    load: async (api, chain) => {
      const body = await api.get('/analytics/network/tps');
      return { row: body.items.find((r) => r.chain === chain) ?? null };
    },
    empty: (body) => body.row === null,
    option: (body) => ({
      ...base(),
      tooltip: { trigger: 'axis', valueFormatter: (v) => `${v} tx/s` },
      xAxis: { type: 'category', data: ['1 hour', '24 hours', '7 days'] },
      yAxis: valueAxis('tx/s'),
      series: [bar('tx/s', [body.row.tps_1h, body.row.tps_24h, body.row.tps_7d], { barWidth: '40%', label: { show: true, position: 'top', formatter: ({ value }) => compact(value) } })],
    }),
  },
  {
    id: 'fee-percentiles',
    section: 'fees',
    title: 'Fees per transaction',
    note: `p50, p95, p99 of the day, in ${UNIT} · 30 days`,
    chains: ['pow', 'pos'],
    load: (api, chain) => api.get('/analytics/fees/percentiles', { chain, window: '30d' }),
    empty: (body) => body.items.length === 0,
    option: (body, chain) => ({
      ...base(),
      xAxis: dayAxis(body.items),
      yAxis: valueAxis(UNIT),
      series: [
        line('p50', body.items.map((d) => coinsNumber(d.fee_p50, chain))),
        line('p95', body.items.map((d) => coinsNumber(d.fee_p95, chain))),
        line('p99', body.items.map((d) => coinsNumber(d.fee_p99, chain))),
      ],
    }),
  },
  {
    id: 'fees-burned',
    section: 'fees',
    title: 'Fees burned per day',
    note: `base fee × gas used, in ${UNIT} · 30 days`,
    chains: ['pos'],
    load: (api) => api.get('/pos/fees/burned/daily', { window: '30d' }),
    empty: (body) => body.items.length === 0,
    option: (body) => ({
      ...base(),
      xAxis: dayAxis(body.items),
      yAxis: valueAxis(UNIT),
      series: [bar('burned', body.items.map((d) => coinsNumber(d.fee_burned_planck, 'pos')), { itemStyle: { color: PALETTE[4] } })],
    }),
  },
  {
    id: 'supply-curve',
    section: 'supply',
    title: 'Supply',
    note: `minted in total (genesis included), in ${UNIT} · 365 days`,
    chains: ['pow', 'pos'],
    load: (api, chain) => api.get('/analytics/supply/curve', { chain, window: '365d' }),
    empty: (body) => body.items.length === 0,
    option: (body, chain) => ({
      ...base(),
      legend: { show: false },
      tooltip: {
        trigger: 'axis',
        // The day's minting beside the total: the genesis day's would dwarf every other as a bar.
        formatter: ([point]) => {
          const d = body.items[point.dataIndex];
          return `${d.day}<br>total ${compact(coinsNumber(d.cumulative_minted, chain))} ${UNIT}<br>minted that day ${compact(coinsNumber(d.minted_today, chain))}<br>${d.block_count_today} blocks`;
        },
      },
      xAxis: dayAxis(body.items),
      yAxis: valueAxis(UNIT, { scale: true }),
      series: [line('total minted', body.items.map((d) => coinsNumber(d.cumulative_minted, chain)), { areaStyle: { opacity: 0.12 } })],
    }),
  },
  {
    id: 'whale-heatmap',
    section: 'whales',
    title: 'Whale activity',
    note: 'whales that moved funds per day, shaded by intensity · 90 days',
    chains: ['pow', 'pos'],
    load: (api, chain) => api.get('/analytics/whales/heatmap', { chain, window: '90d' }),
    empty: (body) => body.items.length === 0,
    option: (body, chain) => ({
      ...base(),
      legend: { show: false },
      tooltip: {
        trigger: 'item',
        formatter: ({ dataIndex }) => {
          const d = body.items[dataIndex];
          return `${d.day}<br>${d.movers} whales moved<br>${compact(coinsNumber(d.volume, chain))} ${UNIT}`;
        },
      },
      grid: { left: 56, right: 24, top: 16, bottom: 60 },
      xAxis: dayAxis(body.items),
      yAxis: { type: 'category', data: ['movers'], axisLabel: { show: false }, axisTick: { show: false } },
      visualMap: { min: 0, max: 1, dimension: 3, orient: 'horizontal', left: 'center', bottom: 0, itemHeight: 120, itemWidth: 10, text: ['busy', 'quiet'], inRange: { color: ['#eef3fb', '#2f6fde', '#10306b'] } },
      series: [
        {
          name: 'whale movers',
          type: 'heatmap',
          data: body.items.map((d, i) => [i, 0, d.movers, d.intensity]),
          label: { show: body.items.length <= 31, formatter: ({ value }) => (value[2] ? value[2] : '') },
          itemStyle: { borderColor: '#fff', borderWidth: 1 },
        },
      ],
    }),
  },
  {
    id: 'whale-leaderboard',
    section: 'whales',
    title: 'Largest whales',
    note: `balance in ${UNIT}; click a bar for the address`,
    chains: ['pow', 'pos'],
    load: (api, chain) => api.get('/analytics/whales/leaderboard', { chain, limit: 10 }),
    empty: (body) => body.items.length === 0,
    option: (body, chain) => {
      const rows = [...body.items].reverse();
      return {
        ...base(),
        legend: { show: false },
        tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
        grid: { left: 110, right: 56, top: 8, bottom: 24 },
        xAxis: valueAxis(''),
        yAxis: { type: 'category', data: rows.map((r) => shortHash(r.address, 6)), axisLabel: { fontFamily: 'monospace', fontSize: 11 } },
        series: [
          bar('balance', rows.map((r) => ({ value: coinsNumber(r.balance, chain), address: r.address })), {
            cursor: 'pointer',
            label: { show: true, position: 'right', formatter: ({ value }) => compact(value) },
          }),
        ],
      };
    },
    /** A click on a bar opens that whale's address page. */
    onClick: (params, chain, open) => params.data?.address && open(chain, params.data.address),
  },
];

export const SECTIONS = [
  { id: 'network', title: 'Network' },
  { id: 'fees', title: 'Fees' },
  { id: 'supply', title: 'Supply' },
  { id: 'whales', title: 'Whales' },
];
