// Every value that comes from the API is attacker-controlled text (agents write titles, questions,
// context and metadata). It only ever reaches the page through textContent and attribute setters
// below; nothing here parses HTML, and links are built only from ids the console validated.

const SVG = 'http://www.w3.org/2000/svg';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isId(value) {
	return typeof value === 'string' && UUID.test(value);
}

function append(parent, children) {
	for (const child of children.flat()) {
		if (child === null || child === undefined || child === false) {
			continue;
		}
		parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
	}
	return parent;
}

function setAttributes(element, attributes) {
	for (const [name, value] of Object.entries(attributes || {})) {
		if (value === null || value === undefined || value === false) {
			continue;
		}
		if (name.startsWith('on')) {
			element.addEventListener(name.slice(2), value);
		}
		else if (name === 'class') {
			element.setAttribute('class', value);
		}
		else {
			element.setAttribute(name, value === true ? '' : String(value));
		}
	}
	return element;
}

/** An HTML element: h('a', {href: '#/x'}, 'text', child, …); strings become text nodes. */
export function h(tag, attributes, ...children) {
	return append(setAttributes(document.createElement(tag), attributes), children);
}

/** An SVG element, likewise. */
export function s(tag, attributes, ...children) {
	return append(setAttributes(document.createElementNS(SVG, tag), attributes), children);
}

/** The in-console link to an item; no link at all for anything that is not an id. */
export function itemLink(id, text, attributes = {}) {
	if (!isId(id)) {
		return h('span', {}, text);
	}
	return h('a', { ...attributes, href: '#/items/' + id.toLowerCase() }, text);
}

export function statusBadge(status) {
	const known = ['ready', 'blocked', 'leased', 'completed', 'cancelled', 'open', 'resolved'];
	const name = known.includes(status) ? status : 'unknown';
	return h('span', { class: 'status status-' + name, 'data-status': name }, String(status));
}

export function replace(parent, ...children) {
	parent.replaceChildren();
	return append(parent, children);
}

export function time(value) {
	if (!value) {
		return '';
	}
	const date = new Date(value);
	return Number.isNaN(date.getTime()) ? String(value) : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** 3 s, 4 min 10 s, 2 h 5 min, 3 d 4 h. */
export function age(seconds) {
	if (seconds === null || seconds === undefined) {
		return '—';
	}
	const s = Math.floor(seconds);
	if (s < 60) return s + ' s';
	if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
	if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
	return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
}

/** JSON as indented text, for metadata, context and results. */
export function jsonText(value) {
	try {
		return JSON.stringify(value, null, 2);
	}
	catch {
		return String(value);
	}
}

export function truncate(text, length) {
	const chars = Array.from(String(text ?? ''));
	return chars.length <= length ? chars.join('') : chars.slice(0, length - 1).join('') + '…';
}
