// Items, newest first: filters (status, queue, text in titles) in the URL's hash, keyset pages of 50.
import { api } from './api.js';
import { h, itemLink, replace, statusBadge, time } from './dom.js';

const STATUSES = ['', 'ready', 'blocked', 'leased', 'completed', 'cancelled'];

function hashOf(filter) {
	const search = new URLSearchParams();
	for (const [name, value] of Object.entries(filter)) {
		if (value) {
			search.set(name, value);
		}
	}
	const text = search.toString();
	return '#/items' + (text ? '?' + text : '');
}

export function itemsPage(container, parameters) {
	const filter = {
		status: parameters.get('status') || '',
		queue: parameters.get('queue') || '',
		q: parameters.get('q') || '',
		cursor: parameters.get('cursor') || '',
	};
	const status = h('select', { name: 'status', 'aria-label': 'Status' },
		STATUSES.map((value) => h('option', { value, selected: value === filter.status }, value || 'any status')));
	const queue = h('input', { name: 'queue', placeholder: 'queue', 'aria-label': 'Queue', maxlength: 100 });
	queue.value = filter.queue;
	const q = h('input', { name: 'q', type: 'search', placeholder: 'text in titles (3+ characters)',
		'aria-label': 'Text in titles', maxlength: 200 });
	q.value = filter.q;
	const form = h('form', { id: 'item-filters', class: 'filters', method: 'get' }, status, queue, q,
		h('button', { type: 'submit' }, 'Filter'));
	form.addEventListener('submit', (event) => {
		event.preventDefault();
		location.hash = hashOf({ status: status.value, queue: queue.value.trim(), q: q.value.trim() });
	});
	const results = h('div', { id: 'items' }, h('p', { class: 'muted' }, 'Loading…'));
	replace(container, h('h1', {}, 'Items'), form, results);

	let live = true;
	api.items({ status: filter.status, queue: filter.queue, q: filter.q, cursor: filter.cursor, limit: 50,
		order: 'newest' })
		.then((page) => {
			if (!live) return;
			const rows = page.items.map((item) => h('tr', { 'data-item-id': item.id },
				h('td', { class: 'title' }, itemLink(item.id, item.title)),
				h('td', {}, statusBadge(item.status)),
				h('td', {}, item.queue),
				h('td', { class: 'number' }, String(item.priority)),
				h('td', { class: 'when' }, time(item.createdAt))));
			const navigation = h('p', { class: 'pages' },
				filter.cursor ? h('a', { href: hashOf({ ...filter, cursor: '' }) }, 'First page') : null,
				page.nextCursor ? h('a', { id: 'next-page', href: hashOf({ ...filter, cursor: page.nextCursor }) },
					'Next page') : null);
			replace(results, rows.length === 0 ? h('p', { class: 'muted' }, 'No items match.')
				: h('table', { class: 'list' },
					h('thead', {}, h('tr', {}, ['Title', 'Status', 'Queue', 'Priority', 'Created'].map((name) =>
						h('th', name === 'Created' ? { class: 'when' } : {}, name)))),
					h('tbody', {}, rows)),
				navigation);
		})
		.catch((failure) => {
			if (live) replace(results, h('p', { class: 'error', role: 'alert' }, failure.message));
		});
	return () => {
		live = false;
	};
}
