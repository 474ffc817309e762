import { axisTicks } from './axis';
import { h, svg } from './dom';

/** Hand-drawn inline SVG charts: bars (grouped or stacked) with a legend; no chart library. */

const PALETTE = ['#2f6fde', '#1a9e5c', '#d9822b', '#c23030', '#7c4dbd', '#00838f', '#8d6e63'];

/** Set through the CSSOM: the console's content security policy refuses inline style attributes. */
function swatch(color: string): HTMLElement {
  const i = h('i', {});
  i.style.background = color;
  return i;
}

interface Series {
  name: string;
  values: number[];
  /**
   * The status this series counts (EXPIRED, AMBIGUOUS…, or CONFLICT): drawn in its badge's colour (the
   * `--ink-*` custom properties of console.css, one place for both), else a palette colour.
   */
  status?: string;
}

export interface BarChartOptions {
  title: string;
  testId: string;
  labels: string[];
  series: Series[];
  /** What the labels along the bottom are, and what the bars measure, with its unit. */
  xTitle: string;
  yTitle: string;
  stacked?: boolean;
  unit?: string;
  /** Counts: ticks on whole numbers only (no "0.5 transactions"). */
  integer?: boolean;
  /** Said under the chart (what is shown apart from it). */
  note?: Node | string | null;
  /**
   * A value of 0 is a measurement, drawn as a sliver with its label (time to final: a payment final when
   * the relay first heard of it took 0 s); elsewhere 0 means nothing to draw.
   */
  zeroIsValue?: boolean;
}

function fmt(n: number, unit = ''): string {
  const text = Number.isInteger(n) ? String(n) : n.toFixed(n < 10 ? 2 : 1);
  return unit ? `${text} ${unit}` : text;
}

const colourClass = (s: Series) => (s.status ? `c-${s.status.toLowerCase()}` : null);

export function barChart(options: BarChartOptions): HTMLElement {
  const { labels, series } = options;
  const width = 520;
  const height = 240;
  const pad = { left: 58, right: 8, top: 12, bottom: 52 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const totals = labels.map((_, i) =>
    options.stacked
      ? series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0)
      : Math.max(0, ...series.map((s) => s.values[i] ?? 0)),
  );
  const ticks = axisTicks(Math.max(0, ...totals), options.integer ?? false);
  const max = ticks.at(-1)!;
  const y = (v: number) => pad.top + plotH - (v / max) * plotH;
  const band = plotW / Math.max(1, labels.length);
  const barW = options.stacked ? band * 0.6 : (band * 0.8) / Math.max(1, series.length);
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': `${options.title}: ${options.yTitle} by ${options.xTitle}`,
  });
  for (const v of ticks) {
    chart.appendChild(
      svg('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: 'gridline' }),
    );
    chart.appendChild(
      svg('text', { x: pad.left - 4, y: y(v) + 4, 'text-anchor': 'end', class: 'axis tick' }, fmt(v)),
    );
  }
  labels.forEach((label, i) => {
    const x0 = pad.left + i * band;
    let stackBase = 0;
    series.forEach((s, k) => {
      const v = s.values[i] ?? 0;
      if (v < 0 || (v === 0 && !options.zeroIsValue)) return;
      const x = options.stacked ? x0 + (band - barW) / 2 : x0 + band * 0.1 + k * barW;
      const top = options.stacked ? y(stackBase + v) : y(v);
      const bottom = options.stacked ? y(stackBase) : y(0);
      stackBase += v;
      const colour = colourClass(s);
      chart.appendChild(
        svg(
          'rect',
          {
            x,
            y: top,
            width: Math.max(1, barW - 2),
            height: Math.max(1, bottom - top),
            ...(colour ? {} : { fill: PALETTE[k % PALETTE.length]! }),
            'data-series': s.name,
            'data-label': label,
            'data-value': v,
            class: colour ? `bar ${colour}` : 'bar',
          },
          svg('title', {}, `${label} · ${s.name}: ${fmt(v, options.unit)}`),
        ),
      );
      if (!options.stacked)
        chart.appendChild(
          svg('text', { x: x + barW / 2 - 1, y: top - 2, 'text-anchor': 'middle', class: 'value' }, fmt(v)),
        );
    });
    if (options.stacked && stackBase > 0)
      chart.appendChild(
        svg(
          'text',
          { x: x0 + band / 2, y: y(stackBase) - 2, 'text-anchor': 'middle', class: 'value' },
          fmt(stackBase),
        ),
      );
    chart.appendChild(
      svg(
        'text',
        { x: x0 + band / 2, y: height - pad.bottom + 14, 'text-anchor': 'middle', class: 'axis' },
        label,
      ),
    );
  });
  chart.appendChild(
    svg('line', { x1: pad.left, x2: width - pad.right, y1: y(0), y2: y(0), class: 'baseline' }),
  );
  chart.appendChild(
    svg(
      'text',
      {
        x: pad.left + plotW / 2,
        y: height - 8,
        'text-anchor': 'middle',
        class: 'axis-title',
        'data-axis': 'x',
      },
      options.xTitle,
    ),
  );
  chart.appendChild(
    svg(
      'text',
      {
        x: 0,
        y: 0,
        transform: `translate(14 ${pad.top + plotH / 2}) rotate(-90)`,
        'text-anchor': 'middle',
        class: 'axis-title',
        'data-axis': 'y',
      },
      options.yTitle,
    ),
  );
  const legend = h(
    'div',
    { class: 'legend' },
    series.map((s, k) => {
      const colour = colourClass(s);
      const chip = colour ? h('i', { class: colour }) : swatch(PALETTE[k % PALETTE.length]!);
      return h('span', { 'data-series': s.name }, chip, ` ${s.name}`);
    }),
  );
  const empty = labels.length === 0 || totals.every((t) => t === 0);
  return h(
    'figure',
    { class: 'chart', 'data-testid': options.testId },
    h('figcaption', {}, options.title, options.unit ? h('small', {}, ` (${options.unit})`) : null),
    empty ? h('p', { class: 'muted' }, 'Nothing in this range.') : chart,
    empty ? null : legend,
    options.note ? h('p', { class: 'muted chart-note' }, options.note) : null,
  );
}

/** A row of small bars (one per hour): a callback rate at a glance. */
export function sparkline(values: number[], label: string): SVGElement {
  const width = 120;
  const height = 24;
  const max = Math.max(1, ...values);
  const w = width / Math.max(1, values.length);
  return svg(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label, class: 'spark' },
    values.map((v, i) =>
      svg('rect', {
        x: i * w,
        y: height - (v / max) * height,
        width: Math.max(1, w - 1),
        height: (v / max) * height || 0.5,
      }),
    ),
  );
}
