// A tiny element builder: h('div', { class: 'x', onclick }, child, 'text', …).

export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Empties `el` and fills it with `children`. */
export function fill(el, ...children) {
  el.replaceChildren();
  for (const child of children.flat()) if (child !== undefined && child !== null && child !== false) el.append(child instanceof Node ? child : String(child));
  return el;
}

/** One labelled figure of a page's `dl.fields`. */
export function field(label, value, attrs = {}) {
  return h('div', { class: 'field' }, h('dt', {}, label), h('dd', attrs, value ?? '–'));
}
